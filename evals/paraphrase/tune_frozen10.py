"""Once the tenth held-out part of the paraphrase suite (`frozen10`), now tuning (`--part tune_frozen10`).

Written on 2026-12-07 outside the repository by a writer who never saw the planner or the other
parts, and measured once by the lead on the merged round-fourteen main ad8b0b0 (`chartside eval
paraphrase --part frozen10`, demo cohort): 4,821 questions over 303 facts, accuracy 98.7 %,
consistency 86.5 %, 0 confident false negatives (63 gate misses: its advice reply to record
questions, cond_absent ×22 and its emergency reply ×9, med_absent ×15, med_active ×14, cond_active
×3; 1 planner miss, cond_absent, graded unclear). Only the aggregates were read before it moved into
tuning (the held-out checks refuse a part that shares a template with a tuning part, or a phrase of
twelve letters or more with the answerer's files, and frozen10 did both). The next honest figure
needs a new part.

21 of the writer's templates (25 entries: the emergency-visit ones serve two kinds) were dropped
when it moved into tuning (they were in the measurement): each equal, up to a capital, to a
template of a tuning or held-out part of the same fact kind."""

from __future__ import annotations

from evals.paraphrase.templates import Templates

# emergency department: shared by ed_any (yes) and ed_none (no); always "ever" / the whole record
_ED: tuple[tuple[str, str], ...] = (
    ("plain", "{Have} {subj} ever been to the emergency department?"),
    ("plain", "Is there an emergency department visit anywhere in {poss} record?"),
    ("pronoun", "{Has_subj} ever had an emergency department visit?"),
    ("pronoun", "Was {subj} ever seen in the emergency department?"),
    ("filler", "Um, just wondering, {have} {subj} ever ended up in the ER?"),
    ("filler", "Okay so, basically, is there any ED visit at all on {poss} record, like ever?"),
    ("typo", "{have} {subj} evr been to the emergancy dept"),
    ("typo", "any er visits on {poss} recrod ever"),
    ("typo", "{Has_subj} bin to a&e at any point??"),
    ("lay", "Did {subj} ever end up in casualty?"),
    ("lay", "{Have} {subj} ever had to go to the emergency room, even once?"),
    ("relative", "At any point in {poss} history, {have} {subj} been to the emergency department?"),
    ("relative", "Going back through {poss} whole record, was there ever a trip to the ED?"),
    ("clinician", "any ED presentations in hx? y/n"),
    ("clinician", "pt ever presented to ED?"),
    ("clinician", "lifetime ED visits on file - any?"),
)

