"""Once the fifth held-out part of the paraphrase suite (`frozen5`), now tuning (`--part tune_frozen5`).

Written in round seven outside the repository by a writer who never saw the planner or the other
parts, and measured by the lead on 2026-12-02, at 04:04 UTC on main 77dda7a and at 04:32 UTC on the
merged round-seven main, with no change between and the same figures: 2,198 questions over 303
facts, accuracy 98.6 %, consistency 90.4 %, 0 confident false negatives. The splits: the gate's
advice refusal for "Do I hav … on my recrod?" and "As things stand is <medicine> something I
take?" (from its classifier), and "Is there any mention of <condition> in my notes?" answered with
note passages and no verdict. The gate's two classes were then fixed from fresh lines (lead,
round seven); the notes one is a known gap. It tunes now; the next honest figure needs a new part.

17 of the writer's entries were word for word a template already in the suite; they were
dropped before the measurement.
"""

from __future__ import annotations

from evals.paraphrase.templates import Templates

# ED wordings are shared by `ed_any` and `ed_none`, so every one of them is neutral (no presupposition).
_ED = (
    ("plain", "{Has_subj} ever had an emergency visit?"),
    ("lay", "{Has_subj} ever been taken to the ER, like at any point?"),
    ("relative", "over the years, {have} {subj} been seen in A&E at all?"),
    ("clinician", "any ED attendances on file?"),
    ("typo", "{Has_subj} evr been to the emergancy department?"),
    ("filler", "just curious, does the record show any trips to the emergency room for {obj}?"),
    ("pronoun", "Is there an A&E visit anywhere in {poss} history?"),
    ("plain", "any {x}s on file for {obj}?"),
)

TUNE_FROZEN5: Templates = {
    "med_active": (
        ("lay", "Is {x} on {poss} repeat prescription?"),
        ("lay", "{Do} {subj} still get {x} on prescription?"),
        ("lay", "{Am} {subj} meant to be taking {x} still, or did that get stopped?"),
        ("relative", "lately, has {x} been one of {poss} meds?"),
        ("relative", "these days, {am} {subj} on {x}?"),
        ("relative", "as things stand is {x} something {subj_lay} take{s}?"),
        (
            "filler",
            "sorry if this is a daft question but {am} {subj} still meant to be on {x} at the moment?",
        ),
        ("typo", "{Am} {subj} stil takng {typo}?"),
        ("clinician", "{x} on the active med list?"),
        ("pronoun", "quick one, {x} - is that still one of {poss} regular meds?"),
    ),
    "med_absent": (
        ("lay", "did a doctor ever put {obj} on {x}?"),
        ("lay", "Is {x} on {poss} list of medicines at all?"),
        ("relative", "at any point over the years, {have} {subj} been given {x}?"),
        ("filler", "um, just wondering, does {x} appear anywhere in {poss} prescriptions?"),
        ("typo", "has {typo} evr been prescibed for {obj}?"),
        ("clinician", "any record of {x} in the med hx?"),
        ("relative", "is {x} something {subj} {have} ever taken, going by {poss} records?"),
        ("pronoun", "{x}: {have} {subj} ever been on it?"),
    ),
    "cond_active": (
        ("lay", "{Am} {subj} down as having {x}?"),
        ("lay", "Is {x} one of the things the doctors have got {obj} down for?"),
        ("relative", "as things stand, is {x} on {poss} problem list?"),
        ("relative", "right now, is {x} one of {poss} active conditions?"),
        ("filler", "sorry to bother you, but is {x} listed as something {subj} {have}?"),
        ("typo", "{Do} {subj} hav {typo} on {poss} recrod?"),
        ("clinician", "known {x}? active problem?"),
        ("pronoun", "{Has_subj} got {x} on the record?"),
    ),
    "cond_absent": (
        ("lay", "did anyone ever say {subj} had {x}?"),
        ("pronoun", "Is there any mention of {x} in {poss} notes?"),
        ("relative", "over the years has {x} ever come up for {obj}?"),
        ("relative", "ever had {x}, as far as {poss} notes go?"),
        ("lay", "{Has_subj} been told {subj} {have} {x} at any point?"),
        ("typo", "{have} {subj} evre had {typo}?"),
        ("filler", "random q sorry: {Do} {subj} have {x} or not?"),
        ("pronoun", "{Is_pron} on record as having {x}?"),
    ),
    "lab_latest": (
        ("lay", "when they last did {poss} {x}, what was the number?"),
        ("relative", "as of now, what does the record give for {poss} {x}?"),
        ("typo", "whats {poss} most recnet {typo}"),
        ("filler", "hiya, sorry, could you tell me what {poss} {x} was when it last got measured?"),
        ("pronoun", "{x} for {obj} - what's the newest reading?"),
    ),
    "lab_max": (
        ("plain", "What was {poss} maximum recorded {x}?"),
        ("lay", "what's the biggest {x} reading they've ever taken for {obj}?"),
        ("lay", "out of all the times they have done {poss} {x}, which was the highest?"),
        ("clinician", "max recorded {x} pls"),
        ("typo", "whats the higest {typo} ever put down for {obj}"),
        ("filler", "sorry if this is odd but what is the top {x} figure in {poss} notes, ever?"),
        ("pronoun", "{x}: what's the highest it has been for {obj}?"),
    ),
    "ed_any": _ED,
    "ed_none": _ED,
    "allergy_yes": (
        ("plain", "{Do} {subj} have a {x} allergy?"),
        ("lay", "is {x} on {poss} allergy list?"),
        ("relative", "as far as the record goes, {am} {subj} still down as allergic to {x}?"),
        ("clinician", "{x} allergy documented?"),
        ("lay", "{Do} {subj} have {x} listed as something {subj} react{s} to?"),
        ("relative", "has an allergy to {x} ever been put on {poss} record?"),
        ("filler", "sorry, silly question, does {x} show up as an allergy for {obj}?"),
        ("pronoun", "{Has_subj} got a recorded reaction to {x}?"),
    ),
}
