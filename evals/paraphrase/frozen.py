"""Frozen phrasings of the paraphrase suite: never used while developing the planner.

Reported apart from the tuning part, so a number on these is an honest estimate of how the
planner handles wordings it was not fitted to.
"""

from __future__ import annotations

from evals.paraphrase.templates import Templates

FROZEN: Templates = {
    "med_active": (
        ("lay", "Is {x} one of the pills {subj_lay} take{s} these days?"),
        ("clinician", "pt currently on {x}?"),
    ),
    "med_absent": (
        ("lay", "Is {x} one of the pills {subj_lay} take{s} these days?"),
        ("relative", "Was {subj} put on {x} in the last few years?"),
    ),
    "cond_active": (
        ("lay", "Have the doctors said {subj_lay} {have} {x}?"),
        ("relative", "Is {x} still an issue for {obj} now?"),
    ),
    "cond_absent": (
        ("lay", "Have the doctors ever said {subj_lay} {have} {x}?"),
        ("clinician", "{x} on the problem list?"),
    ),
    "lab_latest": (
        ("clinician", "last {x}"),
        ("relative", "What did {poss} {x} come out at last time?"),
    ),
    "lab_max": (
        ("lay", "What's the most {poss} {x} has ever been?"),
        ("relative", "Highest {x} since records began?"),
    ),
    "ed_any": (
        ("relative", "Any trips to the emergency department over the years?"),
        ("typo", "{Have} {subj} been to the emergancy room?"),
    ),
    "ed_none": (
        ("relative", "Any trips to the emergency department over the years?"),
        ("typo", "{Have} {subj} been to the emergancy room?"),
    ),
    "allergy_yes": (
        ("lay", "Does {x} give {obj} a reaction, according to the record?"),
        ("relative", "Is {poss} {x} allergy still on record?"),
    ),
}
