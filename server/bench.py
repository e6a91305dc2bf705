"""`chartside bench serve`: what the answer endpoint costs on top of bare SSE.

Both sides are served by one server process on loopback (the client runs in another process,
so they do not share a GIL), in the same run, alternating rounds:

* **answer stream** — GET /api/patients/{id}/messages/{mid}/events with a zero-latency
  scripted agent: token auth, the patient guard and its audit row, loading the message,
  claiming it, reading history, persisting every event (group commit) and closing the
  message;
* **trivial SSE** — an endpoint of the same app that sends the same events from memory;
* **guarded SSE** — the same events from memory behind the same guard as the answer stream
  (bearer-token authentication, the patient binding and its "ok" audit row, in one
  worker-thread hop and one transaction): what any patient URL pays before its first byte.

Both trivial endpoints go through the same middleware as the answer stream (sessions,
security headers, body limit, error handler: they are app-wide). Reported: time to first
event and to the done event, p50/p95, each as a ratio to the trivial endpoint (the issue's
target) and to the guarded one (what the answer's own bookkeeping adds: loading the message,
the claim, history, the run and storing its events). The database is a separate one (`<database_name>_bench`) on the embedded
server, dropped at the end.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import socket
import statistics
import time
from typing import Any

import httpx
import orjson
from rich.table import Table
from sqlalchemy import text
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.requests import Request
from starlette.routing import Route

from chartside.console import console, progress
from chartside.proc import process_cpu
from records import migrate
from records.accounts import create_account
from records.database import Database, open_database, patient_transaction
from records.embedded import drop_database
from records.settings import Settings
from server.app import create_app
from server.runs import WRITER_THREADS
from server.scripted_agent import ScriptedAgent, quick_answer_script

BENCH_PATIENT = "bench-serve-patient"
BENCH_USER = "bench-serve"


def _seed(db: Database) -> str:
    with patient_transaction(db.admin, BENCH_PATIENT) as conn:
        conn.execute(
            text(
                "INSERT INTO patients (patient_id, full_name) VALUES (:p, 'Bench Patient') ON CONFLICT DO NOTHING"
            ),
            {"p": BENCH_PATIENT},
        )
    with db.admin.begin() as conn:
        conn.execute(text("DELETE FROM accounts WHERE username = :u"), {"u": BENCH_USER})
    _, token = create_account(
        db, username=BENCH_USER, role="evaluator", patients=[BENCH_PATIENT], with_token=True
    )
    assert token
    return token


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _serve(settings_json: dict[str, Any], database_name: str, port: int) -> None:
    """The server process: the real app with the zero-latency agent and the trivial route.

    A separate process, so the client's work does not share a GIL with the server's.
    """
    import uvicorn

    count_statements()
    settings = Settings(_env_file=None, **settings_json)
    db = open_database(settings, database_name=database_name)
    agent = ScriptedAgent(quick_answer_script())
    app = create_app(
        settings,
        db=db,
        agent_factory=lambda _r: agent,
        extra_routes=[_trivial_route(), _guarded_route(), _counters_route()],
    )
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


def wait_until_up(base: str, server: Any, *, what: str = "benchmark", timeout_s: float = 60) -> None:
    """Poll /healthz of a server started in another process until it answers (or dies)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not server.is_alive():
            raise RuntimeError(f"the {what} server exited at start")
        try:
            if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"the {what} server did not start")


STATEMENTS = [0]  # queries this server process has sent to PostgreSQL (`count_statements`)


def count_statements() -> None:
    """Count every query the server process sends, each a round trip: a psycopg cursor's
    `execute`/`executemany` (SQLAlchemy's and raw psycopg's, sync and async; one
    multi-statement query, or the rows of an `executemany`, count once), the BEGIN psycopg
    sends before a transaction's first statement, and a COMMIT or ROLLBACK of an open
    transaction. Benchmark processes only."""
    import psycopg
    from psycopg import _connection_base

    def counted(method: Any) -> Any:
        def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
            STATEMENTS[0] += 1
            return method(self, *args, **kwargs)

        return wrapper

    for cls in (psycopg.Cursor, psycopg.AsyncCursor, psycopg.ServerCursor, psycopg.AsyncServerCursor):
        for name in ("execute", "executemany"):
            setattr(cls, name, counted(getattr(cls, name)))

    def ending(method: Any) -> Any:  # a commit or rollback is a round trip when a transaction is open
        def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
            if self.pgconn.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                STATEMENTS[0] += 1
            return method(self, *args, **kwargs)

        return wrapper

    for cls in (psycopg.Connection, psycopg.AsyncConnection):
        for name in ("commit", "rollback"):
            setattr(cls, name, ending(getattr(cls, name)))
    base = _connection_base.BaseConnection  # called exactly when psycopg sends its BEGIN
    base._get_tx_start_command = counted(base._get_tx_start_command)  # type: ignore[method-assign]


