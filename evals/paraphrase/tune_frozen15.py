"""Once the fifteenth held-out part of the paraphrase suite (`frozen15`), now tuning (`--part tune_frozen15`): written 2026-12-07 by an outside writer
who never saw the planner or the other parts. Voices imagined: a carer sorting a weekly pill
box for an elderly neighbour, a teenager texting in a hurry, a night-shift paramedic doing a
handover, a community pharmacist on the phone, an anxious person who over-explains, a speaker
whose first language is Urdu, a speaker whose first language is Spanish, voice-to-text slips,
a terse surgeon between cases, a parent filling in a school form.
Before any measurement the lead dropped 23 of its 108 templates that the held-out checks
refuse (each equal to a template of another part or sharing a phrase of twelve letters or more
with a file under agent/ or tools/); nothing else was edited.
Measured ONCE by the lead on round eighteen's merged main 370cfd8 (`chartside eval paraphrase --part
frozen15`, demo cohort, 20:22 UTC): 3,115 questions over 303 facts, **accuracy 96.8 %, consistency
68.6 %, 1 confident false negative** (allergy_yes), 15 gate misses (advice refusals: cond_active 9,
med_active 6), 86 planner misses (lab_latest wrong value 73, allergy_yes unclear 12). By family:
lay, plain, pronoun, relative 100 %, clinician 99.8 %, typo 99.0 %, filler 81.9 %. It then moved
into tuning, its misses read.
"""

from __future__ import annotations

from evals.paraphrase.templates import Templates

_ED: tuple[tuple[str, str], ...] = (
    ("plain", "Are there any emergency department visits in {poss} record?"),
    ("filler", "I know it's an odd thing to ask, but I'm trying to piece the history together: {Has_subj} ever ended up in A&E?"),
    ("typo", "{Has_subj} evr been 2 the ER"),
    ("typo", "any emergancy room vists for {obj}"),
    ("lay", "Did {subj} ever have to go to casualty?"),
    ("relative", "{Has_subj} had an emergency department visit at any point?"),
    ("clinician", "Any prior ED visits on file?"),
    ("clinician", "ED presentations, ever? y/n"),
)

