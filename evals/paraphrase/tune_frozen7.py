"""Once the seventh held-out part of the paraphrase suite (`frozen7`), now tuning (`--part tune_frozen7`).

Written on 2026-12-03 outside the repository by a writer who never saw the planner or the other
parts, and measured once by the lead on 2026-12-03 on main bf4ece0: 3,018 questions over 303
facts, accuracy 95.8 %, consistency 58.1 %, 80 confident false negatives (18 gate misses, 109
planner misses). The splits: "What's my X as of today?" → "no X results in the period you asked
about" on every lab_latest fact (80, all confident false negatives: "today" read as the last 24
hours); "X - all-time high?" → the latest value and its range (29 lab_max wrong values: a question
ending on "high?" read as "is it high?"); and the gate's advice reply to "Do I suffer from X?"
(cond_absent ×8), "Is X something I have?" (cond_active ×5) and "… just wondering if I am still
meant to be taking X?" (med_active ×5). The planner's two classes were then fixed (round ten,
tests/agent/test_lead_hunt_r10.py: the present state said with "today" is no window; a record
high or low is the extreme, not the range); the gate's three wordings went to the lead, who owns
the gate. It tunes now, and the next honest figure needs a new part.

Ten of the writer's entries were dropped when it moved into tuning (they were in the measurement):
seven word for word a template already in a tuning part, two the same words up to a capital or a
comma ("what did {poss} last {x} come back as?", "at any point over the years {have} {subj} been
given {x}?"), and one a held-out frozen2 wording ("allergic to {typo}?"), kept out of tuning.
"""

from __future__ import annotations

from evals.paraphrase.templates import Templates

_ED = (
    ("pronoun", "{Has_subj} been to the ER before?"),
    ("pronoun", "is there an ER visit anywhere in {poss} record?"),
    ("filler", "hi sorry to bother you, just wondering if {subj} {have} ever ended up in casualty?"),
    ("typo", "any emergancy room vists on record?"),
    ("lay", "did {subj} ever have to go to casualty?"),
    ("relative", "at any point over the years {have} {subj} been seen in the emergency department?"),
    ("relative", "any trips to the ER at any point?"),
    ("clinician", "ED visit hx?"),
    ("clinician", "ever attended ED? y/n"),
)

TUNE_FROZEN7: Templates = {
    "med_active": (
        ("plain", "{Is_pron} currently prescribed {x}?"),
        ("pronoun", "is {x} something {subj} take{s} right now?"),
        ("filler", "hi, sorry to bother you, just wondering if {subj} {am} still meant to be taking {x}?"),
        ("filler", "quick q - {Has_subj} got an active script for {x}?"),
        ("typo", "{am} {subj} on {typo} currently"),
        ("lay", "is {x} still one of {poss} meds?"),
        ("relative", "as of today {am} {subj} on {x}?"),
        ("relative", "{Do} {subj} take {x} these days?"),
        ("clinician", "current meds include {x}?"),
        ("clinician", "on {x} currently? y/n"),
    ),
    "med_absent": (
        ("pronoun", "{Does_subj} take {x}?"),
        ("filler", "um hi, is {x} one of the things {subj} {am} on?"),
        ("filler", "sorry if this is a silly question but has {x} ever been prescribed for {obj}?"),
        ("typo", "{Has_subj} ever been on {typo}?"),
        ("lay", "was {subj} ever put on {x} by a doctor?"),
        ("relative", "{am} {subj} on {x} at the minute"),
        ("clinician", "any {x} on the med list, current or past?"),
        ("clinician", "ever on {x}?"),
    ),
    "cond_active": (
        ("plain", "{Has_subj} been diagnosed with {x}?"),
        ("pronoun", "{Does_subj} still have {x}?"),
        ("pronoun", "is {x} something {subj} {have}?"),
        ("filler", "hi there, just checking - is {x} on {poss} list of conditions?"),
        ("typo", "{Has_subj} got {typo}?"),
        ("lay", "is {x} one of {poss} health problems?"),
        ("relative", "{Do} {subj} still suffer from {x} these days?"),
        ("relative", "as of now is {x} an active problem for {obj}?"),
        ("clinician", "{x} on active problem list?"),
    ),
    "cond_absent": (
        ("pronoun", "{Does_subj} suffer from {x}?"),
        ("pronoun", "is {x} one of {poss} diagnoses?"),
        ("filler", "hello sorry quick one, is there anything about {x} in {poss} notes?"),
        ("typo", "any {typo} in {poss} history?"),
        ("lay", "did a doctor ever tell {obj} {subj} had {x}?"),
        ("relative", "at any point {have} {subj} had {x}?"),
        ("relative", "{am} {subj} living with {x} these days?"),
        ("clinician", "pmhx includes {x}?"),
        ("clinician", "{x} ever documented?"),
    ),
    "lab_latest": (
        ("pronoun", "what's {poss} current {x}?"),
        (
            "filler",
            "hi, sorry to bother you, could you tell me what {poss} {x} was the last time it was checked?",
        ),
        ("typo", "latest {typo} reading?"),
        ("lay", "where's {poss} {x} at, going by the last test?"),
        ("relative", "what's {poss} {x} as of today?"),
        ("relative", "what's the newest {x} number on file for {obj}?"),
        ("clinician", "last recorded {x} value pls"),
    ),
    "lab_max": (
        ("plain", "What is the highest {x} {subj} {have} ever had?"),
        ("pronoun", "how high has {poss} {x} ever gotten?"),
        ("pronoun", "what's the max {x} {subj} {have} had?"),
        ("filler", "hi sorry random question, what's the highest {poss} {x} has ever been?"),
        ("typo", "highest ever {typo}?"),
        ("lay", "what's the biggest number {poss} {x} has ever hit?"),
        ("relative", "over the years what's the top {x} reading on record for {obj}?"),
        ("relative", "at any point what was {poss} {x} at its highest?"),
        ("clinician", "highest {x} on record?"),
        ("clinician", "{x} - all-time high?"),
    ),
    "ed_any": _ED,
    "ed_none": _ED,
    "allergy_yes": (
        ("plain", "{Do} {subj} have an allergy to {x}?"),
        ("pronoun", "is {x} something {subj} {am} allergic to?"),
        ("filler", "hi sorry, just double checking, is there an allergy to {x} on {poss} file?"),
        ("lay", "{Do} {subj} react to {x}, like an allergy?"),
        ("relative", "as of today {am} {subj} still listed as allergic to {x}?"),
        ("relative", "over the years has an allergy to {x} been noted for {obj}?"),
        ("clinician", "allergies incl {x}?"),
    ),
}
