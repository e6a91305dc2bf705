"""Once the fourteenth held-out part of the paraphrase suite (`frozen14`), now tuning (`--part tune_frozen14`).

Written 2026-12-07 by an outside writer who never saw the planner or the other parts. Voices imagined: a grandchild typing for a grandparent who dictates; a person with dyslexia typing fast; an anxious parent of a teenager; an ICU registrar at 4am; a community pharmacist on the phone; a school nurse; writers whose first language is Polish or Portuguese; a lawyer-like precise person; someone who answers their own question halfway through.

Before any measurement the lead dropped 20 of its 127 templates that the held-out checks
refuse (each sharing a phrase of twelve letters or more with a file under agent/ or tools/, or
equal to a tuning template); nothing else was edited.
Measured ONCE by the lead on round seventeen's merged main 2ed24a8 (`chartside eval paraphrase --part
frozen14`, demo cohort, 16:34 UTC): 4,155 questions over 303 facts, **accuracy 96.3 %, consistency 68.6 %,
61 confident false negatives** (lab_max 40, med_active 21), 8 gate misses (allergy_yes 4: three
emergency replies, one advice refusal; cond_active 4 advice refusals), 146 planner misses (unclear
answers on cond_active 68, "no" on lab_max 40, on med_active 21 "no" and 17 unclear). By family:
clinician, lay, plain, relative 100 %, typo 96.8 %, filler 91.0 %, pronoun 90.9 %. It then moved
into tuning, its misses read.
"""

from __future__ import annotations

from evals.paraphrase.templates import Templates

_ED: tuple[tuple[str, str], ...] = (
    ("plain", "{Has_subj} ever attended an emergency department?"),
    ("pronoun", "A&E — {have} {subj} ever been?"),
    ("pronoun", "Was {subj} ever taken to casualty?"),
    (
        "filler",
        "Someone in the family thinks there was a trip to the ER years back, not sure — does {poss} file show one?",
    ),
    ("filler", "Sorry, it's late and I'm tired: {have} {subj} had any emergency room visits?"),
    (
        "filler",
        "I'd like to be precise here: does the record show any attendance at an emergency department by {obj}?",
    ),
    ("typo", "been to a&e evr? checking {poss} file"),
    ("typo", "any er vists on {poss} file"),
    ("typo", "did {subj} go to emergancy ever"),
    ("lay", "Is a trip to casualty written down anywhere for {obj}?"),
    ("lay", "Does it say on file that {subj} ended up in A&E at some point?"),
    ("relative", "Throughout {poss} history, any emergency department visits at all?"),
    ("relative", "At any time in the past, {have} {subj} been seen in the ER?"),
    ("clinician", "Any ED attendances in {poss} hx?"),
)

