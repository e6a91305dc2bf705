"""Tuning phrasings of the paraphrase suite: `{x}` is the fact's subject, `{p}` the pronoun set.

Each entry is (family, template). Pronoun sets: a patient says I/my/am I; a clinician says
she/he/the patient. Templates use `{am}`, `{is}`, `{poss}`, `{subj}`, `{have}`, `{do}`.
"""

from __future__ import annotations

Templates = dict[str, tuple[tuple[str, str], ...]]

# emergency visits: the same wordings whether the record has one (ed_any: yes) or none (ed_none: no)
_ED: tuple[tuple[str, str], ...] = (
    ("plain", "{Have} {subj} had any emergency visits?"),
    ("pronoun", "{Has_subj} ever been to the ER?"),
    ("filler", "Um, any ED visits in recent years?"),
    ("lay", "{Have} {subj} ever been to A&E?"),
    ("clinician", "ED attendances?"),
    # round four (written before the planner changed): more lay and relative wordings
    ("lay", "{Have} {subj} ever gone to casualty?"),
    ("lay", "Any emergency room trips?"),
    ("relative", "{Has_subj} needed emergency care at any point in the past?"),
    ("relative", "Any emergency visits in all the years on record?"),
    # round four, second batch (before the planner changed again)
    ("lay", "{Have} {subj} ever had to go to the emergency room?"),
    ("lay", "Any A and E trips on file?"),
    ("relative", "Has there been an emergency visit at any time?"),
    ("relative", "Any ER visits in the whole record?"),
)