TUNE_FROZEN10: Templates = {
    "med_active": (
        ("pronoun", "Does {poss} doctor have {obj} on {x}?"),
        ("filler", "Um, quick question, {am} {subj} taking {x} right now or not?"),
        ("filler", "Sorry, just to double-check, is {x} actually on {poss} list of meds?"),
        ("typo", "{am} {subj} takin {typo} atm"),
        ("typo", "is {x} on {poss} meds lsit"),
        ("lay", "Is {x} one of the tablets {subj} {am} meant to be taking?"),
        ("lay", "{Do} {subj} have a prescription for {x} going at the moment?"),
        ("relative", "As things stand, {am} {subj} on {x}?"),
        ("relative", "These days, is {x} part of {poss} regular medication?"),
        ("clinician", "pt currently on {x}? y/n"),
        ("clinician", "{x} on current rx list?"),
        ("clinician", "DHx - {x} active?"),
    ),
    "med_absent": (
        ("plain", "{Do} {subj} take {x}?"),
        ("plain", "Is {x} among {poss} medications?"),
        ("pronoun", "Is {x} a drug {subj} {am} on?"),
        ("pronoun", "Has {x} been prescribed for {obj}?"),
        ("filler", "Hmm, so, {am} {subj} on {x} at all?"),
        ("filler", "Just wondering, does {x} show up anywhere in {poss} medication list?"),
        ("typo", "{Do} {subj} tak {typo}?"),
        ("typo", "is {typo} on {poss} prescritpion list"),
        ("typo", "any {x} in {poss} meds??"),
        ("lay", "Is {x} one of the pills {subj} {am} supposed to take?"),
        ("lay", "Have the doctors got {obj} on {x}?"),
        ("relative", "At present, is {x} one of {poss} meds?"),
        ("relative", "Right now, {am} {subj} taking {x}?"),
        ("clinician", "on {x}? y/n"),
        ("clinician", "current rx: {x}?"),
        ("clinician", "is pt taking {x}"),
    ),
    "cond_active": (
        ("plain", "Is {x} one of {poss} active conditions?"),
        ("pronoun", "Is {x} something {subj} {have} been diagnosed with?"),
        ("pronoun", "Does {poss} record say {subj} {have} {x}?"),
        ("filler", "Um, sorry if this is a silly question, but {am} {subj} someone with {x}?"),
        ("filler", "Okay so, basically, is {x} one of the things {subj} {am} being treated for?"),
        ("typo", "is {typo} on {poss} problm list"),
        ("typo", "{x} - is that an actve diagnosis 4 {obj}?"),
        ("lay", "Have the doctors said {subj} {have} got {x}?"),
        ("lay", "Is {x} one of the health problems {subj} {am} dealing with?"),
        ("relative", "As of now, is {x} an ongoing problem for {obj}?"),
        ("relative", "At the moment, is {x} among {poss} current conditions?"),
        ("clinician", "PMH: active {x}? y/n"),
        ("clinician", "?{x} on pt's active problem list"),
        ("clinician", "dx of {x} - current?"),
    ),
    "cond_absent": (
        ("plain", "Is {x} listed among {poss} conditions?"),
        ("pronoun", "Does {poss} chart show {obj} as having {x}?"),
        ("filler", "{Do} {subj}, um, actually have {x}?"),
        ("filler", "Just curious, is {x} one of {poss} diagnoses?"),
        ("typo", "{Have} {subj} gt {typo}?"),
        ("typo", "is thre {typo} on {poss} recrod"),
        ("typo", "{x} on {poss} problem list or nah"),
        ("lay", "Is {x} one of the things wrong with {obj}?"),
        ("lay", "Have the doctors told {obj} that {subj} {have} {x}?"),
        ("relative", "Right now, is {x} one of {poss} health problems?"),
        ("relative", "Currently, does {poss} record show {x}?"),
        ("clinician", "PMH incl {x}?"),
        ("clinician", "pt dx with {x}? y/n"),
        ("clinician", "active problem: {x}?"),
    ),
    "lab_latest": (
        ("pronoun", "What did {poss} {x} come back as the last time it was checked?"),
        ("pronoun", "What {x} reading did {subj} get most recently?"),
        ("filler", "Hey, sorry, what's {poss} {x} at now, going by the latest result?"),
        ("filler", "So, quick one, what was the last {x} on {poss} record?"),
        ("typo", "whats {poss} {typo} now"),
        ("typo", "most recnt {x} for {obj}??"),
        ("lay", "What did the last {x} check say for {obj}?"),
        ("relative", "What's {poss} {x} these days, going by the most recent result?"),
        ("clinician", "most recent {x} value for pt?"),
        ("clinician", "{x} - last recorded value?"),
    ),
    "lab_max": (
        ("pronoun", "What's the biggest {x} reading ever recorded for {obj}?"),
        ("pronoun", "Of all {poss} {x} results, what was the highest value?"),
        ("filler", "Um, out of curiosity, what's the peak {x} {subj} {have} ever hit?"),
        ("filler", "Okay so, basically, how high has {poss} {x} ever gotten?"),
        ("typo", "wats the higest {typo} {subj} ever had"),
        ("typo", "max {typo} on {poss} recrd"),
        ("typo", "hihgest {x} evr for {obj}??"),
        ("lay", "How high has {poss} {x} gone, at its very top?"),
        ("relative", "So far, what's the highest {x} on record for {obj}?"),
        ("relative", "Over the whole record, what was {poss} top {x} reading?"),
        ("clinician", "max recorded {x} for pt?"),
        ("clinician", "{x} - highest value in hx?"),
    ),
    "ed_any": _ED,
    "ed_none": _ED,
    "allergy_yes": (
        ("pronoun", "Does {poss} record list {obj} as allergic to {x}?"),
        ("pronoun", "Is {x} something {subj} {am} recorded as allergic to?"),
        ("filler", "Um, just checking, is {x} listed as one of {poss} allergies?"),
        ("filler", "Sorry, quick one: does the chart say {subj} {am} allergic to {x}?"),
        ("typo", "is {typo} on {poss} allergie list"),
        ("typo", "{x} allergy on {poss} file??"),
        ("lay", "Have the doctors got {obj} down as allergic to {x}?"),
        ("lay", "Does {poss} file say {subj} react{s} badly to {x}?"),
        ("relative", "As things stand, is {x} recorded as one of {poss} allergies?"),
        ("relative", "At present, does {poss} allergy list include {x}?"),
        ("clinician", "documented allergy to {x}?"),
        ("clinician", "{x} on pt's allergy list?"),
    ),
}