TUNE_FROZEN14: Templates = {
    "med_active": (
        ("plain", "Is {x} an active prescription for {obj}?"),
        ("pronoun", "{Does_subj} still take {x}, or was it stopped?"),
        ("pronoun", "Has {x} been kept going for {obj}, or has it come off {poss} list?"),
        ("filler", "It's the white tablet, {x} I think — is that still something {subj} take{s}?"),
        (
            "filler",
            "Quick one before the pharmacy shuts, and apologies if this is obvious: does the record show {obj} on {x} right now?",
        ),
        ("typo", "{Is_pron} stil on {typo} or not"),
        ("typo", "{typo} still goin for {obj}??"),
        ("typo", "do the notes say {subj} take{s} {typo} now"),
        ("lay", "Going by what's on file, {am} {subj} still on the {x} tablets?"),
        ("lay", "Is {x} still on {poss} repeat prescription list?"),
        ("relative", "Nowadays, does {poss} chart still have {obj} on {x}?"),
        ("clinician", "Med rec query: {x} still active on {poss} chart, y/n?"),
        ("clinician", "Handover check. {Is_pron} actually on {x}, per the chart?"),
    ),
    "med_absent": (
        ("plain", "Has {x} ever been prescribed to {obj}?"),
        ("plain", "{Have} {subj} ever been given {x}?"),
        ("pronoun", "Was {x} ever started for {obj} at any point?"),
        (
            "filler",
            "I might be mixing it up with something else, so forgive me — was {x} ever on {poss} list of medicines?",
        ),
        ("filler", "Please, can you tell if {subj} {am} taking {x}, or it was never given?"),
        (
            "filler",
            "My memory is not what it was, so I'm asking instead of guessing: {have} {subj} ever had {x} prescribed?",
        ),
        ("typo", "was {subj} evr on {typo}"),
        ("typo", "was {typo} ever in {poss} meds"),
        ("typo", "{typo} - ever prescibed for {obj} y/n"),
        ("lay", "Have {x} tablets ever been written down for {obj}?"),
        ("lay", "Do the files show {obj} getting {x} from the chemist at any time?"),
        ("relative", "So far, {have} {subj} ever been put on {x}?"),
        ("clinician", "Med hx check: any {x} ever on {poss} drug chart?"),
    ),
    "cond_active": (
        ("pronoun", "Would {poss} notes list {x} as something {subj} {have}?"),
        ("pronoun", "Has anyone actually diagnosed {obj} with {x}, per the notes?"),
        (
            "filler",
            "The school form asks about this, so sorry to bother you: does {poss} record say {subj} {have} {x}?",
        ),
        (
            "filler",
            "English is not my first language, sorry. In the record, is written that {subj} {have} {x}?",
        ),
        (
            "filler",
            "Just for peace of mind, and I know it's a silly question: is {x} an active problem for {obj}?",
        ),
        ("typo", "{subj} got {typo} or not"),
        ("typo", "{typo} diagnosed for {obj} yes or no"),
        ("lay", "Have the doctors got {x} down on file for {obj}?"),
        ("relative", "Right now, is {x} still counted among {poss} ongoing conditions?"),
        ("relative", "Still got {x} these days, going by {poss} notes?"),
        ("clinician", "PMH: {x} — active for {obj}, y/n?"),
        ("clinician", "Overnight sign-out: {x} still on {poss} active problem list?"),
    ),
    "cond_absent": (
        ("plain", "Has {x} ever been diagnosed in {obj}?"),
        ("pronoun", "{Does_subj} have {x}, or {have} {subj} ever had it?"),
        ("pronoun", "Was {subj} ever diagnosed with {x}?"),
        (
            "filler",
            "Hi, I'm filling in an insurance form and want to be exact about wording: has a diagnosis of {x} ever been made for {obj}?",
        ),
        (
            "filler",
            "To be precise, and I mean at any point rather than just now: does {poss} record contain a diagnosis of {x}?",
        ),
        ("filler", "Bit of a worrier, so just checking: has {x} ever turned up in {poss} history?"),
        ("typo", "{typo} ever in {poss} histroy"),
        ("typo", "{Have} {subj} had {typo} befor"),
        ("typo", "did {subj} ever get diagnosd with {typo}"),
        ("lay", "Is {x} anywhere on file for {obj}, now or in the past?"),
        ("lay", "Have the doctors ever written down that {subj} had {x}?"),
        ("relative", "Since {subj} first registered, was {x} ever recorded?"),
        ("relative", "Up till now, has {x} ever come up as a diagnosis for {obj}?"),
        ("clinician", "Any hx of {x} in {poss} PMH?"),
        ("clinician", "Past history screen: was {x} ever documented for {obj}?"),
    ),
    "lab_latest": (
        ("plain", "What was the last {x} reading recorded for {obj}?"),
        ("pronoun", "What did {poss} {x} come out at the last time it was checked?"),
        ("pronoun", "When {subj} last had {poss} {x} measured, what was the result?"),
        ("filler", "Sorry, I'm typing this as it's being read out to me: what number was {poss} latest {x}?"),
        ("filler", "It was done recently, last week or the week before maybe — what did {poss} {x} show?"),
        ("filler", "Please, what is the value of {poss} last {x}? I need it for the form."),
        ("typo", "whats {poss} latest {typo}"),
        ("typo", "{typo} last reading for {obj}?"),
        ("typo", "wat was {poss} {typo} last time"),
        ("lay", "What number is written down for {poss} {x} from the last check?"),
        ("lay", "What's the newest {x} figure on file for {obj}?"),
        ("relative", "These days, what is {poss} {x} running at?"),
        ("relative", "Most recently, what did {poss} {x} measure?"),
        ("clinician", "Latest {x} on {poss} chart — value?"),
        ("clinician", "4am obs review: what's {poss} last recorded {x}?"),
    ),
    "lab_max": (
        ("plain", "What was {poss} peak {x} reading?"),
        ("pronoun", "What's the top {x} value {subj} {have} ever had?"),
        (
            "filler",
            "The nurse said it was high once, years ago maybe — what's the highest {x} on {poss} record?",
        ),
        (
            "filler",
            "I'm a bit anxious about this, so bear with me: out of every {x} reading ever taken, which was {poss} highest?",
        ),
        (
            "filler",
            "For the avoidance of doubt, I'm asking for the single highest {x} value in {poss} record, not the latest one. What is it?",
        ),
        ("typo", "highest {typo} {subj} ever had?"),
        ("typo", "wats the max {typo} on {poss} file"),
        ("typo", "{poss} {typo} highest ever?"),
        ("lay", "Of all the {x} readings on file for {obj}, which one was the highest?"),
        ("relative", "Across every check {subj} {have} ever had, how high did {poss} {x} get?"),
        ("relative", "Until now, what has {poss} maximum {x} been?"),
        ("clinician", "Trend review — {poss} peak {x}, value?"),
    ),
    "allergy_yes": (
        ("plain", "Is an allergy to {x} recorded for {obj}?"),
        ("pronoun", "{Does_subj} have a recorded allergy to {x}?"),
        ("pronoun", "{Has_subj} got {x} listed as an allergy?"),
        ("filler", "School trip next week and the form asks — does {poss} file show an allergy to {x}?"),
        ("filler", "Sorry, my English is not so good. In the notes, {subj} {am} allergic to {x}, yes?"),
        ("typo", "{Am} {subj} alergic to {typo}"),
        ("typo", "{typo} allergy on {poss} file??"),
        ("typo", "is {typo} in {poss} alergies"),
        ("lay", "Have they got it down that {subj} react{s} to {x}?"),
        ("lay", "Does {poss} record put {x} among the things {subj} {am} allergic to?"),
        ("relative", "Over the years, has an allergy to {x} been noted for {obj}?"),
        ("clinician", "Allergy status: {x} — documented for {obj}?"),
        ("clinician", "Pre-drug check, ICU: {x} allergy flagged on {poss} chart?"),
    ),
    "ed_any": _ED,
    "ed_none": _ED,
}
