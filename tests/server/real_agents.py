"""The web service with a REAL agent (offline planner, or the Claude loop on the fake Messages
API) instead of the scripted one, for end-to-end tests of scoped asking (issue 11)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from agent.loop import ClaudeAgent
from agent.offline import OfflineAgent
from agent.runner import GuardedAgent
from server.app import create_app
from server.live import LiveServer
from tests.conftest import test_settings
from tests.fakes.anthropic_server import FakeMessagesAPI, model_client_for
from tools.catalog import build_registry


def offline_factory(resources: Any) -> GuardedAgent:
    return GuardedAgent(OfflineAgent(build_registry(), resources.db))


def claude_factory(fake: FakeMessagesAPI) -> Callable[[Any], GuardedAgent]:
    def build(resources: Any) -> GuardedAgent:
        return GuardedAgent(ClaudeAgent(model_client_for(fake), build_registry(), resources.db))

    return build


@contextmanager
def serve_agent(db: Any, factory: Callable[[Any], Any], **overrides: Any) -> Iterator[str]:
    """The app on a loopback port with `factory`'s agent; yields the base URL."""
    settings = test_settings(**{"stream_grace_s": 0.0, **overrides})
    app = create_app(settings, db=db, agent_factory=factory)
    live = LiveServer(app).__enter__()
    try:
        yield live.url
    finally:
        live.__exit__(None, None, None)
