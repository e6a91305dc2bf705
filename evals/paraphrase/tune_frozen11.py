"""Once the eleventh held-out part of the paraphrase suite (`frozen11`), now tuning (`--part tune_frozen11`).

Written 2026-12-07 by a writer who never saw the planner or the other parts, and measured ONCE by
the lead on the merged round-fifteen main 8495a33 (`chartside eval paraphrase --part frozen11`,
demo cohort, 10:00 UTC): 4,021 questions over 303 facts, **accuracy 97.0 %, consistency 61.4 %,
35 confident false negatives** (lab_max 29: "Going through my notes, what's the biggest weight
reading?" sent to the note search; lab_latest 5: "What does her chart say her blood creatinine
is?" read as a condition; allergy_yes 1: "something he can't have" read as a prescription), 28
gate misses (the advice reply to "Is X anywhere in my medication history?", "one of the tablets I
take", "something I actually have"), 91 planner misses (also "emergncy departmnt vists" not read as
emergency visits, 40; "medicl histroy" sent to the leaflets, 5). By family: lay 91.7 %, typo 92.1 %,
the rest 99–100 %. It then moved into tuning, its misses read.

The writer was given only the fact kinds, the families and the placeholders. Before any
measurement the lead dropped 25 of its 128 templates that the held-out checks refuse (19 equal
to a tuning template, the rest sharing a phrase of twelve letters or more with a file under
agent/ or tools/, such as "medical history" or "repeat prescription"); nothing else was edited."""

from __future__ import annotations

from evals.paraphrase.templates import Templates

_ED: tuple[tuple[str, str], ...] = (
    ("plain", "Is there any emergency department visit in {poss} record?"),
    ("pronoun", "{Has_subj} ever had an emergency room visit?"),
    ("pronoun", "{Does_subj} have any ED visits on record?"),
    ("filler", "Um, sorry to bother you, but {have} {subj} ever ended up in the emergency room?"),
    ("filler", "Quick q, so basically, any trips to the emergency department for {obj}?"),
    ("typo", "Any emergncy departmnt vists in {poss} chart?"),
    ("lay", "{Have} {subj} ever been to A&E or casualty?"),
    ("lay", "Is there an ER trip on file for {obj}?"),
    ("relative", "Has there ever been an emergency visit in {poss} history so far?"),
    ("clinician", "ED visits ever? y/n"),
    ("clinician", "Any ED hx?"),
)

