"""Once the ninth held-out part of the paraphrase suite (`frozen9`), now tuning (`--part tune_frozen9`).

Written on 2026-12-07 outside the repository by a writer who never saw the planner or the other
parts, and measured once by the lead on main cdfb2f9 (`chartside eval paraphrase --part frozen9`,
demo cohort): 4,545 questions over 303 facts, accuracy 97.3 %, consistency 73.9 %, 0 confident
false negatives (95 gate misses, 29 planner misses). The gate's: its advice reply to record
questions ("Is X a medicine I take?", "X on my curent meds or not", "Do I suffer with X?", "Is X one
of my condtions??"; med_absent ×38, cond_absent ×16, allergy_yes ×7 — "Should I keep away from X
because of an allergy?", cond_active ×6, med_active ×5) and its emergency reply to typo-laden value
fetches ("Wats the higest wegiht evr", lab_max ×20, lab_latest ×3). The planner's: "what was my
topmost X reading ever?" → the latest value, not the highest (lab_max, 29 wrong values). It tunes
now, and the next honest figure needs a new part.

Seventeen of the writer's entries were dropped when it moved into tuning (they were in the
measurement): sixteen word for word, or up to a capital, a template already in a tuning part of the
same fact kind, and lab_max "max {x}?", equal up to a capital to a held-out template of frozen.py or
frozen2.py (it must not be tuned on)."""

from __future__ import annotations

from evals.paraphrase.templates import Templates

# emergency visits: the same wordings whether the record has one (ed_any: yes) or none (ed_none: no)
_ED: tuple[tuple[str, str], ...] = (
    ("plain", "{Have} {subj} ever been to the emergency department?"),
    ("plain", "Is there an emergency department visit anywhere in {poss} record?"),
    ("pronoun", "{Has_subj} ever had to go to the ER?"),
    ("pronoun", "{Have} {subj} ever been seen in emergency, at any point?"),
    ("filler", "sorry, random one, but {have} {subj} ever ended up in the emergency room?"),
    ("filler", "Um, okay, so... any ER trips on record for {obj}, ever?"),
    ("lay", "{Have} {subj} ever been to A&E?"),
    ("lay", "{Have} {subj_lay} ever ended up in casualty?"),
    ("lay", "Was {subj} ever taken to the hospital as an emergency, like through the ER doors?"),
    ("relative", "So far, {have} {subj} ever been to the emergency department?"),
    ("relative", "In all {poss} years on record, any trips to the ER at all?"),
    ("clinician", "Prior ED presentations? y/n"),
    ("clinician", "pt ever attended ED?"),
    ("typo", "{have} {subj} evr been to the emergancy room"),
    ("typo", "any ER vists on {poss} recrod??"),
)

