"""What `chartside bench serve` prints: latencies and their ratios, each step to the first
event (`server.trace`, where the slow streams spent their time), and what a stream costs."""

from __future__ import annotations

import os
import statistics
from dataclasses import dataclass

from rich.table import Table

from chartside.console import console
from tools.bench import percentile as pct

COSTS = ("statements", "server_cpu_ms", "db_cpu_ms", "stall_ms", "gc_ms", "pool_wait_ms")
SLOWEST = 0.05  # the share of streams whose steps are shown apart: where the p95 comes from


@dataclass
class Measured:
    """Per endpoint: first-event and done latencies (ms), each stream's steps to its first
    event (`server.bench._phases`), what its streams cost (`COSTS`, per stream over the
    measured rounds), and the server CPU (ms) of streams served one at a time, to their
    first event and after it (`server.bench._one_at_a_time`)."""

    first: dict[str, list[float]]
    done: dict[str, list[float]]
    steps: dict[str, list[dict[str, float]]]
    costs: dict[str, dict[str, float]]
    split: dict[str, list[tuple[float, float]]]


def load_average() -> str:
    """The machine's load, printed with the ratios: under load both endpoints wait for a core."""
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except OSError:
        return "unknown"


def report(measured: Measured, *, streams: int, rounds: int, runs: int, load_before: str) -> None:
    console.print(_latencies(measured, streams, rounds))
    console.print(_steps(measured))
    console.print(_costs(measured, streams))
    console.print(_split(measured))
    ans, base = measured.done["answer stream"], measured.done["trivial SSE"]
    console.print(
        f"{len(ans)} answer streams ({runs} answered messages incl. warm-up), {len(base)} trivial streams; "
        f"mean done {statistics.fmean(ans):.2f} ms vs {statistics.fmean(base):.2f} ms"
    )
    console.print(
        f"load average (1 min) before: {load_before}, after: {load_average()} on {os.cpu_count()} cores"
    )


def _latencies(measured: Measured, streams: int, rounds: int) -> Table:
    table = Table(
        "endpoint",
        "first event p50 ms",
        "p95 ms",
        "done p50 ms",
        "p95 ms",
        title=f"SSE on loopback: {streams} concurrent streams × {rounds} rounds each",
    )
    for label in measured.first:
        first, done = measured.first[label], measured.done[label]
        table.add_row(label, *(f"{pct(v, q):.2f}" for v in (first, done) for q in (0.5, 0.95)))
    for against in ("trivial SSE", "guarded SSE"):
        cells = []
        for kind in (measured.first, measured.done):
            for q in (0.5, 0.95):
                cells.append(f"{pct(kind['answer stream'], q) / pct(kind[against], q):.2f}×")
        table.add_row(f"ratio answer / {against.split()[0]}", *cells)
    return table


def _steps(measured: Measured) -> Table:
    """Each step to the first event, p50 and p95 over all streams, and its mean over the
    slowest `SLOWEST` of streams (by first event): the step that grows there is the stall."""
    table = Table(
        "endpoint",
        "step to the first event",
        "streams",
        "p50 ms",
        "p95 ms",
        f"mean in slowest {SLOWEST:.0%}",
        title="Where the time to the first event goes (client and server share one monotonic clock)",
    )
    for label, steps in measured.steps.items():
        first = measured.first[label]
        cut = pct(first, 1 - SLOWEST)
        slow = [s for s, f in zip(steps, first, strict=True) if f >= cut]
        names = list(dict.fromkeys(name for s in steps for name in s))
        for name in names:
            values = [s[name] for s in steps if name in s]
            slow_values = [s[name] for s in slow if name in s]
            table.add_row(
                label,
                name,
                str(len(values)),
                f"{pct(values, 0.5):.2f}",
                f"{pct(values, 0.95):.2f}",
                f"{statistics.fmean(slow_values):.2f}" if slow_values else "—",
            )
        table.add_section()
    return table


def _costs(measured: Measured, streams: int) -> Table:
    table = Table(
        "per stream",
        "queries sent",
        "server CPU ms",
        "database CPU ms",
        "loop stalls ms / round",
        "GC ms / round",
        "pool wait ms / round",
        title="What each stream cost (measured rounds, server process and the bench database's backends)",
    )
    for label, cost in measured.costs.items():
        table.add_row(
            label,
            f"{cost['statements']:.1f}",
            f"{cost['server_cpu_ms']:.2f}",
            f"{cost['db_cpu_ms']:.2f}",
            f"{cost['stall_ms'] * streams:.2f}",
            f"{cost['gc_ms'] * streams:.2f}",
            f"{cost['pool_wait_ms'] * streams:.2f}",
        )
    return table


def _split(measured: Measured) -> Table:
    table = Table(
        "one stream at a time",
        "streams",
        "server CPU to the first event ms (p50)",
        "mean",
        "after it ms (p50)",
        "mean",
        title="Server CPU per stream before and after its first event (from the app getting the request to its end)",
    )
    for label, split in measured.split.items():
        if not split:
            continue
        before, after = [b for b, _ in split], [a for _, a in split]
        table.add_row(
            label,
            str(len(split)),
            f"{pct(before, 0.5):.2f}",
            f"{statistics.fmean(before):.2f}",
            f"{pct(after, 0.5):.2f}",
            f"{statistics.fmean(after):.2f}",
        )
    return table
