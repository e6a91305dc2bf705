"""The Claude tool-use loop: stream a turn, run its tool calls, answer them, repeat.

One question = at most `max_iterations` model turns. Each turn is streamed (text deltas go
out as they arrive); when it stops for `tool_use`, every tool_use block of that turn is
executed (reads in parallel) and answered in ONE user message of tool_result blocks
(`is_error` for failures). Other stop reasons:

* `end_turn` / `stop_sequence` — the answer; grounding is checked, markers added;
* `pause_turn` — the reply is appended and the conversation resent as is;
* `refusal` — a scripted reply replaces whatever was streamed;
* `max_tokens` — what was written is kept and marked as cut off (an error if nothing was);
* `model_context_window_exceeded` and unknown reasons — an error, never a guess.

Errors from the model service (including an `event: error` in the middle of a stream,
which the SDK raises as a status-200 APIStatusError) become one `ErrorEvent` classified by
type in `agent.llm`. Every run ends with exactly one `done` or `error`. Cancelling the
consuming task closes the HTTP stream (the `async with` exits); tool threads finish their
transaction first (see `agent.execution`).

The text deltas are provisional: `done.answer` is the final text (with grounding markers,
or the scripted refusal) and clients should show it in place of the streamed text.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from agent import prompts
from agent.background import Background, prompt_block
from agent.base import AgentRequest
from agent.events import (
    DoneEvent,
    ErrorEvent,
    Event,
    GroundingReport,
    StatusEvent,
    TextEvent,
    Usage,
)
from agent.execution import (
    ToolCall,
    ToolExecutor,
    ToolOutcome,
    call_event,
    citation_events,
    result_event,
    status_event,
)
from agent.grounding import check_grounding, row_texts
from agent.intent import stated_values, write_intent
from agent.llm import ModelClient, classify_error, estimate_cost, usage_from
from agent.metrics import RunClock, answer_metrics
from agent.scoping import INTERNAL_TOOLS, ScopeUse, scope_use, with_internal_tools
from agent.toolset import MORE_TOOLS, ToolOffer
from tools.registry import Database, Registry, ToolContext
from tools.results import HandleBook, ToolResult

log = logging.getLogger(__name__)

REFUSAL_REPLY = (
    "I can't help with that request. I can answer questions about what this medical record "
    "says, or help find and book an appointment."
)
NO_ANSWER_REPLY = "I couldn't find an answer to that in the record."
CUT_OFF_NOTE = "\n\n(The answer was cut off because it reached the length limit; ask a narrower question.)"
LABS_TOOL = "get_labs"


def _add_usage(total: Usage, more: Usage) -> Usage:
    return Usage(
        input_tokens=total.input_tokens + more.input_tokens,
        output_tokens=total.output_tokens + more.output_tokens,
        cache_creation_input_tokens=total.cache_creation_input_tokens + more.cache_creation_input_tokens,
        cache_read_input_tokens=total.cache_read_input_tokens + more.cache_read_input_tokens,
    )


def assistant_content(message: Any) -> list[dict[str, Any]]:
    """The reply's blocks as request params (the SDK's parsed blocks carry extra fields)."""
    content: list[dict[str, Any]] = []
    for block in message.content:
        if block.type == "text":
            content.append({"type": "text", "text": block.text})
        elif block.type == "tool_use":
            content.append({"type": "tool_use", "id": block.id, "name": block.name, "input": block.input})
        else:  # thinking, server tools, …: send back what came, minus client-side extras
            raw = block.model_dump(mode="json", exclude_none=True)
            raw.pop("parsed_output", None)
            content.append(raw)
    return content


@dataclass
class RunState:
    """Everything one question accumulates; turned into the done event's metrics."""

    clock: RunClock = field(default_factory=RunClock)
    usage: Usage = field(default_factory=Usage)
    model_calls: list[dict[str, Any]] = field(default_factory=list)
    answer_parts: list[str] = field(default_factory=list)
    stop_reason: str | None = None
    prefetch: list[str] = field(default_factory=list)
    scope: ScopeUse | None = None
    background: Background | None = None
    refused: bool = False  # a record scope whose record this patient binding cannot open
    role: str = ""
    offer: ToolOffer | None = None  # the tools this question offered the model


