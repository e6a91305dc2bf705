"""The offline agent: the event protocol around parse → link → plan → compose."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

from agent.background import Background
from agent.base import AgentRequest
from agent.events import DoneEvent, ErrorEvent, Event, StatusEvent, TextEvent
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
from agent.intent import write_intent
from agent.metrics import RunClock, answer_metrics
from agent.offline.clauses import Part, plan_message, prefixed, unanswered_probe
from agent.offline.compose import (
    BLOCK_HEADINGS,
    OFFLINE_BANNER,
    abstention,
    background_block,
    broaden,
    compose,
    compose_parts,
    compose_record,
    explain_calls,
    part_heading,
    searched_line,
    uncited_lines,
)
from agent.offline.embedding import embedding_intents
from agent.offline.link import Vocabulary
from agent.offline.plan import Plan, Planner
from agent.offline.spanish import reads_as_spanish, to_english
from agent.scoping import INTERNAL_TOOLS, ScopeUse, scope_use, with_internal_tools
from tools.registry import Registry, ToolContext
from tools.results import HandleBook
from tools.summary_tools import VOCABULARY_TOOL, register_vocabulary

OFFLINE_INTERNAL = INTERNAL_TOOLS | {VOCABULARY_TOOL}


class OfflineAgent:
    mode = "offline"

    def __init__(self, registry: Registry, db: Any, *, embedder: Any = None) -> None:
        self.registry = registry
        self.db = db
        self.embedder = embedder
        self.planner = Planner(registry.names(), embedding_intents(embedder))
        # what the executor runs: the planner's tools plus the scoped-record lookup
        self.run_registry = with_internal_tools(registry)
        register_vocabulary(self.run_registry)  # the record's own names, for linking

    async def run(self, request: AgentRequest) -> AsyncIterator[Event]:
        clock = RunClock()
        try:
            async for event in self._run(request, clock):
                yield event
        except Exception:
            logging.getLogger(__name__).exception("offline planner failed")
            yield ErrorEvent(
                kind="internal", message="Something went wrong while answering. Please try again."
            )

    async def _batch(
        self, executor: ToolExecutor, calls: list[ToolCall], *, internal: bool = False
    ) -> AsyncIterator[Event | list[ToolOutcome]]:
        """Call events, the run, result events; the outcomes come last (not an event)."""
        for call in calls:
            yield call_event(call)
        outcomes = await executor.run(calls, internal=internal)
        for outcome in outcomes:
            yield result_event(outcome)
        yield outcomes

    async def _execute(
        self, executor: ToolExecutor, plan: Plan, role: str
    ) -> AsyncIterator[Event | tuple[Plan, list[ToolOutcome]]]:
        """One plan's lookups: its calls, the record's fallback when the leaflets had nothing,
        its phase-two calls; the plan answered and its outcomes come last (not an event)."""
        outcomes: list[ToolOutcome] = []
        if plan.calls:
            yield status_event(self.registry, plan.calls, role)
            async for item in self._batch(executor, plan.calls):
                if isinstance(item, list):
                    outcomes = item
                else:
                    yield item
        if (
            plan.leaflet_probe
            and plan.fallback
            and not any(o.result.ok and o.result.citations for o in outcomes)
        ):
            plan = plan.fallback  # the leaflets had nothing relevant: it is a record question after all
            async for item in self._batch(executor, plan.calls):
                if isinstance(item, list):
                    outcomes = item
                else:
                    yield item
        if then := self.planner.then_calls(plan, outcomes):
            prefix = plan.calls[0].id.split("offline_")[0] if plan.calls else ""
            then = [c if c.id.startswith(prefix) else replace(c, id=f"{prefix}{c.id}") for c in then]
            async for item in self._batch(executor, then):
                if isinstance(item, list):
                    outcomes = [*outcomes, *item]
                else:
                    yield item
        yield plan, outcomes

    async def _run(self, request: AgentRequest, clock: RunClock) -> AsyncIterator[Event]:
        today = (request.now or dt.datetime.now(dt.UTC)).date()
        use = scope_use(request.ask_scope, self.registry)
        book = HandleBook()
        ctx = ToolContext(
            scope=request.scope, db=self.db, handles=book, embedder=self.embedder, now=request.now
        )
        previous = [t.question for t in request.history]
        question = to_english(request.question)  # basic Spanish read as the planner's English words
        executor = ToolExecutor(
            self.run_registry,
            ctx,
            write_allowed=write_intent(question, previous),
            only=use.tools if use else None,
            internal=OFFLINE_INTERNAL,
        )
        background = Background(self.registry)
        outcomes: list[ToolOutcome] = []
        record: ToolOutcome | None = None
        parts: list[Part] = []
        answered: list[tuple[Part, list[ToolOutcome]]] = []
        if use is not None and use.scope.record_kind:
            plan = Plan("record", intents=[f"record:{use.scope.record_kind}"])
            yield StatusEvent(text="Opening the record you chose (offline mode)…")
            async for item in self._batch(executor, [use.scope.record_call()], internal=True):
                if isinstance(item, list):
                    (record,) = item
                else:
                    yield item
            assert record is not None
            if record.result.ok:
                cited = record.result.citations[0]
                use = ScopeUse(use.scope, use.tools, label=cited.label, handle=cited.handle)
                plan.calls = explain_calls(use, record)
        else:
            vocab = await self._vocabulary(executor)
            if use is not None and use.scope.section:
                plan = self.planner.plan_section(use.scope.section, question, today, use.tools, vocab)
            else:
                spanish = reads_as_spanish(request.question)
                parts = plan_message(
                    self.planner,
                    request.question,
                    request.history,
                    today,
                    vocab,
                    english=lambda words: to_english(words, spanish=spanish),
                )
                plan = parts[0].plan
        if len(parts) > 1:
            # two or more requests in one message: each answered on its own, in the order asked
            for number, part in enumerate(parts, start=1):
                part.plan = prefixed(part.plan, f"p{number}_" if number > 1 else "")
                async for item in self._execute(executor, part.plan, request.scope.role):
                    if isinstance(item, tuple):
                        part.plan, part_outcomes = item
                        answered.append((part, part_outcomes))
                        outcomes = [*outcomes, *part_outcomes]
                    else:
                        yield item
            if len(kept := [(p, o) for p, o in answered if not unanswered_probe(p, o)]) < len(answered):
                answered = kept or answered[:1]  # "can you help me? what's my a1c": the help was no request
                outcomes = [o for _, mine in answered for o in mine]
            plan = answered[0][0].plan
        else:
            async for item in self._execute(executor, plan, request.scope.role):
                if isinstance(item, tuple):
                    plan, outcomes = item
                else:
                    yield item
        if use is not None and use.scope.section and (broader := broaden(outcomes, self.registry)):
            # a section-scoped question whose words matched nothing: show the whole section
            async for item in self._batch(executor, broader):
                if isinstance(item, list):
                    outcomes = [*outcomes, *item]
                else:
                    yield item
        extra: list[ToolOutcome] = []
        calls = background.calls_after([*([record] if record else []), *outcomes], executor.outcomes)
        if calls:
            yield StatusEvent(text="Adding background from the record (context, not the answer)…")
            async for item in self._batch(executor, calls, internal=True):
                if isinstance(item, list):
                    extra = item
                else:
                    yield item

        abstained = False
        if record is not None and not record.result.ok:
            answer = f"Offline mode: I can't answer that: {record.result.text} Nothing else was looked up."
        elif record is not None:
            answer = compose_record(use, record, outcomes, request.scope.role)  # type: ignore[arg-type]
        elif len(answered) > 1:
            answer, abstained = compose_parts(
                [(part.words, part.plan, mine) for part, mine in answered], request.scope.role
            )
        else:
            answer, abstained = compose(plan, outcomes, request.scope.role)
        scope_line = use.answer_line() if use is not None and (record is None or record.result.ok) else ""
        if scope_line and answer.startswith(OFFLINE_BANNER):
            answer = answer.replace(OFFLINE_BANNER, f"{OFFLINE_BANNER}\n\n{scope_line}", 1)
        elif scope_line:
            answer = f"{scope_line}\n\n{answer}"
        if extra:
            answer += "\n\n" + background_block(extra)
        report, marked = check_grounding(
            answer,
            book,
            executor.totals,
            rows=row_texts(executor.tool_texts),
            trusted_lines=[
                *uncited_lines(executor.outcomes),
                scope_line,
                *BLOCK_HEADINGS,
                *(searched_line(p) for p in [plan, *(part.plan for part, _ in answered)]),
                *(part_heading(n, part.words) for n, (part, _) in enumerate(answered, start=1)),
            ],
        )
        clock.text_started()
        yield TextEvent(delta=marked)
        cited_handles = list(report.cited_handles)
        if use is not None and use.handle and use.handle not in cited_handles:
            cited_handles.append(use.handle)
        for event in citation_events(c for h in cited_handles if (c := book.get(h)) is not None):
            yield event
        summary = use.summary() if use is not None else None
        abstained, searched = abstention(plan, [record] if record is not None else outcomes, abstained)
        yield DoneEvent(
            answer=marked,
            mode="offline",
            abstained=abstained,
            searched=searched,
            grounding=report,
            scope=summary,
            metrics=answer_metrics(
                clock,
                outcomes=executor.outcomes,
                tool_ms=executor.wall_ms,
                scope=summary,
                background=background.labels,
                plan=plan.kind,
                intents=plan.intents,
                searched=plan.searched,
                write_intent=sorted(executor.write_allowed),
                role=request.scope.role,
            ),
        )

    # --------------------------------------------------------------------------------------------
    # Record-scoped and background answers

    async def _vocabulary(self, executor: ToolExecutor) -> Vocabulary:
        """The record's own names (one internal lookup, no events: it is not part of the answer)."""
        (outcome,) = await executor.run([ToolCall("offline_vocabulary", VOCABULARY_TOOL, {})], internal=True)
        return Vocabulary.from_row(
            outcome.result.rows[0] if outcome.result.ok and outcome.result.rows else None
        )
