"""The Claude loop against the real SDK talking to the local fake Messages API."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent.base import Turn
from agent.events import DoneEvent, ErrorEvent, TextEvent, ToolCallEvent, ToolResultEvent, is_terminal
from agent.loop import CUT_OFF_NOTE, REFUSAL_REPLY, ClaudeAgent
from agent.runner import GuardedAgent
from tests.agent.conftest import ask, run
from tests.fakes.anthropic_server import (
    Hang,
    HangReply,
    SSEReply,
    error_reply,
    message,
    model_client_for,
    sse_frames,
    stream_error_frame,
    text_block,
    text_message,
    tool_use_block,
    tool_use_message,
    usage,
)


def make_agent(fake, registry, db, **client_kw) -> GuardedAgent:
    return GuardedAgent(ClaudeAgent(model_client_for(fake, **client_kw), registry, db, max_iterations=4))


def terminal(events) -> DoneEvent | ErrorEvent:
    ends = [e for e in events if is_terminal(e)]
    assert len(ends) == 1 and events[-1] is ends[0], f"expected exactly one terminal event last, got {events}"
    return ends[0]


def test_two_turn_tool_exchange_streams_cites_and_answers_tool_results(
    fake_anthropic, registry, db, tool_log
):
    fake_anthropic.enqueue(
        tool_use_message([("get_labs", {"query": "A1C", "latest_only": True})], text="Let me look that up."),
        text_message("Your latest HbA1c was 7.2 % on 2024-03-05 [L1]."),
    )
    events = run(make_agent(fake_anthropic, registry, db), ask("What is my latest A1C?"))
    done = terminal(events)
    assert isinstance(done, DoneEvent) and done.mode == "claude"
    assert done.grounding.grounded and done.grounding.cited_handles == ["L1"]
    assert "7.2 % on 2024-03-05 [L1]" in done.answer
    assert "".join(e.delta for e in events if isinstance(e, TextEvent)) == done.answer
    calls = [e for e in events if isinstance(e, ToolCallEvent)]
    results = [e for e in events if isinstance(e, ToolResultEvent)]
    assert [c.name for c in calls] == ["get_labs"] and results[0].ok and results[0].handles == ["L1"]
    assert [e.handle for e in events if e.type == "citation"] == ["L1"]
    assert tool_log.calls == [
        (
            "get_labs",
            {
                "query": "A1C",
                "category": "all",
                "latest_only": True,
                "since": None,
                "until": None,
                "limit": 20,
            },
        )
    ]

    first, second = fake_anthropic.message_requests
    assert first.streamed and second.streamed
    sent = second.body["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    assert sent[1]["content"][1]["type"] == "tool_use"
    result_block = sent[2]["content"][0]
    assert result_block["type"] == "tool_result" and result_block["tool_use_id"] == calls[0].id
    assert "[L1] Hemoglobin A1c 7.2 %" in result_block["content"] and "is_error" not in result_block

    metrics = done.metrics
    assert metrics["iterations"] == 2 and [c["stop_reason"] for c in metrics["model_calls"]] == [
        "tool_use",
        "end_turn",
    ]
    assert metrics["tools"][0]["name"] == "get_labs" and metrics["tools"][0]["rows"] == 1
    assert done.usage.input_tokens == 200 and done.usage.output_tokens == 40
    # Sonnet 5.5: $2 in / $10 out per MTok (agent/models.py, with source and date)
    assert done.cost_usd == pytest.approx((200 * 2 + 40 * 10) / 1e6)
    assert metrics["ttft_ms"] is not None and metrics["ttft_ms"] <= metrics["latency_ms"]


def test_parallel_tool_calls_are_answered_in_one_user_message_with_errors_flagged(
    fake_anthropic, registry, db
):
    fake_anthropic.enqueue(
        message(
            [
                tool_use_block("get_medications", {"status": "active"}, id="toolu_a"),
                tool_use_block("get_allergies", {}, id="toolu_b"),
                tool_use_block("get_labs", {"query": "explode"}, id="toolu_c"),
                tool_use_block("get_labs", {"patient_id": "someone-else"}, id="toolu_d"),
            ],
            "tool_use",
        ),
        text_message(
            "You take Lisinopril 10 MG Oral Tablet [M1] and Metformin 500 MG [M2]; allergy: Penicillin [A1]."
        ),
    )
    events = run(make_agent(fake_anthropic, registry, db), ask("Meds and allergies?"))
    done = terminal(events)
    assert isinstance(done, DoneEvent) and done.grounding.grounded
    second = fake_anthropic.message_requests[1].body["messages"]
    assert len(second) == 3  # question, assistant tool_use turn, ONE user message with every result
    blocks = second[2]["content"]
    assert [b["tool_use_id"] for b in blocks] == ["toolu_a", "toolu_b", "toolu_c", "toolu_d"]
    assert [b.get("is_error", False) for b in blocks] == [False, False, True, True]
    assert "internal error" in blocks[2]["content"] and "Traceback" not in blocks[2]["content"]
    assert "patient_id" in blocks[3]["content"]  # the registry explains the forbidden argument
    oks = {e.id: e.ok for e in events if isinstance(e, ToolResultEvent)}
    assert oks == {"toolu_a": True, "toolu_b": True, "toolu_c": False, "toolu_d": False}


def test_json_replies_work_as_well_as_sse(fake_anthropic, registry, db):
    # the fake renders a message as SSE for streaming requests; an explicit SSE script works too
    frames = sse_frames(text_message("Nothing in the record answers that."), chunk_chars=5)
    fake_anthropic.enqueue(SSEReply(frames))
    done = terminal(run(make_agent(fake_anthropic, registry, db), ask("What is my blood type?")))
    assert isinstance(done, DoneEvent) and done.answer == "Nothing in the record answers that."


def test_refusal_gives_the_scripted_reply(fake_anthropic, registry, db):
    fake_anthropic.enqueue(
        message([text_block("I won't")], "refusal", stop_details={"type": "refusal", "category": "cyber"})
    )
    done = terminal(run(make_agent(fake_anthropic, registry, db), ask("Write me a phishing email")))
    assert isinstance(done, DoneEvent) and done.answer == REFUSAL_REPLY
    assert done.metrics["stop_reason"] == "refusal"


def test_an_odd_request_reaches_the_model_not_the_emergency_reply(fake_anthropic, registry, db):
    fake_anthropic.enqueue(
        message([text_block("I won't")], "refusal", stop_details={"type": "refusal", "category": "cyber"})
    )
    done = terminal(run(make_agent(fake_anthropic, registry, db), ask("Tell me something odd")))
    assert isinstance(done, DoneEvent) and done.answer == REFUSAL_REPLY


def test_max_tokens_keeps_the_text_and_says_it_was_cut(fake_anthropic, registry, db):
    fake_anthropic.enqueue(text_message("Your medicines are", stop_reason="max_tokens"))
    done = terminal(run(make_agent(fake_anthropic, registry, db), ask("List everything")))
    assert isinstance(done, DoneEvent) and done.answer == "Your medicines are" + CUT_OFF_NOTE


def test_max_tokens_with_nothing_written_is_an_error(fake_anthropic, registry, db):
    fake_anthropic.enqueue(message([], "max_tokens"))
    done = terminal(run(make_agent(fake_anthropic, registry, db), ask("List everything")))
    assert isinstance(done, ErrorEvent) and done.kind == "max_tokens"


def test_pause_turn_is_resent_with_the_reply_appended(fake_anthropic, registry, db):
    fake_anthropic.enqueue(message([text_block("Working on it.")], "pause_turn"), text_message("Done now."))
    done = terminal(run(make_agent(fake_anthropic, registry, db), ask("Summarise my record")))
    assert isinstance(done, DoneEvent) and done.answer == "Working on it.\n\nDone now."
    resent = fake_anthropic.message_requests[1].body["messages"]
    assert resent[-1] == {"role": "assistant", "content": [{"type": "text", "text": "Working on it."}]}


def test_unknown_stop_reason_is_an_error_not_a_guess(fake_anthropic, registry, db):
    fake_anthropic.enqueue(text_message("Partial", stop_reason="brand_new_reason"))
    done = terminal(run(make_agent(fake_anthropic, registry, db), ask("What is my A1C?")))
    assert isinstance(done, ErrorEvent) and done.kind == "model_error" and "brand_new_reason" in done.message


def test_rate_limit_429_honours_retry_after_then_succeeds(fake_anthropic, registry, db):
    fake_anthropic.enqueue(
        error_reply(429, "rate_limit_error", "slow down", headers={"retry-after-ms": "30"}),
        text_message("The record does not show that."),
    )
    done = terminal(run(make_agent(fake_anthropic, registry, db), ask("What is my blood type?")))
    assert isinstance(done, DoneEvent)
    assert len(fake_anthropic.message_requests) == 2


def test_rate_limit_asking_for_a_long_wait_fails_fast_with_when_to_retry(fake_anthropic, registry, db):
    fake_anthropic.enqueue(error_reply(429, "rate_limit_error", headers={"retry-after": "120"}))
    done = terminal(run(make_agent(fake_anthropic, registry, db, max_retry_wait_s=5), ask("A1C?")))
    assert isinstance(done, ErrorEvent) and done.kind == "rate_limited" and "120 seconds" in done.message
    assert len(fake_anthropic.message_requests) == 1


def test_spend_limit_is_not_retried(fake_anthropic, registry, db):
    fake_anthropic.enqueue(
        error_reply(429, "rate_limit_error", "monthly spend cap", error_code="enforced_spend_limit_reached"),
        text_message("never sent"),
    )
    done = terminal(run(make_agent(fake_anthropic, registry, db), ask("A1C?")))
    assert isinstance(done, ErrorEvent) and done.kind == "spend_limit"
    assert len(fake_anthropic.message_requests) == 1


def test_overloaded_529_is_retried_a_little_then_a_clear_error(fake_anthropic, registry, db):
    fake_anthropic.enqueue(
        *[error_reply(529, "overloaded_error", "Overloaded", headers={"retry-after-ms": "5"})] * 4
    )
    done = terminal(
        run(make_agent(fake_anthropic, registry, db, max_retries=3, overloaded_retries=1), ask("A1C?"))
    )
    assert isinstance(done, ErrorEvent) and done.kind == "overloaded" and "overloaded" in done.message
    assert len(fake_anthropic.message_requests) == 2  # the first try + one retry, not max_retries


def test_overloaded_529_then_success(fake_anthropic, registry, db):
    fake_anthropic.enqueue(
        error_reply(529, "overloaded_error", headers={"retry-after-ms": "5"}), text_message("Fine.")
    )
    done = terminal(run(make_agent(fake_anthropic, registry, db), ask("Hello?")))
    assert isinstance(done, DoneEvent) and done.answer == "Fine."


def test_mid_stream_error_event_is_classified_by_its_type(fake_anthropic, registry, db):
    frames = [*sse_frames(text_message("Your latest result is"))[:4], stream_error_frame("overloaded_error")]
    fake_anthropic.enqueue(SSEReply(frames))
    events = run(make_agent(fake_anthropic, registry, db), ask("A1C?"))
    done = terminal(events)
    assert isinstance(done, ErrorEvent) and done.kind == "overloaded"
    assert any(isinstance(e, TextEvent) for e in events)  # text had started before the error
    assert len(fake_anthropic.message_requests) == 1  # a mid-stream error is not retried


def test_mid_stream_api_error_is_a_model_error(fake_anthropic, registry, db):
    frames = [*sse_frames(text_message("x"))[:2], stream_error_frame("api_error", "Internal")]
    fake_anthropic.enqueue(SSEReply(frames))
    done = terminal(run(make_agent(fake_anthropic, registry, db), ask("A1C?")))
    assert isinstance(done, ErrorEvent) and done.kind == "model_error"


def test_timeout_is_reported_as_timeout(fake_anthropic, registry, db):
    fake_anthropic.enqueue(HangReply(30))
    done = terminal(run(make_agent(fake_anthropic, registry, db, max_retries=0, timeout_s=0.3), ask("A1C?")))
    assert isinstance(done, ErrorEvent) and done.kind == "timeout"


def test_iteration_limit_ends_with_an_error(fake_anthropic, registry, db):
    fake_anthropic.enqueue(*[tool_use_message([("get_allergies", {})]) for _ in range(4)])
    done = terminal(run(make_agent(fake_anthropic, registry, db), ask("Allergies?")))
    assert isinstance(done, ErrorEvent) and done.kind == "iteration_limit"


def test_prompt_caching_markers_on_system_prompt_and_last_tool(fake_anthropic, registry, db):
    fake_anthropic.enqueue(text_message("Hello."))
    run(make_agent(fake_anthropic, registry, db), ask("Hi"))
    body = fake_anthropic.message_requests[0].body
    assert body["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert "records reader" in body["system"][0]["text"]
    assert "cache_control" not in body["system"][1]  # the date block changes daily
    assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert all("cache_control" not in t for t in body["tools"][:-1])
    # strict (grammar-constrained) only for the writing tools, and those only when the
    # user's own words asked to book or cancel: the strict budget is request-wide
    assert {t["name"] for t in body["tools"] if t.get("strict") is True} == set()
    fake_anthropic.enqueue(text_message("Which clinic?"))
    run(make_agent(fake_anthropic, registry, db), ask("Please book me an appointment"))
    booking = fake_anthropic.message_requests[1].body["tools"]
    writes = {name for name in registry.names() if registry.get(name).writes}
    assert {t["name"] for t in booking if t.get("strict") is True} == {"book_appointment"} < writes


def test_clinician_gets_the_chart_assistant_identity(fake_anthropic, registry, db):
    fake_anthropic.enqueue(text_message("Noted."))
    run(make_agent(fake_anthropic, registry, db), ask("Summarise", role="clinician"))
    assert "chart assistant for a clinician" in fake_anthropic.message_requests[0].body["system"][0]["text"]


def test_follow_up_sees_the_conversation_without_stale_handles(fake_anthropic, registry, db):
    fake_anthropic.enqueue(text_message("Last year it was 7.2 % on 2024-03-05 [L1]."))
    history = [Turn(question="What is my A1C?", answer="Your A1C was 7.9 % on 2025-01-02 [L4].")]
    run(make_agent(fake_anthropic, registry, db), ask("and last year?", history=history))
    sent = fake_anthropic.message_requests[0].body["messages"]
    assert sent[0] == {"role": "user", "content": "What is my A1C?"}
    assert sent[1] == {"role": "assistant", "content": "Your A1C was 7.9 % on 2025-01-02."}
    assert sent[2]["content"][0]["text"] == "and last year?"


def test_stated_value_is_checked_against_the_record_before_the_model_answers(
    fake_anthropic, registry, db, tool_log
):
    fake_anthropic.enqueue(text_message("Your record shows 7.2 % on 2024-03-05 [L1], not 6.1."))
    events = run(make_agent(fake_anthropic, registry, db), ask("my A1C is 6.1, right?"))
    assert tool_log.calls[0][0] == "get_labs" and tool_log.calls[0][1]["query"] == "A1C"
    first = fake_anthropic.message_requests[0].body["messages"][0]["content"]
    note = first[1]["text"]
    assert "<record_check>" in note and "6.1" in note and "[L1] Hemoglobin A1c 7.2 %" in note
    done = terminal(events)
    assert isinstance(done, DoneEvent) and done.metrics["prefetched"] == ["A1C"]


def test_cancelling_the_consumer_closes_the_stream(fake_anthropic, registry, db):
    frames = [*sse_frames(text_message("Your latest"))[:4], Hang(30)]
    fake_anthropic.enqueue(SSEReply(frames))
    agent = make_agent(fake_anthropic, registry, db)

    async def scenario() -> list:
        seen: list = []
        got_text = asyncio.Event()

        async def consume() -> None:
            async for event in agent.run(ask("A1C?")):
                seen.append(event)
                if isinstance(event, TextEvent):
                    got_text.set()

        task = asyncio.create_task(consume())
        closing = agent.aclose
        await asyncio.wait_for(got_text.wait(), 10)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        for _ in range(200):  # the fake notices the closed connection while it hangs
            if fake_anthropic.message_requests[0].disconnected:
                break
            await asyncio.sleep(0.02)
        await closing()
        return seen

    seen = asyncio.run(scenario())
    assert not any(is_terminal(e) for e in seen)
    assert fake_anthropic.message_requests[0].disconnected


def test_every_run_ends_with_exactly_one_terminal_event(fake_anthropic, registry, db):
    scripts = [
        [text_message("ok")],
        [error_reply(400, "invalid_request_error", "bad")],
        [error_reply(401, "authentication_error", "bad key")],
        [message([], "model_context_window_exceeded")],
        [tool_use_message([("no_such_tool", {})]), text_message("The record does not say.")],
    ]
    kinds = []
    for script in scripts:
        fake_anthropic.enqueue(*script)
        events = run(make_agent(fake_anthropic, registry, db), ask("A1C?"))
        end = terminal(events)
        kinds.append(end.kind if isinstance(end, ErrorEvent) else "done")
    assert kinds == ["done", "bad_request", "auth", "context_window", "done"]
    assert usage()["input_tokens"] == 100  # builder sanity for the cost assertions above


REPLY_KINDS = {
    "text": lambda: text_message("The record shows Lisinopril 10 MG Oral Tablet [M1]."),
    "tools": lambda: tool_use_message([("get_medications", {}), ("get_allergies", {})]),
    "bad_tool": lambda: tool_use_message([("get_labs", {"nonsense": 1})]),
    "pause": lambda: message([text_block("…")], "pause_turn"),
    "refusal": lambda: message([], "refusal"),
    "max_tokens": lambda: text_message("cut", stop_reason="max_tokens"),
    "unknown_stop": lambda: text_message("?", stop_reason="something_new"),
    "429": lambda: error_reply(429, "rate_limit_error", headers={"retry-after": "999"}),
    "529": lambda: error_reply(529, "overloaded_error", headers={"x-should-retry": "false"}),
    "500": lambda: error_reply(500, "api_error", headers={"x-should-retry": "false"}),
    "midstream": lambda: SSEReply(
        [*sse_frames(text_message("partial"))[:3], stream_error_frame("api_error")]
    ),
}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(script=st.lists(st.sampled_from(sorted(REPLY_KINDS)), min_size=1, max_size=6))
def test_any_script_ends_with_exactly_one_terminal_event(fake_anthropic, registry, db, script):
    fake_anthropic.queue.clear()
    fake_anthropic.enqueue(*[REPLY_KINDS[kind]() for kind in script])
    events = run(make_agent(fake_anthropic, registry, db, max_retries=0), ask("What do I take?"))
    terminal(events)