TUNE: Templates = {
    # an active medication (expected: yes)
    "med_active": (
        ("plain", "{Am} {subj} taking {x}?"),
        ("pronoun", "{Is_pron} on {x} at the moment?"),
        ("filler", "Um, so, just checking, {am} {subj} still on {x} right now?"),
        ("typo", "{Am} {subj} taking {typo}?"),
        ("relative", "Has {subj} been prescribed {x} recently and still on it?"),
        ("clinician", "{x} - current med?"),
        # round four (written before the planner changed): more lay and relative wordings
        ("lay", "{Am} {subj} still taking {poss} {x} tablets?"),
        ("lay", "Is {x} among {poss} current medicines?"),
        ("relative", "{Am} {subj} on {x} this year?"),
        ("relative", "Over the past month, {have} {subj} been on {x}?"),
        # round four, second batch (before the planner changed again)
        ("lay", "Is {x} on {poss} list of medicines?"),
        ("lay", "{Am} {subj} meant to be taking {x}?"),
        ("relative", "{Am} {subj} on {x} this month?"),
        ("typo", "{Am} {subj} curently on {x}?"),
        ("filler", "Hey, quick one: {am} {subj} on {x} or not?"),
    ),
    # a drug never prescribed (expected: no)
    "med_absent": (
        ("plain", "{Am} {subj} taking {x}?"),
        ("pronoun", "{Is_pron} on {x}?"),
        ("filler", "Quick question, {have} {subj} ever been prescribed {x}?"),
        ("typo", "{Am} {subj} on {typo}?"),
        ("clinician", "any {x} on the med list?"),
        # round four (written before the planner changed): more lay and relative wordings
        ("lay", "{Do} {subj} take {x} tablets?"),
        ("lay", "{Have} {subj} got any {x} among {poss} medicines?"),
        ("relative", "Did {subj} get {x} last year?"),
        ("relative", "Has {x} been prescribed to {obj} in the past couple of years?"),
        ("relative", "Any {x} prescriptions since 2020?"),
        # round four, second batch (before the planner changed again)
        ("lay", "Is {x} on {poss} list of medicines?"),
        ("lay", "{Am} {subj} meant to be taking {x}?"),
        ("relative", "Any {x} in the last 5 years?"),
        ("relative", "{Have} {subj} had {x} since the spring?"),
        ("typo", "{Has_subj} ever been perscribed {x}?"),
    ),
    # an active condition (expected: yes)
    "cond_active": (
        ("plain", "{Do} {subj} have {x}?"),
        ("pronoun", "{Does_subj} have {x}?"),
        ("filler", "Just wondering, is {x} one of {poss} current problems?"),
        ("typo", "{Do} {subj} have {typo}?"),
        ("clinician", "hx of {x}?"),
        # round four (written before the planner changed): more lay and relative wordings
        ("lay", "Does the record say {subj_lay} suffer{s} from {x}?"),
        ("relative", "{Do} {subj} still have {x} these days?"),
        ("relative", "Has {x} been a problem for {obj} this year?"),
        # round four, second batch (before the planner changed again)
        ("lay", "Is {x} listed as one of {poss} conditions?"),
        ("relative", "Is {x} still active for {obj}?"),
        ("relative", "{Am} {subj} still dealing with {x}?"),
        ("typo", "{Does_subj} have {typo} at present?"),
    ),
    # a condition never recorded (expected: no)
    "cond_absent": (
        ("plain", "{Do} {subj} have {x}?"),
        ("pronoun", "{Has_subj} ever been diagnosed with {x}?"),
        ("filler", "So, um, is there any {x} in {poss} record?"),
        ("typo", "{Do} {subj} have {typo}?"),
        ("clinician", "hx of {x}?"),
        # round four (written before the planner changed): more lay and relative wordings
        ("lay", "Does the record say {subj_lay} suffer{s} from {x}?"),
        ("relative", "{Has_subj} had {x} in the last few years?"),
        ("relative", "Any {x} diagnosed since 2015?"),
        # round four, second batch (before the planner changed again)
        ("lay", "Is {x} listed as one of {poss} conditions?"),
        ("relative", "{Has_subj} been diagnosed with {x} in the past decade?"),
        ("relative", "Any {x} over the last couple of years?"),
    ),
    # the latest value of a lab or vital (expected: the number)
    "lab_latest": (
        ("plain", "What is {poss} latest {x}?"),
        ("pronoun", "What was {poss} most recent {x} result?"),
        ("filler", "Could you tell me, like, what {poss} {x} is right now?"),
        ("typo", "latest {typo}?"),
        ("lay", "{x} - newest reading please"),
        # round four (written before the planner changed): more lay and relative wordings
        ("lay", "How much is {poss} {x} now?"),
        ("lay", "What's {poss} {x} reading these days?"),
        ("relative", "What was {poss} {x} at the last check?"),
        ("relative", "{poss} {x} most recently?"),
        # round four, second batch (before the planner changed again)
        ("lay", "Where is {poss} {x} at now?"),
        ("lay", "What's {poss} {x} at the moment?"),
        ("relative", "What was {poss} {x} the last time it was checked?"),
        ("relative", "{poss} {x} when it was last measured?"),
    ),
    # the highest value ever (expected: the number)
    "lab_max": (
        ("plain", "What was {poss} highest {x} ever?"),
        ("pronoun", "What's the highest {x} recorded for {obj}?"),
        ("filler", "Out of curiosity, what was the maximum {x} on record?"),
        ("typo", "highest {typo} ever?"),
        ("clinician", "peak {x}?"),
        # round four (written before the planner changed): more lay and relative wordings
        ("lay", "What's the biggest {x} number {subj_lay} {have} had?"),
        ("lay", "How high has {poss} {x} gone?"),
        ("lay", "What's the top {x} reading in {poss} record?"),
        ("relative", "What was {poss} highest {x} over the years?"),
        ("relative", "Highest {x} ever recorded, all time?"),
        # round four, second batch (before the planner changed again)
        ("lay", "{poss} {x} at its highest?"),
        ("lay", "How high did {poss} {x} ever get?"),
        ("relative", "What has {poss} {x} peaked at over time?"),
        ("relative", "{poss} highest ever {x}?"),
    ),
    # an emergency visit in the record (expected: yes), and none (expected: no)
    "ed_any": _ED,
    "ed_none": _ED,
    # an allergy recorded (expected: yes)
    "allergy_yes": (
        ("plain", "{Am} {subj} allergic to {x}?"),
        ("pronoun", "{Does_subj} have an allergy to {x}?"),
        ("filler", "Just to be sure, is there a {x} allergy on file?"),
        ("typo", "{Am} {subj} allergic to {typo}?"),
        ("clinician", "{x} allergy?"),
        # round four (written before the planner changed): more lay and relative wordings
        ("lay", "{Am} {subj} sensitive to {x}?"),
        ("lay", "Does {x} disagree with {obj}?"),
        ("relative", "{Am} {subj} still allergic to {x}?"),
        ("relative", "Is the {x} allergy still current?"),
        # round four, second batch (before the planner changed again)
        ("lay", "{Am} {subj} intolerant of {x}?"),
        ("lay", "Does {x} make {obj} react?"),
        ("relative", "{Am} {subj} allergic to {x} at present?"),
        ("relative", "Is the {x} allergy on {poss} file still active?"),
    ),
}

# round five (written and committed before the planner changed this round): a new tuning batch
# in the families weakest on the held-out parts in aggregate (lay words, relative time,
# clinician shorthand, fillers / run-on), one set per fact kind; measured as its own part
# (`--part tune5`) so the before/after is visible apart from the older tuning wordings
_ED5: tuple[tuple[str, str], ...] = (
    ("lay", "{Have} {subj} ever been taken to the emergency department?"),
    ("lay", "Any trips to the ER on {poss} record?"),
    ("relative", "{Has_subj} been to the emergency department at any point?"),
    ("relative", "Any emergency visits over the years?"),
    ("clinician", "any ED presentations on file?"),
    ("clinician", "ED hx?"),
    ("filler", "So, um, has there ever been an emergency visit for {obj}?"),
    ("filler", "Quick check before the appointment: any A&E attendances at all?"),
)