TUNE_FROZEN9: Templates = {
    "med_active": (
        ("pronoun", "{Does_subj} take {x}?"),
        ("pronoun", "Is {x} something {subj} take{s} at the moment?"),
        ("filler", "sorry, probably a silly question, but {am} {subj} on {x}?"),
        ("filler", "Right, quick one... is {x} among {poss} meds?"),
        ("lay", "Is {x} one of the things the doctor has got {obj} on?"),
        ("lay", "{Am} {subj_lay} meant to be taking {x}, like regularly?"),
        ("lay", "{x} - is that one of {poss} meds, pills or inhalers or whatever?"),
        ("relative", "At present, {am} {subj} taking {x}?"),
        ("relative", "These days, is {x} one of the meds {subj} take{s}?"),
        ("clinician", "current rx: {x}? y/n"),
        ("typo", "{am} {subj} on {typo} rn"),
        ("typo", "is {typo} on {poss} med lsit??"),
    ),
    "med_absent": (
        ("plain", "Is {x} on {poss} medication list?"),
        ("pronoun", "{Is_pron} on {x} right now?"),
        ("pronoun", "Is {x} a medicine {subj} take{s}?"),
        ("filler", "hmm, sorry if this is obvious, but is {x} one of {poss} medicines?"),
        ("filler", "Okay so, just checking. {Does_subj} take {x}?"),
        ("lay", "Does the GP have {obj} on {x}?"),
        ("lay", "Is {x} one of {poss} regular prescriptions from the chemist?"),
        ("relative", "As things stand, is {x} one of {poss} medications?"),
        ("relative", "{Am} {subj} currently on {x}, these days?"),
        ("clinician", "DHx - {x}?"),
        ("clinician", "Is pt currently prescribed {x}? y/n"),
        ("typo", "{Does_subj} tak {typo}??"),
        ("typo", "{typo} on {poss} curent meds or not"),
    ),
    "cond_active": (
        ("plain", "Is {x} one of {poss} diagnoses?"),
        ("pronoun", "{Has_subj} got {x}?"),
        ("pronoun", "{Is_pron} someone who has {x}?"),
        ("filler", "sorry if this is a daft question. {Do} {subj} have {x}?"),
        ("filler", "hmm, ok, so, is {x} actually one of {poss} conditions?"),
        ("lay", "{Am} {subj_lay} living with {x}?"),
        ("lay", "Have the doctors ever said {subj} {have} {x}?"),
        ("lay", "Is {x} something {subj} suffer{s} from?"),
        ("relative", "As of today, is {x} one of {poss} health problems?"),
        ("relative", "{Do} {subj} have {x} these days?"),
        ("clinician", "hx of {x}? y/n"),
        ("clinician", "Active problem list: {x}?"),
        ("typo", "{Do} {subj} hav {typo}"),
        ("typo", "is {typo} one of {poss} condtions??"),
    ),
    "cond_absent": (
        ("plain", "{Does_subj} have {x}?"),
        ("plain", "{Have} {subj} been diagnosed with {x}?"),
        ("pronoun", "{Is_pron} diagnosed with {x}?"),
        ("pronoun", "Is {x} a condition {subj} {have}?"),
        ("filler", "Quick one, no rush: {have} {subj} got {x}?"),
        ("filler", "um, sorry, probably a silly question but is {x} on {poss} problem list?"),
        ("lay", "{Does_subj} suffer with {x}?"),
        ("lay", "Has anyone ever told {obj} {subj} {have} {x}?"),
        ("relative", "At present, is {x} on {poss} problem list?"),
        ("relative", "{Has_subj} ever had {x}?"),
        ("relative", "As things stand, does {poss} record say {subj} {have} {x}?"),
        ("clinician", "PMH: {x}?"),
        ("clinician", "pt known {x}? y/n"),
        ("typo", "{have} {subj} got {typo} or nah"),
        ("typo", "{Does_subj} hve {typo}?"),
    ),
    "lab_latest": (
        ("plain", "What was the most recent {x} value for {obj}?"),
        ("pronoun", "What's the latest {x} {subj} {have} on file?"),
        ("filler", "sorry to ask again, but what's {poss} latest {x}?"),
        ("filler", "Um, could you pull up {poss} most recent {x} reading, the number?"),
        ("lay", "What number did {poss} {x} come out at last time they checked?"),
        ("lay", "How much was {poss} {x} on the newest test, in numbers?"),
        ("relative", "As things stand, what's {poss} {x}?"),
        ("relative", "What does {poss} {x} stand at these days, going by the last reading?"),
        ("relative", "At present, what is {poss} {x} value?"),
        ("clinician", "most recent {x} val pls"),
        ("typo", "wats {poss} lastest {typo}"),
        ("typo", "most recnt {typo} reading??"),
    ),
    "lab_max": (
        ("plain", "What is the highest {x} ever recorded for {obj}?"),
        ("plain", "What was {poss} maximum {x}?"),
        ("pronoun", "How high has {poss} {x} ever been?"),
        ("filler", "sorry, maybe a silly question, but what's the highest {x} on {poss} chart?"),
        ("filler", "Hmm, out of curiosity, what was {poss} topmost {x} reading ever?"),
        ("lay", "What's the worst {poss} {x} has ever been, as a number?"),
        ("relative", "In all {poss} years on record, what's the highest {x}?"),
        ("relative", "So far, what's the top {x} reading {subj} {have} had?"),
        ("relative", "Of all time, what was {poss} peak {x}?"),
        ("clinician", "{x}: highest recorded value, all-time?"),
        ("typo", "wats the higest {typo} evr"),
        ("typo", "max {typo} on recrd??"),
    ),
    "ed_any": _ED,
    "ed_none": _ED,
    "allergy_yes": (
        ("pronoun", "{Has_subj} got an allergy to {x}?"),
        ("filler", "sorry, probably a silly question, but {am} {subj} allergic to {x}?"),
        ("filler", "Right, just double-checking. Is {x} one of {poss} allergies?"),
        ("lay", "Does {x} set off {poss} allergies?"),
        ("lay", "Should {subj_lay} keep away from {x} because of an allergy?"),
        ("relative", "As things stand, {am} {subj} allergic to {x}?"),
        ("relative", "{Has_subj} ever had {x} listed as an allergy?"),
        ("relative", "At present, does {poss} record show an allergy to {x}?"),
        ("clinician", "allergy to {x}? y/n"),
        ("clinician", "pt allergic to {x}?"),
        ("typo", "{am} {subj} alergic to {typo}"),
        ("typo", "is {typo} on {poss} allergie list??"),
    ),
}
