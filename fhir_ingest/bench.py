"""`chartside bench ingest`: ingestion throughput next to the cost of merely parsing the JSON.

Machines here are noisy, so absolute numbers mean little; the ratio between a full ingest
and an orjson parse of the same bytes is what to compare across changes. Every round loads
into an empty scratch database (created for the benchmark and dropped afterwards), so the
user's data is never touched and every round does the same work.

Both sides are measured the same way, in the same process and the same moments: each round
parses the bytes, ingests them, and parses them again, and its ratio is the ingest against the
mean of the two parses around it. The figure reported is the median of the rounds' ratios
(wall and CPU time alike), after a warm-up round that is not counted. Before round seven each
side was the best of its own rounds: the two minima then came from different moments, and
the core's speed drifts on a shared machine (the CPU time of the same parse moved up to 2×
between runs), so the ratio swung with whichever side had the luckier round. The parse-only
pass stays a plain orjson parse of the same bytes, under the same conditions as the
ingest's parse (cyclic GC paused).
"""

from __future__ import annotations

import os
import resource
import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import orjson
import psycopg
from sqlalchemy.engine import make_url

from fhir_ingest.loader import ingest_paths
from fhir_ingest.parallel import default_workers
from fhir_ingest.prepare import gc_paused
from fhir_ingest.report import IngestReport
from fhir_ingest.source import discover, support_rank
from records import migrate
from records.cluster import Cluster
from records.database import Database, normalise_url
from records.embedded import drop_database, ensure_database, start_embedded
from records.models import Base
from records.settings import Settings


@dataclass(frozen=True)
class Round:
    """One measured round: the ingest and, right before and right after it, the parse-only pass
    over the same bytes. On a shared machine the speed of a core drifts (other processes on the
    other core share its caches and memory bandwidth, the host moves its clock), so a parse
    measured minutes away from the ingest, or the best of each taken from different rounds,
    compares two different machines; the parses bracketing the ingest see the one it saw."""

    parse_seconds: float  # the mean of the two parse-only passes around the ingest (wall)
    parse_cpu_seconds: float  # the same, CPU time of the parsing thread
    ingest_seconds: float
    process_cpu_seconds: float  # this process's threads and its worker processes
    server_cpu_seconds: float | None
    report: IngestReport

    @property
    def ratio(self) -> float:
        return self.ingest_seconds / self.parse_seconds if self.parse_seconds else float("inf")

    @property
    def cpu_ratio(self) -> float:
        return self.process_cpu_seconds / self.parse_cpu_seconds if self.parse_cpu_seconds else float("inf")


@dataclass
class BenchResult:
    """The figures of the median round (by its ingest / parse ratio), and every round's."""

    files: int
    patients: int
    resources: int
    bytes: int
    rounds: int
    parse_seconds: float  # the median round's parse-only pass (orjson.loads of every file)
    ingest_seconds: float  # the median round's full ingest into an empty database
    unchanged_seconds: float  # median second pass over the same files (checksums only)
    workers: int = 0  # worker processes the ingest used (0: one process, with a writer thread)
    one_process_seconds: float | None = None  # median of the same ingest with `workers=0`, alternated
    one_process_ratio: float | None = None  # median of each one-process ingest / its round's parse
    phases: dict[str, float] = field(default_factory=dict)  # of the median round
    phase_cpu: dict[str, float] = field(default_factory=dict)  # the same phases' CPU time
    validation_seconds: float | None = None
    failures: list[str] = field(default_factory=list)
    # CPU time (median round), steadier than wall time on a shared machine: what the ingest
    # would take on idle cores. Parse: the orjson pass; process: all of this process's
    # threads and its worker processes during the ingest; server: the database backend that
    # wrote (None off Linux).
    parse_cpu_seconds: float = 0.0
    process_cpu_seconds: float = 0.0
    server_cpu_seconds: float | None = None
    all_rounds: list[Round] = field(default_factory=list)

    @property
    def ratio(self) -> float:
        """Median over the rounds of ingest / parse, each against its own round's parse."""
        return _median([r.ratio for r in self.all_rounds]) if self.all_rounds else float("inf")

    @property
    def cpu_ratio(self) -> float:
        """Median over the rounds of ingest CPU / parse CPU, paired like `ratio`."""
        return _median([r.cpu_ratio for r in self.all_rounds]) if self.all_rounds else float("inf")

    @property
    def best_ratio(self) -> float:
        """Fastest ingest over fastest parse, each the best of all rounds (the pre-round-seven figure)."""
        if not self.all_rounds:
            return float("inf")
        return min(r.ingest_seconds for r in self.all_rounds) / min(r.parse_seconds for r in self.all_rounds)

    def spread(self) -> tuple[float, float]:
        """(lowest, highest) paired round ratio."""
        ratios = [r.ratio for r in self.all_rounds]
        return (min(ratios), max(ratios)) if ratios else (float("inf"), float("inf"))

    def per_second(self, seconds: float) -> dict[str, float]:
        return {
            "resources": self.resources / seconds if seconds else 0.0,
            "patients": self.patients / seconds if seconds else 0.0,
            "mb": self.bytes / 1e6 / seconds if seconds else 0.0,
        }


