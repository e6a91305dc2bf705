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
