"""The lexical rules tried on a text are only those whose necessary words occur in it
(`agent.safety.prefilter`): a rule left out could never have matched. Pure: no database, no model."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent.safety.lexical import ADVICE_FILTER, EMERGENCY_FILTER
from agent.safety.prefilter import RuleFilter, necessary_literals
from agent.safety.severity import clauses
from agent.safety.text import prepare
from evals.safety.dataset import default_set

FAMILIES = {"emergency": EMERGENCY_FILTER, "advice": ADVICE_FILTER}


@pytest.mark.parametrize(
    ("pattern", "matching", "literals"),
    [
        (r"\b(?:chest|heart) (?:pain|hurts)\b", ["chest pain", "my heart hurts"], {"chest", "heart"}),
        (r"\b(?:\w+ ){0,3}overdosed?\b", ["she overdosed", "overdose"], {"overdose"}),
        (r"\w+(?:pril|olol)\b", ["lisinopril", "atenolol"], {"pril", "olol"}),
        (r"(?!no )crushing|squeez\w*", ["crushing", "squeezing"], {"crushing", "squeez"}),
        (r"(?=.*\bbaby\b)how much", ["how much for the baby"], {"baby"}),  # either one will do
        (r"\bpains?\b", ["pain", "pains"], {"pain"}),
        (r"a?b", ["b"], None),  # nothing of three characters is certain
        (r"foo|\w+", ["x"], None),  # one branch promises nothing
        (r"(?:bleach){0,2}x", ["x"], None),  # an optional part promises nothing
        (r"(?i)chest", ["CHEST"], None),  # case folded: not read
    ],
)
def test_the_necessary_literals_of_a_pattern(pattern, matching, literals):
    compiled = re.compile(pattern)
    assert all(compiled.search(text) for text in matching)
    assert necessary_literals(compiled) == (None if literals is None else frozenset(literals))


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data(), family=st.sampled_from(sorted(FAMILIES)))
def test_a_text_a_rule_matches_is_never_kept_from_it(data, family):
    rules: RuleFilter = FAMILIES[family]
    i = data.draw(st.integers(0, len(rules.patterns) - 1), label="rule")
    text = data.draw(st.from_regex(rules.patterns[i]), label="text")
    if rules.patterns[i].search(text):
        assert i in rules.candidates(text)


def _prepared_forms() -> list[str]:
    forms: set[str] = set()
    for row in default_set():
        forms.update(prepare(row.text))
        for clause in clauses(row.text):
            forms.update(prepare(clause))
    return sorted(forms)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_on_every_labelled_line_the_filter_keeps_every_rule_that_matches(family):
    """Each prepared form (and each clause's) of every labelled line: the rules that match it are
    among the candidates, so the filtered loops find exactly what the full loops find."""
    rules = FAMILIES[family]
    kept_from = [
        (i, text)
        for text in _prepared_forms()
        for i in set(range(len(rules.patterns))) - set(rules.candidates(text))
        if rules.patterns[i].search(text)
    ]
    assert kept_from == []
