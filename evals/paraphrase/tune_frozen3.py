"""Once the third held-out part of the paraphrase suite (`frozen3`), now tuning (`--part tune_frozen3`).

Written in round five outside the repository by a writer who never saw the planner or the other
parts, and measured once by the lead (2026-12-01 22:10 UTC, on the merged round-five main):
accuracy 92.7 %, consistency 58.7 %, **35 confident false negatives** — "… going back as far as
the notes go, what was my weight at its peak?" searched the note text and said no passage
matched. Its misses were then read and fixed (notes said for the record; "what's the most recent
… reading" taken for a dose question), so it tunes now; the next honest figure needs a new part.

Six of the writer's 73 templates were word for word a template already in the tuning part (5) or
in `frozen` (1), plain wordings anyone would write; they were dropped before that measurement,
so each held-out wording is counted in one part only."""

from __future__ import annotations

from evals.paraphrase.templates import Templates

TUNE_FROZEN3: Templates = {
    "med_active": (
        ("plain", "{Am} {subj} currently taking {x}?"),
        ("lay", "{Do} {subj} still get {x} from the chemist these days?"),
        ("lay", "{Has_subj} got {x} on repeat prescription right now?"),
        ("relative", "As things stand, is {x} one of {poss} current medicines?"),
        ("relative", "Lately, {have} {subj} been taking {x}?"),
        ("pronoun", "{x}: {am} {subj} on it at the moment?"),
        ("filler", "sorry if this is silly but is {x} something {subj} take{s} nowadays, or not?"),
        ("typo", "{Am} {subj} stil taking {typo} at the momnet?"),
        ("clinician", "currently on {x}?"),
    ),
    "med_absent": (
        ("plain", "{Has_subj} ever been prescribed {x}?"),
        ("lay", "Is {x} on {poss} list of meds anywhere?"),
        ("lay", "Did a doctor ever give {obj} {x}?"),
        ("relative", "Over the years, {have} {subj} ever been put on {x}?"),
        ("pronoun", "{x} - has that ever been one of {poss} prescriptions?"),
        ("filler", "um quick one, {have} {subj} ever had {x} prescribed, like at any point at all?"),
        ("typo", "{Has_subj} evr been on {typo}?"),
        ("clinician", "any {x} on the drug hx?"),
    ),
    "cond_active": (
        ("lay", "These days, {am} {subj} down as having {x}?"),
        ("lay", "Is {x} still listed as something {subj} {have}?"),
        ("relative", "At the moment, is {x} one of {poss} ongoing conditions?"),
        ("pronoun", "{x} - {am} {subj} diagnosed with that currently?"),
        ("filler", "sorry to bother you, but does {poss} record say {subj} {have} {x} right now?"),
        ("typo", "{Do} {subj} hvae {typo} at the moment?"),
        ("clinician", "is {x} on {poss} active problem list?"),
    ),
    "cond_absent": (
        ("lay", "Has any doctor ever said {subj} {have} {x}?"),
        ("lay", "{Do} {subj} suffer from {x}, going by the notes?"),
        ("relative", "At any point over the years, {have} {subj} had {x}?"),
        ("pronoun", "{x}? is that anywhere in {poss} history?"),
        (
            "filler",
            "this might be a daft question, but {have} {subj} ever had {x}, is it in {poss} notes at all?",
        ),
        ("typo", "{Has_subj} ever had {typo}, acording to {poss} notes?"),
        ("clinician", "PMH of {x}?"),
    ),
    "lab_latest": (
        ("lay", "What's {poss} {x} these days, going by the newest result?"),
        ("relative", "As of now, what's the most recent {x} reading on file for {obj}?"),
        ("pronoun", "{x}: what did it come out at when it was last measured?"),
        ("filler", "sorry, quick one - what was {poss} {x} at the last check, if it's there?"),
        ("typo", "wat was {poss} last {typo} reading?"),
        ("clinician", "most recent {x}?"),
    ),
    "lab_max": (
        ("plain", "What is the highest {x} on {poss} record?"),
        ("lay", "Going back as far as the notes go, what was {poss} {x} at its peak?"),
        ("relative", "Over the years, what was {poss} {x} at its highest?"),
        ("pronoun", "{x} - what's the top reading {subj} {have} ever had?"),
        ("filler", "sorry if this is silly but whats the biggest {x} reading ever recorded for {obj}?"),
        ("typo", "waht was {poss} highst {typo} ever?"),
        ("clinician", "peak {x} recorded?"),
    ),
    "ed_any": (
        ("plain", "{Has_subj} ever had an emergency department visit?"),
        ("lay", "{Has_subj} ever been to casualty?"),
        ("lay", "Did {subj} ever end up in the ER at any point?"),
        ("relative", "Over the years, {have} {subj} been to A&E at all?"),
        ("pronoun", "{x}s - {have} {subj} had any, ever?"),
        ("filler", "just wondering, is there any record of {obj} going to the emergency room?"),
        ("typo", "{Has_subj} evre been to the emergancy department?"),
        ("clinician", "any ED attendances?"),
    ),
    "ed_none": (
        ("plain", "Is there an emergency visit anywhere in {poss} record?"),
        ("lay", "{Has_subj} ever had to go to accident and emergency?"),
        ("lay", "Was {subj} ever seen in the ER, going by the notes?"),
        ("relative", "Is there any A&E trip anywhere in {poss} notes, ever?"),
        ("pronoun", "emergency department - {have} {subj} ever been, according to this?"),
        ("filler", "ok so, sorry, but {have} {subj} got any ER visits on file, or none?"),
        ("typo", "any emergancy vists on {poss} recrod?"),
        ("clinician", "ED visits in hx?"),
    ),
    "allergy_yes": (
        ("lay", "Is {x} down in the notes as something that sets off {poss} allergies?"),
        ("lay", "{Do} {subj} react to {x}, according to {poss} allergy list?"),
        ("relative", "At the moment, is a {x} allergy on {poss} file?"),
        ("pronoun", "{x} - is that one of {poss} allergies?"),
        ("filler", "sorry to be a pain, but is there an allergy to {x} listed for {obj}?"),
        ("typo", "{Am} {subj} alergic to {typo}?"),
        ("clinician", "documented {x} allergy?"),
    ),
}
