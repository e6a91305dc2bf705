"""The request-size measurement counts what the SDK actually sent."""

from __future__ import annotations

import json

from agent.bench_requests import RECORD_QUESTIONS, per_question_rows, request_sizes, summary_rows, tokens
from agent.prompts import tool_definitions_with_cache
from agent.toolset import MORE_TOOLS, ToolOffer
from tests.evals import cohort
from tools.catalog import build_registry


def _chars(value) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def test_request_sizes_add_up_to_the_requests_sent(clean_db):
    ann, _ = cohort.build(clean_db)
    registry = build_registry()
    sizes = request_sizes(clean_db, [ann.pid])
    whole = request_sizes(clean_db, [ann.pid], select_tools=False)
    assert [s.question for s in sizes] == list(RECORD_QUESTIONS) == [s.question for s in whole]
    catalogue = _chars(tool_definitions_with_cache(registry.definitions()))
    for size, old in zip(sizes, whole, strict=True):
        assert size.calls == old.calls == 2  # a tool turn, then the answer
        offer = ToolOffer.for_question(registry, size.question)
        assert size.offered == [d["name"] for d in offer.definitions()] and size.offered[-1] == MORE_TOOLS
        assert size.tools == 2 * _chars(tool_definitions_with_cache(offer.definitions()))
        assert old.tools == 2 * catalogue and size.tools < old.tools / 3
        assert 0 < size.uncached < size.total and size.first_call < size.total
        assert size.counted == size.estimated > 0  # count_tokens through the SDK agrees
    conditions = sizes[0]
    assert conditions.offered == ["get_conditions", MORE_TOOLS]
    labels = [row[0] for row in summary_rows(sizes)]
    assert "input per record question (all calls)" in labels
    rows = per_question_rows(sizes, whole)
    assert [r[0] for r in rows] == list(RECORD_QUESTIONS) and all(r[2] < r[3] for r in rows)
    assert tokens(35) == 10 and tokens(36) == 11
