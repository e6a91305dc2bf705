"""Choosing and assembling the agent: guardrails first, always; then Claude or the offline planner.

`build_agent` is what the server, the CLI and the evaluators call. With an API key the Claude
loop answers; without one the offline planner does. Either way `GuardedAgent` screens the
question before anything else runs, so an emergency never reaches a model or a tool.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

from agent.base import Agent, AgentRequest
from agent.events import (
    DoneEvent,
    ErrorEvent,
    Event,
    TextEvent,
    ToolCallEvent,
    ToolResultEvent,
)
from agent.execution import citation_events
from agent.leak_guard import LEAK_REPLY, LeakGuard
from agent.metrics import RunClock, answer_metrics
from agent.other_patient import BoundPatient, load_bound_patient, named_others, other_patient_reply
from agent.prompts import CLINICIAN_IDENTITY, PATIENT_IDENTITY, PROMPT_CANARY
from agent.safety.gate import SafetyGate, Verdict
from agent.safety.refusal import compose, fact_calls, named_calls
from agent.safety.shared import shared
from agent.scoping import declared_summary
from records.settings import Settings
from tools.registry import Database, Registry, ToolContext
from tools.results import HandleBook


def prompt_leak_guard() -> LeakGuard:
    """A fresh output filter for one answer, knowing the canary and every system prompt."""
    return LeakGuard(canary=PROMPT_CANARY, prompt_texts=[PATIENT_IDENTITY, CLINICIAN_IDENTITY])


class GuardedAgent:
    """Runs the deterministic guardrails, then (only if they pass) the inner agent, whose output
    goes through the prompt-leak filter (`agent.leak_guard`) before anyone sees it."""

    def __init__(
        self,
        inner: Agent,
        bound_patient: Callable[[str], BoundPatient | None] | None = None,
        gate: SafetyGate | None = None,
    ) -> None:
        self.inner = inner
        self.bound_patient = bound_patient  # names of the bound patient, for the other-patient screen
        if gate is None:
            # the inner agent's embedder (shared, so its search reuses the question's vector)
            embedder = shared(getattr(inner, "embedder", None))
            if embedder is not None:
                inner.embedder = embedder  # type: ignore[attr-defined]
            db = getattr(inner, "db", None)
            gate = SafetyGate(embedder, getattr(db, "settings", None))
        self.gate = gate

    @property
    def mode(self) -> str:
        return getattr(self.inner, "mode", "unknown")

    async def aclose(self) -> None:
        """Release the model client's connections (call on the event loop that used them)."""
        close = getattr(self.inner, "aclose", None)
        if close is not None:
            await close()

    async def run(self, request: AgentRequest) -> AsyncIterator[Event]:
        clock = RunClock()
        # THE safety gate: every path (web, CLI, offline, Claude, evaluations) comes through here
        verdict = await asyncio.to_thread(self.gate.check, request.question, request.scope.role)
        verdict = verdict or await self._other_patient(request)
        if verdict is not None:
            reply = verdict.reply
            if verdict.kind == "clinical_advice":
                reply = ""
                async for event in self._helpful_refusal(request):
                    if isinstance(event, TextEvent):
                        reply = event.delta
                    else:
                        yield event
            clock.text_started()
            yield TextEvent(delta=reply)
            scope = declared_summary(request.ask_scope)  # as asked: nothing was looked up
            yield DoneEvent(
                answer=reply,
                mode="guardrail",
                scope=scope,
                metrics=answer_metrics(
                    clock,
                    scope=scope,
                    guardrail=verdict.kind,
                    category=verdict.category,
                    detector=verdict.source,
                    role=request.scope.role,
                ),
            )
            return
        guard = prompt_leak_guard()
        async with contextlib.aclosing(self.inner.run(request)) as events:
            async for event in events:
                if isinstance(event, TextEvent):
                    safe = guard.feed(event.delta)
                    if safe:
                        clock.text_started()
                        yield TextEvent(delta=safe)
                elif isinstance(event, ToolCallEvent):
                    guard.check(json.dumps(event.input, ensure_ascii=False))
                    if not guard.tripped:
                        yield event
                elif isinstance(event, DoneEvent):
                    if guard.finish(event.answer):
                        break
                    rest = guard.take_pending()
                    if rest:
                        yield TextEvent(delta=rest)
                    yield event
                    return
                elif isinstance(event, ErrorEvent):
                    rest = guard.release_before_error()
                    if rest:
                        yield TextEvent(delta=rest)
                    yield event
                    return
                else:
                    yield event
                if guard.tripped:
                    break
        if not guard.tripped:
            return  # the inner agent ended without a terminal event; the caller reports that
        # a leak was stopped: the model's run is abandoned (closing it stops the stream and any
        # tool calls not yet made); the user gets a fixed reply, the metrics say which rule fired
        scope = declared_summary(request.ask_scope)
        yield DoneEvent(
            answer=LEAK_REPLY,
            mode=getattr(self.inner, "mode", "claude"),
            scope=scope,
            metrics=answer_metrics(clock, scope=scope, output_filter=guard.tripped, role=request.scope.role),
        )

    async def _helpful_refusal(self, request: AgentRequest) -> AsyncIterator[Event]:
        """The factual part of an advice question, from the tools (cited), then the refusal text
        (yielded last, as one TextEvent). A lookup that fails leaves just the scripted sentences."""
        registry: Registry | None = getattr(self.inner, "registry", None)
        db = getattr(self.inner, "db", None)
        texts: list[str] = []
        if registry is not None and db is not None:
            ctx = ToolContext(scope=request.scope, db=db, handles=HandleBook(), now=request.now)
            history = [t.question for t in request.history]
            today = (request.now or dt.datetime.now(dt.UTC)).date()
            calls = fact_calls(request.question, set(registry.names()), history, today)
            n = 0
            while calls:
                call = calls.pop(0)
                n += 1
                call_id = f"safety-{n}"
                yield ToolCallEvent(id=call_id, name=call.tool, input=call.args)
                result = await asyncio.to_thread(registry.execute, ctx, call.tool, call.args)
                yield ToolResultEvent(
                    id=call_id,
                    name=call.tool,
                    ok=result.ok,
                    summary=result.text.splitlines()[0][:200] if result.text else "",
                    handles=result.handles,
                    total=result.total,
                    truncated=result.truncated,
                )
                named = (
                    named_calls(request.question, result.rows, history) if call.probe and result.ok else []
                )
                if named:  # the question names some of these medicines: look up just those
                    calls[:0] = named
                elif result.ok and call.show and (result.total or call.report_empty):
                    texts.append(result.text)
                    for citation in citation_events(result.citations):
                        yield citation
        yield TextEvent(delta=compose(texts))

    async def _other_patient(self, request: AgentRequest) -> Verdict | None:
        """A scripted reply when the question names someone other than the bound patient."""
        if self.bound_patient is None:
            return None
        patient = await asyncio.to_thread(self.bound_patient, request.scope.patient_id)
        if patient is None:
            return None
        others = named_others(request.question, patient)
        if not others:
            return None
        return Verdict("other_patient", "named_other", other_patient_reply(request.scope.role, patient))


def default_registry() -> Registry:
    """Every tool the project has (the tools package's catalogue)."""
    from tools.catalog import build_registry  # the tools package assembles its own modules

    return build_registry()


def build_agent(
    settings: Settings,
    db: Database,
    registry: Registry | None = None,
    *,
    embedder: Any = None,
    model_client: Any = None,
    force_offline: bool = False,
) -> GuardedAgent:
    """Claude when a key (or an explicit client) is available, else the offline planner."""
    registry = registry if registry is not None else default_registry()
    embedder = shared(embedder)  # one question embedding, shared by the gate, planner and search
    if not force_offline and (model_client is not None or not settings.offline):
        from agent.llm import ModelClient
        from agent.loop import ClaudeAgent

        client = model_client or ModelClient.from_settings(settings)
        inner: Agent = ClaudeAgent(
            client, registry, db, embedder=embedder, max_iterations=settings.max_agent_iterations
        )
    else:
        from agent.offline import OfflineAgent

        inner = OfflineAgent(registry, db, embedder=embedder)
    return GuardedAgent(
        inner,
        bound_patient=lambda patient_id: load_bound_patient(db, patient_id),
        gate=SafetyGate(embedder, settings),
    )
