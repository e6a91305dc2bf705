"""Once the sixth held-out part of the paraphrase suite (`frozen6`), now tuning (`--part tune_frozen6`).

Written in round eight outside the repository by a writer who never saw the planner or the other
parts, and measured once by the lead on 2026-12-02 at 11:22 UTC on main 1ed69d5 (and on round
seven's end, 5445f70, with the same figures): 2,063 questions over 303 facts, accuracy 96.1 %,
consistency 81.5 %, 0 confident false negatives. The splits: "Is there an ER visit anywhere in my
records?" answered from the leaflets and "Do my records show any trips to the ER" read as
triglycerides; "does anything in my notes say I have X" answered with passages and no verdict;
the gate's replies to "Have I evr been seen in the emergancy room?" (emergency), "Am I curently
prescribd X?" and "Do I currnetly hav X?" (advice). Each class was then fixed (lead, round eight,
tests/agent/test_lead_hunt_r8.py); it tunes now, and the next honest figure needs a new part.

19 of the writer's entries were word for word a template already in the suite; they were
dropped before the measurement, and one more (a held-out frozen2 wording, kept out of tuning) after it.
"""

from __future__ import annotations

from evals.paraphrase.templates import Templates

_ED = (
    ("pronoun", "is there an ER visit anywhere in {poss} records?"),
    ("filler", "just wondering, {have} {subj} ever had an a&e visit?"),
    ("typo", "{Has_subj} evr been seen in the emergancy room?"),
    ("lay", "did {subj} ever end up in casualty?"),
    ("lay", "do {poss} records show any trips to the ER, yes or no?"),
    ("relative", "at any point in the past, {have} {subj} had an emergency room visit?"),
    ("clinician", "any prior ED presentations?"),
    ("clinician", "ED visits on file? y/n"),
)

TUNE_FROZEN6: Templates = {
    "med_active": (
        ("pronoun", "is {x} one of {poss} current medications?"),
        ("filler", "um so just wondering, {am} {subj} still on {x} at the moment?"),
        ("typo", "{Am} {subj} curently prescribd {typo}?"),
        ("typo", "is {typo} on {poss} list of meds rigth now?"),
        ("lay", "{Do} {subj} still take {x} these days?"),
        ("lay", "does {poss} chart say {subj} take{s} {x} now?"),
        ("relative", "as of now, is {x} an active prescription for {obj}?"),
        ("relative", "{Is_pron} on {x} right now?"),
        ("clinician", "{x} on med rec?"),
    ),
    "med_absent": (
        ("pronoun", "was {x} ever on {poss} medication list?"),
        ("filler", "sorry if this is a silly question but {have} {subj} ever had a prescription for {x}?"),
        ("typo", "{Has_subj} evr been givn a prescriptoin for {typo}?"),
        ("relative", "at any point over the years, {have} {subj} been prescribed {x}?"),
        ("clinician", "any {x} in the med history?"),
    ),
    "cond_active": (
        ("plain", "does {poss} record currently show {x} as active?"),
        ("pronoun", "is {x} on {poss} list of current conditions?"),
        ("filler", "so um is {x} still an active problem on {poss} chart?"),
        ("typo", "{Does_subj} currnetly hav {typo}?"),
        ("lay", "{Am} {subj_lay} still down as having {x}?"),
        ("lay", "{Does_subj} still have {x} these days?"),
        ("relative", "as of now, is {x} listed as an ongoing condition for {obj}?"),
        ("relative", "{Do} {subj} have {x} at present?"),
        ("clinician", "{x} on the active problem list?"),
    ),
    "cond_absent": (
        ("pronoun", "is {x} anywhere in {poss} medical history?"),
        ("filler", "just curious, does anything in {poss} notes say {subj} {have} {x}?"),
        ("typo", "{Has_subj} evr had a diagnosis of {typo}?"),
        ("lay", "{Have} {subj} ever had {x}?"),
        ("relative", "at any time in the past, has {x} been recorded as a diagnosis for {obj}?"),
        ("relative", "is {x} on {poss} problem list at the moment?"),
    ),
    "lab_latest": (
        ("plain", "what is {poss} most recent {x}?"),
        ("filler", "hey so um what did {poss} {x} come out as last time?"),
        ("typo", "most recnet {typo} result for {obj}?"),
        ("lay", "what number did {poss} newest {x} result show?"),
        ("relative", "as of now, what's the latest reading for {poss} {x}?"),
    ),
    "lab_max": (
        ("pronoun", "what's the highest {poss} {x} has ever been?"),
        ("filler", "out of curiosity, what was {poss} {x} at its very highest?"),
        ("typo", "whats the higest {typo} {subj} {have} ever had?"),
        ("lay", "how high has {poss} {x} ever gone?"),
        ("lay", "what's the biggest {x} number in all of {poss} results?"),
        ("relative", "looking back over all the years on file, what was {poss} peak {x}?"),
        ("clinician", "max {x} on record?"),
        ("clinician", "peak {x} documented, all time?"),
    ),
    "allergy_yes": (
        ("pronoun", "is {x} listed as one of {poss} allergies?"),
        ("filler", "quick question, is {x} on {poss} allergy list?"),
        ("typo", "is ther an allergy to {typo} in {poss} chart?"),
        ("lay", "does {poss} record say {subj} can't have {x} because of an allergy?"),
        ("lay", "{Do} {subj} react badly to {x} according to {poss} records?"),
        ("relative", "as of now, is there an allergy to {x} on {poss} chart?"),
        ("clinician", "allergies - {x} on there?"),
    ),
    "ed_any": _ED,
    "ed_none": _ED,
}
