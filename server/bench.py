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

Where the time goes: every request carries a trace id, the server (wrapped in
`server.trace.Tracer`) stamps its steps, and `server.bench_report` prints each step's p50,
p95 and its mean over the slowest 5 % of streams, with the server's event-loop stalls, GC
pauses and opening-pool waits per round (`Stalls`, `/bench/counters`): what makes a p95.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import socket
import time
from typing import Any

import httpx
import orjson
from sqlalchemy import text
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.requests import Request
from starlette.routing import Route

from chartside.console import progress
from chartside.proc import process_cpu
from records import migrate
from records.accounts import create_account
from records.database import Database, open_database, patient_transaction
from records.embedded import drop_database
from records.settings import Settings
from server.app import create_app
from server.bench_report import COSTS, Measured, load_average, report
from server.runs import WRITER_THREADS
from server.scripted_agent import ScriptedAgent, quick_answer_script
from server.trace import CLAIMED, PHASES, ROUTED, TRACE_HEADER, Tracer, mark

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


def _serve(settings_json: dict[str, Any], database_name: str, port: int, dedicated: bool) -> None:
    """The server process: the real app with the zero-latency agent and the trivial route.

    A separate process, so the client's work does not share a GIL with the server's.
    """
    import uvicorn

    count_statements()
    settings = Settings(_env_file=None, **settings_json)
    db = open_database(settings, database_name=database_name)
    agent = ScriptedAgent(quick_answer_script())
    traced: list[Tracer] = []
    app = create_app(
        settings,
        db=db,
        agent_factory=lambda _r: agent,
        extra_routes=[
            _trivial_route(),
            _guarded_route(),
            _counters_route(),
            _traces_route(traced),
            _cpu_route(traced),
        ],
        dedicated=dedicated,
    )
    traced.append(Tracer(app))
    uvicorn.run(traced[0], host="127.0.0.1", port=port, log_level="warning", access_log=False)


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
    `execute`/`executemany` (SQLAlchemy's and raw psycopg's, sync and async) and each query of
    `records.async_pool.run_script` (one multi-statement query, or the rows of an
    `executemany`, count once), the BEGIN psycopg sends before a transaction's first
    statement, and a COMMIT or ROLLBACK of an open transaction. Benchmark processes only."""
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
    # `records.async_pool.run_script` (the opening, event writes) binds each query it sends
    # with the pool's client cursor's `mogrify` and sends it without `execute`
    psycopg.AsyncClientCursor.mogrify = counted(psycopg.AsyncClientCursor.mogrify)  # type: ignore[method-assign]

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
    """What the server process has spent so far: queries sent, CPU seconds (all threads),
    event-loop stalls and GC pauses (`Stalls`), waits for the opening pool's connections."""
    from starlette.responses import JSONResponse

    async def counters(request: Request) -> JSONResponse:
        STALLS.watch()
        pool = request.app.state.services.answer_pool  # the opening's: how long it waited for one
        return JSONResponse(
            {
                "statements": STATEMENTS[0],
                "cpu_s": time.process_time(),
                "stall_s": STALLS.stalled_s,
                "gc_s": STALLS.gc_s,
                "pool_wait_s": pool.get_stats().get("requests_wait_ms", 0) / 1000 if pool else 0.0,
            }
        )

    return Route("/bench/counters", counters)


def _traces_route(traced: list[Tracer]) -> Route:
    """The phase marks (`server.trace`) of the requests finished since the last call."""
    from starlette.responses import JSONResponse

    async def traces(_request: Request) -> JSONResponse:
        return JSONResponse(traced[0].take() if traced else [])

    return Route("/bench/traces", traces)


def _cpu_route(traced: list[Tracer]) -> Route:
    """Per request finished since the last call: (id, server CPU ms to its first body bytes,
    after them to its end) (`Tracer.take_cpu`; meaningful with one request at a time)."""
    from starlette.responses import JSONResponse

    async def cpu(_request: Request) -> JSONResponse:
        taken = traced[0].take_cpu() if traced else []
        return JSONResponse([(s, (first - got) * 1000, (end - first) * 1000) for s, got, first, end in taken])

    return Route("/bench/cpu", cpu)


