"""The model service fails: the user gets a clear message, the message is closed, there is an
audit row, and nothing is left half-done. Real agent and SDK against the fake Messages API."""

from __future__ import annotations

import time

from agent.fake_api import (
    Hang,
    HangReply,
    SSEReply,
    error_reply,
    sse_frames,
    stream_error_frame,
    text_message,
    tool_use_message,
)
from tests.live_agent import ask_and_read, audit, stored_message
from tests.server.conftest import A, stream

QUESTION = "What is my latest HbA1c?"


def _answer_rows(db, message_id):
    return [r for r in audit(db, action="answer") if message_id in (r.detail or "")]


def _closed_with_error(live, answer, kind):
    """The user saw one clear error; storage agrees; the audit log says why."""
    assert answer.status == 200
    terminal, data = answer.terminal
    assert (terminal, data["kind"]) == ("error", kind), answer.events
    assert "Traceback" not in data["message"] and "anthropic" not in data["message"].lower()
    assert [e[1] for e in answer.events].count("error") == 1 and not answer.of("done")
    stored = stored_message(live.db, A, answer.message_id)
    assert (stored.status, stored.answer, stored.metrics["error"]) == ("error", None, kind)
    (row,) = _answer_rows(live.db, answer.message_id)
    assert (row.actor, row.target_patient_id, row.outcome) == ("alice", A, "error")
    assert row.detail.endswith(f"{kind}: {data['message']}")
    return data["message"]


def test_529_before_streaming_is_retried_once_then_explained(serve_agent):
    live = serve_agent(model={"overloaded_retries": 1})
    live.api.enqueue(error_reply(529, "overloaded_error"), error_reply(529, "overloaded_error"))
    answer = ask_and_read(live.client("alice"), A, QUESTION)
    message = _closed_with_error(live, answer, "overloaded")
    assert "overloaded" in message and "try again" in message.lower()
    assert len(live.api.message_requests) == 2  # one retry, not an endless loop
    assert audit(live.db, action="tool:get_labs") == []  # no tool ran


def test_429_with_a_short_retry_after_is_waited_out_and_answered(serve_agent):
    live = serve_agent()
    live.api.enqueue(
        error_reply(429, "rate_limit_error", headers={"retry-after": "1"}),
        tool_use_message([("get_labs", {"query": "A1C", "latest_only": True})]),
        text_message("Your latest HbA1c was 6.1 % on 2024-03-01 [L1]."),
    )
    started = time.monotonic()
    answer = ask_and_read(live.client("alice"), A, QUESTION)
    assert time.monotonic() - started >= 1.0  # the retry-after was honoured, not ignored
    assert answer.terminal[0] == "done" and "6.1" in answer.terminal[1]["answer"]
    assert len(live.api.message_requests) == 3
    assert stored_message(live.db, A, answer.message_id).status == "done"
    assert [r.outcome for r in _answer_rows(live.db, answer.message_id)] == ["ok"]


def test_429_asking_for_a_long_wait_fails_at_once_saying_when(serve_agent):
    live = serve_agent(model={"max_retry_wait_s": 5})
    live.api.enqueue(error_reply(429, "rate_limit_error", headers={"retry-after": "120"}))
    answer = ask_and_read(live.client("alice"), A, QUESTION)
    message = _closed_with_error(live, answer, "rate_limited")
    assert "120 seconds" in message
    assert len(live.api.message_requests) == 1


def test_an_error_event_mid_stream_after_a_tool_call(serve_agent):
    live = serve_agent()
    frames = sse_frames(text_message("Your latest HbA1c was 6.1 % on 2024-03-01 [L1]."), chunk_chars=8)
    live.api.enqueue(
        tool_use_message([("get_labs", {"query": "A1C", "latest_only": True})]),
        SSEReply([*frames[:5], stream_error_frame("overloaded_error", "Overloaded")]),
    )
    answer = ask_and_read(live.client("alice"), A, QUESTION)
    assert answer.of("text")  # part of an answer had been streamed …
    _closed_with_error(live, answer, "overloaded")  # … and is not kept as the answer
    (tool_row,) = audit(live.db, action="tool:get_labs")
    assert tool_row.outcome == "ok" and tool_row.target_patient_id == A
    # what a reconnecting reader replays is exactly what the live reader saw
    status, replayed = stream(live.client("alice"), A, answer.message_id, last_id=0)
    assert status == 200 and replayed == answer.events


def test_a_model_that_hangs_past_the_model_timeout(serve_agent):
    live = serve_agent(model={"timeout_s": 1.0, "max_retries": 0})
    live.api.enqueue(HangReply(seconds=60))
    answer = ask_and_read(live.client("alice"), A, QUESTION)
    message = _closed_with_error(live, answer, "timeout")
    assert "did not answer in time" in message
    _wait_for(lambda: live.api.message_requests[0].disconnected)  # the SDK hung up; nothing lingers


def test_a_stream_that_stalls_past_the_run_deadline(serve_agent):
    live = serve_agent(run_timeout_s=2.0, model={"timeout_s": 60.0, "max_retries": 0})
    frames = sse_frames(text_message("Your latest HbA1c was 6.1 %"), chunk_chars=6)
    live.api.enqueue(SSEReply([*frames[:4], Hang(120)]))
    started = time.monotonic()
    answer = ask_and_read(live.client("alice"), A, QUESTION)
    assert time.monotonic() - started < 60  # stopped at the deadline, not after the 120 s hang
    message = _closed_with_error(live, answer, "timeout")
    assert "took too long" in message
    _wait_for(lambda: live.api.message_requests[0].disconnected)
    assert live.runs.running() == 0


def _wait_for(condition, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.05)