def _median(values: list[float]) -> float:
    """The middle value; of an even count, the lower middle one (always a measured round)."""
    return statistics.median_low(values)


@contextmanager
def scratch_database(settings: Settings, cluster: Cluster | None = None) -> Iterator[Database]:
    """A new, migrated database on the configured server (or on every node of the local Citus
    `cluster`, where the migration also distributes it); dropped afterwards."""
    name = f"chartside_bench_{os.getpid()}"
    password = settings.app_db_password.get_secret_value()
    if cluster is not None:
        cluster.drop_database(name)
        admin = make_url(normalise_url(cluster.prepare_database(name)))
        app_url = admin.set(username=settings.app_db_role, password=password)
        db = Database(
            settings=settings,
            admin_url=admin.render_as_string(hide_password=False),
            app_url=app_url.render_as_string(hide_password=False),
        )
        drop = lambda: cluster.drop_database(name)  # noqa: E731
    elif settings.database_url:
        admin = make_url(normalise_url(settings.database_url))
        maintenance = admin.set(drivername="postgresql").render_as_string(hide_password=False)
        with psycopg.connect(maintenance, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
            conn.execute(f'CREATE DATABASE "{name}"')
        admin_url = admin.set(database=name).render_as_string(hide_password=False)
        app_url = admin.set(database=name, username=settings.app_db_role, password=password).render_as_string(
            hide_password=False
        )
        db = Database(settings=settings, admin_url=admin_url, app_url=app_url)
        drop = lambda: _drop_external(maintenance, name)  # noqa: E731
    else:
        server = start_embedded(settings.resolved_data_dir())
        ensure_database(server, name)
        db = Database(
            settings=settings,
            admin_url=server.uri(name),
            app_url=server.uri(name, user=settings.app_db_role, password=password),
            embedded=server,
        )
        drop = lambda: drop_database(server, name)  # noqa: E731
    try:
        migrate.upgrade(db)
        yield db
    finally:
        db.dispose()
        drop()


def _drop_external(maintenance_url: str, name: str) -> None:
    with psycopg.connect(maintenance_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _empty(db: Database) -> None:
    names = ", ".join(f'"{t.name}"' for t in Base.metadata.sorted_tables)
    with db.admin.begin() as conn:
        conn.connection.driver_connection.execute(f"TRUNCATE {names} RESTART IDENTITY CASCADE")


def _parse_only(blobs: list[bytes]) -> tuple[float, float]:
    """(wall, CPU) seconds to orjson-parse every blob, each parse timed alone (its result freed
    inside the timing, as the ingest frees its bundles). CPU is this thread's only
    (`thread_time`): no other thread of the process can add to it."""
    total = cpu = 0.0
    for blob in blobs:
        with gc_paused():
            started, cpu_started = time.perf_counter(), time.thread_time()
            orjson.loads(blob)
            total += time.perf_counter() - started
            cpu += time.thread_time() - cpu_started
    return total, cpu


def _backends_cpu(db: Database) -> dict[int, float]:
    """CPU seconds so far of every backend connected to the scratch database (Linux, local server)."""
    with db.admin.connect() as conn:
        cur = conn.connection.driver_connection.cursor()
        cur.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database()")
        pids = [pid for (pid,) in cur.fetchall()]
    found = {pid: _cpu_of(pid) for pid in pids}
    return {pid: seconds for pid, seconds in found.items() if seconds is not None}


def _server_cpu(before: dict[int, float], after: dict[int, float]) -> float | None:
    """CPU the database spent between two snapshots (a backend that is new started at 0)."""
    if not after:
        return None
    return sum(seconds - before.get(pid, 0.0) for pid, seconds in after.items())


def _cpu_of(pid: int | None) -> float | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return None


def _own_cpu() -> float:
    """CPU seconds of this process (all threads) and of its children that have exited."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def run_benchmark(
    settings: Settings,
    paths: list[Path],
    *,
    rounds: int = 5,
    validate: bool = False,
    workers: int | None = None,
    compare_one_process: bool = True,
    cluster: Cluster | None = None,
    warmup: bool = True,
) -> BenchResult:
    """`rounds` paired rounds (parse, ingest, parse), after one warm-up round that is not counted
    (`warmup`: the first round pays first-touch page faults and the database's cold caches).

    `workers`: as `ingest_paths` takes it (None: its default). Unless that is 0 or
    `compare_one_process` is off, each round also ingests with `workers=0`, alternating.
    The parse-only pass reads the files once (as the ingest does, outside its own timing) and
    parses the same bytes in every round.
    """
    files, _ = discover(paths)
    if not files:
        raise FileNotFoundError("no .json bundles under " + ", ".join(map(str, paths)))
    if workers is None:
        workers = default_workers(sum(1 for f in files if support_rank(f) >= 2))
    blobs = [p.read_bytes() for p in files]
    measured: list[Round] = []
    one_process: list[tuple[float, float]] = []  # (seconds, its round's parse seconds)
    unchanged_times: list[float] = []
    validation = None
    with scratch_database(settings, cluster) as db:
        if warmup:
            _empty(db)
            _parse_only(blobs)
            ingest_paths(db, files, workers=workers)
        for _ in range(rounds):
            _empty(db)
            before_wall, before_cpu = _parse_only(blobs)
            server_before = _backends_cpu(db)
            cpu_before = _own_cpu()
            report = ingest_paths(db, files, workers=workers)
            process_cpu = _own_cpu() - cpu_before
            server = _server_cpu(server_before, _backends_cpu(db))
            after_wall, after_cpu = _parse_only(blobs)
            measured.append(
                Round(
                    parse_seconds=(before_wall + after_wall) / 2,
                    parse_cpu_seconds=(before_cpu + after_cpu) / 2,
                    ingest_seconds=report.seconds,
                    process_cpu_seconds=process_cpu,
                    server_cpu_seconds=server,
                    report=report,
                )
            )
            unchanged_times.append(ingest_paths(db, files, workers=workers).seconds)
            if workers and compare_one_process:
                _empty(db)
                seconds = ingest_paths(db, files, workers=0).seconds
                one_process.append((seconds, measured[-1].parse_seconds))
        if validate:
            _empty(db)
            validation = ingest_paths(db, files, validate=True).validation_seconds
    middle = _median([r.ratio for r in measured])
    median_round = next(r for r in measured if r.ratio == middle)
    written = median_round.report.written()
    return BenchResult(
        files=len(files),
        patients=sum(1 for f in written if f.kind == "patient"),
        resources=sum(f.resources for f in written),
        bytes=sum(f.size_bytes for f in median_round.report.files),
        rounds=rounds,
        parse_seconds=median_round.parse_seconds,
        ingest_seconds=median_round.ingest_seconds,
        workers=workers,
        one_process_seconds=_median([s for s, _ in one_process]) if one_process else None,
        one_process_ratio=_median([s / p for s, p in one_process if p]) if one_process else None,
        unchanged_seconds=_median(unchanged_times),
        phases=median_round.report.phase_seconds(),
        phase_cpu=median_round.report.phase_cpu_seconds(),
        validation_seconds=validation,
        failures=[f.error or str(f.path) for f in median_round.report.failures],
        parse_cpu_seconds=median_round.parse_cpu_seconds,
        process_cpu_seconds=median_round.process_cpu_seconds,
        server_cpu_seconds=median_round.server_cpu_seconds,
        all_rounds=measured,
    )
