"""Tuning phrasings of the paraphrase suite: `{x}` is the fact's subject, `{p}` the pronoun set.

Each entry is (family, template). Pronoun sets: a patient says I/my/am I; a clinician says
she/he/the patient. Templates use `{am}`, `{is}`, `{poss}`, `{subj}`, `{have}`, `{do}`.
"""

from __future__ import annotations

Templates = dict[str, tuple[tuple[str, str], ...]]

TUNE: Templates = {
    # an active medication (expected: yes)
    "med_active": (
        ("plain", "{Am} {subj} taking {x}?"),
        ("pronoun", "{Is_pron} on {x} at the moment?"),
        ("filler", "Um, so, just checking, {am} {subj} still on {x} right now?"),
        ("typo", "{Am} {subj} taking {typo}?"),
        ("relative", "Has {subj} been prescribed {x} recently and still on it?"),
        ("clinician", "{x} - current med?"),
    ),
    # a drug never prescribed (expected: no)
    "med_absent": (
        ("plain", "{Am} {subj} taking {x}?"),
        ("pronoun", "{Is_pron} on {x}?"),
        ("filler", "Quick question, {have} {subj} ever been prescribed {x}?"),
        ("typo", "{Am} {subj} on {typo}?"),
        ("clinician", "any {x} on the med list?"),
    ),
    # an active condition (expected: yes)
    "cond_active": (
        ("plain", "{Do} {subj} have {x}?"),
        ("pronoun", "{Does_subj} have {x}?"),
        ("filler", "Just wondering, is {x} one of {poss} current problems?"),
        ("typo", "{Do} {subj} have {typo}?"),
        ("clinician", "hx of {x}?"),
    ),
    # a condition never recorded (expected: no)
    "cond_absent": (
        ("plain", "{Do} {subj} have {x}?"),
        ("pronoun", "{Has_subj} ever been diagnosed with {x}?"),
        ("filler", "So, um, is there any {x} in {poss} record?"),
        ("typo", "{Do} {subj} have {typo}?"),
        ("clinician", "hx of {x}?"),
    ),
    # the latest value of a lab or vital (expected: the number)
    "lab_latest": (
        ("plain", "What is {poss} latest {x}?"),
        ("pronoun", "What was {poss} most recent {x} result?"),
        ("filler", "Could you tell me, like, what {poss} {x} is right now?"),
        ("typo", "latest {typo}?"),
        ("lay", "{x} - newest reading please"),
    ),
    # the highest value ever (expected: the number)
    "lab_max": (
        ("plain", "What was {poss} highest {x} ever?"),
        ("pronoun", "What's the highest {x} recorded for {obj}?"),
        ("filler", "Out of curiosity, what was the maximum {x} on record?"),
        ("typo", "highest {typo} ever?"),
        ("clinician", "peak {x}?"),
    ),
    # an emergency visit in the record (expected: yes)
    "ed_any": (
        ("plain", "{Have} {subj} had any emergency visits?"),
        ("pronoun", "{Has_subj} ever been to the ER?"),
        ("filler", "Um, any ED visits in recent years?"),
        ("lay", "{Have} {subj} ever been to A&E?"),
        ("clinician", "ED attendances?"),
    ),
    # no emergency visit (expected: no)
    "ed_none": (
        ("plain", "{Have} {subj} had any emergency visits?"),
        ("pronoun", "{Has_subj} ever been to the ER?"),
        ("filler", "Um, any ED visits in recent years?"),
        ("lay", "{Have} {subj} ever been to A&E?"),
        ("clinician", "ED attendances?"),
    ),
    # an allergy recorded (expected: yes)
    "allergy_yes": (
        ("plain", "{Am} {subj} allergic to {x}?"),
        ("pronoun", "{Does_subj} have an allergy to {x}?"),
        ("filler", "Just to be sure, is there a {x} allergy on file?"),
        ("typo", "{Am} {subj} allergic to {typo}?"),
        ("clinician", "{x} allergy?"),
    ),
}
