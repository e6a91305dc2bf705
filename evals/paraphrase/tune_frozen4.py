"""Once the fourth held-out part of the paraphrase suite (`frozen4`), now tuning (`--part tune_frozen4`).

Written in round six outside the repository by a writer who never saw the planner or the other
parts, and measured once by the lead (2026-12-02 01:08 UTC, on the merged round-six main):
accuracy 93.9 %, consistency 65.7 %, **35 confident false negatives** — "what's the highest
weight they've ever written down for me?" searched the note text and said no passage matched
("written down" said of the record). The gate sent "Waht was my lastest wegiht?" (typos) to the
emergency reply and "Am I diagnosd with …" to the advice refusal, from the linear classifier.
Its misses were then read and fixed as classes, so it tunes now; the next honest figure needs a
new part.

13 of the writer's 78 templates were word for word a template already in the suite; they were
dropped before that measurement, so each held-out wording is counted in one part only."""

from __future__ import annotations

from evals.paraphrase.templates import Templates

# the ED wordings both kinds share (they must read neutrally: the same words ask either)
_ED = (
    ("plain", "{Has_subj} ever been to the emergency department?"),
    ("lay", "{Has_subj} ever ended up in casualty?"),
    ("relative", "{Has_subj} had any A&E visits over the years?"),
    ("pronoun", "A&E? {Has_subj} ever been there?"),
    ("filler", "not urgent at all, just curious, is there any record of {obj} going to the emergency room?"),
    ("typo", "any {typo} on file for {obj}?"),
)

TUNE_FROZEN4: Templates = {
    "med_active": (
        ("lay", "Is {x} on {poss} repeat prescription at the moment?"),
        ("lay", "{Does_subj} still pick up {x} from the chemist?"),
        ("relative", "{Does_subj} take {x} at the moment, as things stand?"),
        ("relative", "{Has_subj} been taking {x} lately?"),
        ("pronoun", "{x}? {Am} {subj} on it right now?"),
        ("filler", "sorry if this is a silly one but is {x} something {subj} {am} on just now?"),
        ("typo", "{Am} {subj} stil takign {typo}?"),
    ),
    "med_absent": (
        ("lay", "is there any {x} on {poss} list of meds?"),
        ("lay", "{Does_subj} take {x} or not?"),
        ("relative", "over the years, was {subj} ever put on {x}?"),
        ("pronoun", "{x}? {Has_subj} ever been given it?"),
        ("filler", "um, quick one, does the record show {obj} ever being on {x}?"),
        ("typo", "{Has_subj} evr had {typo} perscribed?"),
        ("clinician", "any {x} in {poss} med hx?"),
    ),
    "cond_active": (
        ("plain", "{Does_subj} have a diagnosis of {x} on record?"),
        ("lay", "is {x} one of the things {subj} {am} being treated for?"),
        ("lay", "{Has_subj} got {x} written down in {poss} notes?"),
        ("relative", "{Is_pron} down as having {x}, as it stands?"),
        ("pronoun", "{x}, is that still on {poss} problem list?"),
        ("filler", "sorry to bother you, but is {x} still listed under {poss} current conditions?"),
        ("typo", "{Is_pron} diagnosd with {typo} at the momnet?"),
        ("clinician", "PMH includes {x}?"),
        ("clinician", "known {x}? active problems pls"),
    ),
    "cond_absent": (
        ("lay", "{Has_subj} ever had {x}, going by the notes?"),
        ("lay", "was {subj} ever told by a doctor that {subj} had {x}?"),
        ("relative", "at any point over the years, was {x} put down as a diagnosis for {obj}?"),
        ("pronoun", "{x}... is that something {subj} {have} ever had?"),
        ("filler", "this might be a daft question but is there anything about {x} in {poss} records?"),
        ("typo", "{Has_subj} evre had {typo}?"),
        ("clinician", "any hx of {x}?"),
    ),
    "lab_latest": (
        ("plain", "What was {poss} most recent {x}?"),
        ("lay", "when they last checked {poss} {x}, what did it say?"),
        ("relative", "what's {poss} {x} at the moment, going by the latest reading?"),
        ("pronoun", "{x} - what was it the last time it was done?"),
        ("filler", "hiya, sorry, just wondering what {poss} newest {x} result says"),
        ("typo", "waht was {poss} lastest {typo}?"),
        ("clinician", "latest {x}?"),
        ("clinician", "most recent {x} value pls"),
    ),
    "lab_max": (
        ("lay", "what was {poss} {x} at its very highest?"),
        (
            "lay",
            "going back through every check, what's the highest {x} they've ever written down for {obj}?",
        ),
        ("relative", "over the years, what's the most {poss} {x} has ever been?"),
        ("pronoun", "{x} - what was the top reading ever?"),
        ("filler", "um, out of all the times it was taken, which {x} reading was the highest?"),
        ("typo", "whats the higest {typo} {subj} {have} ever had logged?"),
    ),
    "ed_any": (
        *_ED,
        ("clinician", "hx of ED presentations?"),
    ),
    "ed_none": (
        *_ED,
        ("clinician", "any ED attendances?"),
        ("clinician", "hx of ED presentations?"),
    ),
    "allergy_yes": (
        ("lay", "{Does_subj} have a {x} allergy written down anywhere?"),
        ("lay", "does {x} come up as something {subj} can't have, allergy-wise?"),
        ("relative", "as things stand, is {x} listed as one of {poss} allergies?"),
        ("pronoun", "{x}, does that one show up under {poss} allergies?"),
        ("filler", "sorry if I've asked before, but is there an allergy to {x} on file for {obj}?"),
        ("clinician", "allergies - {x}?"),
    ),
}
