"""Round fifteen: the classes behind paraphrase frozen11's misses (measured once on the merged
main: 35 confident false negatives, 28 gate and 91 planner misses; the part tunes now). Each
class in fresh wordings, checked across the generated cohort against what the record holds:

1. "what does my chart say my X is" read as "does my chart mention X" → "No: no condition
   matching 'blood creatinine is'" over a creatinine in the record;
2. "going through my notes, what's the biggest weight" sent to the note search ("No passage …");
3. "emergncy" left unread (two rule words one slip away: "emergency" and the rules' own
   "emergancy"), so "any emergncy visits?" listed visits instead of answering;
4. "is X on file as something he can't have" answered from the prescriptions ("No. The record
   has no prescription of aspirin" over an aspirin allergy);
5. record questions the advice classifier refused ("is X anywhere in my medication history").
"""

from __future__ import annotations

import pytest

from agent.offline.plan import planner_words
from agent.offline.spelling import respell
from tests.agent.test_lead_hunt_r8 import _events, _lead
from tests.agent.test_offline_r15 import A1C, CHOL, WEIGHT, _agent, _series

CHART_SAYS_VALUE = [
    ("what does my record say my hemoglobin a1c is", "patient", A1C),
    ("What does his file say his total cholesterol is?", "clinician", CHOL),
    ("what does my chart say my wieght is", "patient", WEIGHT),
]


def test_what_the_chart_says_a_value_is_gives_the_value(cohort):
    agent, records = _agent(cohort)
    checked = 0
    for record in records:
        for question, role, code in CHART_SAYS_VALUE:
            series = _series(record, code)
            if not series:
                continue
            lead = _lead(_events(agent, record.patient.patient_id, question, role=role))
            assert not lead.startswith("No"), (question, lead)
            assert series[-1].effective.date().isoformat() in lead, (question, series[-1], lead)
            checked += 1
    assert checked >= 20


NOTES_AS_RECORD_MAX = [
    ("going through my notes, what's the highest weight on there?", "patient"),
    ("Looking through her notes, what is the heaviest she has weighed?", "clinician"),
]


def test_the_notes_named_as_the_record_do_not_hide_a_measurement(cohort):
    agent, records = _agent(cohort)
    checked = 0
    for record in records:
        series = _series(record, WEIGHT)
        if len(series) < 2:
            continue
        top = max(m.value for m in series)
        for question, role in NOTES_AS_RECORD_MAX:
            lead = _lead(_events(agent, record.patient.patient_id, question, role=role))
            assert "No passage" not in lead, (question, lead)
            assert f"{top:g}" in lead or f"{top:.1f}" in lead, (question, top, lead)
            checked += 1
    assert checked >= 10


@pytest.mark.parametrize(
    "typed, read",
    [
        ("any emergncy visits?", "any emergency visits?"),
        ("has she been to the emergncy room", "has she been to the emergency room"),
    ],
)
def test_a_slip_between_a_word_and_a_misspelling_the_rules_accept_is_the_word(typed: str, read: str) -> None:
    assert respell(typed, planner_words()) == read


def test_something_they_cannot_have_is_the_allergy_list(cohort):
    agent, records = _agent(cohort)
    checked = 0
    for record in records:
        for allergy in record.current_allergies()[:1]:
            name = allergy.display.split("(")[0].strip().lower()
            for question, role in (
                (f"is {name} on file as something I cannot have?", "patient"),
                (f"is {name} listed as something she can't take", "clinician"),
            ):
                lead = _lead(_events(agent, record.patient.patient_id, question, role=role))
                assert lead.startswith("Yes"), (question, lead)
                checked += 1
    assert checked >= 4


RECORD_SHAPED = [
    "is simvastatin anywhere in my medication history?",
    "Is amoxicilin anywere in my medicaton hisotry",
    "is salbutamol one of the inhalers or tablets i use",
    "hi, is gout something i actually have?",
    "am I somebody with high blood pressure?",
    "is hypothyroidism on my problm list",
]
STILL_ADVICE = [
    "is cancer something i actually have",
    "is simvastatin one of the tablets i should stop",
    "should i take the warfarin in my medication history with ibuprofen",
]


@pytest.mark.parametrize("text", RECORD_SHAPED)
def test_a_record_question_in_these_shapes_is_answered(production_gate, text: str) -> None:
    assert production_gate(text, "patient")[0] == "allow", text


@pytest.mark.parametrize("text", STILL_ADVICE)
def test_the_same_shapes_asking_what_to_do_stay_advice(production_gate, text: str) -> None:
    assert production_gate(text, "patient")[0] == "advice", text
