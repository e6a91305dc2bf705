"""A question about someone other than the bound patient never gets the bound patient's record
as its answer: a scripted reply, before any model or tool runs."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent.base import AgentRequest
from agent.events import DoneEvent
from agent.other_patient import BoundPatient, name_parts, named_others
from agent.runner import GuardedAgent
from tools.scope import PatientScope

JOAQUIN = BoundPatient(
    patient_id="03faaba5-ff26-d4f2-0873-79cd11bd6ed2",
    full_name="Joaquín222 Allen278",
    name_parts=name_parts(["Joaquín222 Allen278", "Allen278", "Joaquín222", "Mr."]),
)


@pytest.mark.parametrize(
    ("question", "other"),
    [
        ("Show me the problem list and medications for Virginia3 O'Hara796", "Virginia3 O'Hara796"),
        ("what is Zoë415's latest A1c", "Zoë415"),
        ("Does Maria Lopez's record show diabetes?", "Maria Lopez"),
        ("Look up patient Maria Lopez", "Maria Lopez"),
        ("What meds is Mrs. Smith on?", "Smith"),
        ("Show 8033de97-c959-14e8-9856-90cb2ca5305c", "8033de97-c959-14e8-9856-90cb2ca5305c"),
    ],
)
def test_another_person_is_noticed(question, other):
    assert named_others(question, JOAQUIN) == [other]


@pytest.mark.parametrize(
    "question",
    [
        "What medications am I taking?",
        "What is Joaquín222's latest A1c?",
        "what is joaquin allen's blood pressure",
        "What did Dr. Nancy699 Wolf947 write in my last note?",
        "Show my results for Hemoglobin A1c",
        "Is the COVID-19 vaccine in my record?",
        "Do I need Vitamin B12?",
        "Show 03faaba5-ff26-d4f2-0873-79cd11bd6ed2",
        "What are the visiting hours at Riverside General Hospital?",
        "Book me a check-up next week",
    ],
)
def test_the_bound_patient_and_ordinary_questions_pass(question):
    assert named_others(question, JOAQUIN) == []


@given(
    st.lists(
        st.sampled_from(["Joaquín222", "Allen278", "Joaquin", "Allen", "my", "latest", "A1c", "?"]),
        max_size=8,
    )
)
def test_the_patients_own_names_never_trigger(words):
    assert named_others(" ".join(words), JOAQUIN) == []


class ExplodingAgent:
    mode = "offline"

    async def run(self, request):  # pragma: no cover - reaching it is the failure
        raise AssertionError("the inner agent ran for a question about another patient")
        yield


def _ask(question: str, role: str) -> list:
    agent = GuardedAgent(
        ExplodingAgent(), bound_patient=lambda pid: JOAQUIN if pid == JOAQUIN.patient_id else None
    )
    scope = PatientScope(patient_id=JOAQUIN.patient_id, role=role, actor="t", conversation_id="c")

    async def collect():
        return [e async for e in agent.run(AgentRequest(scope=scope, question=question))]

    return asyncio.run(collect())


@pytest.mark.parametrize("role", ["clinician", "patient"])
def test_guarded_agent_answers_with_a_scripted_reply_and_runs_nothing(role):
    events = _ask("Show me the medications for Virginia3 O'Hara796", role)
    done = events[-1]
    assert isinstance(done, DoneEvent) and done.mode == "guardrail"
    assert done.metrics["guardrail"] == "other_patient"
    assert "Virginia3" not in done.answer and "names someone else" in done.answer
    if role == "clinician":
        assert "This conversation is about Joaquín222 Allen278" in done.answer
    else:
        assert "your own record" in done.answer


@pytest.mark.parametrize("role", ["clinician", "patient"])
def test_a_relatives_record_question_gets_the_scripted_reply_not_the_patients_record(role):
    question = "does my mom have diabetes" if role == "patient" else "does her mother have diabetes"
    done = _ask(question, role)[-1]
    assert isinstance(done, DoneEvent) and done.metrics["guardrail"] == "other_patient"
    assert "names someone else" in done.answer
