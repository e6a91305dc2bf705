"""The done event's metrics (issue 11) agree with the event stream and with the clock outside.

Nothing here asserts how fast anything is: only invariants that hold however slow the
machine — the answer cannot finish before its tools did, the first token cannot come after
the last, every tool_result event has its metrics entry, the consumer waited at least as long
as the agent says it worked.
"""

from __future__ import annotations

import asyncio
import time
from itertools import groupby, pairwise

import pytest

from agent.events import DoneEvent, Event, TextEvent, ToolCallEvent, ToolResultEvent
from agent.llm import estimate_cost
from agent.loop import ClaudeAgent
from agent.offline import OfflineAgent
from agent.runner import GuardedAgent
from tests.agent.scoped_world import build, record_scope, request
from tests.fakes.anthropic_server import model_client_for, text_message, tool_use_message, usage
from tools.catalog import build_registry

COMMON_KEYS = {
    "latency_ms",
    "ttft_ms",
    "iterations",
    "tools",
    "tool_calls",
    "tool_ms",
    "tokens",
    "cost_usd",
    "cost_estimated",
    "scope",
    "background",
}
ROUNDING_MS = 0.05  # every figure is rounded to 0.01 ms


@pytest.fixture()
def world(clean_db):
    return build(clean_db)


def timed_run(agent, req) -> tuple[list[tuple[float, Event]], float]:
    """Events with the consumer's arrival time (ms after it called run), and its total wait."""

    async def go():
        started = time.perf_counter()
        seen = []
        try:
            async for event in agent.run(req):
                seen.append(((time.perf_counter() - started) * 1000, event))
        finally:
            close = getattr(agent, "aclose", None)
            if close is not None:
                await close()
        return seen, (time.perf_counter() - started) * 1000

    return asyncio.run(go())


def check_consistency(timed: list[tuple[float, Event]], waited_ms: float) -> dict:
    events = [e for _, e in timed]
    done = events[-1]
    assert isinstance(done, DoneEvent)
    m = done.metrics
    assert set(m) >= COMMON_KEYS
    total = m["latency_ms"]

    # every tool call is one tool_result event, in the same order, with the same latency
    results = [e for e in events if isinstance(e, ToolResultEvent)]
    calls = [e for e in events if isinstance(e, ToolCallEvent)]
    assert m["tool_calls"] == len(m["tools"]) == len(results) == len(calls)
    assert [t["name"] for t in m["tools"]] == [r.name for r in results]
    assert [t["ms"] for t in m["tools"]] == [r.latency_ms for r in results]
    assert [t["rows"] for t in m["tools"]] == [r.total for r in results]
    assert [t["background"] for t in m["tools"]] == [r.background for r in results]

    # the clock: first token before the end; batches run one after another inside the run
    if m["ttft_ms"] is not None:
        assert 0 <= m["ttft_ms"] <= total
        first_text_seen = next(at for at, e in timed if isinstance(e, TextEvent))
        assert m["ttft_ms"] <= first_text_seen + ROUNDING_MS
    batches = [list(b) for _, b in groupby(m["tools"], key=lambda t: t["batch"])]
    assert [b[0]["batch"] for b in batches] == sorted({t["batch"] for t in m["tools"]})  # contiguous
    for tool in m["tools"]:
        assert tool["started_ms"] >= 0 and tool["started_ms"] + tool["ms"] <= total + ROUNDING_MS
    for earlier, later in pairwise(batches):
        assert (
            max(t["started_ms"] + t["ms"] for t in earlier)
            <= min(t["started_ms"] for t in later) + ROUNDING_MS
        )
    assert sum(max(t["ms"] for t in b) for b in batches) <= total + ROUNDING_MS * len(batches)
    assert m["tool_ms"] <= total + ROUNDING_MS
    # the consumer waited at least as long as the agent says it worked
    assert total <= waited_ms + ROUNDING_MS
    return m


def test_claude_metrics_match_the_event_stream_tokens_and_cost(fake_anthropic, world):
    fake_anthropic.enqueue(
        tool_use_message(
            [("get_labs", {"query": "A1C"}), ("get_medications", {})],
            text="Let me look.",
            usage_=usage(120, 30, cache_read=900, cache_write=0),
        ),
        tool_use_message([("get_allergies", {})], usage_=usage(300, 25, cache_read=900)),
        text_message(
            "Your latest HbA1c was 7.1 % on 2024-03-30 [L1].", usage_=usage(500, 40, cache_read=900)
        ),
    )
    agent = GuardedAgent(ClaudeAgent(model_client_for(fake_anthropic), build_registry(), world.db))
    timed, waited = timed_run(agent, request("How is my diabetes?"))
    m = check_consistency(timed, waited)
    done = timed[-1][1]
    assert m["iterations"] == len(fake_anthropic.message_requests) == len(m["model_calls"]) == 3
    assert m["tokens"] == {"input": 920, "output": 95, "cache_read": 2700, "cache_creation": 0}
    assert done.usage.input_tokens == 920 and done.usage.cache_read_input_tokens == 2700
    assert m["cost_usd"] == done.cost_usd == round(estimate_cost("claude-sonnet-5-5", done.usage), 6)
    assert m["cost_estimated"] is True and m["ttft_ms"] is not None
    # model turns and tool batches alternate: 2 model-asked batches + background after the first
    assert [t["name"] for t in m["tools"] if not t["background"]] == [
        "get_labs",
        "get_medications",
        "get_allergies",
    ]
    assert {t["name"] for t in m["tools"] if t["background"]} == {"get_conditions", "get_allergies"}


def test_offline_metrics_match_the_event_stream(world):
    agent = GuardedAgent(OfflineAgent(build_registry(), world.db))
    timed, waited = timed_run(
        agent, request("Is this normal?", ask_scope=record_scope("observation", world.a1c_latest))
    )
    m = check_consistency(timed, waited)
    assert m["iterations"] == 0 and m["tokens"] == {
        "input": 0,
        "output": 0,
        "cache_read": 0,
        "cache_creation": 0,
    }
    assert m["cost_usd"] == 0 and len({t["batch"] for t in m["tools"]}) == 3  # record, history, background
    assert m["scope"]["kind"] == "record"


def test_guardrail_metrics_have_the_same_shape(world):
    agent = GuardedAgent(OfflineAgent(build_registry(), world.db))
    timed, waited = timed_run(
        agent, request("I have crushing chest pain right now", ask_scope={"section": "labs"})
    )
    m = check_consistency(timed, waited)
    done = timed[-1][1]
    assert done.mode == "guardrail" and m["tools"] == [] and m["ttft_ms"] is not None
    # the scope as asked (nothing was looked up), in the same shape as a scoped answer's
    assert (
        done.scope
        == m["scope"]
        == {
            "kind": "section",
            "section": "labs",
            "tools": [],
            "label": "lab results and vitals",
        }
    )
