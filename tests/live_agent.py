"""The web service with the REAL agent, for the attack and fault suites.

`serve_agent(mode)` starts the app on a loopback port with `agent.runner.build_agent`:

* `mode="claude"`: the Claude loop and the real `anthropic` SDK, pointed at a local fake
  Messages API (`agent.fake_api`) whose replies each test scripts — so a test can make "the
  model" fall for an injection, leak its prompt, answer 529, or hang;
* `mode="offline"`: the offline planner (no model at all).

Everything else is production code: guardrails, tools, registry, RLS, audit, grounding,
stored events, SSE. Helpers read what a user received and what the database holds.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from agent.fake_api import FakeMessagesAPI
from agent.llm import ModelClient, ModelConfig
from agent.runner import build_agent
from records.database import Database, patient_transaction
from server.app import create_app
from server.live import LiveServer
from tests.conftest import test_settings
from tests.server.conftest import World, ask, login, stream


def model_client(api: FakeMessagesAPI, **overrides: Any) -> ModelClient:
    values: dict[str, Any] = {
        "api_key": "sk-ant-test-fake",
        "base_url": api.base_url,
        "answer_model": "claude-sonnet-5-5",
        "aux_model": "claude-haiku-5-5",
        "timeout_s": 10.0,
        "max_retries": 2,
        "overloaded_retries": 1,
        "max_retry_wait_s": 5.0,
        "max_tokens": 1024,
    }
    values.update(overrides)
    return ModelClient(ModelConfig(**values))


@dataclass
class LiveAgent:
    url: str
    app: Any
    db: Database
    api: FakeMessagesAPI | None
    settings: Any
    loop: Any = None  # the server's event loop (the answer stream's asyncio pool lives on it)
    clients: list[httpx.Client] = field(default_factory=list)

    def client(self, username: str | None = None, **kw: Any) -> httpx.Client:
        client = httpx.Client(base_url=self.url, timeout=60, **kw)
        self.clients.append(client)
        if username:
            client.headers["X-CSRF-Token"] = login(client, username)
        return client

    @property
    def runs(self) -> Any:
        return self.app.state.services.runs


TIMING_KEYS = frozenset({"metrics", "latency_ms", "usage", "cost_usd"})


@dataclass
class Answer:
    """What the user received for one question: every SSE event, and the stored message."""

    status: int
    message_id: str | None
    conversation_id: str | None
    events: list[tuple[int, str, dict]]

    @property
    def terminal(self) -> tuple[str, dict]:
        _, kind, data = self.events[-1]
        return kind, data

    @property
    def text(self) -> str:
        """Everything the browser was sent for this answer, as one string."""
        return json.dumps([e[2] for e in self.events], ensure_ascii=False)

    @property
    def content(self) -> str:
        """What the user was shown (timings, token counts and costs left out: their digits are noise)."""

        def strip(value: Any) -> Any:
            if isinstance(value, dict):
                return {k: strip(v) for k, v in value.items() if k not in TIMING_KEYS}
            if isinstance(value, list):
                return [strip(v) for v in value]
            return value

        return json.dumps([strip(e[2]) for e in self.events], ensure_ascii=False)

    def of(self, kind: str) -> list[dict]:
        return [data for _, k, data in self.events if k == kind]


def ask_and_read(
    client: httpx.Client, patient: str, question: str, *, stop_after: int | None = None, **body: Any
) -> Answer:
    posted = ask(client, patient, question, csrf=client.headers.get("X-CSRF-Token"), **body)
    if posted.status_code != 201:
        return Answer(posted.status_code, None, None, [])
    data = posted.json()
    status, events = stream(client, patient, data["message_id"], stop_after=stop_after)
    return Answer(status, data["message_id"], data["conversation_id"], events)


def stored_message(db: Database, patient: str, message_id: str) -> Any:
    with patient_transaction(db.admin, patient) as conn:
        return conn.execute(
            text("SELECT * FROM messages WHERE patient_id = :p AND id = :m"), {"p": patient, "m": message_id}
        ).one()


def audit(db: Database, **where: Any) -> list[Any]:
    clause = " AND ".join(f"{k} = :{k}" for k in where) or "true"
    with db.admin.connect() as conn:
        return conn.execute(text(f"SELECT * FROM audit_log WHERE {clause} ORDER BY id"), where).all()


CONVERSATION_TABLES = frozenset({"conversations", "messages", "message_events", "offered_slots"})


def record_snapshot(db: Database, patients: tuple[str, ...] = ("pat-a", "pat-b", "pat-c")) -> dict[str, Any]:
    """Row counts of every patient table (record, appointments), appointment states and booked
    slots: what an attack must not change. Conversations and their events are expected to grow."""
    from records.models import patient_tables

    snapshot: dict[str, Any] = {}
    for pid in patients:
        with patient_transaction(db.admin, pid) as conn:
            for table in patient_tables():
                if table not in CONVERSATION_TABLES:
                    snapshot[f"{pid}.{table}"] = conn.execute(
                        text(f'SELECT count(*) FROM "{table}"')
                    ).scalar_one()
            snapshot[f"{pid}.appointment states"] = sorted(
                tuple(r) for r in conn.execute(text("SELECT id, status FROM appointments")).all()
            )
    with db.admin.connect() as conn:
        snapshot["booked slots"] = conn.execute(
            text("SELECT count(*) FROM appointment_slots WHERE booked_appointment_id IS NOT NULL")
        ).scalar_one()
    return snapshot


ServeAgent = Callable[..., LiveAgent]


@pytest.fixture()
def serve_agent(world: World, safety_gate_ready: bool) -> Iterator[ServeAgent]:
    """serve_agent(mode="claude"|"offline", db=None, model=dict(...), **settings) -> LiveAgent."""
    started: list[tuple[LiveServer, LiveAgent]] = []

    def start(
        mode: str = "claude", *, db: Database | None = None, model: dict | None = None, **overrides: Any
    ) -> LiveAgent:
        settings = test_settings(
            **{
                "stream_grace_s": 0.0,
                "ask_rate_per_minute": 10_000,
                "api_rate_per_minute": 100_000,
                **overrides,
            }
        )
        database = db or world.db
        api = FakeMessagesAPI().start() if mode == "claude" else None

        def factory(resources: Any) -> Any:
            if api is None:
                return build_agent(settings, resources.db, force_offline=True)
            return build_agent(settings, resources.db, model_client=model_client(api, **(model or {})))

        app = create_app(settings, db=database, agent_factory=factory)
        live = LiveServer(app).__enter__()
        served = LiveAgent(
            url=live.url,
            app=app,
            db=database,
            api=api,
            settings=settings,
            loop=live.server.servers[0].get_loop(),
        )
        started.append((live, served))
        return served

    yield start
    for live, served in started:
        for client in served.clients:
            client.close()
        if served.api is not None:
            served.api.release()
        live.__exit__(None, None, None)
        if served.api is not None:
            served.api.stop()
