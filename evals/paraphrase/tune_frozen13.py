"""Once the thirteenth held-out part of the paraphrase suite (`frozen13`), now tuning (`--part tune_frozen13`).

Written 2026-12-07 by an outside writer who never saw the planner or the
other parts. Voices imagined: a formal older patient, a non-native English
speaker, a carer filling in forms, a teenager texting, a hurried GP locum,
a pharmacist reconciling medicines and a nurse on handover.

Before any measurement the lead dropped 26 of its 129 templates that the held-out checks
refuse (each sharing a phrase of twelve letters or more with a file under agent/ or tools/, or
equal to a tuning template); nothing else was edited.
Measured ONCE by the lead on round sixteen's merged main a7f4373 (`chartside eval paraphrase --part
frozen13`, demo cohort, 13:01 UTC): 4,040 questions over 303 facts, **accuracy 95.7 %, consistency
49.5 %, 0 confident false negatives**, 63 gate misses (advice refusals to record questions 62, one
emergency reply), 110 planner misses (wrong values on lay lab_latest 74, unclear answers on filler
cond_active 24 and cond_absent 12). By family: plain 100 %, clinician 98.9 %, pronoun, relative
98.5 %, typo 98.4 %, filler 91.0 %, lay 89.2 %. It then moved into tuning, its misses read.
"""

from __future__ import annotations

from evals.paraphrase.templates import Templates

_ED: tuple[tuple[str, str], ...] = (
    ("plain", "{Has_subj} ever been seen in the emergency department?"),
    ("plain", "Is there any emergency department visit on {poss} record?"),
    ("pronoun", "{subj} {have} been to A&E at some point, right?"),
    ("pronoun", "Was {subj} ever seen in casualty?"),
    (
        "filler",
        "I am compiling a summary of past hospital contact and would be grateful "
        "to learn whether {subj} {have} at any time attended an emergency department.",
    ),
    (
        "filler",
        "Sorry, bit of a random one while I fill in this form for the family. "
        "{Has_subj} ever had a trip to the ER?",
    ),
    ("typo", "{Has_subj} ever been to the ER?? like evr lol"),
    ("typo", "The emergency hospital, {subj} go there before, or never?"),
    ("lay", "{Have} {subj} ever ended up in A&E?"),
    ("lay", "Any trips to the ER on {poss} file?"),
    (
        "lay",
        "I was told {subj} went to the emergency room at some point. Is that in there?",
    ),
    ("relative", "{Has_subj} had an emergency visit to date?"),
    ("relative", "As things stand, does {poss} record show any ED attendance?"),
    ("clinician", "Any ED attendances on file for {obj}? Yes/no is fine."),
    ("clinician", "Quick q: prior ED presentations for {obj}, any?"),
)

