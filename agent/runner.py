"""Choosing and assembling the agent: guardrails first, always; then Claude or the offline planner.

`build_agent` is what the server, the CLI and the evaluators call. With an API key the Claude
loop answers; without one the offline planner does. Either way `GuardedAgent` screens the
question before anything else runs, so an emergency never reaches a model or a tool.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from agent.base import Agent, AgentRequest
from agent.events import DoneEvent, Event, TextEvent
from agent.guardrails import screen
from agent.metrics import RunClock, answer_metrics
from agent.scoping import declared_summary
from records.database import Database
from records.settings import Settings
from tools.registry import Registry


class GuardedAgent:
    """Runs the deterministic guardrails, then (only if they pass) the inner agent."""

    def __init__(self, inner: Agent) -> None:
        self.inner = inner

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
        verdict = screen(request.question, request.scope.role)
        if verdict is not None:
            clock.text_started()
            yield TextEvent(delta=verdict.reply)
            scope = declared_summary(request.ask_scope)  # as asked: nothing was looked up
            yield DoneEvent(
                answer=verdict.reply,
                mode="guardrail",
                scope=scope,
                metrics=answer_metrics(
                    clock,
                    scope=scope,
                    guardrail=verdict.kind,
                    category=verdict.category,
                    role=request.scope.role,
                ),
            )
            return
        async for event in self.inner.run(request):
            yield event


def default_registry() -> Registry:
    """Every tool the project has (the tools package's catalogue)."""
    from tools.catalog import build_registry  # the tools package assembles its own modules

    return build_registry()


def default_embedder(settings: Settings) -> Any:
    """The local embedding model for the search tools and the planner's tie-breaker, if installed."""
    try:
        from knowledge.embeddings import get_embedder  # type: ignore[import-not-found]
    except ImportError:
        return None
    return get_embedder(settings)


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
    return GuardedAgent(inner)
