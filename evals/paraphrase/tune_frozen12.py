"""Once the twelfth held-out part of the paraphrase suite (`frozen12`), now tuning (`--part tune_frozen12`).

Written 2026-12-07 by a writer who never saw the planner or the other parts (given only the fact
kinds, the families and the placeholders); before any measurement the lead dropped 34 of its 128
templates that the held-out checks refuse (a phrase of twelve letters or more shared with a file
under agent/ or tools/, such as "active medications" or "diagnosed with"); nothing else was edited.
Measured ONCE by the lead on round fifteen's closing main 1e850ce (`chartside eval paraphrase --part
frozen12`, demo cohort, 11:39 UTC): 3,713 questions over 303 facts, **accuracy 91.7 %, consistency
47.2 %, 67 confident false negatives** (lay 57, filler 10; by kind lab_latest 40, med_active 18,
allergy_yes 7, ed_any 2), 89 gate misses (lab questions read as emergencies 63, advice refusals 26),
218 planner misses (wrong values 146). By family: relative 78.0 %, lay 87.1 %, typo 89.6 %, filler
96.2 %, clinician 99.0 %, plain and pronoun 100 %. It then moved into tuning, its misses read.
"""

from __future__ import annotations

from evals.paraphrase.templates import Templates

_ED: tuple[tuple[str, str], ...] = (
    ("pronoun", "did {subj} ever end up in the emergency room?"),
    ("pronoun", "{Have} {subj} ever had to go to the ER, as far as the chart knows?"),
    (
        "filler",
        "hi sorry this might be a weird one but {poss} new insurer is asking - {have} {subj} ever had an emergency visit?",
    ),
    ("filler", "ok so, um, just for {poss} records really... any ER trips at all?"),
    ("typo", "{Has_subj} evr been to the emergancy room"),
    ("typo", "any emergecy deprtment vists on {poss} file?"),
    ("lay", "{Has_subj} ever been to A&E?"),
    ("lay", "any trips to casualty on record for {obj}?"),
    ("lay", "was {subj_lay} ever one of those people sat in the ER waiting room, according to the notes?"),
    ("relative", "so far, {have} {subj} had any ER visits?"),
    ("relative", "in the past, was {subj} ever seen in the emergency department?"),
    ("relative", "ever had an ED visit?"),
    ("clinician", "prior ED visits? y/n"),
    ("clinician", "pt hx of ED attendance?"),
)

