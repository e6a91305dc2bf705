"""Round fourteen, after paraphrase frozen9 was measured once: its planner class in fresh wordings.

"Hmm, out of curiosity, what was my topmost X reading ever?" got the latest value, not the highest
(29 wrong values): "topmost" and "uppermost" were not read as the maximum.
"""

from __future__ import annotations

import datetime as dt

import pytest

from agent.offline.request import operation_of, read_request

TODAY = dt.date(2026, 12, 7)


@pytest.mark.parametrize(
    "question",
    [
        "what was my topmost blood pressure reading",
        "her uppermost weight on file?",
        "topmost a1c he has had",
        "the uppermost cholesterol number in my record",
    ],
)
def test_topmost_and_uppermost_ask_for_the_highest_value(question: str) -> None:
    assert operation_of(question) == "max", question
    assert read_request(question, TODAY).operation == "max", question


@pytest.mark.parametrize("question", ["what was my latest weight", "the top number of my last bp"])
def test_latest_and_the_systolic_idiom_are_not_the_highest(question: str) -> None:
    assert operation_of(question) != "max", question


def test_an_off_topic_question_with_a_year_is_declined(cohort):
    """The generated set's "Who won the football world cup in 2018?" was answered with the
    conditions whose onset fell in 2018 (the year mapped it to the nearest record section)."""
    from tests.agent.test_lead_hunt_r8 import _events
    from tests.agent.test_offline_r14 import _agent, _answer

    agent, records = _agent(cohort)
    pid = records[0].patient.patient_id
    for question in ("Who won the football world cup in 2018?", "what was the weather like in 2019"):
        answer = _answer(_events(agent, pid, question, role="patient"))
        assert "can't answer that" in answer and "conditions" not in answer.split("Without")[0], answer