TUNE_FROZEN15: Templates = {
    "med_active": (
        ("pronoun", "Is {x} currently prescribed to {obj}?"),
        ("filler", "Quick one before the pharmacy shuts, sorry: {Is_pron} on {x} currently?"),
        ("filler", "Okay, I get muddled with all the boxes and I just want to be sure I have it right: {Is_pron} actually meant to be on {x} at present?"),
        ("typo", "{Is_pron} still on {typo} rn"),
        ("typo", "is {typo} in {poss} curent meds"),
        ("lay", "Is {x} still on {poss} list of medicines from the doctor?"),
        ("relative", "{Is_pron} taking {x} as of today?"),
        ("clinician", "Med rec: is {x} on {poss} active list?"),
        ("clinician", "Current meds: {x}, y/n?"),
    ),
    "med_absent": (
        ("plain", "{Is_pron} taking {x}?"),
        ("pronoun", "{Has_subj} ever been on {x}?"),
        ("filler", "Hello, hope you're well. Just one thing I need to check: {Is_pron} on {x} at all?"),
        ("typo", "{Has_subj} evr been on {typo}"),
        ("typo", "was {typo} ever prescibed for {obj}"),
        ("lay", "Did the doctor ever give {obj} {x} tablets?"),
        ("lay", "Is there anything on file about {obj} being on {x}?"),
        ("relative", "{Has_subj} been on {x} at any point in the past?"),
        ("relative", "{Has_subj} taken {x} at any time, now or before?"),
        ("clinician", "Hx of {x} use? y/n"),
        ("clinician", "Med rec: any record of {x}, current or past?"),
    ),
    "cond_active": (
        ("plain", "Is {x} one of {poss} current diagnoses?"),
        ("pronoun", "Is {x} something {subj} {have} at present?"),
        ("filler", "I'm filling in a form for a new dentist and it asks about health problems, so: {Does_subj} have {x}?"),
        ("filler", "Sorry if this is a silly question, I get confused with all the medical names: {Does_subj} have {x} or not?"),
        ("typo", "{Does_subj} hav {typo}"),
        ("typo", "do the notes say {subj} {have} {typo}"),
        ("lay", "Is {x} on {poss} list of health problems?"),
        ("lay", "Has a doctor told {obj} that {subj} {have} {x}?"),
        ("relative", "{Does_subj} have {x}, as things stand today?"),
        ("relative", "Is {x} still an ongoing problem for {obj} these days?"),
        ("clinician", "Active problem list: {x} on it?"),
        ("clinician", "PMH: {x}, current? y/n"),
    ),
    "cond_absent": (
        ("plain", "Is there any diagnosis of {x} in {poss} record?"),
        ("pronoun", "Was {subj} ever told that {subj} had {x}?"),
        ("filler", "Given that {x} can run in families, I'd like to know one thing: {Has_subj} ever had it?"),
        ("filler", "Okay, bear with me, I'm speaking into the phone here: {Has_subj} ever had {x} at all?"),
        ("typo", "{Has_subj} ever had {typo} b4"),
        ("typo", "any {typo} in {poss} histroy"),
        ("lay", "Is {x} anywhere on file for {obj}?"),
        ("lay", "Did any doctor ever say {subj} had {x}?"),
        ("relative", "{Has_subj} had {x} at any point in {poss} life?"),
        ("relative", "Going back as far as the records go, has {x} ever come up for {obj}?"),
        ("clinician", "Any hx of {x}?"),
        ("clinician", "PMH includes {x}? y/n"),
    ),
    "lab_latest": (
        ("pronoun", "What was the last {x} recorded for {obj}?"),
        ("filler", "I've got a follow-up next week and I want to go in prepared. What's {poss} most recent {x}?"),
        ("filler", "Sorry, it's been a long night. What's the newest {x} reading for {obj}?"),
        ("typo", "latest {typo} for {obj} pls"),
        ("lay", "What's the most recent {x} reading on file for {obj}?"),
        ("relative", "As of the latest check, what is {poss} {x}?"),
        ("relative", "What is {poss} {x} these days, going by the newest result?"),
        ("clinician", "Latest {x}?"),
        ("clinician", "Most recent {x} value, pls."),
    ),
    "lab_max": (
        ("plain", "What was {poss} peak {x} across all of the records?"),
        ("pronoun", "At its very highest, what was {poss} {x}?"),
        ("filler", "I'm not after the latest number, I'm after the worst one: what's the highest {x} ever recorded for {obj}?"),
        ("filler", "Someone mentioned it used to be much higher, so out of curiosity, what was {poss} highest-ever {x}?"),
        ("typo", "highst {typo} evr for {obj}"),
        ("typo", "wat was {poss} biggest {typo} reading of all time"),
        ("lay", "What's the biggest {x} number on file for {obj}, ever?"),
        ("lay", "Looking back over everything, what's the top {x} reading {subj} {have} ever had?"),
        ("relative", "Since the records began, what is the highest {x} logged for {obj}?"),
        ("relative", "At any point, what was the highest {x} {subj} ever reached?"),
        ("clinician", "Max {x} on record, all-time?"),
        ("clinician", "Peak {x} ever? Not the latest."),
    ),
    "allergy_yes": (
        ("plain", "Is there an allergy to {x} in {poss} record?"),
        ("pronoun", "{Has_subj} got an allergy to {x} listed?"),
        ("pronoun", "Does {poss} record say {subj} react{s} to {x}?"),
        ("filler", "We're planning a birthday dinner and I want to be careful: {Is_pron} allergic to {x}?"),
        ("filler", "Before anything gets given, and sorry to be a pain about it, is {x} listed as an allergy for {obj}?"),
        ("typo", "{Is_pron} alergic to {typo}"),
        ("typo", "any alergy to {typo} on {poss} file"),
        ("lay", "Is {x} something {subj} can't have because of an allergy?"),
        ("lay", "According to the notes, does {x} set off an allergy for {obj}?"),
        ("relative", "Has an allergy to {x} been noted for {obj} at any point?"),
        ("clinician", "Allergies: {x} listed? y/n"),
        ("clinician", "Allergy hx, {x}?"),
    ),
    "ed_any": _ED,
    "ed_none": _ED,
}