TUNE_FROZEN12: Templates = {
    "med_active": (
        ("plain", "{Is_pron} currently on {x}?"),
        ("filler", "hi, sorry to bother you, quick one: {Am} {subj} on {x}?"),
        (
            "filler",
            "ok so um before {poss} appointment tomorrow i just wanna double check that {x} is on {poss} med list lol",
        ),
        ("typo", "{Am} {subj} takeing {typo} currantly?"),
        ("lay", "is {x} among the meds {subj} get{s} from the chemist?"),
        ("lay", "{poss} pharmacist asked whether {subj} {am} on {x} - {am} {subj}?"),
        ("lay", "i get muddled with all the tablets and inhalers - is {x} one of the ones {subj} take{s}?"),
        ("relative", "right now, {am} {subj} taking {x}?"),
        ("relative", "{Does_subj} still take {x} these days?"),
        ("relative", "as of this year, is {x} still on {poss} list of current medications?"),
        ("clinician", "current meds: {x} - on board?"),
    ),
    "med_absent": (
        ("plain", "Is there any record of {x} being prescribed to {obj}?"),
        ("pronoun", "{Am} {subj} on {x} at all?"),
        ("pronoun", "did anyone ever put {obj} on {x}?"),
        ("filler", "hey, random question, sorry - {Has_subj} ever had {x} prescribed?"),
        (
            "filler",
            "so basically the new doctor asked and i honestly couldnt remember, {have} {subj} ever taken {x}",
        ),
        ("typo", "any perscription for {typo} in {poss} notes"),
        ("lay", "{Has_subj} ever been given {x} by the GP or picked it up at the chemist?"),
        ("lay", "i need to know for a form - {x}, {have} {subj} ever been on that?"),
        ("lay", "can you check whether {x} is one of the pills {subj} {am} on"),
        ("clinician", "hx of {x} rx?"),
        ("clinician", "{x} on med list? y/n"),
        ("clinician", "med rec - pt ever on {x}?"),
    ),
    "cond_active": (
        ("plain", "Is {x} recorded as one of {poss} diagnoses?"),
        ("pronoun", "{subj} {have} {x}, {have}n't {subj}?"),
        ("filler", "um ok so like, does {poss} chart say {subj} {have} {x} or am i making that up"),
        ("typo", "is {typo} on {poss} problm list?"),
        ("typo", "{Has_subj} been diagnosd with {typo}"),
        ("lay", "the doctor mentioned {x} at some point - is that actually something {subj} {have}?"),
        ("relative", "{Is_pron} still living with {x} these days?"),
        ("relative", "right now, is {x} an active problem for {obj}?"),
        ("clinician", "{x} on problem list - confirm"),
    ),
    "cond_absent": (
        ("plain", "Is there a diagnosis of {x} anywhere in {poss} record?"),
        ("pronoun", "{Does_subj} have {x} or not?"),
        ("pronoun", "did anyone ever tell {obj} {subj} {have} {x}?"),
        (
            "filler",
            "ok random one, {poss} sister thinks {subj} might have {x}, is that in {poss} notes at all",
        ),
        ("typo", "{Has_subj} evr had {typo}"),
        ("typo", "any diagnosys of {typo} for {obj}?"),
        ("lay", "is {x} one of the things wrong with {obj}, according to the records?"),
        ("lay", "{Am} {subj} a {x} sufferer?"),
        ("relative", "at any point in the past, {have} {subj} had {x}?"),
        ("relative", "so far, has {x} come up anywhere in {poss} history?"),
        ("clinician", "hx {x}?"),
        ("clinician", "?{x} - any dx on file"),
    ),
    "lab_latest": (
        ("plain", "What is {poss} most recent {x}?"),
        ("plain", "What was the last recorded value for {poss} {x}?"),
        ("pronoun", "last time {subj} had {poss} {x} checked, what was it?"),
        ("filler", "hiya, hope ur ok, could u tell me what {poss} latest {x} was? ta"),
        (
            "filler",
            "so {poss} nurse is asking and i dont have it to hand - whats the most recent {x} on file",
        ),
        ("typo", "waht is {poss} lastest {typo}"),
        ("typo", "most recnt {typo} resutl?"),
        ("typo", "{poss} currnet {typo} pls"),
        ("lay", "what was the reading for {poss} {x} the last time it was done?"),
        ("lay", "how did {poss} {x} come out last time round?"),
        ("lay", "before {poss} appointment tomorrow, what's the newest figure for {x}?"),
        ("relative", "these days, what does {poss} {x} come in at?"),
        ("clinician", "{x} - most recent val pls"),
    ),
    "lab_max": (
        ("plain", "What is the highest {x} recorded for {obj}?"),
        ("plain", "What was {poss} peak {x}?"),
        ("filler", "hey sorry, bit of an odd one - whats the maximum {x} {subj} {have} had on record?"),
        ("filler", "right so for this insurance form i need {poss} highest ever {x}, can you find it"),
        ("typo", "whats the higest {typo} evr recorded"),
        ("typo", "{poss} maxium {typo}?"),
        ("lay", "what's the heaviest {subj} {have} been, going by {poss} {x} readings?"),
        ("lay", "at {poss} biggest, what did {subj} weigh?"),
        ("lay", "what's the top number ever for {poss} {x}?"),
        ("relative", "what's the highest {poss} {x} has been so far?"),
        ("relative", "across all {poss} past visits, what was the peak {x}?"),
        ("clinician", "peak {x} (all time)?"),
        ("clinician", "pt {x} - highest on record?"),
    ),
    "allergy_yes": (
        ("plain", "{Is_pron} allergic to {x}?"),
        ("pronoun", "{subj} {am} allergic to {x}, right?"),
        (
            "filler",
            "hello, sorry, quick one before {poss} appointment tomorrow - {have} {subj} got an allergy to {x} on file?",
        ),
        ("typo", "is {typo} on {poss} allergy lsit"),
        ("lay", "{Does_subj} react badly to {x}?"),
        ("lay", "{Has_subj} had an allergic reaction to {x} before?"),
        ("lay", "is {x} one of those things that sets {poss} allergies off?"),
        ("relative", "at the moment, is there an allergy to {x} on {poss} file?"),
        ("relative", "{Has_subj} ever been flagged as allergic to {x}?"),
        ("clinician", "allergies: {x}? y/n"),
    ),
    "ed_any": _ED,
    "ed_none": _ED,
}
