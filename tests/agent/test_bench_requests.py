"""The request-size measurement counts what the SDK actually sent."""

from __future__ import annotations

import json

from agent.bench_requests import RECORD_QUESTIONS, request_sizes, summary_rows, tokens
from tests.evals import cohort
from tools.catalog import build_registry


def test_request_sizes_add_up_to_the_requests_sent(clean_db):
    ann, _ = cohort.build(clean_db)
    sizes = request_sizes(clean_db, [ann.pid])
    assert [s.question for s in sizes] == list(RECORD_QUESTIONS)
    definitions = build_registry().definitions()
    definitions[-1]["cache_control"] = {"type": "ephemeral"}
    one_call_tools = len(json.dumps(definitions, ensure_ascii=False, separators=(",", ":")))
    for size in sizes:
        assert size.calls == 2  # a tool turn, then the answer
        assert size.tools == 2 * one_call_tools
        assert 0 < size.uncached < size.total and size.first_call < size.total
    labels = [row[0] for row in summary_rows(sizes)]
    assert "input per record question (all calls)" in labels
    assert tokens(35) == 10 and tokens(36) == 11
