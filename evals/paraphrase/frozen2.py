"""A second held-out part of the paraphrase suite (`--part frozen2`), written in round four.

It was written, like `frozen.FROZEN`, before the planner changed in that round and is never
used while developing it: measured once before the round's changes and once after. It exists
because the first frozen part's wordings had been read by the round's author, so this one is
the cleaner estimate of how the planner handles wordings it was not fitted to. Families are
the weak ones on the first frozen part (lay words and relative time) plus a few others.
"""

from __future__ import annotations

from evals.paraphrase.templates import Templates

_ED = (
    ("lay", "{Have} {subj} ever ended up in casualty?"),
    ("relative", "Any emergency department visits at any point?"),
    ("clinician", "prior ED presentations?"),
)

FROZEN2: Templates = {
    "med_active": (
        ("lay", "{Do} {subj} still get {x} from the chemist?"),
        ("relative", "{Am} {subj} on {x} as of today?"),
        ("clinician", "on {x} currently?"),
    ),
    "med_absent": (
        ("lay", "{Have} {subj} ever had {x} tablets prescribed?"),
        ("relative", "Any {x} in the past year?"),
        ("relative", "{Have} {subj} been given {x} over the last decade?"),
    ),
    "cond_active": (
        ("lay", "Is {x} something {subj_lay} {have} got?"),
        ("relative", "{Do} {subj} currently have {x}?"),
        ("pronoun", "Does the patient have {x}?"),
    ),
    "cond_absent": (
        ("lay", "Is {x} something {subj_lay} {have} got?"),
        ("relative", "Any {x} diagnosed over the past few years?"),
        ("pronoun", "Does the patient have {x}?"),
    ),
    "lab_latest": (
        ("lay", "What's {poss} {x} these days?"),
        ("relative", "{x} at the most recent check?"),
        ("filler", "Hi there, I was wondering what {poss} last {x} was?"),
    ),
    "lab_max": (
        ("lay", "What's the highest {poss} {x} has gone?"),
        ("relative", "Top {x} reading of all time?"),
        ("clinician", "max {x}?"),
    ),
    "ed_any": _ED,
    "ed_none": _ED,
    "allergy_yes": (
        ("lay", "Does {x} cause {obj} an allergic reaction?"),
        ("relative", "Is {poss} allergy to {x} still listed?"),
        ("typo", "allergic to {typo}?"),
    ),
}