class Stalls:
    """What holds the server's event loop: time a `TICK_S` timer fired late beyond `SLACK_S`
    (a blocking call, a long callback, the GIL held by a thread), and garbage-collection
    pauses (`gc.callbacks`), in seconds so far. Started by the first `/bench/counters`."""

    TICK_S = 0.005  # 200 wake-ups a second: a cost every endpoint shares
    SLACK_S = 0.002

    def __init__(self) -> None:
        self.stalled_s = 0.0
        self.gc_s = 0.0
        self._task: asyncio.Task | None = None
        self._gc_started = 0.0

    def watch(self) -> None:
        if self._task is None:
            import gc

            gc.callbacks.append(self._gc)
            self._task = asyncio.get_running_loop().create_task(self._sample())

    def _gc(self, phase: str, _info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_started = time.perf_counter()
        else:
            self.gc_s += time.perf_counter() - self._gc_started

    async def _sample(self) -> None:
        while True:
            before = time.perf_counter()
            await asyncio.sleep(self.TICK_S)
            self.stalled_s += max(0.0, time.perf_counter() - before - self.TICK_S - self.SLACK_S)


STALLS = Stalls()


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
        mark(ROUTED)
        await guard_patient(request, action="http:GET bench-sse", capability="ask")
        mark(CLAIMED)

        async def events() -> Any:
            for i, (kind, data) in enumerate(payloads, start=1):
                yield ServerSentEvent(data=data, event=kind, id=str(i))

        return EventSourceResponse(events())

    return Route("/bench/patients/{patient_id}/guarded-sse", guarded)


_STREAM_IDS = iter(range(1, 1 << 62))


async def _timed_stream(client: httpx.AsyncClient, url: str) -> tuple[str, float, float, float]:
    """(the request's trace id, its start, first event and done stamps: `time.perf_counter()`)."""
    stream_id = str(next(_STREAM_IDS))
    started = time.perf_counter()
    first = None
    async with client.stream("GET", url, headers={TRACE_HEADER: stream_id}) as response:
        if response.status_code != 200:
            raise RuntimeError(f"{url}: HTTP {response.status_code}")
        async for line in response.aiter_lines():
            if line.startswith("event:"):
                now = time.perf_counter()
                first = first or now
                if line.endswith("done"):
                    return stream_id, started, first, now
    raise RuntimeError(f"{url}: stream ended without done")


def _phases(started: float, first: float, marks: dict[str, float]) -> dict[str, float]:
    """One stream's time in each step to its first event, ms: from the client's request to the
    app (`to app`: connect, accept, the event loop getting to it), each server mark to the
    next present one, and from the first byte to the client's first event (`to client`)."""
    steps, last, at = {}, "sent", started
    for phase in PHASES:
        if phase in marks:
            steps[f"{last} → {phase}"] = (marks[phase] - at) * 1000
            last, at = phase, marks[phase]
    steps[f"{last} → client"] = (first - at) * 1000
    return steps


KINDS = ("answer stream", "guarded SSE", "trivial SSE")


async def _measure(base: str, token: str, streams: int, rounds: int, db_cpu: Any) -> Measured:
    """Latencies per endpoint, and what each endpoint's streams cost: queries the server sent,
    server CPU, database CPU (`db_cpu()`: CPU seconds of the bench database's backends by
    pid), event-loop stalls and GC pauses of the server (`Stalls`), summed over the measured
    rounds. An answer's POST is measured apart ("ask (POST)"): the first event is timed from
    the GET."""
    measured = Measured(
        first={k: [] for k in KINDS},
        done={k: [] for k in KINDS},
        steps={k: [] for k in KINDS},
        costs={k: dict.fromkeys(COSTS, 0.0) for k in (*KINDS, "ask (POST)")},
        split={k: [] for k in KINDS},
    )
    costs = measured.costs
    limits = httpx.Limits(max_connections=streams * 2, max_keepalive_connections=streams * 2)
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=base, headers=headers, limits=limits, timeout=60) as client:

        async def snapshot() -> tuple[dict[str, float], dict[int, float]]:
            return (await client.get("/bench/counters")).json(), db_cpu()

        def add(kind: str, before: tuple, after: tuple) -> None:
            (was, was_db), (now, now_db) = before, after
            costs[kind]["statements"] += now["statements"] - was["statements"]
            costs[kind]["server_cpu_ms"] += (now["cpu_s"] - was["cpu_s"]) * 1000
            costs[kind]["stall_ms"] += (now["stall_s"] - was["stall_s"]) * 1000
            costs[kind]["gc_ms"] += (now["gc_s"] - was["gc_s"]) * 1000
            costs[kind]["pool_wait_ms"] += (now["pool_wait_s"] - was["pool_wait_s"]) * 1000
            costs[kind]["db_cpu_ms"] += sum(s - was_db.get(pid, 0.0) for pid, s in now_db.items()) * 1000

        async def answer_round(measured: bool) -> list[tuple[str, float, float, float]]:
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

        async def timed_round(kind: str, url: str, measured: bool) -> list[tuple[str, float, float, float]]:
            before = await snapshot()
            timed = await asyncio.gather(*[_timed_stream(client, url) for _ in range(streams)])
            if measured:
                add(kind, before, await snapshot())
            return timed

        async def trivial_round(measured: bool) -> list[tuple[str, float, float, float]]:
            return await timed_round("trivial SSE", "/bench/trivial-sse", measured)

        async def guarded_round(measured: bool) -> list[tuple[str, float, float, float]]:
            return await timed_round("guarded SSE", f"/bench/patients/{BENCH_PATIENT}/guarded-sse", measured)

        kinds = (
            ("answer stream", answer_round),
            ("guarded SSE", guarded_round),
            ("trivial SSE", trivial_round),
        )
        for _, fn in kinds:  # warm-up: connections, pools, caches
            await fn(False)
        await client.get("/bench/traces")  # the warm-up's marks: dropped
        with progress() as bar:
            task = bar.add_task("rounds", total=rounds * len(kinds))
            for _ in range(rounds):
                for name, fn in kinds:
                    timed = await fn(True)
                    marks = dict((await client.get("/bench/traces")).json())
                    for stream_id, started, first, done in timed:
                        measured.first[name].append((first - started) * 1000)
                        measured.done[name].append((done - started) * 1000)
                        measured.steps[name].append(_phases(started, first, marks.get(stream_id, {})))
                    bar.advance(task)
        await _one_at_a_time(client, streams * 2, measured)
    for cost in costs.values():
        for c in cost:
            cost[c] /= streams * rounds
    return measured


