"""Reciprocal Rank Fusion and the relevance gate."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from knowledge.fusion import reciprocal_rank_fusion
from knowledge.gate import contains_exact, exact_terms, passes_gate

RANKING = st.lists(st.integers(0, 30), unique=True, max_size=15)


@given(st.lists(RANKING, max_size=4))
def test_fused_items_are_exactly_the_ranked_items_each_once(rankings):
    fused = reciprocal_rank_fusion(rankings)
    assert sorted(item for item, _ in fused) == sorted({i for r in rankings for i in r})
    scores = [score for _, score in fused]
    assert scores == sorted(scores, reverse=True)


@given(st.lists(RANKING, min_size=1, max_size=4))
def test_score_does_not_depend_on_the_order_of_the_rankings(rankings):
    forward = dict(reciprocal_rank_fusion(rankings))
    backward = dict(reciprocal_rank_fusion(list(reversed(rankings))))
    assert forward.keys() == backward.keys()
    for item, score in forward.items():
        assert score == pytest.approx(backward[item])


@given(st.lists(RANKING, min_size=1, max_size=4), st.integers(100, 200))
def test_an_item_first_in_every_ranking_wins(rankings, champion):
    fused = reciprocal_rank_fusion([[champion, *r] for r in rankings])
    assert fused[0][0] == champion


@given(RANKING.filter(lambda r: len(r) >= 2), RANKING)
def test_moving_an_item_up_in_one_ranking_never_lowers_its_score(first, second):
    item = first[-1]
    before = dict(reciprocal_rank_fusion([first, second]))[item]
    promoted = [item, *[x for x in first if x != item]]
    after = dict(reciprocal_rank_fusion([promoted, second]))[item]
    assert after >= before


def test_agreement_beats_a_single_first_place():
    fused = reciprocal_rank_fusion([["a", "b"], ["c", "b"]])
    assert fused[0][0] == "b"


def test_duplicates_within_one_ranking_are_refused():
    with pytest.raises(ValueError, match="twice"):
        reciprocal_rank_fusion([["a", "a"]])


@pytest.mark.parametrize(
    ("query", "passage", "expected"),
    [
        ("who answers 555-0131?", "Endoscopy Unit: 555-0131, Monday to Friday", True),
        ("5550131", "call (555) 0131 today", True),
        ("555-0131", "call 555-01310 today", False),  # a longer number is not the same number
        ("555-0131", "call 555-0130", False),
        ('what does "split dose" mean', "take it as a split dose: half in the evening", True),
        ('"split dose"', "split the dose", False),
        ("what is an HbA1c of 6.5", "6.5% or higher", False),  # short numbers are not identifiers
    ],
)
def test_exact_terms_match_identifiers_verbatim(query, passage, expected):
    assert contains_exact(passage, exact_terms(query)) is expected


def test_plain_questions_have_no_exact_terms():
    assert exact_terms("can I eat before my colonoscopy?") == []


@given(st.floats(-1, 1), st.floats(-1, 1), st.booleans())
def test_gate_keeps_exact_matches_and_similar_passages_only(similarity, floor, exact):
    assert passes_gate(similarity, floor, exact) == (exact or similarity >= floor)
