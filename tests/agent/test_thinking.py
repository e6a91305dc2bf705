"""Thinking is configured explicitly, sized into max_tokens, never shown as the answer, and its
blocks go back to the API unchanged (the contract-checking fake verifies the signature)."""

from __future__ import annotations

import pytest

from agent.events import DoneEvent, StatusEvent, TextEvent
from agent.loop import ClaudeAgent
from agent.models import ADAPTIVE_ALLOWANCE_TOKENS, MODELS, thinking_request
from agent.runner import GuardedAgent
from tests.agent.conftest import ask, run
from tests.fakes.anthropic_server import model_client_for, text_message, tool_use_message

SECRET_THOUGHT = "Private reasoning: the user wants the most recent HbA1c value."


def test_a_thinking_turn_is_a_status_not_answer_text_and_goes_back_unchanged(fake_anthropic, registry, db):
    fake_anthropic.enqueue(
        tool_use_message([("get_labs", {"query": "A1C"})], thinking=SECRET_THOUGHT),
        text_message("Your HbA1c was 7.2 % on 2024-03-05 [L1]."),
    )
    client = model_client_for(fake_anthropic, thinking="adaptive")
    events = run(GuardedAgent(ClaudeAgent(client, registry, db, max_iterations=4)), ask("What is my A1C?"))
    done = events[-1]
    assert isinstance(done, DoneEvent)
    assert not fake_anthropic.violations  # the thinking block came back exactly as sent
    streamed = "".join(e.delta for e in events if isinstance(e, TextEvent))
    assert SECRET_THOUGHT not in streamed and SECRET_THOUGHT not in done.answer
    assert "Thinking…" in [e.text for e in events if isinstance(e, StatusEvent)]
    first, second = fake_anthropic.message_requests
    assert first.body["thinking"] == {"type": "adaptive"}
    assert first.body["max_tokens"] == 1024 + ADAPTIVE_ALLOWANCE_TOKENS
    sent_back = second.body["messages"][1]["content"][0]
    assert (
        sent_back["type"] == "thinking" and sent_back["thinking"] == SECRET_THOUGHT and sent_back["signature"]
    )


def test_thinking_is_sent_explicitly_off_by_default_on_a_model_that_thinks_by_default(
    fake_anthropic, registry, db
):
    fake_anthropic.enqueue(text_message("Hello."))
    run(GuardedAgent(ClaudeAgent(model_client_for(fake_anthropic), registry, db)), ask("Hi"))
    body = fake_anthropic.message_requests[0].body
    assert body["thinking"] == {"type": "disabled"} and body["max_tokens"] == 1024


@pytest.mark.parametrize("model", sorted(MODELS))
@pytest.mark.parametrize("mode", ["auto", "off", "adaptive", "budget"])
def test_every_supported_thinking_plan_leaves_the_answer_its_tokens(model, mode):
    info = MODELS[model]
    try:
        plan = thinking_request(model, mode, 2048, 3000)
    except ValueError as exc:  # refused combinations are the documented ones, named in the error
        assert (
            (mode == "off" and info.thinking == "adaptive_always")
            or (mode == "adaptive" and info.thinking == "budget")
            or (mode == "budget" and info.thinking != "budget")
        ), exc
        return
    if plan.mode == "off":
        assert plan.thinking == {"type": "disabled"} and plan.max_tokens == 2048
    elif plan.mode == "adaptive":
        assert plan.max_tokens == 2048 + ADAPTIVE_ALLOWANCE_TOKENS
    else:
        assert plan.thinking == {"type": "enabled", "budget_tokens": 3000}
        assert plan.max_tokens > plan.thinking["budget_tokens"] and plan.max_tokens - 3000 == 2048
    assert plan.max_tokens <= info.max_output