class ClaudeAgent:
    """The model-driven agent. Guardrails run before it (see `agent.runner`)."""

    mode = "claude"

    def __init__(
        self,
        client: ModelClient,
        registry: Registry,
        db: Database,
        *,
        embedder: Any = None,
        max_iterations: int = 8,
        tool_names: list[str] | None = None,
        select_tools: bool = True,
    ) -> None:
        self.client = client
        self.registry = registry
        self.db = db
        self.embedder = embedder
        self.max_iterations = max_iterations
        self.tool_names = tool_names
        self.select_tools = select_tools  # False: the whole catalogue every call (the old way; bench)
        # the whole catalogue: what a question with no recognised section is offered
        # (`agent.toolset` picks each question's tools; the executor decides what runs)
        self.tools = prompts.tool_definitions_with_cache(registry.definitions(tool_names))
        # what the executor runs: the model's tools plus the agent's own scoped-record lookup
        self.run_registry = with_internal_tools(registry)

    async def run(self, request: AgentRequest) -> AsyncIterator[Event]:
        state = RunState()
        terminal = False
        try:
            async for event in self._run(request, state):
                terminal = event.type in ("done", "error")
                yield event
                if terminal:
                    return
        except Exception as exc:  # GeneratorExit / CancelledError are BaseException: not caught
            failure = classify_error(exc)
            if failure is None:
                log.exception("agent run failed")
                yield ErrorEvent(
                    kind="internal", message="Something went wrong while answering. Please try again."
                )
            else:
                yield ErrorEvent(kind=failure.kind, message=failure.message)
            return
        if not terminal:
            yield ErrorEvent(kind="internal", message="The answer ended unexpectedly. Please try again.")

    async def aclose(self) -> None:
        await self.client.close()

    def _context(self, request: AgentRequest, book: HandleBook) -> ToolContext:
        return ToolContext(
            scope=request.scope, db=self.db, handles=book, embedder=self.embedder, now=request.now
        )

    async def _run(self, request: AgentRequest, state: RunState) -> AsyncIterator[Event]:
        book = HandleBook()
        previous = [t.question for t in request.history]
        state.role = request.scope.role
        state.scope = scope_use(request.ask_scope, self.registry)
        state.background = Background(self.registry)
        executor = ToolExecutor(
            self.run_registry,
            self._context(request, book),
            write_allowed=write_intent(request.question, previous),
            only=state.scope.tools if state.scope else None,
            internal=INTERNAL_TOOLS,
        )
        today = (request.now or dt.datetime.now(dt.UTC)).date()
        system = prompts.system_blocks(request.scope.role, today)
        offer = ToolOffer.for_question(
            self.registry,
            request.question,
            previous,
            write_allowed=executor.write_allowed,
            scope_tools=state.scope.tools if state.scope else None,
            only=self.tool_names,
        )
        state.offer = offer

        user_content: list[dict[str, Any]] = [{"type": "text", "text": request.question}]
        if state.scope is not None:
            async for event in self._open_scope(executor, user_content, state):
                yield event
            if state.refused:  # the selected record is not this patient's: refused, done
                return
        async for event in self._prefetch_stated_values(request, executor, user_content, state):
            yield event
        messages = [*prompts.history_messages(request.history), {"role": "user", "content": user_content}]

        yield StatusEvent(
            text="Reading your record…" if request.scope.role == "patient" else "Reading the chart…"
        )
        for iteration in range(1, self.max_iterations + 1):
            turn_started = time.perf_counter()
            turn_text: list[str] = []
            thinking_shown = False
            tools = (
                prompts.tool_definitions_with_cache(offer.definitions()) if self.select_tools else self.tools
            )
            async with self.client.stream(system=system, messages=messages, tools=tools) as stream:
                async for chunk in stream:
                    if chunk.type == "thinking" and not thinking_shown:
                        # thinking is never answer text: one status line, the text stays in the turn
                        thinking_shown = True
                        yield StatusEvent(text="Thinking…")
                    if chunk.type != "text" or not chunk.text:
                        continue
                    state.clock.text_started()
                    if not turn_text and state.answer_parts:
                        yield TextEvent(delta="\n\n")
                    turn_text.append(chunk.text)
                    yield TextEvent(delta=chunk.text)
                final = await stream.get_final_message()
            turn_usage = usage_from(final.usage)
            state.usage = _add_usage(state.usage, turn_usage)
            state.stop_reason = final.stop_reason
            state.model_calls.append(
                {
                    "iteration": iteration,
                    "ms": round((time.perf_counter() - turn_started) * 1000, 2),
                    "stop_reason": final.stop_reason,
                    "input_tokens": turn_usage.input_tokens,
                    "output_tokens": turn_usage.output_tokens,
                    "cache_read_input_tokens": turn_usage.cache_read_input_tokens,
                }
            )
            if turn_text:
                state.answer_parts.append("".join(turn_text))

            stop = final.stop_reason
            if stop == "tool_use":
                calls = [
                    ToolCall(b.id, b.name, dict(b.input or {})) for b in final.content if b.type == "tool_use"
                ]
                if not calls:
                    yield ErrorEvent(
                        kind="model_error", message="The model asked for a tool without naming one."
                    )
                    return
                messages.append({"role": "assistant", "content": assistant_content(final)})
                yield status_event(self.registry, calls, request.scope.role)
                for call in calls:
                    yield call_event(call)
                outcomes = await self._run_calls(calls, executor, offer)
                for outcome in outcomes:
                    yield result_event(outcome)
                results: list[dict[str, Any]] = [
                    {
                        "type": "tool_result",
                        "tool_use_id": o.call.id,
                        "content": o.result.text,
                        **({"is_error": True} if not o.result.ok else {}),
                    }
                    for o in outcomes
                ]
                async for event in self._add_background(outcomes, executor, results, state):
                    yield event
                messages.append({"role": "user", "content": results})
                continue
            if stop == "pause_turn":
                messages.append({"role": "assistant", "content": assistant_content(final)})
                continue
            if stop in ("end_turn", "stop_sequence", None):
                answer = "\n\n".join(state.answer_parts).strip() or NO_ANSWER_REPLY
                async for event in self._finish(answer, book, executor, state, request):
                    yield event
                return
            if stop == "refusal":
                async for event in self._finish(REFUSAL_REPLY, book, executor, state, request, check=False):
                    yield event
                return
            if stop == "max_tokens":
                answer = "\n\n".join(state.answer_parts).strip()
                if not answer:
                    yield ErrorEvent(
                        kind="max_tokens",
                        message="The answer was too long to finish. Please ask a narrower question.",
                    )
                    return
                async for event in self._finish(answer, book, executor, state, request, suffix=CUT_OFF_NOTE):
                    yield event
                return
            if stop == "model_context_window_exceeded":
                yield ErrorEvent(
                    kind="context_window",
                    message="This conversation has grown too long for the model. Please start a new one.",
                )
                return
            log.warning("unknown stop_reason %r", stop)
            yield ErrorEvent(
                kind="model_error",
                message=f"The model stopped for an unexpected reason ({stop}); no answer was produced.",
            )
            return
        yield ErrorEvent(
            kind="iteration_limit",
            message="I could not finish looking this up within the step limit. Please ask a narrower question.",
        )

    @staticmethod
    async def _run_calls(
        calls: list[ToolCall], executor: ToolExecutor, offer: ToolOffer
    ) -> list[ToolOutcome]:
        """The turn's record tools through the executor; `more_tools` answered here (it only
        changes what the next request offers), in the calls' order."""
        record_calls = [c for c in calls if c.name != MORE_TOOLS]
        ran = iter(await executor.run(record_calls) if record_calls else [])
        outcomes: list[ToolOutcome] = []
        for call in calls:
            if call.name != MORE_TOOLS:
                outcomes.append(next(ran))
                continue
            ok, text = offer.add(call.input)
            result = ToolResult(text=text) if ok else ToolResult.failure("bad_argument", text)
            outcome = ToolOutcome(call, result, 0.0, time.perf_counter(), executor.batches)
            executor.outcomes.append(outcome)
            outcomes.append(outcome)
        return outcomes

    async def _open_scope(
        self, executor: ToolExecutor, user_content: list[dict[str, Any]], state: RunState
    ) -> AsyncIterator[Event]:
        """Tell the model the scope; for a record scope, fetch the record first and hand it over.

        A record the patient binding cannot see (another patient's id, a missing or
        entered-in-error row) ends the question here, before any model call: the refusal is
        audited by the registry and the answer says the record could not be opened.
        """
        use = state.scope
        assert use is not None
        if use.scope.section:
            yield TextEvent(delta=use.answer_line() + "\n\n")
            user_content.append({"type": "text", "text": use.prompt_note()})
            return
        call = use.scope.record_call()
        yield StatusEvent(text="Opening the record you chose…")
        yield call_event(call)
        (outcome,) = await executor.run([call], internal=True)
        yield result_event(outcome)
        if not outcome.result.ok:
            reply = f"I can't answer that: {outcome.result.text} Nothing else was looked up."
            state.clock.text_started()
            state.refused = True
            yield TextEvent(delta=reply)
            yield self._done(reply, GroundingReport(), executor, state, use)
            return
        record = outcome.result.citations[0]
        state.scope = use = ScopeUse(use.scope, use.tools, label=record.label, handle=record.handle)
        yield TextEvent(delta=use.answer_line() + "\n\n")
        user_content.append({"type": "text", "text": use.prompt_note(outcome.result.text)})
        extra: list[dict[str, Any]] = []
        async for event in self._add_background([outcome], executor, extra, state):
            yield event
        user_content.extend(extra)

    async def _add_background(
        self,
        batch: list[ToolOutcome],
        executor: ToolExecutor,
        content: list[dict[str, Any]],
        state: RunState,
    ) -> AsyncIterator[Event]:
        """Labelled background after a primary lookup that found data (agent.background)."""
        assert state.background is not None
        calls = state.background.calls_after(batch, executor.outcomes)
        if not calls:
            return
        yield StatusEvent(text="Adding background from the record (context, not the answer)…")
        for call in calls:
            yield call_event(call)
        outcomes = await executor.run(calls, internal=True)
        for outcome in outcomes:
            yield result_event(outcome)
        content.append({"type": "text", "text": prompt_block(outcomes)})

    async def _prefetch_stated_values(
        self,
        request: AgentRequest,
        executor: ToolExecutor,
        user_content: list[dict[str, Any]],
        state: RunState,
    ) -> AsyncIterator[Event]:
        """ "My A1C is 6.1, fine right?" → look the value up first and put it beside the question."""
        claims = stated_values(request.question)
        if not claims or LABS_TOOL not in executor.allowed():
            return
        calls = [
            ToolCall(f"prefetch_{i}", LABS_TOOL, {"query": c.measure, "latest_only": True})
            for i, c in enumerate(claims, start=1)
        ]
        for call in calls:
            yield call_event(call)
        outcomes = await executor.run(calls)
        checks = []
        for claim, outcome in zip(claims, outcomes, strict=True):
            yield result_event(outcome)
            state.prefetch.append(claim.measure)
            record = outcome.result.text if outcome.result.ok else "nothing (the lookup failed)"
            checks.append((claim.said, claim.value, record))
        user_content.append({"type": "text", "text": prompts.record_check_note(checks)})
        extra: list[dict[str, Any]] = []
        async for event in self._add_background(outcomes, executor, extra, state):
            yield event
        user_content.extend(extra)

    async def _finish(
        self,
        answer: str,
        book: HandleBook,
        executor: ToolExecutor,
        state: RunState,
        request: AgentRequest,
        *,
        check: bool = True,
        suffix: str = "",
    ) -> AsyncIterator[Event]:
        grounding_started = time.perf_counter()
        if check:
            report, marked = check_grounding(
                answer, book, executor.totals, rows=row_texts(executor.tool_texts)
            )
        else:  # a scripted reply states nothing from the record
            report, marked = GroundingReport(), answer
        grounding_ms = (time.perf_counter() - grounding_started) * 1000
        cited = list(report.cited_handles)
        use = state.scope
        if use is not None and use.handle and use.handle not in cited:
            cited.append(use.handle)  # the scope line cites the selected record
        for event in citation_events(c for h in cited if (c := book.get(h)) is not None):
            yield event
        lead = use.answer_line() + "\n\n" if use is not None else ""
        yield self._done(lead + marked + suffix, report, executor, state, use, grounding_ms=grounding_ms)

    def _done(
        self,
        answer: str,
        report: GroundingReport,
        executor: ToolExecutor,
        state: RunState,
        use: ScopeUse | None,
        *,
        grounding_ms: float = 0.0,
    ) -> DoneEvent:
        cost = estimate_cost(self.client.model, state.usage)
        scope = use.summary() if use is not None else None
        return DoneEvent(
            answer=answer,
            mode="claude",
            usage=state.usage,
            cost_usd=round(cost or 0.0, 6),
            grounding=report,
            scope=scope,
            metrics=answer_metrics(
                state.clock,
                outcomes=executor.outcomes,
                tool_ms=executor.wall_ms,
                iterations=len(state.model_calls),
                usage=state.usage,
                cost_usd=cost,
                scope=scope,
                background=state.background.labels if state.background else [],
                model=self.client.model,
                model_ms=round(sum(c["ms"] for c in state.model_calls), 2),
                model_calls=state.model_calls,
                grounding_ms=round(grounding_ms, 3),
                stop_reason=state.stop_reason,
                write_intent=sorted(executor.write_allowed),
                prefetched=state.prefetch,
                role=state.role,
                tools_offered=state.offer.names if state.offer else [],
                tools_added=state.offer.added if state.offer else [],
            ),
        )
