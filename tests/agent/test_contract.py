"""Every Messages API rule the fake enforces, broken once through the real SDK.

Each test sends a request that breaks exactly one rule (everything else valid) and checks the
SDK raises the API's error (400 `invalid_request_error` in the real message style, or the
status the real API uses) and that the fake names the rule; a valid twin of the same request
passes. The rules and their sources are listed in docs/messages-contract.md.
"""

from __future__ import annotations

import copy
from typing import Any

import anthropic
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent import contract
from agent.fake_api import FakeMessagesAPI, text_message, thinking_block, tool_use_message

KEY = "sk-ant-test-fake"
MODEL = "claude-sonnet-5-5"


def client(api: FakeMessagesAPI) -> anthropic.Anthropic:
    return anthropic.Anthropic(api_key=KEY, base_url=api.base_url, max_retries=0)


def tool(name: str = "get_labs", *, strict: bool = False, props: dict | None = None, required=()) -> dict:
    schema = {"type": "object", "properties": props or {}, "additionalProperties": False}
    if required:
        schema["required"] = list(required)
    out = {"name": name, "description": "d", "input_schema": schema}
    if strict:
        out["strict"] = True
    return out


def base_request(**over: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": MODEL,
        "max_tokens": 256,
        "messages": [{"role": "user", "content": "What is my A1C?"}],
    }
    body.update(over)
    return body


def tool_exchange(results: list[dict] | None = None, *, extra_first: bool = False) -> list[dict]:
    """user → assistant (two parallel tool_use) → user (results)."""
    assistant = {
        "role": "assistant",
        "content": [
            {"type": "tool_use", "id": "toolu_1", "name": "get_labs", "input": {}},
            {"type": "tool_use", "id": "toolu_2", "name": "get_labs", "input": {}},
        ],
    }
    if results is None:
        results = [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "[L1] A1C 7.2 %"},
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": "[L2] A1C 6.9 %"},
        ]
    if extra_first:
        results = [{"type": "text", "text": "background"}, *results]
    return [{"role": "user", "content": "A1C?"}, assistant, {"role": "user", "content": results}]


def send(api: FakeMessagesAPI, body: dict[str, Any]) -> None:
    api.enqueue(text_message("ok"))
    client(api).messages.create(**body)


def refused(api: FakeMessagesAPI, body: dict[str, Any], rule: str, status: int = 400) -> str:
    before = len(api.queue)
    with pytest.raises(anthropic.APIStatusError) as caught:
        client(api).messages.create(**body)
    assert caught.value.status_code == status
    if status == 400:
        assert caught.value.type == "invalid_request_error"
        assert isinstance(caught.value, anthropic.BadRequestError)
    assert api.violations[-1][1].rule == rule
    assert len(api.queue) == before  # a refused request does not use up a scripted reply
    return str(caught.value.body["error"]["message"])  # type: ignore[index]


@pytest.fixture()
def api():
    with FakeMessagesAPI() as fake:
        yield fake


# -- strict budget and schema subset ----------------------------------------------------------


def strict_tools(n: int, optional_each: int = 0, union_each: int = 0) -> list[dict]:
    tools = []
    for i in range(n):
        props: dict[str, Any] = {f"o{j}": {"type": "string"} for j in range(optional_each)}
        props |= {f"u{j}": {"anyOf": [{"type": "string"}, {"type": "null"}]} for j in range(union_each)}
        tools.append(tool(f"t{i}", strict=True, props=props, required=[f"u{j}" for j in range(union_each)]))
    return tools


def test_strict_tool_count_over_20_is_refused(api):
    send(api, base_request(tools=strict_tools(20)))
    message = refused(api, base_request(tools=strict_tools(21)), "strict-tool-budget")
    assert "Schema is too complex for compilation" in message and "21 strict tools" in message


def test_more_than_24_optional_params_across_strict_schemas_is_refused(api):
    send(api, base_request(tools=strict_tools(4, optional_each=6)))
    message = refused(api, base_request(tools=strict_tools(5, optional_each=5)), "strict-tool-budget")
    assert "25 optional parameters" in message


def test_more_than_16_union_params_across_strict_schemas_is_refused(api):
    send(api, base_request(tools=strict_tools(4, union_each=4)))
    message = refused(api, base_request(tools=strict_tools(17, union_each=1)), "strict-tool-budget")
    assert "17 union-typed parameters" in message


def test_non_strict_tools_do_not_count_toward_the_budget(api):
    loose = [tool(f"t{i}", props={f"o{j}": {"type": "string"} for j in range(5)}) for i in range(30)]
    send(api, base_request(tools=loose))
    assert not api.violations


@pytest.mark.parametrize(
    "prop",
    [
        {"type": "integer", "minimum": 1},
        {"type": "string", "maxLength": 5},
        {"type": "array", "items": {"type": "string"}, "minItems": 2},
        {"type": "string", "format": "phone"},
        {"type": "object", "properties": {}},  # additionalProperties not false
    ],
)
def test_strict_schema_outside_the_supported_subset_is_refused(api, prop):
    body = base_request(tools=[tool("t", strict=True, props={"x": prop}, required=["x"])])
    message = refused(api, body, "strict-schema-subset")
    assert message.startswith("tools.0.custom.input_schema.properties.x")
    # the same keywords are fine on a non-strict tool
    send(api, base_request(tools=[tool("t", props={"x": prop})]))


