"""Which agent answers in the web service: `agent.runner.build_agent` (the Claude loop with an
API key, the offline planner without one). Tests hand `create_app` their own factory."""

from __future__ import annotations

from agent.base import Agent
from agent.runner import build_agent


def default_agent_factory(resources) -> Agent:  # resources: server.app.Resources
    return build_agent(resources.settings, resources.db, embedder=resources.embedder)