async def _one_at_a_time(client: httpx.AsyncClient, count: int, measured: Measured) -> None:
    """`count` streams of each kind, one at a time (kinds alternated), after the rounds: with
    nothing else in flight, the server's CPU between a request's arrival and its first event,
    and after it, is that stream's own (`Tracer.take_cpu`). An answer's POST comes before and
    is not counted; neither is uvicorn's parsing of a request, before the app gets it."""
    urls = {
        "guarded SSE": f"/bench/patients/{BENCH_PATIENT}/guarded-sse",
        "trivial SSE": "/bench/trivial-sse",
    }
    await client.get("/bench/cpu")  # the rounds' requests: dropped
    for _ in range(count):
        for kind in KINDS:
            url = urls.get(kind)
            if url is None:
                posted = await client.post(f"/api/patients/{BENCH_PATIENT}/messages", json={"question": "q"})
                url = posted.json()["events_url"]
            stream_id, *_ = await _timed_stream(client, url)
            while True:  # its request ends on the server after the client has read "done"
                found = [(b, a) for sid, b, a in (await client.get("/bench/cpu")).json() if sid == stream_id]
                if found:
                    measured.split[kind] += found
                    break
                await asyncio.sleep(0.002)


def run_bench(settings: Settings, *, streams: int, rounds: int, dedicated: bool = True) -> None:
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
    load_before = load_average()
    db = open_database(bench_settings, database_name=name)
    try:
        migrate.upgrade(db)
        token = _seed(db)
        port = _free_port()
        server = multiprocessing.get_context("spawn").Process(
            target=_serve, args=(bench_settings.model_dump(mode="json"), name, port, dedicated), daemon=True
        )
        server.start()
        try:
            base = f"http://127.0.0.1:{port}"
            wait_until_up(base, server)
            measured = asyncio.run(_measure(base, token, streams, rounds, lambda: _backends_cpu(db)))
        finally:
            server.terminate()
            server.join(30)
        with db.admin.connect() as conn:
            runs = conn.execute(text("SELECT count(*) FROM messages WHERE status = 'done'")).scalar_one()
    finally:
        db.dispose()
        if db.embedded is not None:
            drop_database(db.embedded, name)
    report(measured, streams=streams, rounds=rounds, runs=runs, load_before=load_before)


def _backends_cpu(db: Database) -> dict[int, float]:
    """CPU seconds so far of every backend connected to the bench database, by pid (Linux /proc;
    empty elsewhere, and then the database column reads 0)."""
    with db.admin.connect() as conn:
        pids = conn.execute(
            text("SELECT pid FROM pg_stat_activity WHERE datname = current_database()")
        ).scalars()
        found = {pid: process_cpu(pid) for pid in pids}
    return {pid: seconds for pid, seconds in found.items() if seconds is not None}