TUNE_FROZEN13: Templates = {
    "med_active": (
        ("plain", "{Is_pron} prescribed {x}?"),
        ("plain", "Confirm {x} is one of the medicines {subj} take{s}."),
        ("pronoun", "{subj} take{s} {x}, right?"),
        ("pronoun", "Is {x} something {subj} take{s}?"),
        (
            "filler",
            "Sorry to bother you, I know it's probably a silly thing to ask. {Is_pron} still on {x}?",
        ),
        (
            "filler",
            "I would be grateful if you could confirm whether {subj} take{s} {x} "
            "at present, as I like to keep matters in good order.",
        ),
        (
            "filler",
            "Sorting out the dosette box this morning and wanted to double-check. {Does_subj} take {x}?",
        ),
        ("typo", "{Is_pron} stil on {typo}?"),
        ("typo", "{Is_pron} on {typo} rn or nah"),
        ("typo", "{typo} is in {poss} medicins list now, yes?"),
        ("lay", "{Is_pron} meant to be taking {x}?"),
        ("lay", "I was told {subj} {am} on {x}. Is that in there?"),
        ("relative", "{Is_pron} on {x} these days?"),
        ("relative", "As things stand, is {x} part of {poss} regimen?"),
        ("clinician", "Pull up {poss} drug chart, is {x} on it?"),
        ("clinician", "Med rec for {obj}: {x} still current, yes or no?"),
    ),
    "med_absent": (
        ("pronoun", "Was {subj} ever put on {x}?"),
        (
            "filler",
            "Good afternoon. I am trying to put together an accurate list of {poss} "
            "medicines for a forthcoming appointment, and I wondered whether {x} "
            "has ever been among them.",
        ),
        (
            "filler",
            "Filling in a form for the care home and it asks about {x}. {Has_subj} ever had that one?",
        ),
        ("typo", "{Has_subj} evre been on {typo}?"),
        ("typo", "{Is_pron} on {typo}?? pretty sure not but idk"),
        ("typo", "The doctor give {obj} {typo} before, or never?"),
        ("lay", "Did a doctor ever put {obj} on {x}?"),
        ("lay", "I was told {subj} might be on {x}. Is that in there?"),
        ("relative", "{Has_subj} been on {x} at any point to date?"),
        ("relative", "{Is_pron} taking {x} right now or not?"),
        (
            "clinician",
            "Med reconciliation: any {x} ever prescribed or dispensed for {obj}?",
        ),
        (
            "clinician",
            "Quick one before clinic. Need to know if {x} features anywhere in {poss} scripts.",
        ),
    ),
    "cond_active": (
        ("pronoun", "{subj} {have} {x}, right?"),
        ("pronoun", "Is {x} something {subj} {have}?"),
        (
            "filler",
            "Forgive the lengthy message. I have been trying to keep my own notes "
            "in order and would appreciate confirmation of whether {x} is recorded "
            "as a current condition for {obj}.",
        ),
        (
            "filler",
            "Helping with the forms again, so bear with me. {Does_subj} have {x} on record?",
        ),
        ("typo", "{Does_subj} hav {typo}?"),
        ("typo", "In {poss} papers is written {typo}. This is true, {subj} {have} it?"),
        ("lay", "Someone said {subj} {have} {x}. Is that written down anywhere?"),
        ("lay", "Does the chart say {subj} suffer{s} from {x}?"),
        ("relative", "{Does_subj} still have {x} as things stand?"),
        ("relative", "Right now, is {x} one of {poss} ongoing problems?"),
        ("clinician", "Confirm {x} is a live problem for {obj}."),
        ("clinician", "Handover: is {x} one of {poss} current issues?"),
    ),
    "cond_absent": (
        ("plain", "Is there any record of {x} for {obj}?"),
        ("pronoun", "{x} is one of {poss} conditions, isn't it?"),
        ("pronoun", "Is {x} a problem {subj} {have}?"),
        (
            "filler",
            "I hope this finds you well. Some years ago a relative mentioned {x}, "
            "and I should like to know whether that condition appears anywhere "
            "in {poss} record.",
        ),
        (
            "filler",
            "New to helping out with appointments so sorry if this is obvious. {Does_subj} have {x}?",
        ),
        ("typo", "{Do} {subj} have {typo}?? asking for a form lol"),
        ("lay", "Has a doctor ever said {subj} {have} {x}?"),
        ("lay", "Is {x} written down anywhere in {poss} notes?"),
        ("lay", "I was told {subj} might have {x}, is that in there?"),
        ("relative", "To date, has {x} ever shown up in {poss} record?"),
        ("clinician", "Any {x} in {poss} background? No time to dig, sorry."),
        ("clinician", "Nurse handover: is {x} listed for {obj} or not?"),
    ),
    "lab_latest": (
        ("plain", "What was the last recorded {x} for {obj}?"),
        ("pronoun", "Last time {poss} {x} was taken, what was it?"),
        ("pronoun", "What did {poss} {x} come to when it was last checked?"),
        (
            "filler",
            "I should be most obliged if you would let me know the value of "
            "{poss} {x} from the latest occasion on which it was measured.",
        ),
        (
            "filler",
            "Trying to keep a little notebook of the numbers for the family. "
            "What's the newest {x} on file for {obj}?",
        ),
        ("typo", "Whats {poss} lastest {typo}?"),
        ("typo", "wats {poss} {typo} at rn"),
        ("typo", "The {typo} of {obj}, the last one, how much is?"),
        ("lay", "What number did {poss} {x} come back as last time?"),
        ("lay", "When they last checked {poss} {x}, what did it say?"),
        ("lay", "Can you read me the last {x} figure in {poss} notes?"),
        ("relative", "What is {poss} {x} right now, going by the chart?"),
        ("relative", "As things stand, what is {poss} {x}?"),
        ("clinician", "Pull up {poss} last {x}, please."),
        ("clinician", "Need latest {x} for {obj} for the handover sheet."),
    ),
    "lab_max": (
        (
            "filler",
            "For my own records I would like to know the single highest reading "
            "of {poss} {x} that has ever been entered, if that is not too much "
            "trouble.",
        ),
        (
            "filler",
            "Doing a bit of paperwork for the family, bear with me. "
            "What was the top {x} ever noted for {obj}?",
        ),
        ("typo", "Whats the higest {typo} on {poss} recrod?"),
        ("typo", "wats the biggest {typo} {subj} ever had lol"),
        ("typo", "{poss} {typo}, the most high one, which is it?"),
        ("lay", "What's the biggest number ever written down for {poss} {x}?"),
        (
            "lay",
            "Out of every time they've checked {poss} {x}, what was the top reading?",
        ),
        ("relative", "What is {poss} peak {x} to date?"),
        (
            "relative",
            "Across everything on file, what's the highest {poss} {x} has ever reached?",
        ),
        ("relative", "What's the highest {x} {subj} {have} ever had recorded?"),
        ("clinician", "Peak {x} for {obj}? All-time, not just the latest."),
    ),
    "allergy_yes": (
        ("plain", "Is {x} listed as an allergy for {obj}?"),
        (
            "filler",
            "Before my next visit I should like to be certain of one matter: "
            "is an allergy to {x} recorded for {obj}?",
        ),
        ("typo", "{Am} {subj} allergic to {typo} or am i making it up"),
        ("typo", "{typo} is bad for {obj}, the allergy, it is written?"),
        ("lay", "Is {x} on the list of things {subj} can't have?"),
        ("lay", "I was told {subj} {am} allergic to {x}. Is that in there?"),
        ("relative", "As things stand, is there a {x} allergy on file for {obj}?"),
        ("relative", "{Is_pron} still down as allergic to {x} these days?"),
        ("clinician", "Allergy check for med rec: {x} flagged for {obj}?"),
        ("clinician", "Confirm {x} allergy on {poss} chart."),
    ),
    "ed_any": _ED,
    "ed_none": _ED,
}
