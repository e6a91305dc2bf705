"""The Messages API's request rules that Chartside relies on, as checks the fake server runs.

Each rule has an id, the sentence that states it, and its source; `docs/messages-contract.md`
lists them with the test that breaks each one. `check_request` returns the first broken
rule as a `Violation` whose message is written in the real API's style
(`messages.3.content.0: …`), and the fake answers it with the API's error shape:
400 `{"type": "error", "error": {"type": "invalid_request_error", "message": …}}`.

Stdlib only: the fake server (and so these checks) must not depend on the SDK it tests.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

# Strict tool use compiles all strict schemas of a request into one grammar; the documented
# ceilings ("Explicit limits" table of the structured-outputs page) are request-wide.
MAX_STRICT_TOOLS = 20
MAX_OPTIONAL_PARAMS = 24
MAX_UNION_PARAMS = 16
MAX_CACHE_BREAKPOINTS = 4
MIN_THINKING_BUDGET = 1024

SUPPORTED_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"}
)
UNSUPPORTED_KEYWORDS = (
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "maxItems",
    "uniqueItems",
)
TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


@dataclass(frozen=True)
class Violation:
    rule: str
    message: str
    status: int = 400
    error_type: str = "invalid_request_error"


class _Broken(Exception):
    def __init__(self, rule: str, message: str, status: int = 400, error_type: str = "invalid_request_error"):
        super().__init__(message)
        self.violation = Violation(rule, message, status, error_type)


def _fail(rule: str, message: str, **kw: Any) -> None:
    raise _Broken(rule, message, **kw)


# --------------------------------------------------------------------------------------------
# Strict schemas
# --------------------------------------------------------------------------------------------


@dataclass
class StrictBudget:
    """What the strict tools of one request spend of the grammar budget."""

    strict_tools: int = 0
    optional_params: int = 0
    union_params: int = 0

    def over(self) -> str | None:
        if self.strict_tools > MAX_STRICT_TOOLS:
            return f"{self.strict_tools} strict tools (at most {MAX_STRICT_TOOLS})"
        if self.optional_params > MAX_OPTIONAL_PARAMS:
            return f"{self.optional_params} optional parameters across strict schemas (at most {MAX_OPTIONAL_PARAMS})"
        if self.union_params > MAX_UNION_PARAMS:
            return f"{self.union_params} union-typed parameters across strict schemas (at most {MAX_UNION_PARAMS})"
        return None


def _is_union(prop: Any) -> bool:
    return isinstance(prop, dict) and ("anyOf" in prop or isinstance(prop.get("type"), list))


def schema_counts(schema: Any) -> tuple[int, int]:
    """(optional, union-typed) parameters of one schema, counted through every nesting level."""
    optional = union = 0
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
            continue
        if not isinstance(node, dict):
            continue
        props = node.get("properties")
        if isinstance(props, dict):
            required = set(node.get("required") or [])
            for name, prop in props.items():
                optional += name not in required
                union += _is_union(prop)
        stack.extend(v for v in node.values() if isinstance(v, dict | list))
    return optional, union


def strict_budget(tools: Iterable[dict[str, Any]]) -> StrictBudget:
    budget = StrictBudget()
    for tool in tools:
        if tool.get("strict") is True:
            optional, union = schema_counts(tool.get("input_schema"))
            budget.strict_tools += 1
            budget.optional_params += optional
            budget.union_params += union
    return budget


def _check_strict_schema(node: Any, where: str) -> None:
    """The supported JSON Schema subset of strict tools (structured outputs "JSON Schema limitations")."""
    if isinstance(node, list):
        for i, item in enumerate(node):
            _check_strict_schema(item, f"{where}.{i}")
        return
    if not isinstance(node, dict):
        return
    kind = node.get("type")
    shown = kind if isinstance(kind, str) else "schema"
    for key in UNSUPPORTED_KEYWORDS:
        if key in node:
            _fail("strict-schema-subset", f"{where}: For '{shown}' type, property '{key}' is not supported")
    if "minItems" in node and node["minItems"] not in (0, 1):
        _fail(
            "strict-schema-subset",
            f"{where}: For 'array' type, 'minItems' values other than 0 or 1 are not supported",
        )
    if "format" in node and node["format"] not in SUPPORTED_FORMATS:
        _fail("strict-schema-subset", f"{where}: String format '{node['format']}' is not supported")
    ref = node.get("$ref")
    if isinstance(ref, str) and not ref.startswith("#"):
        _fail("strict-schema-subset", f"{where}: External '$ref' is not supported")
    if (kind == "object" or "properties" in node) and node.get("additionalProperties") is not False:
        _fail(
            "strict-schema-subset",
            f"{where}: For 'object' type, 'additionalProperties' must be explicitly set to false",
        )
    for key, value in node.items():
        if key == "properties" and isinstance(value, dict):
            for name, prop in value.items():
                _check_strict_schema(prop, f"{where}.properties.{name}")
        elif isinstance(value, dict | list) and key not in ("enum", "const", "default", "examples"):
            _check_strict_schema(value, f"{where}.{key}")


def _check_tools(tools: Any) -> None:
    if tools is None:
        return
    if not isinstance(tools, list):
        _fail("tool-definitions", "tools: Input should be a valid list")
    seen: set[str] = set()
    for i, tool in enumerate(tools):
        name = tool.get("name") if isinstance(tool, dict) else None
        if not isinstance(name, str) or not TOOL_NAME.match(name):
            _fail(
                "tool-definitions",
                f"tools.{i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{{1,64}}$'",
            )
        if name in seen:
            _fail("tool-definitions", f"tools: Tool names must be unique. Duplicate: {name}")
        seen.add(name)
        schema = tool.get("input_schema")
        if not isinstance(schema, dict) or schema.get("type") != "object":
            _fail("tool-definitions", f"tools.{i}.custom.input_schema.type: Input should be 'object'")
        if tool.get("strict") is True:
            _check_strict_schema(schema, f"tools.{i}.custom.input_schema")
    over = strict_budget(tools).over()
    if over:
        _fail(
            "strict-tool-budget",
            f"Schema is too complex for compilation ({over}). Try reducing the number of strict tools "
            "or simplifying tool schemas.",
        )


# --------------------------------------------------------------------------------------------
# Messages
# --------------------------------------------------------------------------------------------


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _check_messages(messages: Any, issued_thinking: dict[str, str]) -> None:
    if not isinstance(messages, list) or not messages:
        _fail("roles", "messages: at least one message is required")
    previous_role = None
    pending: list[str] = []  # tool_use ids of the previous assistant turn, still to be answered
    used_ids: set[str] = set()
    for i, msg in enumerate(messages):
        role = msg.get("role") if isinstance(msg, dict) else None
        if role not in ("user", "assistant"):
            _fail("roles", f"messages.{i}.role: Input should be 'user' or 'assistant'")
        if i == 0 and role != "user":
            _fail("roles", "messages.0.role: the first message must use the user role")
        if role == previous_role:
            _fail("roles", f"messages.{i}: roles must alternate between 'user' and 'assistant'")
        blocks = _blocks(msg.get("content"))
        if not blocks and not (isinstance(msg.get("content"), str) and msg["content"]):
            _fail("roles", f"messages.{i}: all messages must have non-empty content")
        if role == "user":
            results: list[Any] = []
            for j, block in enumerate(blocks):
                if block.get("type") != "tool_result":
                    continue
                if len(results) != j:
                    _fail(
                        "tool-pairing",
                        f"messages.{i}.content.{j}: tool_result blocks must come first in the user "
                        "message, before any other content",
                    )
                results.append(block.get("tool_use_id"))
            if pending:
                missing = [t for t in pending if t not in results]
                if len(results) < len(pending) and not missing:
                    missing = pending[len(results) :]
                if missing:
                    _fail(
                        "tool-pairing",
                        f"messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately "
                        f"after: {', '.join(missing)}. Each `tool_use` block must have a corresponding "
                        "`tool_result` block in the next message.",
                    )
            for rid in results:
                if rid not in pending:
                    _fail(
                        "tool-pairing",
                        f"messages.{i}.content: unexpected `tool_use_id` found in `tool_result` blocks: {rid}. "
                        "Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
                    )
            if len(results) != len(set(results)):
                _fail("tool-pairing", f"messages.{i}.content: each `tool_use` must be answered exactly once")
            pending = []
        else:
            if pending:  # unreachable: alternation already failed; kept for clarity
                _fail("tool-pairing", f"messages.{i}: tool_use blocks were not answered")
            for j, block in enumerate(blocks):
                kind = block.get("type")
                if kind == "tool_use":
                    tid = block.get("id")
                    if tid in used_ids:
                        _fail(
                            "tool-pairing", f"messages.{i}.content.{j}: `tool_use` ids must be unique: {tid}"
                        )
                    used_ids.add(tid)
                    pending.append(tid)
                elif kind == "thinking":
                    sig = block.get("signature")
                    if not sig or issued_thinking.get(sig) != block.get("thinking"):
                        _fail(
                            "thinking-unchanged",
                            f"messages.{i}.content.{j}: Invalid `signature` in `thinking` block. Thinking "
                            "blocks must be passed back exactly as they were received.",
                        )
                elif kind == "redacted_thinking" and block.get("data") not in issued_thinking:
                    _fail(
                        "thinking-unchanged",
                        f"messages.{i}.content.{j}: `redacted_thinking` block was modified",
                    )
        previous_role = role
    if pending:
        _fail(
            "tool-pairing",
            f"messages.{len(messages) - 1}: the conversation ends with unanswered `tool_use` blocks",
        )


def count_cache_breakpoints(body: dict[str, Any]) -> int:
    count = 0
    for tool in body.get("tools") or []:
        count += isinstance(tool, dict) and "cache_control" in tool
    system = body.get("system")
    if isinstance(system, list):
        count += sum(1 for b in system if isinstance(b, dict) and "cache_control" in b)
    for msg in body.get("messages") or []:
        if isinstance(msg, dict):
            count += sum(1 for b in _blocks(msg.get("content")) if "cache_control" in b)
    return count


def _check_thinking(body: dict[str, Any]) -> None:
    thinking = body.get("thinking")
    max_tokens = body.get("max_tokens")
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
        _fail("max-tokens", "max_tokens: Field required (a positive integer)")
    if thinking is None:
        return
    kind = thinking.get("type") if isinstance(thinking, dict) else None
    if kind not in ("enabled", "disabled", "adaptive"):
        _fail("thinking-config", "thinking.type: Input should be 'enabled', 'disabled' or 'adaptive'")
    if kind == "enabled":
        budget = thinking.get("budget_tokens")
        if not isinstance(budget, int) or budget < MIN_THINKING_BUDGET:
            _fail(
                "thinking-config",
                f"thinking.enabled.budget_tokens: Input should be greater than or equal to {MIN_THINKING_BUDGET}",
            )
        if max_tokens <= budget:
            _fail(
                "max-tokens",
                f"`max_tokens` must be greater than `thinking.budget_tokens`. Got max_tokens={max_tokens}, "
                f"budget_tokens={budget}.",
            )


COUNT_TOKENS_FIELDS = frozenset(
    {"model", "messages", "system", "tools", "tool_choice", "thinking", "cache_control", "output_config"}
)


def _check_counting(body: dict[str, Any]) -> None:
    """A `count_tokens` request takes the content fields of a Messages request and nothing
    that only generation uses (`max_tokens`, `stream`, sampling settings)."""
    extra = sorted(set(body) - COUNT_TOKENS_FIELDS)
    if extra:
        _fail("count-tokens", f"{extra[0]}: Extra inputs are not permitted")
    thinking = body.get("thinking")
    if isinstance(thinking, dict) and thinking.get("type") == "enabled":
        budget = thinking.get("budget_tokens")
        if not isinstance(budget, int) or budget < MIN_THINKING_BUDGET:
            _fail(
                "thinking-config",
                f"thinking.enabled.budget_tokens: Input should be greater than or equal to {MIN_THINKING_BUDGET}",
            )


# --------------------------------------------------------------------------------------------
# The whole request
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Route:
    """Which API a request path speaks to, and the model id the path names (Bedrock, Vertex)."""

    provider: str  # anthropic | bedrock | vertex
    streamed: bool
    model: str | None = None
    counting: bool = False  # POST /v1/messages/count_tokens: no max_tokens, nothing generated


_BEDROCK = re.compile(r"^/model/(?P<model>[^/]+)/(?P<op>invoke|invoke-with-response-stream)$")
_VERTEX = re.compile(
    r"^/v1/projects/[^/]+/locations/[^/]+/publishers/anthropic/models/(?P<model>[^/:]+):(?P<op>rawPredict|streamRawPredict)$"
)


def route(path: str, body: Any) -> Route | None:
    from urllib.parse import unquote

    plain = path.split("?", 1)[0]
    if plain == "/v1/messages":
        return Route("anthropic", isinstance(body, dict) and bool(body.get("stream")))
    if plain == "/v1/messages/count_tokens":
        return Route("anthropic", False, counting=True)
    if m := _BEDROCK.match(plain):
        return Route("bedrock", m["op"] == "invoke-with-response-stream", unquote(m["model"]))
    if m := _VERTEX.match(plain):
        return Route("vertex", m["op"] == "streamRawPredict", unquote(m["model"]))
    return None


def check_request(
    path: str,
    headers: dict[str, str],
    body: Any,
    *,
    known_models: Iterable[str],
    issued_thinking: dict[str, str] | None = None,
    bedrock_models: Iterable[str] = (),
) -> Violation | None:
    """The first rule this request breaks, or None. `headers` keys are lower-case."""
    try:
        where = route(path, body)
        if where is None:
            _fail("route", f"Not found: {path}", status=404, error_type="not_found_error")
        if not isinstance(body, dict):
            _fail("json-body", "Request body must be a JSON object")
        _check_headers(where, headers, body)
        model = body.get("model") if where.provider == "anthropic" else where.model
        if where.provider != "anthropic" and "model" in body:
            _fail(
                "model-id",
                f"model: Extra inputs are not permitted on {where.provider} (the model is in the path)",
            )
        allowed = set(known_models) | (set(bedrock_models) if where.provider == "bedrock" else set())
        if not isinstance(model, str) or model not in allowed:
            _fail("model-id", f"model: {model}", status=404, error_type="not_found_error")
        if where.counting:
            _check_counting(body)
        else:
            _check_thinking(body)
        _check_tools(body.get("tools"))
        breakpoints = count_cache_breakpoints(body)
        if breakpoints > MAX_CACHE_BREAKPOINTS:
            _fail(
                "cache-breakpoints",
                f"A maximum of {MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found {breakpoints}.",
            )
        _check_messages(body.get("messages"), issued_thinking or {})
    except _Broken as broken:
        return broken.violation
    return None


def _check_headers(where: Route, headers: dict[str, str], body: dict[str, Any]) -> None:
    if where.provider == "anthropic":
        if not headers.get("anthropic-version"):
            _fail("headers", "anthropic-version: header is required")
        if not (headers.get("x-api-key") or headers.get("authorization", "").startswith("Bearer ")):
            _fail(
                "headers",
                "x-api-key header is required",
                status=401,
                error_type="authentication_error",
            )
        return
    # the version travels in the body here; SDK 2.15 sends its own API version (2026-10-21),
    # older provider docs show bedrock-2023-05-31 / vertex-2023-10-16: presence is what we check
    if not isinstance(body.get("anthropic_version"), str) or not body["anthropic_version"]:
        _fail("headers", f"anthropic_version: Field required in the body on {where.provider}")
    if where.provider == "bedrock":
        if "stream" in body:
            _fail(
                "headers",
                "stream: Extra inputs are not permitted on Bedrock (streaming is chosen by the path)",
            )
        if not headers.get("authorization", "").startswith("AWS4-HMAC-SHA256 "):
            _fail("headers", "Missing Authentication Token", status=403, error_type="permission_error")
    elif not headers.get("authorization", "").startswith("Bearer "):
        _fail(
            "headers",
            "Request is missing required authentication credential",
            status=401,
            error_type="authentication_error",
        )
