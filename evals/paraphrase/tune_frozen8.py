"""Once the eighth held-out part of the paraphrase suite (`frozen8`), now tuning (`--part tune_frozen8`).

Written on 2026-12-06 outside the repository by a writer who never saw the planner or the other
parts, and measured once by the lead on main b1f5573: 4,376 questions over 303 facts, accuracy
96.7 %, consistency 60.4 %, 0 confident false negatives (23 gate misses, 120 planner misses). The
planner's splits: "Do I currently have X, going by the latest notes?" → the last visit, not the
condition's yes or no (cond_active and cond_absent, 64 answers graded unclear); "What's the top X
number they've ever got on file for me?" → the latest weight, not the highest (lab_max, 29 wrong
values); "Am I on X, and if so, what dose?" → the dose with no yes or no before it (med_active, 27
graded unclear). The gate's 23 were its advice reply (cond_absent ×10, med_active ×7, cond_active
×6), left to the lead, who owns the gate. The planner's three classes were then fixed (round
thirteen, tests/agent/test_lead_hunt_r13.py). It tunes now, and the next honest figure needs a new
part.

Nineteen of the writer's entries were dropped when it moved into tuning (they were in the
measurement): fourteen word for word a template already in a tuning part of the same fact kind
(med_absent "{Has_subj} ever been prescribed {x}?"; cond_active and cond_absent "{Do} {subj} have
{x}?"; cond_active "{Has_subj} been diagnosed with {x}?"; cond_absent "{Has_subj} ever been
diagnosed with {x}?"; lab_latest "What's {poss} {x} these days, going by the newest result?" and
"latest {x}?"; lab_max "What is the highest {x} on {poss} record?" and "max {x} on record?"; ed_any
and ed_none "{Has_subj} ever been to the emergency department?"; allergy_yes "{Am} {subj} allergic
to {x}?", "{Do} {subj} have an allergy to {x}?" and "{Am} {subj} alergic to {typo}?"), and five the
same words up to a capital ("What is {poss} most recent {x}?", "How high has {poss} {x} ever
gotten?", ed_any and ed_none "Did {subj} ever have to go to casualty?", "Is {x} listed as one of
{poss} allergies?"). None was equal to a held-out template of frozen.py or frozen2.py.
"""

from __future__ import annotations

from evals.paraphrase.templates import Templates

_ED = (
    ("plain", "Is there any record of {obj} going to the emergency room, and if so, when?"),
    ("pronoun", "{Has_subj} ever had an ER visit?"),
    ("lay", "{Has_subj} ever ended up in A&E?"),
    ("lay", "Is there anything on file about {obj} turning up at the emergency room?"),
    ("filler", "Sorry if this is a daft question, but {have} {subj} ever been to the emergency room?"),
    (
        "filler",
        "So I'm filling in a form and it asks about hospital visits — {have} {subj} ever been seen in an emergency department, do you know?",
    ),
    ("typo", "{Has_subj} evr been to the emergancy room?"),
    ("typo", "any ER vists on {poss} recrod?"),
    ("relative", "At any point in {poss} records, is there an emergency department visit?"),
    ("relative", "Going all the way back, {have} {subj} ever had to go to the ER?"),
    ("clinician", "Prior ED presentations? y/n"),
    ("clinician", "pt ever seen in ED? any hx of ED attendance?"),
)

