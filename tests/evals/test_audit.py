"""The scorer against the hand-labelled audit set: ≥ 200 triples over every category, each
with a reason, and the scorer agrees with the labels on ≥ 98 % of outcomes."""

from __future__ import annotations

import pytest

from evals.audit import AuditFileError, agreement, load_cases
from evals.model import CATEGORIES
from tests.evals.test_new_kinds import NEW


def test_the_audit_set_is_large_labelled_and_covers_every_category():
    cases = load_cases()
    assert len(cases) >= 200
    assert {c.question.category for c in cases} == set(CATEGORIES)
    assert all(c.why.strip() for c in cases)
    labels = {c.label for c in cases}
    assert {"correct", "partial", "wrong", "abstained", "unclear", "no_answer"} <= labels


def test_the_scorer_agrees_with_the_labels():
    result = agreement()
    assert result.outcome_rate >= 0.98, result.as_dict()["disagreements"][:5]


def test_tricky_cases_are_in_the_set():
    texts = [c.answer.text for c in load_cases()]
    assert any("the previous was" in t or "; the one before was" in t for t in texts)  # right + wrong value
    assert any(" or maybe " in t for t in texts)  # a hedge
    assert any("Background (not the answer)" in t for t in texts)  # answer only in background
    assert any("couldn't find any" in t for t in texts)  # abstention in other words


def test_a_broken_entry_is_named():
    with pytest.raises(AuditFileError, match="entry 1"):
        load_cases("- q: x\n  category: lookup\n  template: t\n  expected: {type: date}\n  answers: []\n")
    with pytest.raises(AuditFileError, match="answer 1"):
        load_cases(
            "- q: x\n  category: lookup\n  template: t\n  expected: {type: date, value: 2020-01-01}\n"
            "  answers: [{text: a, label: great, why: b}]\n"
        )


def test_the_audit_covers_round_three_kinds_and_the_booking_contract():
    cases = load_cases()
    templates = {c.question.template for c in cases}
    assert templates >= NEW
    early = [c for c in cases if c.answer.booking is not None and c.answer.booking.before_confirmation]
    assert early and all(c.label == "wrong" for c in early)
