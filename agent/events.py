"""The typed event stream every agent run produces, serialised unchanged by the server.

A run is: zero or more status / tool_call / tool_result / text / citation events, then
exactly one `done` or `error`. Text deltas are provisional: `done.answer` is the final answer
(with grounding markers such as `[unverified]`, or a scripted reply that replaced a refusal),
and a client shows it in place of the streamed text; after an `error` the streamed text is no
answer at all (the server marks such an error `text_withdrawn`). `citation` events name the rows the
final answer cites; `tool_result.handles` name every row a tool returned. Events are pydantic models discriminated by `type`, so the
server, the CLI, the evals and the tests all read the same shapes.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, TypeAdapter


class StatusEvent(BaseModel):
    type: Literal["status"] = "status"
    text: str


class ToolCallEvent(BaseModel):
    type: Literal["tool_call"] = "tool_call"
    id: str
    name: str
    input: dict[str, Any]
    # run by the agent itself to add labelled context, not asked for by the model (issue 11)
    background: bool = False


class ToolResultEvent(BaseModel):
    type: Literal["tool_result"] = "tool_result"
    id: str
    name: str
    ok: bool
    summary: str  # one line for the trace, e.g. "3 active medications"
    handles: list[str] = Field(default_factory=list)
    total: int = 0
    truncated: bool = False
    latency_ms: float = 0.0
    rows: list[dict[str, Any]] = Field(default_factory=list)  # structured rows for the UI
    background: bool = False  # context the answer may use but must not present as the answer


class TextEvent(BaseModel):
    type: Literal["text"] = "text"
    delta: str


class CitationEvent(BaseModel):
    type: Literal["citation"] = "citation"
    handle: str
    kind: str
    record_id: str
    label: str = ""
    data: dict[str, Any] = Field(default_factory=dict)


class Usage(BaseModel):
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0


class GroundingIssue(BaseModel):
    kind: Literal["unknown_handle", "ungrounded_number", "ungrounded_date", "uncited_claim"]
    detail: str
    handle: str | None = None


class GroundingReport(BaseModel):
    grounded: bool = True
    cited_handles: list[str] = Field(default_factory=list)
    issues: list[GroundingIssue] = Field(default_factory=list)


class Searched(BaseModel):
    """One lookup an abstaining agent made: which tool, with which input, how many rows came back."""

    tool: str
    input: dict[str, Any] = Field(default_factory=dict)
    rows: int = 0
    ok: bool = True


class DoneEvent(BaseModel):
    type: Literal["done"] = "done"
    answer: str
    mode: Literal["claude", "offline", "guardrail"]
    usage: Usage = Field(default_factory=Usage)
    cost_usd: float = 0.0
    grounding: GroundingReport = Field(default_factory=GroundingReport)
    metrics: dict[str, Any] = Field(default_factory=dict)  # see agent.metrics for the keys
    # the section or record the question was limited to (None = the whole record); see agent.scoping
    scope: dict[str, Any] | None = None
    # the agent's own word on whether it answered (issue 15): True = "the record does not show
    # it" / "I can't answer", False = an answer, None = the agent does not say (evaluators then
    # read the answer's words). `searched` names what was looked at before abstaining.
    abstained: bool | None = None
    searched: list[Searched] = Field(default_factory=list)


class ErrorEvent(BaseModel):
    type: Literal["error"] = "error"
    kind: str  # overloaded | rate_limited | timeout | model_error | database | internal | ...
    message: str  # safe to show to the user: no traceback, no SQL, no other patient's ids
    # set by the server when text was streamed before this error: that text is not an answer
    # (never checked against the record, not kept), and a client must not present it as one
    text_withdrawn: bool = False


Event = Annotated[
    StatusEvent | ToolCallEvent | ToolResultEvent | TextEvent | CitationEvent | DoneEvent | ErrorEvent,
    Field(discriminator="type"),
]
EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)


def is_terminal(event: BaseModel) -> bool:
    return isinstance(event, DoneEvent | ErrorEvent)
