"""`chartside bench tools`: per-tool latency against a bare `SELECT 1`, at two population sizes.

Two databases on the same server (default 100 and 1,000 patients) are filled once with
`tools.bench_population` and reused. Every tool is called through `Registry.execute`, the
whole path the agent uses (validation, patient-scoped transaction on the application role,
row-level security, audit row), for random patients, alternating between the two
databases so both see the same machine noise. A bare `SELECT 1` round trip on the same
application-role pool is measured in the same loop; every figure is also given as a ratio
to it, and the last column is p95(large) / p95(small): close to 1 means latency does not
grow with the population.

`--cluster` compares a single node with the local Citus cluster instead (`chartside cluster
up`; a coordinator + workers on this machine): the same population (`--large` patients, same
seed) on the embedded server and distributed on the cluster, alternating call by call; the
last column is then p95(cluster) / p95(single node).
"""

from __future__ import annotations

import random
import statistics
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass

import typer
from rich.table import Table
from sqlalchemy import Engine, text

from chartside.console import console, progress
from records import migrate
from records.database import Database, open_database
from records.scheduling import generate_slots
from records.settings import get_settings
from tools.bench_population import fill, fill_reference, patient_ids, populated_count
from tools.catalog import build_registry
from tools.registry import Registry, ToolContext
from tools.scope import PatientScope

CALLS: list[tuple[str, str, dict]] = [
    ("get_patient_profile", "", {}),
    ("get_conditions", "active", {"status": "active"}),
    ("get_medications", "active", {"status": "active"}),
    ("get_medications", "query", {"status": "all", "query": "metformin"}),
    ("get_labs", "A1C latest", {"query": "A1C", "latest_only": True}),
    ("get_labs", "BP trend", {"query": "BP", "limit": 20}),
    ("get_labs", "all latest", {"latest_only": True, "limit": 50}),
    ("get_allergies", "", {}),
    ("get_encounters", "", {"limit": 10}),
    ("get_immunizations", "", {}),
    ("get_procedures", "", {}),
    ("get_care_plans", "", {}),
    ("find_slots", "GP", {"specialty_or_department": "general practice", "limit": 8}),
    ("list_appointments", "", {}),
]


@dataclass
class Population:
    label: str
    db: Database
    patients: list[str]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _prepare(name: str, patients: int, seed: int, on_cluster: bool = False, where: str = "") -> Population:
    settings = get_settings()
    if on_cluster:  # the same database name, created on every node of the local cluster
        from records.cluster import default_cluster

        url = default_cluster(settings.resolved_data_dir()).prepare_database(name)
        settings = settings.model_copy(update={"database_url": url, "app_database_url": None})
    db = open_database(settings, database_name=name)
    migrate.upgrade(db)  # distributes the schema on the cluster
    missing = patients - populated_count(db)
    if missing > 0:
        with progress() as bar:
            task = bar.add_task(f"filling {name}", total=missing)
            fill(db, patients, seed, on_patient=lambda: bar.advance(task))
    fill_reference(db)
    slots = generate_slots(db, days=28, seed=seed)
    if missing > 0 or slots.slots_added:
        # fresh rows: time the plans their statistics give, as autovacuum's ANALYZE would a while
        # later (a first run planned the free slots as a bitmap scan over every free slot)
        with db.admin.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.execute(text("ANALYZE"))
    label = f"{patients:,} {where}".strip()
    return Population(label=label, db=db, patients=list(patient_ids(patients)))


def bare_round_trip(engine: Engine) -> None:
    """The baseline: `SELECT 1` on the pool the tools use, in a transaction that COMMITs.

    Not `engine.connect()` alone: leaving that block rolls back, and psycopg deallocates every
    prepared statement of a connection on ROLLBACK, so each baseline call made the next tool
    call on that pooled connection plan its statements again — a cost the product does not pay
    (tool transactions commit) and that fell hardest on the tool with the costliest plans
    (`find_slots`: ~0.6 ms of planning for ~0.3 ms of work)."""
    with engine.begin() as conn:
        conn.execute(text("SELECT 1")).scalar_one()


def flushed_commit(engine: Engine) -> int:
    """A second baseline: the same round trips as `bare_round_trip`, but the transaction takes
    a transaction id, so its COMMIT writes a commit record and waits for the WAL to reach the
    disk — as every tool call's does (its audit row). `SELECT 1` never waits for a disk flush;
    on this project's virtual machines a flush takes ~0.3 ms at times and exactly 4 or 8 ms
    at others (the disk completes flushes on a 4 ms grid; `fdatasync` in a loop shows it), and
    in those spells every tool's ratio to `SELECT 1` is inflated by it. This row shows which
    spell a run measured. Returns the transaction id it committed."""
    with engine.begin() as conn:
        return int(conn.execute(text("SELECT pg_current_xact_id()::text")).scalar_one())