def test_tool_names_must_be_unique_and_schemas_objects(api):
    refused(api, base_request(tools=[tool("a"), tool("a")]), "tool-definitions")
    bad = tool("b")
    bad["input_schema"] = {"type": "string"}
    refused(api, base_request(tools=[bad]), "tool-definitions")


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 8), st.integers(0, 4), st.booleans()), max_size=25))
def test_strict_budget_counts_every_optional_and_union_parameter(shape):
    tools = []
    for i, (optional, union, strict) in enumerate(shape):
        props: dict[str, Any] = {f"o{j}": {"type": "string"} for j in range(optional)}
        props |= {f"u{j}": {"type": ["string", "null"]} for j in range(union)}
        tools.append(tool(f"t{i}", strict=strict, props=props, required=[f"u{j}" for j in range(union)]))
    budget = contract.strict_budget(tools)
    assert budget.strict_tools == sum(1 for _, _, s in shape if s)
    assert budget.optional_params == sum(o for o, _, s in shape if s)
    assert budget.union_params == sum(u for _, u, s in shape if s)
    assert (budget.over() is None) == (
        budget.strict_tools <= 20 and budget.optional_params <= 24 and budget.union_params <= 16
    )


# -- tool_use / tool_result pairing and order -------------------------------------------------


def test_parallel_tool_results_answered_once_each_pass(api):
    send(api, base_request(messages=tool_exchange()))
    assert not api.violations


def test_unanswered_tool_use_is_refused(api):
    results = [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "x"}]
    message = refused(api, base_request(messages=tool_exchange(results)), "tool-pairing")
    assert "toolu_2" in message and "tool_result" in message


def test_tool_result_for_an_unknown_id_is_refused(api):
    results = [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "x"},
        {"type": "tool_result", "tool_use_id": "toolu_2", "content": "x"},
        {"type": "tool_result", "tool_use_id": "toolu_9", "content": "x"},
    ]
    message = refused(api, base_request(messages=tool_exchange(results)), "tool-pairing")
    assert "unexpected `tool_use_id`" in message and "toolu_9" in message


def test_tool_use_answered_twice_is_refused(api):
    results = [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "x"},
        {"type": "tool_result", "tool_use_id": "toolu_2", "content": "x"},
        {"type": "tool_result", "tool_use_id": "toolu_2", "content": "again"},
    ]
    refused(api, base_request(messages=tool_exchange(results)), "tool-pairing")


def test_tool_results_must_come_first_in_the_user_turn(api):
    message = refused(api, base_request(messages=tool_exchange(extra_first=True)), "tool-pairing")
    assert "must come first" in message
    # text AFTER the results (our labelled background) is fine
    results = tool_exchange()[2]["content"] + [{"type": "text", "text": "background"}]
    send(api, base_request(messages=tool_exchange(results)))


def test_conversation_ending_on_unanswered_tool_use_is_refused(api):
    refused(api, base_request(messages=tool_exchange()[:2]), "tool-pairing")


# -- roles ------------------------------------------------------------------------------------


def test_roles_must_alternate_and_start_with_user(api):
    two_users = [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]
    refused(api, base_request(messages=two_users), "roles")
    refused(api, base_request(messages=[{"role": "assistant", "content": "hi"}]), "roles")
    refused(api, base_request(messages=[{"role": "system", "content": "hi"}]), "roles")
    refused(api, base_request(messages=[]), "roles")


# -- cache breakpoints ------------------------------------------------------------------------


def test_more_than_four_cache_breakpoints_are_refused(api):
    cached = {"type": "ephemeral"}
    system = [{"type": "text", "text": f"s{i}", "cache_control": cached} for i in range(3)]
    tools = [tool("a"), dict(tool("b"), cache_control=cached)]
    send(api, base_request(system=system, tools=tools))
    messages = [{"role": "user", "content": [{"type": "text", "text": "q", "cache_control": cached}]}]
    message = refused(api, base_request(system=system, tools=tools, messages=messages), "cache-breakpoints")
    assert "Found 5" in message


# -- thinking ---------------------------------------------------------------------------------


def thinking_exchange(api: FakeMessagesAPI, change=None) -> list[dict]:
    """Play one thinking tool turn through the SDK, then build the follow-up messages."""
    reply = tool_use_message([("get_labs", {})], thinking="The user wants the latest A1C.")
    api.enqueue(reply)
    first = client(api).messages.create(**base_request(max_tokens=4096, thinking={"type": "adaptive"}))
    assistant = [b.model_dump(exclude_none=True) for b in first.content]
    if change:
        change(assistant)
    result = {"type": "tool_result", "tool_use_id": assistant[-1]["id"], "content": "[L1] A1C 7.2 %"}
    return [
        base_request()["messages"][0],
        {"role": "assistant", "content": assistant},
        {"role": "user", "content": [result]},
    ]


