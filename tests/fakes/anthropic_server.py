"""The fake Messages API for tests (implementation in `agent.fake_api`, shared with benchmarks).

Usage::

    def test_x(fake_anthropic):
        fake_anthropic.enqueue(tool_use_message([("get_labs", {"query": "A1C"})]), text_message("… [L1]"))
        client = model_client_for(fake_anthropic)
        ...
        assert fake_anthropic.message_requests[1].body["messages"][-1]["content"][0]["type"] == "tool_result"

Replies: a message dict (sent as JSON or SSE, whichever the request asked for), `SSEReply`
(exact frames, `Hang`, `stream_error_frame`), `JSONReply` / `error_reply` (status codes,
headers such as `retry-after-ms`), `HangReply`. Requests are recorded in `.requests`.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agent.fake_api import (
    FakeMessagesAPI,
    Hang,
    HangReply,
    JSONReply,
    MessageReply,
    RecordedRequest,
    SSEReply,
    error_body,
    error_reply,
    message,
    sse_frames,
    stream_error_frame,
    text_block,
    text_message,
    thinking_block,
    tool_use_block,
    tool_use_message,
    usage,
)
from agent.llm import ModelClient, ModelConfig

__all__ = [
    "FakeMessagesAPI",
    "Hang",
    "HangReply",
    "JSONReply",
    "MessageReply",
    "RecordedRequest",
    "SSEReply",
    "error_body",
    "error_reply",
    "fake_anthropic",
    "message",
    "model_client_for",
    "sse_frames",
    "stream_error_frame",
    "text_block",
    "text_message",
    "thinking_block",
    "tool_use_block",
    "tool_use_message",
    "usage",
]


def model_client_for(
    api: FakeMessagesAPI,
    *,
    max_retries: int = 2,
    overloaded_retries: int = 1,
    max_retry_wait_s: float = 5.0,
    timeout_s: float = 10.0,
    model: str = "claude-sonnet-5-5",
    thinking: str = "auto",
) -> ModelClient:
    """A real SDK client pointed at the fake (a test key; never the environment's)."""
    return ModelClient(
        ModelConfig.local(
            api.base_url,
            answer_model=model,
            timeout_s=timeout_s,
            max_retries=max_retries,
            overloaded_retries=overloaded_retries,
            max_retry_wait_s=max_retry_wait_s,
            thinking=thinking,
        )
    )


@pytest.fixture()
def fake_anthropic() -> Iterator[FakeMessagesAPI]:
    with FakeMessagesAPI() as api:
        yield api