def _counters_route() -> Route:
    """What the server process has spent so far: queries sent, CPU seconds (all threads)."""
    from starlette.responses import JSONResponse

    async def counters(_request: Request) -> JSONResponse:
        return JSONResponse({"statements": STATEMENTS[0], "cpu_s": time.process_time()})

    return Route("/bench/counters", counters)


def _trivial_route() -> Route:
    payloads = [(e.type, orjson.dumps(e.model_dump(mode="json")).decode()) for e in quick_answer_script()]

    async def trivial(_request: Request) -> EventSourceResponse:
        async def events() -> Any:
            for i, (kind, data) in enumerate(payloads, start=1):
                yield ServerSentEvent(data=data, event=kind, id=str(i))

        return EventSourceResponse(events())

    return Route("/bench/trivial-sse", trivial)


def _guarded_route() -> Route:
    """The trivial stream behind the answer stream's guard (`server.access.guard_patient`)."""
    from server.access import guard_patient

    payloads = [(e.type, orjson.dumps(e.model_dump(mode="json")).decode()) for e in quick_answer_script()]

    async def guarded(request: Request) -> EventSourceResponse:
        await guard_patient(request, action="http:GET bench-sse", capability="ask")

        async def events() -> Any:
            for i, (kind, data) in enumerate(payloads, start=1):
                yield ServerSentEvent(data=data, event=kind, id=str(i))

        return EventSourceResponse(events())

    return Route("/bench/patients/{patient_id}/guarded-sse", guarded)


async def _timed_stream(client: httpx.AsyncClient, url: str) -> tuple[float, float]:
    started = time.perf_counter()
    first = None
    async with client.stream("GET", url) as response:
        if response.status_code != 200:
            raise RuntimeError(f"{url}: HTTP {response.status_code}")
        async for line in response.aiter_lines():
            if line.startswith("event:"):
                now = time.perf_counter()
                first = first or now
                if line.endswith("done"):
                    return (first - started) * 1000, (now - started) * 1000
    raise RuntimeError(f"{url}: stream ended without done")


KINDS = ("answer stream", "guarded SSE", "trivial SSE")
COSTS = ("statements", "server_cpu_ms", "db_cpu_ms")