def test_thinking_blocks_sent_back_unchanged_pass(api):
    send(api, base_request(max_tokens=4096, thinking={"type": "adaptive"}, messages=thinking_exchange(api)))
    assert not api.violations


def test_edited_thinking_block_is_refused(api):
    def edit(blocks):
        blocks[0]["thinking"] = blocks[0]["thinking"] + " (edited)"

    body = base_request(max_tokens=4096, thinking={"type": "adaptive"}, messages=thinking_exchange(api, edit))
    assert "signature" in refused(api, body, "thinking-unchanged")


def test_thinking_block_without_its_signature_is_refused(api):
    def forge(blocks):
        blocks[0] = thinking_block("I made this up.")

    body = base_request(
        max_tokens=4096, thinking={"type": "adaptive"}, messages=thinking_exchange(api, forge)
    )
    refused(api, body, "thinking-unchanged")


def test_max_tokens_must_exceed_the_thinking_budget(api):
    send(api, base_request(max_tokens=3000, thinking={"type": "enabled", "budget_tokens": 2048}))
    message = refused(
        api, base_request(max_tokens=2048, thinking={"type": "enabled", "budget_tokens": 2048}), "max-tokens"
    )
    assert "budget_tokens" in message
    refused(
        api,
        base_request(max_tokens=4000, thinking={"type": "enabled", "budget_tokens": 512}),
        "thinking-config",
    )


# -- model id and headers ---------------------------------------------------------------------


def test_model_ids_the_installed_sdk_does_not_know_are_refused(api):
    body = base_request(model="claude-sonnet-9-9")
    with pytest.raises(anthropic.NotFoundError):
        client(api).messages.create(**body)
    assert api.violations[-1][1].rule == "model-id"


def test_requests_without_version_or_key_headers_are_refused(api):
    import httpx2

    url = f"{api.base_url}/v1/messages"
    no_version = httpx2.post(url, json=base_request(), headers={"x-api-key": KEY})
    assert no_version.status_code == 400 and "anthropic-version" in no_version.json()["error"]["message"]
    no_key = httpx2.post(url, json=base_request(), headers={"anthropic-version": "2023-06-01"})
    assert no_key.status_code == 401 and no_key.json()["error"]["type"] == "authentication_error"
    assert [v.rule for _, v in api.violations] == ["headers", "headers"]
    assert no_key.json()["type"] == "error" and no_key.json()["request_id"]


def test_count_tokens_takes_the_content_fields_and_refuses_generation_fields(api):
    import httpx2

    from agent.token_estimate import estimate_input_tokens

    body = {k: v for k, v in base_request(tools=[tool()]).items() if k != "max_tokens"}
    counted = client(api).messages.count_tokens(**body)
    assert counted.input_tokens == estimate_input_tokens(body) > 0
    headers = {"x-api-key": KEY, "anthropic-version": "2023-06-01"}
    url = f"{api.base_url}/v1/messages/count_tokens"
    refused_ = httpx2.post(url, json={**body, "max_tokens": 256}, headers=headers)
    assert refused_.status_code == 400 and refused_.json()["error"]["type"] == "invalid_request_error"
    assert "max_tokens: Extra inputs are not permitted" in refused_.json()["error"]["message"]
    assert [v.rule for _, v in api.violations] == ["count-tokens"]
    assert api.message_requests == []  # counting is not a Messages call


def test_contract_checks_can_be_switched_off_for_raw_wire_tests():
    with FakeMessagesAPI(contract=False) as loose:
        loose.enqueue(text_message("ok"))
        client(loose).messages.create(**base_request(model="not-a-model", messages=copy.deepcopy([])))
        assert not loose.violations


# -- streaming like the real API --------------------------------------------------------------


def test_the_fake_streams_pings_thinking_deltas_and_full_usage_which_the_sdk_reads(api):
    from agent.fake_api import message, sse_frames, usage

    reply = message(
        [thinking_block("Check the labs."), {"type": "text", "text": "Done [L1]."}],
        usage_=usage(input_tokens=900, output_tokens=30, cache_read=800, cache_write=100),
    )
    frames = [f for f in sse_frames(reply) if isinstance(f, tuple)]
    names = [name for name, _ in frames]
    assert names[:2] == ["message_start", "ping"]
    deltas = [data["delta"]["type"] for name, data in frames if name == "content_block_delta"]
    assert "thinking_delta" in deltas and "signature_delta" in deltas and "text_delta" in deltas
    final_usage = next(data["usage"] for name, data in frames if name == "message_delta")
    assert final_usage["input_tokens"] == 900 and final_usage["cache_read_input_tokens"] == 800

    api.enqueue(reply)
    with client(api).messages.stream(
        **base_request(max_tokens=4096, thinking={"type": "adaptive"})
    ) as stream:
        kinds = {event.type for event in stream}
        final = stream.get_final_message()
    assert {"thinking", "signature", "text"} <= kinds
    assert (
        final.content[0].type == "thinking" and final.content[0].signature == reply["content"][0]["signature"]
    )
    assert final.usage.input_tokens == 900 and final.usage.cache_read_input_tokens == 800
    assert final.usage.cache_creation_input_tokens == 100 and final.usage.output_tokens == 30
