"""`chartside bench mcp`: what MCP adds to a tool call, per transport, measured side by side.

The same tool calls for the same patient are made four ways, interleaved call by call so
every way sees the same machine noise:

* direct — `Registry.execute` in a worker thread, as the agent runs its tools;
* in-process — the MCP server through the SDK's client over memory streams (protocol,
  serialisation and the server's own work, no transport);
* stdio — a real `chartside mcp --patient …` subprocess, one session for the whole run;
* HTTP — `/mcp` in the real web app (token check, patient binding, rate limit, the SDK's
  session manager) on a loopback port, one session for the whole run.

Every figure is also given as a ratio to the direct call. The population is the one
`chartside bench tools` uses (`tools.bench_population`), in its own database.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
import uuid
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from typing import Any

import anyio
import anyio.to_thread
from rich.table import Table

from chartside.console import console, progress
from records import migrate
from records.database import Database, open_database
from records.scheduling import generate_slots
from records.settings import Settings, get_settings
from tools.registry import Registry, ToolContext
from tools.scope import PatientScope

DATABASE = "chartside_bench_mcp"
BENCH_ACCOUNT = "bench-mcp-clinician"

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("get_patient_profile", {}),
    ("get_conditions", {"status": "active"}),
    ("get_labs", {"query": "A1C", "latest_only": True}),
    ("find_slots", {"specialty_or_department": "general practice", "limit": 8}),
]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def prepare(settings: Settings, patients: int, seed: int) -> tuple[Database, str, str]:
    """The bench database, one patient id, and a fresh API token of a clinician who sees it."""
    from records.accounts import AccountError, create_account, issue_token
    from tools.bench_population import fill, fill_reference, patient_ids

    db = open_database(settings, database_name=DATABASE)
    migrate.upgrade(db)
    fill(db, patients, seed)
    fill_reference(db)
    generate_slots(db, days=28, seed=seed)
    patient = next(iter(patient_ids(patients)))
    try:
        _, token = create_account(
            db, username=BENCH_ACCOUNT, role="clinician", patients=[patient], with_token=True
        )
    except AccountError:  # made by an earlier run
        token = issue_token(db, BENCH_ACCOUNT)
    assert token is not None
    return db, patient, token


async def timed(call: Callable[[], Awaitable[Any]]) -> float:
    started = time.perf_counter()
    await call()
    return (time.perf_counter() - started) * 1000


async def run_bench(
    settings: Settings, calls: int, patients: int, seed: int
) -> dict[str, dict[str, list[float]]]:
    from mcp import Client, ClientSession, StdioServerParameters, stdio_client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    from mcp_server.catalog import load_registry
    from mcp_server.stdio import bind_stdio, build_stdio_server
    from server.app import create_app
    from server.live import LiveServer

    db, patient, token = await anyio.to_thread.run_sync(prepare, settings, patients, seed)
    registry: Registry = load_registry()
    scope = PatientScope(
        patient_id=patient, role="clinician", actor="bench-mcp", conversation_id=f"bench-{uuid.uuid4().hex}"
    )

    async def direct(name: str, args: dict[str, Any]) -> None:
        await anyio.to_thread.run_sync(registry.execute, ToolContext(scope=scope, db=db), name, args)

    # the web app's per-account rate limit covers /mcp; lifted here so it measures latency only
    live = LiveServer(create_app(settings.model_copy(update={"api_rate_per_minute": 10**9}), db=db))
    try:
        async with AsyncExitStack() as stack:
            binding = bind_stdio(db, patient, "clinician", actor="bench-mcp")
            in_process = await stack.enter_async_context(
                Client(build_stdio_server(registry, db, binding), mode="legacy")
            )
            env = {
                "CHARTSIDE_DATA_DIR": str(settings.resolved_data_dir()),
                "CHARTSIDE_DATABASE_NAME": DATABASE,
                **({"DATABASE_URL": settings.database_url} if settings.database_url else {}),
            }
            params = StdioServerParameters(
                command=sys.executable,
                args=["-m", "chartside", "mcp", "--patient", patient, "--role", "clinician"],
                env=env,
                cwd=os.getcwd(),
            )
            read, write = await stack.enter_async_context(stdio_client(params))
            stdio = await stack.enter_async_context(ClientSession(read, write))
            await stdio.initialize()
            live.__enter__()
            http_client = await stack.enter_async_context(
                create_mcp_http_client(
                    headers={"Authorization": f"Bearer {token}", "X-Chartside-Patient": patient}
                )
            )
            http = await stack.enter_async_context(
                Client(streamable_http_client(f"{live.url}/mcp", http_client=http_client))
            )
            ways: dict[str, Callable[[str, dict[str, Any]], Awaitable[Any]]] = {
                "direct": direct,
                "in-process": in_process.call_tool,
                "stdio": stdio.call_tool,
                "HTTP /mcp": http.call_tool,
            }
            for call in ways.values():  # warm pools, caches, sessions
                for name, args in CALLS:
                    for _ in range(3):
                        await call(name, args)
            timings: dict[str, dict[str, list[float]]] = {way: {} for way in ways}
            with progress() as bar:
                task = bar.add_task("timing", total=calls * len(CALLS) * len(ways))
                for _ in range(calls):
                    for name, args in CALLS:
                        for way, call in ways.items():
                            ms = await timed(lambda call=call, name=name, args=args: call(name, args))
                            timings[way].setdefault(name, []).append(ms)
                            bar.advance(task)
    finally:
        live.__exit__(None, None, None)
        db.dispose()
    return timings


def bench_mcp_command(calls: int = 200, patients: int = 100, seed: int = 11) -> None:
    """Per-call latency of MCP over each transport vs calling the registry directly."""
    settings = get_settings()
    timings = anyio.run(run_bench, settings, calls, patients, seed)
    direct = timings["direct"]
    table = Table(
        "transport",
        "tool",
        "p50 ms",
        "p95 ms",
        "p50 / direct",
        "p95 / direct",
        "p50 − direct",
        title=f"chartside bench mcp — {calls} calls per tool and transport, one patient of {patients}",
    )
    for way, by_tool in timings.items():
        for name, values in by_tool.items():
            d50, d95 = statistics.median(direct[name]), percentile(direct[name], 0.95)
            p50, p95 = statistics.median(values), percentile(values, 0.95)
            table.add_row(
                way,
                name,
                f"{p50:.2f}",
                f"{p95:.2f}",
                f"{p50 / d50:.2f}×",
                f"{p95 / d95:.2f}×",
                f"{p50 - d50:+.2f}",
            )
        table.add_section()
    console.print(table)
    console.print(
        "direct = Registry.execute in a worker thread (as the agent calls tools); in-process = the MCP "
        "server over memory streams; stdio = a `chartside mcp` subprocess; HTTP /mcp = the web app, "
        "whose every request re-checks the token, the patient binding and the rate limit. Every call "
        "runs the full tool path (validation, patient-scoped transaction, audit row)."
    )
