"""Which agent answers in the web service.

The real agent (Claude loop with an API key, the offline planner without one) is built by
`agent.runner.build_agent`. Until that module is installed, the server still runs and says
plainly that no agent is available, instead of pretending with a canned answer.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from agent.base import Agent, AgentRequest
from agent.events import ErrorEvent, Event


class UnavailableAgent:
    """Answers every question with one clear error event."""

    async def run(self, request: AgentRequest) -> AsyncIterator[Event]:
        yield ErrorEvent(
            kind="unavailable",
            message="The answering agent is not installed in this build, so no answer can be given.",
        )


def default_agent_factory(resources) -> Agent:  # resources: server.app.Resources
    try:
        from agent.runner import build_agent  # type: ignore[import-not-found]
    except ImportError:
        return UnavailableAgent()
    return build_agent(resources.settings, resources.db, embedder=resources.embedder)
