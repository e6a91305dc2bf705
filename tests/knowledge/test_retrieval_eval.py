"""The retrieval evaluation's own logic: the floor advice and the labelled-file checks."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from knowledge.retrieval_eval import load_questions, suggest_floor

SIMS = st.lists(st.floats(-1, 1, allow_nan=False).map(lambda x: round(x, 4)), min_size=1, max_size=30)


@given(SIMS, SIMS)
def test_floor_separates_the_ranges_when_they_do_not_overlap(answerable, unanswerable):
    advice = suggest_floor(answerable, unanswerable)
    if max(unanswerable) < min(answerable):
        assert not advice.overlap and advice.misjudged == 0
        assert max(unanswerable) < advice.floor <= min(answerable)
    else:
        assert advice.overlap
        wrong = sum(s < advice.floor for s in answerable) + sum(s >= advice.floor for s in unanswerable)
        assert wrong == advice.misjudged
        # no other threshold misjudges fewer questions
        for candidate in [*answerable, *unanswerable, 1.0, -1.0]:
            other = sum(s < candidate for s in answerable) + sum(s >= candidate for s in unanswerable)
            assert other >= advice.misjudged - 1e-9 or math.isclose(candidate, advice.floor, abs_tol=1e-3)


def test_floor_advice_example():
    advice = suggest_floor([0.5, 0.6, 0.7], [0.1, 0.2, 0.3])
    assert advice.floor == 0.4 and not advice.overlap


def test_labelled_file_errors_name_the_line(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text(
        '{"question": "ok?", "expect": null, "phrase": null}\n{"question": "bad", "expect": "x"}\n'
    )
    with pytest.raises(ValueError, match=r"q\.jsonl:2: give both"):
        load_questions(path)
    path.write_text("not json\n")
    with pytest.raises(ValueError, match=r"q\.jsonl:1: not a labelled question"):
        load_questions(path)