TUNE5: Templates = {
    "med_active": (
        ("lay", "{Am} {subj} still on the {x} pills?"),
        ("lay", "Does {poss} repeat prescription include {x}?"),
        ("relative", "{Am} {subj} taking {x} as of today?"),
        ("relative", "As of this week, is {x} still prescribed for {obj}?"),
        ("clinician", "Pt on {x}?"),
        ("clinician", "{x} active on med rec?"),
        ("clinician", "currently rx'd {x}?"),
        ("filler", "Sorry if this is a silly question but {am} {subj} on {x}, can't remember"),
        ("filler", "Ok so the pharmacist asked and I wasn't sure, {am} {subj} on {x}?"),
    ),
    "med_absent": (
        ("lay", "{Have} {subj} ever been given {x} tablets?"),
        ("lay", "Was {x} ever one of {poss} pills?"),
        ("relative", "{Have} {subj} been on {x} at any point in the last year?"),
        ("relative", "Any {x} in the past 6 months?"),
        ("relative", "Was {x} prescribed over the last few years?"),
        ("clinician", "Pt ever on {x}?"),
        ("clinician", "{x} in med hx?"),
        ("filler", "Someone mentioned {x}, {have} {subj} ever actually been on it?"),
        ("filler", "Right so basically, is there any {x} anywhere in {poss} prescriptions?"),
    ),
    "cond_active": (
        ("lay", "{Have} {subj} got {x}?"),
        ("lay", "Was {subj} told {subj} {have} {x}?"),
        ("relative", "As things stand now, does the record say {subj_lay} {have} {x}?"),
        ("relative", "Is {x} still on {poss} problem list today?"),
        ("clinician", "PMH: {x}?"),
        ("clinician", "known {x}?"),
        ("clinician", "{x} - active dx?"),
        ("filler", "I was just reading about {x} and wondered, is that one of the things {subj} {have}?"),
        ("filler", "Ok another one, {x}, is that on {poss} record as a current problem?"),
    ),
    "cond_absent": (
        ("lay", "{Have} {subj} got {x}?"),
        ("lay", "Was {subj} ever told {subj} had {x}?"),
        ("relative", "{Has_subj} been diagnosed with {x} this year?"),
        ("relative", "{x} at any time in the last 10 years?"),
        ("clinician", "PMH {x}?"),
        ("clinician", "known {x}? y/n"),
        ("filler", "A friend has {x} and I got worried, {Does_subj} have it as well?"),
        ("filler", "So yeah, just to rule it out, any {x} on file?"),
    ),
    "lab_latest": (
        ("lay", "What did {poss} last {x} come back as?"),
        ("lay", "What number did {poss} {x} come out at last time?"),
        ("relative", "What was {poss} {x} at the most recent visit?"),
        ("relative", "{x} as of the latest check, please"),
        ("clinician", "last {x}?"),
        ("clinician", "most recent {x} value"),
        ("filler", "Hi, sorry, could you pull up {poss} {x}, the latest one I mean?"),
        ("filler", "So what's the newest {x} on file for {obj}, if there is one"),
    ),
    "lab_max": (
        ("lay", "What's the heaviest reading for {poss} {x} so far?"),
        ("lay", "How big has {poss} {x} number got at worst?"),
        ("relative", "Highest {x} in all the years on record?"),
        ("relative", "Across every visit, what was the top {x}?"),
        ("clinician", "{x} max recorded?"),
        ("clinician", "{x} peak value on file"),
        ("filler", "Ok random question but what's the highest {poss} {x} has ever been"),
        ("filler", "Just trying to see the range, what's the highest {x} recorded for {obj}?"),
    ),
    "ed_any": _ED5,
    "ed_none": _ED5,
    "allergy_yes": (
        ("lay", "Does {x} give {obj} a reaction?"),
        ("lay", "Is there anything on file about {obj} reacting to {x}?"),
        ("relative", "Is the {x} allergy still listed for {obj} today?"),
        ("relative", "{Am} {subj} currently recorded as allergic to {x}?"),
        ("clinician", "allergies: {x}?"),
        ("clinician", "{x} - documented allergy?"),
        ("filler", "Before I forget, {am} {subj} allergic to {x}, yes or no?"),
        ("filler", "I think {subj} might be allergic to {x}, can you check?"),
    ),
}
