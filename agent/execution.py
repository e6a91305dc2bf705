"""Running one turn's tool calls for an agent (the Claude loop and the offline planner alike).

Tools are synchronous (SQLAlchemy, fastembed), so each call runs in a worker thread; the
reads of one turn run in parallel, each in its own patient-scoped transaction, and writing
tools run alone, after the reads, one at a time. A worker thread is never abandoned on
cancellation (anyio waits for it), so a booking either commits whole or not at all — a
client that disconnects cannot leave half-written state.

The structural guards live here: a writing tool the user's own words did not ask for is
refused (and audited by the registry as not allowed) whatever the model or a note says, and
so is any tool outside the question's scope (a section or one record, `agent.scoping`). The
agent's own calls (the scoped record, background context) run with `internal=True`: they
may use internal tools the model is never offered.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import anyio
import anyio.to_thread

from agent.events import CitationEvent, StatusEvent, ToolCallEvent, ToolResultEvent
from agent.intent import BOOK_TOOL
from tools.registry import Registry, ToolContext
from tools.results import Citation, ToolResult

SUMMARY_CHARS = 160

SCOPE_REFUSAL = (
    "{name} was not run: this question was asked about one part of the record, and only these "
    "tools serve it: {tools}. Answer from what those tools return, or say that this part of the "
    "record does not show it."
)
WRITE_REFUSAL = (
    "{name} was not run: the user did not ask to {verb} in their own words in this message. "
    "Do not {verb} anything. Tell the user what you found and that they can ask you to {verb} it."
)


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    input: dict[str, Any]
    background: bool = False  # added by the agent as labelled context (agent.background)


@dataclass
class ToolOutcome:
    call: ToolCall
    result: ToolResult
    ms: float
    started: float = 0.0  # perf_counter() when the call began (metrics place it on the run's clock)
    batch: int = 0  # which `run()` of the question it belonged to (calls of one batch overlap)


@dataclass
class ToolExecutor:
    registry: Registry
    ctx: ToolContext
    write_allowed: frozenset[str] = frozenset()
    only: frozenset[str] | None = None  # a section/record scope restricts the model's tools
    # tools only the agent itself runs (the scoped record, background context): never the model
    internal: frozenset[str] = frozenset()
    outcomes: list[ToolOutcome] = field(default_factory=list)
    wall_ms: float = 0.0  # time the agent waited on tools (parallel calls overlap)
    batches: int = 0

    def allowed(self, *, internal: bool = False) -> set[str]:
        """What may run: for the model, the scope's tools minus internal ones; for the agent, all reads."""
        if internal:
            names = set(self.registry.names())
        else:
            names = set(self.registry.names()) if self.only is None else set(self.only)
            names -= self.internal
        return {n for n in names if not self.is_write(n) or n in self.write_allowed}

    def is_write(self, name: str) -> bool:
        """`Tool.writes` is the only record of which tools write (a write the question did not
        ask for is refused, whichever tool it is)."""
        tool = self.registry.get(name)
        return bool(tool and tool.writes)

    def _execute(self, call: ToolCall, internal: bool, batch: int) -> ToolOutcome:
        started = time.perf_counter()
        ctx = dataclasses.replace(self.ctx, conn=None)  # own connection slot, shared handle book
        allowed = self.allowed(internal=internal)
        result = self.registry.execute(ctx, call.name, call.input, allowed=allowed)
        if (
            result.error_kind == "not_allowed"
            and self.is_write(call.name)
            and call.name not in self.write_allowed
        ):
            verb = "book an appointment" if call.name == BOOK_TOOL else "cancel an appointment"
            result = ToolResult.failure("not_allowed", WRITE_REFUSAL.format(name=call.name, verb=verb))
        elif result.error_kind == "not_allowed" and self.only is not None and not internal:
            usable = sorted(allowed) or ["none"]
            result = ToolResult.failure(
                "not_allowed", SCOPE_REFUSAL.format(name=call.name, tools=", ".join(usable))
            )
        return ToolOutcome(call, result, (time.perf_counter() - started) * 1000, started, batch)

    async def run(self, calls: Sequence[ToolCall], *, internal: bool = False) -> list[ToolOutcome]:
        """All calls of one turn, results in the calls' order.

        `internal=True` is for calls the agent makes itself (never the model's): they may use
        internal tools and are not limited by the question's scope.
        """
        started = time.perf_counter()
        self.batches += 1
        batch = self.batches
        results: dict[int, ToolOutcome] = {}
        reads = [(i, c) for i, c in enumerate(calls) if not self.is_write(c.name)]
        writes = [(i, c) for i, c in enumerate(calls) if self.is_write(c.name)]

        async def run_one(index: int, call: ToolCall) -> None:
            results[index] = await anyio.to_thread.run_sync(partial(self._execute, call, internal, batch))

        async with anyio.create_task_group() as group:
            for index, call in reads:
                group.start_soon(run_one, index, call)
        for index, call in writes:
            # in a task group too: a cancelled run then waits for the write's thread (its
            # transaction commits or rolls back whole) instead of abandoning it mid-flight
            async with anyio.create_task_group() as group:
                group.start_soon(run_one, index, call)
        ordered = [results[i] for i in range(len(calls))]
        self.outcomes.extend(ordered)
        self.wall_ms += (time.perf_counter() - started) * 1000
        return ordered

    @property
    def tool_texts(self) -> list[str]:
        return [o.result.text for o in self.outcomes if o.result.ok]

    @property
    def totals(self) -> list[int]:
        return [o.result.total for o in self.outcomes if o.result.ok]


def summary(result: ToolResult) -> str:
    first = result.text.strip().splitlines()[0] if result.text.strip() else ""
    return first if len(first) <= SUMMARY_CHARS else first[: SUMMARY_CHARS - 1] + "…"


def call_event(call: ToolCall) -> ToolCallEvent:
    return ToolCallEvent(id=call.id, name=call.name, input=call.input, background=call.background)


def result_event(outcome: ToolOutcome) -> ToolResultEvent:
    result = outcome.result
    return ToolResultEvent(
        id=outcome.call.id,
        name=outcome.call.name,
        ok=result.ok,
        summary=summary(result),
        handles=result.handles,
        total=result.total,
        truncated=result.truncated,
        latency_ms=round(outcome.ms, 2),
        rows=result.rows,
        background=outcome.call.background,
    )


GENERIC_STATUS = "Looking up your record…"


def status_event(registry: Registry, calls: Sequence[ToolCall], role: str) -> StatusEvent:
    """The status line while a batch of tools runs, in the tools' own words ("Looking up your
    lab results…"); several different lookups read as one. A clinician reads about "the
    patient's" record, not "your" record."""
    texts = list(
        dict.fromkeys((t.status_text if (t := registry.get(c.name)) else GENERIC_STATUS) for c in calls)
    )
    text = texts[0] if len(texts) == 1 else GENERIC_STATUS
    if role != "patient":
        text = text.replace("your ", "the patient's ")
    return StatusEvent(text=text)


def citation_events(citations: Iterable[Citation]) -> list[CitationEvent]:
    return [
        CitationEvent(handle=c.handle, kind=c.kind, record_id=c.record_id, label=c.label, data=c.data)
        for c in citations
    ]