TUNE_FROZEN8: Templates = {
    "med_active": (
        ("plain", "{Am} {subj} on {x}?"),
        ("plain", "Is {x} on {poss} current medication list?"),
        ("plain", "{Am} {subj} on {x}, and if so, what dose?"),
        ("pronoun", "Is {x} one of the medicines {subj} take{s}?"),
        ("pronoun", "Is there anything in there about {obj} being on {x}?"),
        ("pronoun", "{Do}n't {subj} take {x}?"),
        ("filler", "Hi, sorry to bother you — I was just wondering, {am} {subj} still on {x} or not?"),
        ("filler", "Um, quick one: {x}, {am} {subj} taking that at the moment?"),
        ("typo", "{Am} {subj} stil takeing {typo}?"),
        ("typo", "is {typo} on {poss} medicaton list"),
        ("lay", "{Has_subj} got {x} on {poss} repeat prescriptions?"),
        ("lay", "Is {x} one of the things the doctor has {obj} on?"),
        ("relative", "As of now, {am} {subj} taking {x}?"),
        ("relative", "These days, is {x} still part of {poss} meds?"),
        ("clinician", "pt on {x}? y/n"),
        ("clinician", "{x} among pt's active meds (incl PRN)?"),
    ),
    "med_absent": (
        ("plain", "{Am} {subj} on {x}?"),
        ("plain", "Is {x} on {poss} current medication list?"),
        ("plain", "{Am} {subj} on {x}, and if so, what dose?"),
        ("pronoun", "Is {x} one of the medicines {subj} take{s}?"),
        ("pronoun", "Is there anything in there about {obj} being on {x}?"),
        ("filler", "Hi, sorry to bother you — I was just wondering, {am} {subj} on {x} or not?"),
        ("filler", "Um, quick one: {x}, {am} {subj} taking that at the moment?"),
        ("typo", "{Am} {subj} takeing {typo}?"),
        ("typo", "is {typo} on {poss} medicaton list"),
        ("lay", "{Has_subj} got {x} on {poss} repeat prescriptions?"),
        ("lay", "Would {x} show up if someone looked at {poss} list of medicines?"),
        ("relative", "As of now, {am} {subj} taking {x}?"),
        ("relative", "In the past year, {have} {subj} been on {x} at all?"),
        ("clinician", "pt on {x}? y/n"),
        ("clinician", "{x} among pt's active meds (incl PRN)?"),
    ),
    "cond_active": (
        ("plain", "Is {x} on {poss} problem list?"),
        ("pronoun", "Is there anything in {poss} notes saying {subj} {have} {x}?"),
        (
            "filler",
            "Okay, this might sound odd, but did a doctor ever tell {obj} that {subj} had {x}? I honestly can't remember.",
        ),
        ("filler", "Just wondering, {have} {subj} got {x}, or am I mixing that up with someone else?"),
        ("typo", "{Do} {subj} hav {typo}?"),
        ("typo", "is {typo} in {poss} diagnosises"),
        ("lay", "Is it written down anywhere that {subj} {have} {x}?"),
        ("lay", "{Has_subj} got {x} on file?"),
        ("relative", "As of now, is {x} still an active problem for {obj}?"),
        ("relative", "{Do} {subj} currently have {x}, going by the latest notes?"),
        ("clinician", "PMH: {x}? y/n"),
        ("clinician", "? known {x} — on pt's active problem list"),
    ),
    "cond_absent": (
        ("plain", "Is {x} on {poss} problem list?"),
        ("pronoun", "Is there anything in {poss} notes saying {subj} {have} {x}?"),
        (
            "filler",
            "Okay, this might sound odd, but did a doctor ever tell {obj} that {subj} had {x}? I honestly can't remember.",
        ),
        ("filler", "Just wondering, {have} {subj} got {x}, or am I mixing that up with someone else?"),
        ("typo", "{Do} {subj} hav {typo}?"),
        ("typo", "is {typo} in {poss} diagnosises"),
        ("lay", "Is it written down anywhere that {subj} {have} {x}?"),
        ("lay", "{Has_subj} got {x} on file?"),
        ("relative", "Since last spring, {have} {subj} been told {subj} {have} {x}?"),
        ("relative", "{Do} {subj} currently have {x}, going by the latest notes?"),
        ("clinician", "PMH: {x}? y/n"),
        ("clinician", "any hx of {x} documented for pt?"),
    ),
    "lab_latest": (
        ("plain", "What was {poss} last {x} result?"),
        ("pronoun", "What was {poss} {x} the last time it was measured?"),
        ("pronoun", "Could you look up {poss} latest {x} for me?"),
        (
            "filler",
            "Hiya, I'm trying to keep track of things — what did {poss} {x} come out at most recently?",
        ),
        ("filler", "Um, so, the newest {x} reading for {obj} — what was the number?"),
        ("typo", "whats {poss} lastest {typo}"),
        ("typo", "most recnt {typo} reading?"),
        ("lay", "What's the latest {x} number they've got written down for {obj}?"),
        ("lay", "What was {poss} {x} when they last checked it?"),
        ("relative", "As of now, what's {poss} {x}?"),
        ("clinician", "most recent {x} for pt pls — value + date"),
    ),
    "lab_max": (
        ("plain", "What's the maximum {x} recorded for {obj}?"),
        ("pronoun", "What's the highest {x} {subj} {have} ever had?"),
        (
            "filler",
            "I know it's gone up and down over the years, but what was {poss} {x} at its very highest?",
        ),
        ("filler", "Just curious really — what's the peak {x} anyone's ever written down for {obj}?"),
        ("typo", "higest {typo} ever recorded"),
        ("typo", "whats the max {typo} on {poss} recrod"),
        ("lay", "What's the top {x} number they've ever got on file for {obj}?"),
        ("lay", "At its highest, what did {poss} {x} get up to?"),
        ("relative", "Over all the years on record, what's the highest {x} {subj} {have} had?"),
        ("relative", "Of all the readings to date, which {x} was the highest, and what was it?"),
        ("clinician", "pt peak {x} (all-time)?"),
    ),
    "ed_any": _ED,
    "ed_none": _ED,
    "allergy_yes": (
        ("pronoun", "Is there anything in there about {obj} reacting to {x}?"),
        ("filler", "Sorry, silly question maybe, but is {x} one of the things {subj} {am} allergic to?"),
        ("filler", "Just double-checking before the appointment — {am} {subj} allergic to {x}?"),
        ("typo", "is thier a {typo} alergy on {poss} file"),
        ("lay", "Have they got {x} written down as an allergy for {obj}?"),
        ("lay", "Does it say on file that {x} sets off {poss} allergies?"),
        ("relative", "As of now, is {x} still on {poss} allergy list?"),
        ("relative", "{Am} {subj} currently flagged as allergic to {x}?"),
        ("clinician", "Allergies: {x}? y/n"),
        ("clinician", "any documented {x} allergy for pt?"),
    ),
}
