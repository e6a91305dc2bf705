"""The false-negative hunt as a property (issue 16, round six): for every concept a generated
patient's record holds, no wording of the grammar in `evals.paraphrase.hunt` (hedges, "going by my
chart", "on file", "have they got me down for", "anything wrong with my kidneys", lay words,
shorthand, relative time) gets an answer whose lead says no / none / not found; and what the record
does not hold gets a "no" that says what was searched."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent.offline import OfflineAgent
from evals.paraphrase.grade import lead_of
from evals.paraphrase.hunt import answer, asks_of, denies, honest_no, run_hunt
from tests.agent.conftest import COHORT_NOW
from tools.catalog import build_registry


@pytest.fixture(scope="module")
def hunt(cohort):
    db, records = cohort
    asks = [a for r in records for a in asks_of(r)]
    return OfflineAgent(build_registry(), db), asks


def _ask(agent, ask) -> str:
    async def go() -> str:
        try:
            return await answer(agent, ask, COHORT_NOW)
        finally:
            close = getattr(agent, "aclose", None)
            if close is not None:
                await close()

    return asyncio.run(go())


def test_the_grammar_covers_every_kind_of_concept(hunt):
    kinds = {a.kind for a in hunt[1]}
    assert {"med_active", "med_ever", "cond_active", "allergy", "lab", "encounter", "system"} <= kinds
    assert {"med_absent", "cond_absent"} <= kinds
    assert len(hunt[1]) >= 500


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(data=st.data())
def test_nothing_held_is_denied_in_any_wording(hunt, data):
    agent, asks = hunt
    ask = data.draw(st.sampled_from([a for a in asks if a.held]))
    text = _ask(agent, ask)
    assert text.strip(), ask.question
    assert not denies(text), (ask.question, lead_of(text))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(data=st.data())
def test_what_is_not_held_gets_an_honest_no(hunt, data):
    agent, asks = hunt
    ask = data.draw(st.sampled_from([a for a in asks if not a.held]))
    text = _ask(agent, ask)
    assert honest_no(text), (ask.question, lead_of(text))


@pytest.mark.slow
def test_the_whole_grammar(cohort):
    """Every wording of every record (make test-slow): no denial, every absent thing honestly denied."""
    db, records = cohort
    result = run_hunt(OfflineAgent(build_registry(), db), records, COHORT_NOW)
    for kind, n, failed in result.by_kind():
        print(f"{kind:12} {n:5} {failed:4}")
    for a, t in result.denials + result.dishonest:
        print(f"MISS {a.kind} | {a.question} | {lead_of(t)}")
    print(f"asked {len(result.answers)}; denied {len(result.denials)}; not honest {len(result.dishonest)}")
    assert [(a.question, lead_of(t)) for a, t in result.denials] == []
    assert [(a.question, lead_of(t)) for a, t in result.dishonest] == []