FLUSHED: dict = {}  # `rows` marker: time `flushed_commit`


def _timed(fn: Callable[[], object]) -> float:
    started = time.perf_counter()
    fn()
    return (time.perf_counter() - started) * 1000


def bench_tools_command(
    small: int = typer.Option(100, "--small", help="Patients in the small population."),
    large: int = typer.Option(
        1000, "--large", help="Patients in the large population (≥ 1,000 for the report)."
    ),
    calls: int = typer.Option(200, "--calls", help="Timed calls per tool and population."),
    seed: int = typer.Option(11, "--seed", help="Population and sampling seed."),
    cluster: bool = typer.Option(
        False, "--cluster", help="Single node vs the local Citus cluster, both with --large patients."
    ),
) -> None:
    """p50/p95 of every tool vs a bare SELECT 1, on a small and a large population."""
    if cluster:
        pops = [
            _prepare(f"chartside_bench_{large}", large, seed, where="1 node"),
            _prepare(f"chartside_bench_{large}", large, seed, on_cluster=True, where="cluster"),
        ]
    else:
        pops = [_prepare(f"chartside_bench_{n}", n, seed) for n in (small, large)]
    registry: Registry = build_registry()
    rng = random.Random(seed)

    def ctx(pop: Population) -> ToolContext:
        scope = PatientScope(
            patient_id=rng.choice(pop.patients),
            role="clinician",
            actor="bench",
            conversation_id=f"bench-{uuid.uuid4().hex[:8]}",
        )
        return ToolContext(scope=scope, db=pop.db)

    def select_one(pop: Population) -> None:
        bare_round_trip(pop.db.app)

    timings: dict[tuple[str, str], list[float]] = {}
    rows = [("SELECT 1", "", None), ("COMMIT with WAL flush", "", FLUSHED), *CALLS]
    try:
        for pop in pops:  # warm pools and caches
            for _ in range(20):
                select_one(pop)
            for name, _label, args in CALLS:
                registry.execute(ctx(pop), name, args)
        with progress() as bar:
            task = bar.add_task("timing", total=calls * len(rows) * len(pops))
            for _ in range(calls):
                for name, label, args in rows:
                    for pop in pops:
                        if args is None:
                            ms = _timed(lambda pop=pop: select_one(pop))
                        elif args is FLUSHED:
                            ms = _timed(lambda pop=pop: flushed_commit(pop.db.app))
                        else:
                            ms = _timed(
                                lambda pop=pop, name=name, args=args: registry.execute(ctx(pop), name, args)
                            )
                        timings.setdefault((f"{name} {label}".strip(), pop.label), []).append(ms)
                        bar.advance(task)
    finally:
        for pop in pops:
            pop.db.dispose()

    small_label, large_label = pops[0].label, pops[1].label
    base = {p.label: timings[("SELECT 1", p.label)] for p in pops}
    base50 = {k: statistics.median(v) for k, v in base.items()}
    base95 = {k: percentile(v, 0.95) for k, v in base.items()}
    table = Table(
        "tool",
        f"p50 ms ({small_label})",
        f"p95 ms ({small_label})",
        f"p50 ms ({large_label})",
        f"p95 ms ({large_label})",
        "p50 / SELECT 1",
        "p95 / SELECT 1",
        f"p50 {large_label} / {small_label}",
        f"p95 {large_label} / {small_label}",
        title=f"chartside bench tools — {calls} calls per tool and population",
    )
    for name, label, _args in rows:
        key = f"{name} {label}".strip()
        s, big = timings[(key, small_label)], timings[(key, large_label)]
        s50, s95, l50, l95 = (
            statistics.median(s),
            percentile(s, 0.95),
            statistics.median(big),
            percentile(big, 0.95),
        )
        table.add_row(
            key,
            f"{s50:.2f}",
            f"{s95:.2f}",
            f"{l50:.2f}",
            f"{l95:.2f}",
            f"{l50 / base50[large_label]:.1f}×",
            f"{l95 / base95[large_label]:.1f}×",
            f"{l50 / s50:.2f}",
            f"{l95 / s95:.2f}",
        )
    console.print(table)
    console.print(
        f"Ratios to SELECT 1 are for the {large_label} population; every tool call includes validation and "
        "its audit row (written in the same transaction, whose COMMIT waits for a WAL flush: "
        "'COMMIT with WAL flush' is that wait alone; at ~4 / 8 ms the disk is in its slow-flush spell "
        "and every ratio here is inflated by it)."
    )