TUNE_FROZEN11: Templates = {
    "med_active": (
        ("plain", "Is {x} one of {poss} current medications?"),
        ("plain", "Does {poss} medication list include {x} right now?"),
        ("filler", "Um, sorry to bother you, but {am} {subj} on {x}?"),
        ("filler", "Quick q: is {x} something {subj} {am} taking?"),
        ("typo", "{Is_pron} stil takeing {typo}?"),
        ("typo", "Is {typo} on {poss} curent medicaton list?"),
        ("typo", "Whats the deal, {am} {subj} prescribd {x} rite now?"),
        ("lay", "Is {x} one of the tablets or puffers {subj} take{s}?"),
        ("relative", "As of today, {am} {subj} on {x}?"),
        ("relative", "{Is_pron} taking {x} these days?"),
        ("clinician", "Current meds incl {x}? y/n"),
    ),
    "med_absent": (
        ("plain", "Is there any record of {x} in {poss} medication history?"),
        ("plain", "Does {poss} chart show {x} as a medication, past or present?"),
        ("pronoun", "{Does_subj} take {x} at all?"),
        ("pronoun", "{Is_pron} on {x}, or {have} {subj} ever been?"),
        ("filler", "Sorry to bother you, but {have} {subj} ever been given {x}?"),
        ("filler", "So basically, was {x} ever one of {poss} meds?"),
        ("typo", "{Has_subj} evr been perscribed {typo}?"),
        ("typo", "Is {typo} anywere in {poss} medicaiton histroy?"),
        ("typo", "Did a docter ever put {obj} on {x}?"),
        ("lay", "Is {x} on file as something {subj} {have} been given?"),
        ("relative", "So far, has {x} ever been prescribed for {obj}?"),
        ("clinician", "DHx: {x}? y/n"),
        ("clinician", "Ever on {x}?"),
    ),
    "cond_active": (
        ("plain", "Is {x} listed as one of {poss} diagnoses?"),
        ("plain", "Is there a diagnosis of {x} in {poss} record?"),
        ("filler", "Um, sorry, quick one, is {x} something {subj} actually {have}?"),
        ("filler", "So basically, {am} {subj} someone with {x}?"),
        ("typo", "Is {typo} on {poss} problm list?"),
        ("typo", "{Has_subj} been diagnozed wiht {x}?"),
        ("lay", "Is {x} on file for {obj}?"),
        ("lay", "Do the doctors have {x} written down in {poss} notes?"),
        ("relative", "As of today, is {x} still an active problem for {obj}?"),
        ("relative", "{Is_pron} still dealing with {x} these days?"),
        ("clinician", "PMHx incl {x}?"),
        ("clinician", "Active dx {x}? y/n"),
    ),
    "cond_absent": (
        ("plain", "Does {poss} record show {x}, either now or in the past?"),
        ("filler", "Um, so basically, did anyone ever diagnose {obj} with {x}?"),
        ("filler", "Quick q, is {x} anywhere in {poss} history?"),
        ("typo", "{Has_subj} evr had {typo}?"),
        ("typo", "Is ther any {typo} in {poss} medicl histroy?"),
        ("typo", "{Do} {subj} hve {x} or did {subj} ever?"),
        ("lay", "Is {x} on file anywhere in {poss} notes?"),
        ("lay", "Did a doctor ever tell {obj} {subj} had {x}?"),
        ("relative", "Over the years, has {x} ever shown up as a diagnosis for {obj}?"),
        ("relative", "So far, has {x} come up at all in {poss} record?"),
        ("clinician", "Hx {x}?"),
        ("clinician", "PMHx: {x}? y/n"),
    ),
    "lab_latest": (
        ("plain", "What is {poss} current {x} value?"),
        ("plain", "What does {poss} chart say {poss} {x} is?"),
        ("plain", "What did {poss} {x} come back as?"),
        ("pronoun", "What number did {subj} get for {x} last time?"),
        ("pronoun", "What's {poss} {x} sitting at?"),
        ("filler", "Um, sorry to bother you, what's {poss} {x} at?"),
        ("filler", "Quick q, so basically, what does {poss} {x} read right now?"),
        ("typo", "Wat is {poss} {typo}?"),
        ("typo", "Whats {poss} latst {typo} reslt?"),
        ("typo", "Wat did {poss} {x} come bak as?"),
        ("lay", "What does it say on file for {poss} {x}?"),
        ("lay", "In {poss} notes, what's the figure for {x}?"),
        ("relative", "As of today, what's {poss} latest {x}?"),
        ("clinician", "Last {x}?"),
        ("clinician", "Latest {x} value?"),
    ),
    "lab_max": (
        ("plain", "What's the maximum {x} on {poss} record?"),
        ("pronoun", "What's the highest {poss} {x} has ever been?"),
        ("pronoun", "What's the highest {x} {subj} ever hit?"),
        ("filler", "Um, sorry, what's the highest {poss} {x} has gone?"),
        ("filler", "Sorry to bother you, but what was {poss} highest ever {x}?"),
        ("typo", "Wats the higest {typo} on {poss} recrd?"),
        ("typo", "Whats the hihgest {poss} {typo} has evr been?"),
        ("typo", "Waht was {poss} maxmum {x}?"),
        ("lay", "What's the highest number on file for {poss} {x}?"),
        ("lay", "Going through {poss} notes, what's the biggest {x} reading?"),
        ("relative", "What's the worst {poss} {x} has ever been?"),
        ("relative", "What was {poss} record high for {x}?"),
        ("relative", "Over the years, what's the peak {x} {subj} {have} had?"),
        ("clinician", "Max {x} on file?"),
        ("clinician", "Peak {x} ever?"),
        ("clinician", "Highest {x}, all time?"),
    ),
    "allergy_yes": (
        ("plain", "Is {x} one of {poss} allergies?"),
        ("plain", "Does {poss} record list an allergy to {x}?"),
        ("pronoun", "{Has_subj} got a known allergy to {x}?"),
        ("filler", "Um, sorry to bother you, but is {x} something {subj} react{s} to?"),
        ("filler", "Quick q, does {poss} chart say {subj} {am} allergic to {x}?"),
        ("typo", "Any alergy to {typo} in {poss} recrods?"),
        ("typo", "{Does_subj} reakt to {x}, like is it a nown allergy?"),
        ("lay", "Is {x} on file as something {subj} can't have?"),
        ("lay", "Do {poss} notes say {subj} react{s} badly to {x}?"),
        ("relative", "As of today, {am} {subj} still listed as allergic to {x}?"),
        ("relative", "Is {x} still on {poss} allergy list at the moment?"),
        ("clinician", "Allergic to {x}? y/n"),
        ("clinician", "Allergy hx: {x}?"),
    ),
    "ed_any": _ED,
    "ed_none": _ED,
}
