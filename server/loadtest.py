"""`chartside bench load`: throughput and latency of the ask endpoint under concurrent users.

A closed-loop load test on loopback. Each virtual user is an evaluator account (its own API
token, so per-account limits are per user) that asks a question, reads the answer stream to
its `done` event, and asks the next one — about its own patient of a bench population
(Synthea-sized records, `tools.bench_population`). Levels run one after the other (default
1, 4 and 16 concurrent users); every level stops by itself after `questions` answers per
user or `max_seconds`, whichever comes first.

The model costs nothing here — the point is what Chartside itself adds:

* `fake-model` (default when the agent package is installed): the real agent loop and the
  real `anthropic` SDK against a local fake Messages API answering instantly (one tool call
  to `get_labs`, then a cited sentence), so every question runs the guardrails, the SDK's
  streaming, a real tool transaction with its audit row, grounding, and the stored events;
* `scripted`: a zero-latency scripted agent (no tools): the web service's own cost only.

The server (and the fake model) run in their own processes, so the client's work does not
share a GIL with them. The database is a separate one (`<database_name>_load`) on the same
PostgreSQL, dropped at the end.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson
import typer
from rich.table import Table
from sqlalchemy import text

from chartside.console import console, fail, progress
from records import migrate
from records.database import Database, open_database
from records.embedded import drop_database
from records.settings import Settings, get_settings
from server.bench import wait_until_up
from tools.bench import percentile
from tools.bench_population import fill, fill_reference, patient_ids

AGENTS = ("fake-model", "scripted")
QUESTION = "What is my latest HbA1c?"
LOAD_USER = "load-user-{}"


def default_agent() -> str:
    return "fake-model"


@dataclass
class LevelResult:
    users: int
    answered: int
    errors: int
    seconds: float
    latencies_ms: list[float] = field(default_factory=list)
    error_kinds: dict[str, int] = field(default_factory=dict)

    @property
    def throughput(self) -> float:
        return self.answered / self.seconds if self.seconds > 0 else 0.0

    def p(self, q: float) -> float:
        return percentile(self.latencies_ms, q) if self.latencies_ms else float("nan")


@dataclass
class LoadReport:
    agent: str
    patients: int
    levels: list[LevelResult]
    stored_done: int  # messages the database holds as done (cross-check of `answered`)


# --- the server side (own process) -----------------------------------------------------------


def _instant_answers(request: Any) -> Any:
    """The fake model: a `get_labs` call first, then a sentence citing what it returned."""
    from agent.fake_api import MessageReply, text_message, tool_use_message

    messages = (request.body or {}).get("messages", [])
    last = messages[-1]["content"] if messages else []
    answered_tool = isinstance(last, list) and any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in last
    )
    if answered_tool:
        return MessageReply(text_message("Your latest HbA1c result is the one shown in [L1]."))
    return MessageReply(tool_use_message([("get_labs", {"query": "A1C", "latest_only": True})]))


def _serve_fake_model(port_queue: Any) -> None:
    from agent.fake_api import FakeMessagesAPI

    api = FakeMessagesAPI()
    api.record = False  # a long run must not keep every request in memory
    api.responder = _instant_answers
    api.start()
    port_queue.put(api.base_url)
    threading.Event().wait()  # until the parent terminates this process


def _build_agent(kind: str, settings: Settings, db: Database, model_url: str | None) -> Any:
    if kind == "scripted":
        from server.scripted_agent import ScriptedAgent, quick_answer_script

        return ScriptedAgent(quick_answer_script())
    from agent.llm import ModelClient, ModelConfig
    from agent.runner import build_agent

    client = ModelClient(
        ModelConfig(
            api_key="sk-ant-load-test-fake",
            base_url=model_url,
            answer_model=settings.answer_model,
            aux_model=settings.aux_model,
            timeout_s=30,
            max_retries=0,
            overloaded_retries=0,
            max_retry_wait_s=0,
            max_tokens=512,
        )
    )
    return build_agent(settings, db, model_client=client)


def _serve(
    settings_json: dict[str, Any], database_name: str, port: int, kind: str, model_url: str | None
) -> None:
    import uvicorn

    from server.app import create_app

    settings = Settings(_env_file=None, **settings_json)
    db = open_database(settings, database_name=database_name)
    app = create_app(settings, db=db, agent_factory=lambda r: _build_agent(kind, settings, r.db, model_url))
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# --- the client side ---------------------------------------------------------------------------


async def _ask_once(client: httpx.AsyncClient, token: str, patient: str) -> tuple[float, str | None]:
    """(milliseconds from POST to the done event, error kind or None)."""
    headers = {"Authorization": f"Bearer {token}"}
    started = time.perf_counter()
    posted = await client.post(
        f"/api/patients/{patient}/messages", json={"question": QUESTION}, headers=headers
    )
    if posted.status_code != 201:
        return (time.perf_counter() - started) * 1000, f"http {posted.status_code}"
    async with client.stream("GET", posted.json()["events_url"], headers=headers) as response:
        if response.status_code != 200:
            return (time.perf_counter() - started) * 1000, f"http {response.status_code}"
        event = None
        async for line in response.aiter_lines():
            if line.startswith("event:"):
                event = line.partition(":")[2].strip()
            elif line.startswith("data:") and event in ("done", "error"):
                elapsed = (time.perf_counter() - started) * 1000
                if event == "done":
                    return elapsed, None
                return elapsed, f"error:{orjson.loads(line.partition(':')[2]).get('kind')}"
    return (time.perf_counter() - started) * 1000, "stream ended without done"


async def _level(
    base: str, users: list[tuple[str, str]], questions: int, max_seconds: float, on_answer: Any
) -> LevelResult:
    limits = httpx.Limits(max_connections=len(users) * 2, max_keepalive_connections=len(users) * 2)
    result = LevelResult(users=len(users), answered=0, errors=0, seconds=0.0)
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=60) as client:

        async def user(token: str, patient: str, count: int, deadline: float, record: bool) -> None:
            for _ in range(count):
                if time.perf_counter() > deadline:
                    return
                ms, error = await _ask_once(client, token, patient)
                if not record:
                    continue
                if error is None:
                    result.answered += 1
                    result.latencies_ms.append(ms)
                else:
                    result.errors += 1
                    result.error_kinds[error] = result.error_kinds.get(error, 0) + 1
                on_answer()

        # warm-up (not measured): every user's connection, the server's pools and caches
        await asyncio.gather(*[user(t, p, 1, time.perf_counter() + max_seconds, False) for t, p in users])
        started = time.perf_counter()
        deadline = started + max_seconds
        await asyncio.gather(*[user(t, p, questions, deadline, True) for t, p in users])
        result.seconds = time.perf_counter() - started
    return result


def _accounts(db: Database, patients: list[str], count: int) -> list[tuple[str, str]]:
    """One evaluator token per virtual user, each bound to one patient of the population."""
    from records.accounts import create_account

    users = []
    with db.admin.begin() as conn:
        conn.execute(text("DELETE FROM accounts WHERE username LIKE 'load-user-%'"))
    for i in range(count):
        patient = patients[i % len(patients)]
        _, token = create_account(
            db, username=LOAD_USER.format(i), role="evaluator", patients=[patient], with_token=True
        )
        assert token
        users.append((token, patient))
    return users


def run_load_test(
    settings: Settings,
    *,
    levels: list[int],
    questions: int,
    max_seconds: float,
    patients: int = 20,
    agent: str | None = None,
    seed: int = 11,
    show_progress: bool = True,
) -> LoadReport:
    kind = agent or default_agent()
    if kind not in AGENTS:
        raise ValueError(f"agent must be one of {', '.join(AGENTS)}")
    name = f"{settings.database_name}_load"
    most = max(levels)
    load_settings = settings.model_copy(
        update={
            "database_name": name,
            "anthropic_api_key": None,
            "ask_rate_per_minute": 1_000_000,
            "api_rate_per_minute": 1_000_000,
            "max_streams_per_account": 4,
            "db_pool_size": max(settings.db_pool_size, min(most + 4, 40)),
        }
    )
    db = open_database(load_settings, database_name=name)
    processes: list[Any] = []
    ctx = multiprocessing.get_context("spawn")
    try:
        migrate.upgrade(db)
        fill(db, patients, seed)
        fill_reference(db)
        population = list(patient_ids(patients))
        users = _accounts(db, population, most)
        model_url = None
        if kind == "fake-model":
            queue = ctx.Queue()
            fake = ctx.Process(target=_serve_fake_model, args=(queue,), daemon=True)
            fake.start()
            processes.append(fake)
            model_url = queue.get(timeout=60)
        port = _free_port()
        server = ctx.Process(
            target=_serve,
            args=(load_settings.model_dump(mode="json"), name, port, kind, model_url),
            daemon=True,
        )
        server.start()
        processes.append(server)
        base = f"http://127.0.0.1:{port}"
        wait_until_up(base, server, what="load-test", timeout_s=90)
        results = []
        total = sum(n * questions for n in levels)
        with progress() if show_progress else _NoBar() as bar:
            task = bar.add_task("questions", total=total)
            for n in levels:
                results.append(
                    asyncio.run(_level(base, users[:n], questions, max_seconds, lambda: bar.advance(task)))
                )
        with db.admin.connect() as conn:
            stored = conn.execute(
                text("SELECT count(*) FROM messages WHERE status = 'done' AND patient_id LIKE 'bench-%'")
            ).scalar_one()
    finally:
        for process in processes:
            process.terminate()
            process.join(30)
        db.dispose()
        if db.embedded is not None:
            drop_database(db.embedded, name)
    return LoadReport(agent=kind, patients=patients, levels=results, stored_done=stored)


class _NoBar:
    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def add_task(self, *args: Any, **kwargs: Any) -> int:
        return 0

    def advance(self, *args: Any) -> None:
        return None


def print_report(report: LoadReport, questions: int) -> None:
    table = Table(
        "users",
        "answered",
        "errors",
        "q/s",
        "p50 ms",
        "p95 ms",
        "max ms",
        "q/s vs 1 user",
        title=f"Ask endpoint (POST → done) on loopback, {report.agent} agent, ≤{questions} questions/user/level",
    )
    base = report.levels[0].throughput if report.levels else 0
    for level in report.levels:
        table.add_row(
            str(level.users),
            str(level.answered),
            str(level.errors) + (f" {level.error_kinds}" if level.error_kinds else ""),
            f"{level.throughput:.1f}",
            f"{level.p(0.5):.1f}",
            f"{level.p(0.95):.1f}",
            f"{max(level.latencies_ms, default=float('nan')):.1f}",
            f"{level.throughput / base:.2f}×" if base else "-",
        )
    console.print(table)
    console.print(
        f"{report.patients} bench patients; the database holds {report.stored_done} answered messages "
        "(warm-up questions included)."
    )


def bench_load_command(
    users: str = typer.Option("1,4,16", help="Concurrent users per level, comma-separated."),
    questions: int = typer.Option(
        25, min=1, help="Questions per user per level (the level stops after them)."
    ),
    max_seconds: float = typer.Option(60.0, min=1, help="A level also stops after this many seconds."),
    patients: int = typer.Option(20, min=1, help="Bench patients (Synthea-sized records)."),
    agent: str = typer.Option(None, help="fake-model (default when installed) or scripted."),
) -> None:
    """Throughput and p50/p95 of asking (POST + answer stream to done) at 1, 4 and 16 concurrent users."""
    try:
        levels = [int(x) for x in users.split(",") if x.strip()]
    except ValueError:
        raise fail(f"--users: {users!r} is not a comma-separated list of numbers") from None
    if not levels or min(levels) < 1:
        raise fail("--users: give at least one level of 1 or more users")
    try:
        report = run_load_test(
            get_settings(),
            levels=levels,
            questions=questions,
            max_seconds=max_seconds,
            patients=patients,
            agent=agent,
        )
    except ValueError as exc:
        raise fail(str(exc)) from None
    print_report(report, questions)


def register(app: typer.Typer) -> None:
    from chartside.groups import bench_app

    bench_app.command("load")(bench_load_command)
