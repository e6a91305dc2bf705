"""Round seventeen (b): the classes behind paraphrase frozen14's misses (measured once on main
2ed24a8: 61 confident false negatives, 146 planner misses; the part tunes now). Each class is
written here in fresh wordings (none of them the part's own) and checked across the generated
cohort against what each record holds (`evals.truth`):

1. how the asker feels about asking ("I'm a bit anxious about this, so …") linked as the
   condition asked about: "No. Your record has no anxiety" led the answer to the highest value;
2. a misspelled medicine in a "do my notes say I take X" clause: the clause was searched as
   words ("No note mentions i take sertarline now") over an active prescription;
3. "my first language" / "first of all" read as the first value asked for: a condition asked
   after it got its first date, no yes or no;
4. a preamble about the pharmacy before "am I on X?" sounded like the pharmacy leaflet, which
   answered instead of the medicine list;
5. the notes as what lists the problems ("would her notes list X as hers?", "… per the notes"):
   the note text was searched for "X as" and nothing answered whether X is a condition.
"""

from __future__ import annotations

from evals.vocab import drug_name
from tests.agent.test_lead_hunt_r8 import _events, _lead
from tests.agent.test_offline_r15 import A1C, BMI, CHOL, WEIGHT, _agent, _series
from tests.agent.test_offline_round17 import _held_and_missing, _served, _shows, _tools

# --- 1. a feeling about asking is no condition ----------------------------------------------------
FEELING_THEN_HIGHEST = [
    ("I'm so anxious about asking this, but what's the heaviest my weight has been?", "patient", WEIGHT),
    (
        "honestly I am feeling pretty depressed about it all: which a1c of mine came out highest?",
        "patient",
        A1C,
    ),
    (
        "we're a little anxious because of the clinic - what is the top bmi on record for her?",
        "clinician",
        BMI,
    ),
    ("I feel really anxious and sorry to bother, what was my peak cholesterol reading?", "patient", CHOL),
]


def test_a_feeling_about_asking_is_no_condition_asked(cohort):
    agent, records = _agent(cohort)
    checked = 0
    for record in records:
        for question, role, code in FEELING_THEN_HIGHEST:
            series = _series(record, code)
            if not series:
                continue
            events = _events(agent, record.patient.patient_id, question, role=role)
            lead = _lead(events)
            assert not lead.startswith("No"), (question, lead)
            assert "get_conditions" not in _tools(events), (question, lead)
            assert _shows(max(m.value for m in series), lead), (question, lead)
            checked += 1
    assert checked >= 24


def test_the_condition_itself_is_still_asked_after_a_feeling(cohort):
    """Only the mood said in passing is dropped: the condition named as the question still asks."""
    agent, records = _agent(cohort)
    for record in records[:4]:
        events = _events(agent, record.patient.patient_id, "I'm anxious, so is anxiety on my problem list?")
        assert "get_conditions" in _tools(events), _lead(events)


# --- 2. a misspelled medicine in a "my notes say I take X" clause ---------------------------------
NOTES_SAY_TAKE = [
    ("does my chart say that i take {x} at the moment", "patient"),
    ("do her notes say she is on {x} currently?", "clinician"),
    ("does the record say he is still taking {x}", "clinician"),
    ("my file says I'm using {x}, right?", "patient"),
]


def _misspelt(word: str) -> str:
    """Two middle letters swapped, as fast typing does ("sertraline" → "serrtaline")."""
    i = len(word) // 2
    return word[: i - 1] + word[i] + word[i - 1] + word[i + 1 :]


def _active_drugs(record) -> list[str]:
    """The record's active medicines whose first word is long enough to misspell safely."""
    names = {drug_name(m.display).split()[0] for m in record.active_medications()}
    return sorted(n for n in names if len(n) >= 7 and _misspelt(n) != n)


def test_a_misspelt_medicine_in_a_notes_clause_is_never_a_no(cohort):
    agent, records = _agent(cohort)
    checked = 0
    for record in records:
        for drug in _active_drugs(record)[:1]:
            for template, role in NOTES_SAY_TAKE:
                question = template.format(x=_misspelt(drug))
                events = _events(agent, record.patient.patient_id, question, role=role)
                lead = _lead(events)
                assert not lead.startswith("No"), (question, lead)
                assert lead.startswith("Yes"), (question, lead)
                checked += 1
    assert checked >= 16


# --- 3. "first language", "first of all" ask no first value ---------------------------------------
FIRST_BUT_NO_FIRST_VALUE = [
    ("my first language is Portuguese, excuse me. The chart has {x} for me?", "patient"),
    ("first of all, thanks - is {x} a condition she has?", "clinician"),
    ("forgive the grammar, English is my first language no. I have {x}, yes or no?", "patient"),
]


def test_a_first_language_asks_no_first_value(cohort):
    agent, records = _agent(cohort)
    held = missing = 0
    for record in records:
        for template, role in FIRST_BUT_NO_FIRST_VALUE:
            for name, expected in _held_and_missing(record):
                question = template.format(x=name)
                lead = _lead(_events(agent, record.patient.patient_id, question, role=role))
                assert lead.startswith(expected), (question, lead)
                held += expected == "Yes"
                missing += expected == "No"
    assert held >= 8 and missing >= 8


# --- 4. a pharmacy preamble before "am I on X?" ---------------------------------------------------
PHARMACY_THEN_ON = [
    ("Sorry, the pharmacist is holding on the line: is she taking {x} at present?", "clinician"),
    ("collecting a refill at the chemist later so quick check, am I on {x} still?", "patient"),
    ("the pharmacy hours confuse me but anyway does my list have me on {x}?", "patient"),
]


def test_a_medicine_asked_after_a_pharmacy_preamble_is_the_medicine_lists(cohort, settings):
    agent = _served(cohort, settings)
    _, records = cohort
    checked = 0
    for record in records:
        for drug in sorted({drug_name(m.display) for m in record.active_medications()})[:1]:
            for template, role in PHARMACY_THEN_ON:
                question = template.format(x=drug)
                events = _events(agent, record.patient.patient_id, question, role=role)
                lead = _lead(events)
                assert "search_leaflets" not in _tools(events), (question, lead)
                assert lead.startswith("Yes"), (question, lead)
                checked += 1
    assert checked >= 12


# --- 5. the notes as what lists the problems ------------------------------------------------------
NOTES_LIST_PROBLEMS = [
    ("do her notes include {x} among her problems?", "clinician"),
    ("is {x} something I was diagnosed with, per my chart?", "patient"),
    ("would the file list {x} as one of his conditions?", "clinician"),
]


def test_notes_that_list_the_problems_are_the_problem_list(cohort):
    agent, records = _agent(cohort)
    held = missing = 0
    for record in records:
        for template, role in NOTES_LIST_PROBLEMS:
            for name, expected in _held_and_missing(record):
                question = template.format(x=name)
                events = _events(agent, record.patient.patient_id, question, role=role)
                lead = _lead(events)
                assert "search_notes" not in _tools(events), (question, lead)
                assert lead.startswith(expected), (question, lead)
                held += expected == "Yes"
                missing += expected == "No"
    assert held >= 8 and missing >= 8