async def _measure(
    base: str, token: str, streams: int, rounds: int, db_cpu: Any
) -> tuple[dict[str, dict[str, list[float]]], dict[str, dict[str, float]]]:
    """Latencies per endpoint, and what each endpoint's streams cost: queries the server sent,
    server CPU and database CPU (`db_cpu()`: CPU seconds of the bench database's backends by
    pid), summed over the measured rounds. An answer's POST is measured apart ("ask (POST)"):
    the first event is timed from the GET."""
    results: dict[str, dict[str, list[float]]] = {k: {"first": [], "done": []} for k in KINDS}
    costs = {k: dict.fromkeys(COSTS, 0.0) for k in (*KINDS, "ask (POST)")}
    limits = httpx.Limits(max_connections=streams * 2, max_keepalive_connections=streams * 2)
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=base, headers=headers, limits=limits, timeout=60) as client:

        async def snapshot() -> tuple[float, float, dict[int, float]]:
            now = (await client.get("/bench/counters")).json()
            return now["statements"], now["cpu_s"], db_cpu()

        def add(kind: str, before: tuple, after: tuple) -> None:
            costs[kind]["statements"] += after[0] - before[0]
            costs[kind]["server_cpu_ms"] += (after[1] - before[1]) * 1000
            costs[kind]["db_cpu_ms"] += sum(s - before[2].get(pid, 0.0) for pid, s in after[2].items()) * 1000

        async def answer_round(measured: bool) -> list[tuple[float, float]]:
            before = await snapshot()
            posted = await asyncio.gather(
                *[
                    client.post(f"/api/patients/{BENCH_PATIENT}/messages", json={"question": f"q{i}"})
                    for i in range(streams)
                ]
            )
            urls = [r.json()["events_url"] for r in posted]
            between = await snapshot()
            timed = await asyncio.gather(*[_timed_stream(client, u) for u in urls])
            if measured:
                add("ask (POST)", before, between)
                add("answer stream", between, await snapshot())
            return timed

        async def timed_round(kind: str, url: str, measured: bool) -> list[tuple[float, float]]:
            before = await snapshot()
            timed = await asyncio.gather(*[_timed_stream(client, url) for _ in range(streams)])
            if measured:
                add(kind, before, await snapshot())
            return timed

        async def trivial_round(measured: bool) -> list[tuple[float, float]]:
            return await timed_round("trivial SSE", "/bench/trivial-sse", measured)

        async def guarded_round(measured: bool) -> list[tuple[float, float]]:
            return await timed_round("guarded SSE", f"/bench/patients/{BENCH_PATIENT}/guarded-sse", measured)

        kinds = (
            ("answer stream", answer_round),
            ("guarded SSE", guarded_round),
            ("trivial SSE", trivial_round),
        )
        for _, fn in kinds:  # warm-up: connections, pools, caches
            await fn(False)
        with progress() as bar:
            task = bar.add_task("rounds", total=rounds * len(kinds))
            for _ in range(rounds):
                for name, fn in kinds:
                    for first, done in await fn(True):
                        results[name]["first"].append(first)
                        results[name]["done"].append(done)
                    bar.advance(task)
    per_stream = {k: {c: v / (streams * rounds) for c, v in cost.items()} for k, cost in costs.items()}
    return results, per_stream


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def run_bench(settings: Settings, *, streams: int, rounds: int) -> None:
    name = f"{settings.database_name}_bench"
    bench_settings = settings.model_copy(
        update={
            "database_name": name,
            "ask_rate_per_minute": 1_000_000,
            "api_rate_per_minute": 1_000_000,
            "max_streams_per_account": streams * 2,
            # a pool for the load it is given: every concurrent answer holds a connection in its
            # guard, and the writers one each. With 10 (as before) each round of 20 answers made
            # ~19 new PostgreSQL connections (backend start + password auth) on the way to their
            # first events, which the trivial endpoint never pays (counted with pool events)
            "db_pool_size": max(settings.db_pool_size, streams + WRITER_THREADS + 2),
        }
    )
    load_before = _load_average()
    db = open_database(bench_settings, database_name=name)
    try:
        migrate.upgrade(db)
        token = _seed(db)
        port = _free_port()
        server = multiprocessing.get_context("spawn").Process(
            target=_serve, args=(bench_settings.model_dump(mode="json"), name, port), daemon=True
        )
        server.start()
        try:
            base = f"http://127.0.0.1:{port}"
            wait_until_up(base, server)
            results, costs = asyncio.run(_measure(base, token, streams, rounds, lambda: _backends_cpu(db)))
        finally:
            server.terminate()
            server.join(30)
        with db.admin.connect() as conn:
            runs = conn.execute(text("SELECT count(*) FROM messages WHERE status = 'done'")).scalar_one()
    finally:
        db.dispose()
        if db.embedded is not None:
            drop_database(db.embedded, name)
    table = Table(
        "endpoint",
        "first event p50 ms",
        "p95 ms",
        "done p50 ms",
        "p95 ms",
        title=f"SSE on loopback: {streams} concurrent streams × {rounds} rounds each",
    )
    base = results["trivial SSE"]
    for label, data in results.items():
        table.add_row(
            label,
            f"{_pct(data['first'], 0.5):.2f}",
            f"{_pct(data['first'], 0.95):.2f}",
            f"{_pct(data['done'], 0.5):.2f}",
            f"{_pct(data['done'], 0.95):.2f}",
        )
    ans = results["answer stream"]
    for label, against in (("trivial", base), ("guarded", results["guarded SSE"])):
        table.add_row(
            f"ratio answer / {label}",
            f"{_pct(ans['first'], 0.5) / _pct(against['first'], 0.5):.2f}×",
            f"{_pct(ans['first'], 0.95) / _pct(against['first'], 0.95):.2f}×",
            f"{_pct(ans['done'], 0.5) / _pct(against['done'], 0.5):.2f}×",
            f"{_pct(ans['done'], 0.95) / _pct(against['done'], 0.95):.2f}×",
        )
    console.print(table)
    cost_table = Table(
        "per stream",
        "queries sent",
        "server CPU ms",
        "database CPU ms",
        title="What each stream cost (measured rounds, server process and the bench database's backends)",
    )
    for label, cost in costs.items():
        cost_table.add_row(
            label, f"{cost['statements']:.1f}", f"{cost['server_cpu_ms']:.2f}", f"{cost['db_cpu_ms']:.2f}"
        )
    console.print(cost_table)
    samples = len(ans["done"])
    console.print(
        f"{samples} answer streams ({runs} answered messages incl. warm-up), {len(base['done'])} trivial streams; "
        f"mean done {statistics.fmean(ans['done']):.2f} ms vs {statistics.fmean(base['done']):.2f} ms"
    )
    console.print(
        f"load average (1 min) before: {load_before}, after: {_load_average()} on {os.cpu_count()} cores"
    )


def _backends_cpu(db: Database) -> dict[int, float]:
    """CPU seconds so far of every backend connected to the bench database, by pid (Linux /proc;
    empty elsewhere, and then the database column reads 0)."""
    with db.admin.connect() as conn:
        pids = conn.execute(
            text("SELECT pid FROM pg_stat_activity WHERE datname = current_database()")
        ).scalars()
        found = {pid: process_cpu(pid) for pid in pids}
    return {pid: seconds for pid, seconds in found.items() if seconds is not None}


def _load_average() -> str:
    """The machine's load, printed with the ratios: under load both endpoints wait for a core."""
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except OSError:
        return "unknown"
