"""`chartside ingest PATH…` and `chartside bench ingest [PATH]`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import psycopg
import typer
from rich.table import Table
from sqlalchemy.exc import SQLAlchemyError

from chartside.console import console, err_console, fail, reporting
from fhir_ingest.report import IngestReport
from records import migrate
from records.database import Database, open_database
from records.settings import get_settings

DEFAULT_BENCH_PATH = Path("../shared/synthea-samples")
MAX_WARNINGS_SHOWN = 3

# Work that must follow an ingest in the same command (e.g. indexing the new notes for search).
# Packages that ingestion may not import add themselves here (see chartside/wiring.py).
AFTER_INGEST: list[Callable[[Database, IngestReport], None]] = []

_STATUS_STYLE = {"ingested": "green", "replaced": "cyan", "unchanged": "dim", "failed": "bold red"}


def ingest_command(
    paths: list[Path] = typer.Argument(
        ..., help="Bundle files or folders (searched recursively for *.json)."
    ),
    validate: bool = typer.Option(
        False, "--validate", help="Also validate every bundle with fhir.resources (FHIR R4B); slower."
    ),
    force: bool = typer.Option(
        False, "--force", help="Re-ingest files even when their checksum is unchanged."
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Totals only, no per-file table."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON on stdout (no table)."),
    workers: int | None = typer.Option(
        None,
        "--workers",
        min=0,
        help="Worker processes that read, parse and map patient bundles (default: one per core, at most 4; "
        "0: one process).",
        show_default=False,
    ),
) -> None:
    """Load Synthea FHIR bundles: support bundles first, one transaction per bundle."""
    from fhir_ingest.loader import ingest_paths

    db = open_database(get_settings())
    try:
        migrate.upgrade(db)
        with reporting("ingesting") as report_progress:
            report = ingest_paths(
                db,
                paths,
                validate=validate,
                force=force,
                progress=None if as_json else report_progress,
                workers=workers,
            )
        for step in AFTER_INGEST:
            step(db, report)
    except (SQLAlchemyError, psycopg.Error) as exc:
        raise fail(f"database error: {str(getattr(exc, 'orig', None) or exc).splitlines()[0]}") from None
    finally:
        db.dispose()
    if not report.files:
        raise fail("no .json files found under " + ", ".join(map(str, paths)))
    if as_json:
        console.print_json(data=report.to_dict())
        raise typer.Exit(0 if report.ok else 1)
    if not quiet:
        console.print(summary_table(report))
        print_details(report)
    console.print(totals_line(report))
    if not report.ok:
        raise typer.Exit(1)


def summary_table(report: IngestReport) -> Table:
    """One row per file; support bundles show their kind where a patient would be."""
    table = Table(title="Ingested bundles", title_justify="left")
    # what the fixed columns and the borders leave, shared 3:2 by file name and patient name
    free = max(30, console.width - 20 - (9 + 7 + 6 + 4))
    table.add_column("file", no_wrap=True, overflow="ellipsis", max_width=free * 3 // 5)
    table.add_column("patient", no_wrap=True, overflow="ellipsis", max_width=free * 2 // 5)
    table.add_column("status", no_wrap=True, min_width=9)
    table.add_column("entries", justify="right", no_wrap=True, min_width=5)
    table.add_column("rows", justify="right", no_wrap=True, min_width=5)
    table.add_column("warn", justify="right", no_wrap=True, min_width=4)
    for f in report.files:
        style = _STATUS_STYLE.get(f.status, "")
        if f.kind == "patient":
            who = f.patient_name or f.patient_id or "—"
        else:
            who = f"[dim]{f.kind}s[/]"  # a support bundle: hospitals | practitioners
        table.add_row(
            f.path.name,
            who,
            f"[{style}]{f.status}[/]",
            f"{f.resources:,}" if f.resources else "—",
            f"{f.rows:,}" if f.rows else "—",
            f"[yellow]{len(f.warnings)}[/]" if f.warnings else "0",
        )
    return table


def print_details(report: IngestReport) -> None:
    """Errors in full, and the first warnings of each file (all are stored in source_files)."""
    for f in report.files:
        if f.warnings and f.status != "unchanged":
            console.print(f"[yellow]warnings[/] {f.path.name}:")
            for warning in f.warnings[:MAX_WARNINGS_SHOWN]:
                console.print(f"  - {warning}", soft_wrap=True)
            if len(f.warnings) > MAX_WARNINGS_SHOWN:
                console.print(f"  … and {len(f.warnings) - MAX_WARNINGS_SHOWN} more (source_files.warnings)")
    for f in report.failures:
        err_console.print(f"[bold red]failed[/] {f.error}", soft_wrap=True)


def totals_line(report: IngestReport) -> str:
    statuses = ", ".join(f"{n} {s}" for s, n in report.by_status().items())
    rows = sum(report.rows_by_table().values())
    rate = report.resources_written / report.seconds if report.seconds else 0.0
    line = (
        f"[bold]{len(report.files)} files[/]: {statuses}. Written: {report.patients_written} patients, "
        f"{report.resources_written:,} resources → {rows:,} rows in {report.seconds:.2f} s ({rate:,.0f} resources/s)"
    )
    skipped = report.skipped_by_type()
    if skipped:
        line += f"; not stored (no table): {sum(skipped.values()):,} ({', '.join(sorted(skipped))})"
    if report.validated:
        share = report.validation_seconds / report.seconds * 100 if report.seconds else 0.0
        line += f"; FHIR R4B validation took {report.validation_seconds:.2f} s ({share:.0f}% of the run)"
    if report.warnings:
        line += f"; {report.warnings} warnings"
    return line


def bench_ingest_command(
    path: Path = typer.Argument(
        None, help="Folder or files of Synthea bundles (default: ../shared/synthea-samples)."
    ),
    rounds: int = typer.Option(
        5,
        "--rounds",
        min=1,
        help="Paired rounds (parse, ingest, parse) into an empty scratch database; the median is kept.",
    ),
    validate: bool = typer.Option(False, "--validate", help="Also measure fhir.resources R4B validation."),
    workers: int | None = typer.Option(
        None,
        "--workers",
        min=0,
        help="Worker processes for the ingest (default: as `chartside ingest`; 0: one process).",
        show_default=False,
    ),
    cluster: bool = typer.Option(
        False,
        "--cluster",
        help="Also ingest into the local Citus cluster (`chartside cluster up`) and compare.",
    ),
) -> None:
    """Ingest throughput vs. a plain orjson parse of the same files, measured side by side."""
    from fhir_ingest.bench import run_benchmark

    target = path or DEFAULT_BENCH_PATH
    if not target.exists():
        raise fail(f"{target} does not exist; pass a folder of Synthea bundles")
    if cluster:
        _bench_ingest_on_cluster(target, rounds)
        return
    try:
        result = run_benchmark(get_settings(), [target], rounds=rounds, validate=validate, workers=workers)
    except FileNotFoundError as exc:
        raise fail(str(exc)) from None
    if result.failures:
        for error in result.failures:
            err_console.print(f"[bold red]failed[/] {error}", soft_wrap=True)
    console.print(
        f"[bold]{target}[/]: {result.files} files, {result.patients} patients, {result.resources:,} resources, "
        f"{result.bytes / 1e6:.1f} MB; {result.rounds} paired rounds after a warm-up round, each into an "
        "empty scratch database: parse, ingest, parse again; the median round shown"
    )
    table = Table("measure", "seconds", "resources/s", "patients/s", "MB/s")
    how = f"{result.workers} worker processes" if result.workers else "one process"
    measures = [
        ("JSON parse only (orjson)", result.parse_seconds),
        (f"full ingest (read, checksum, parse, map, COPY; 1 txn/bundle; {how})", result.ingest_seconds),
        ("re-ingest unchanged files (checksum only)", result.unchanged_seconds),
    ]
    if result.one_process_seconds is not None:
        measures.insert(
            2, ("full ingest in one process (--workers 0; a writer thread)", result.one_process_seconds)
        )
    for label, seconds in measures:
        rate = result.per_second(seconds)
        table.add_row(
            label,
            f"{seconds:.3f}",
            f"{rate['resources']:,.0f}",
            f"{rate['patients']:,.1f}",
            f"{rate['mb']:,.1f}",
        )
    if result.validation_seconds is not None:
        rate = result.per_second(result.validation_seconds)
        table.add_row(
            "fhir.resources R4B validation alone",
            f"{result.validation_seconds:.3f}",
            f"{rate['resources']:,.0f}",
            f"{rate['patients']:,.1f}",
            f"{rate['mb']:,.1f}",
        )
    console.print(table)
    phases = ", ".join(f"{k} {v:.3f} s" for k, v in result.phases.items())
    if result.workers:
        overlap = f"read, parse and map in {result.workers} worker processes beside the writes"
    else:
        overlap = "the write overlapping the next bundle's read, parse and map"
    low, high = result.spread()
    console.print(
        f"ingest / parse-only ratio: [bold]{result.ratio:.1f}×[/]  (median of {result.rounds} paired rounds, "
        f"each ingest against the mean of the parses just before and after it; rounds {low:.1f}–{high:.1f}×; "
        f"best ingest / best parse {result.best_ratio:.1f}×)"
    )
    console.print(f"ingest phases summed over the bundles, {overlap}: {phases}")
    if result.phase_cpu:
        # wall time in a worker also counts its waits for a core; its CPU time does not
        cpu_phases = ", ".join(f"{k} {v:.3f} s" for k, v in result.phase_cpu.items())
        console.print(
            f"the same phases in CPU time: {cpu_phases}  (parse here against the parse-only "
            f"{result.parse_cpu_seconds:.3f} s; write: the writing thread only)"
        )
    if result.one_process_seconds is not None:
        console.print(
            f"one process / parse-only ratio: {result.one_process_ratio or 0:.1f}× (median, paired)  "
            f"(worker processes: {result.one_process_seconds / result.ingest_seconds:.2f}× faster)"
        )
    server = (
        f"; database server {result.server_cpu_seconds:.3f} s"
        if result.server_cpu_seconds is not None
        else ""
    )
    console.print(
        f"CPU time: ingest {result.process_cpu_seconds:.3f} s (all threads and workers) / parse {result.parse_cpu_seconds:.3f} s "
        f"(median round); median of the paired rounds' CPU ratios [bold]{result.cpu_ratio:.1f}×[/]{server}  "
        "(steadier than wall time on a busy machine)"
    )
    if result.validation_seconds is not None and result.ingest_seconds:
        console.print(
            f"validation / ingest ratio: [bold]{result.validation_seconds / result.ingest_seconds:.1f}×[/]"
        )
    if result.failures:
        raise typer.Exit(1)


def _bench_ingest_on_cluster(target: Path, rounds: int) -> None:
    """Single node vs the local Citus cluster: the same files, best of `rounds`, round by round."""
    from fhir_ingest.bench import run_benchmark
    from records.cluster import ClusterError, default_cluster

    settings = get_settings()
    nodes = default_cluster(settings.resolved_data_dir())
    if not nodes.nodes() or not all(s.running for s in nodes.status()):
        raise fail("the local Citus cluster is not running: `chartside cluster up` first")
    single: list = []
    clustered: list = []
    try:
        for _ in range(rounds):  # alternate, so both see the same machine noise
            single.append(run_benchmark(settings, [target], rounds=1, compare_one_process=False))
            clustered.append(
                run_benchmark(settings, [target], rounds=1, compare_one_process=False, cluster=nodes)
            )
    except (FileNotFoundError, ClusterError) as exc:
        raise fail(str(exc)) from None
    one = min(single, key=lambda r: r.ingest_seconds)
    many = min(clustered, key=lambda r: r.ingest_seconds)
    console.print(
        f"[bold]{target}[/]: {one.files} files, {one.patients} patients, {one.resources:,} resources; "
        f"best of {rounds} rounds each, alternating, each into an empty scratch database"
    )
    table = Table("measure", "single node s", f"cluster ({len(nodes.workers)} workers) s", "cluster / single")
    for label, a, b in (
        ("full ingest (1 txn/bundle, COPY)", one.ingest_seconds, many.ingest_seconds),
        ("re-ingest unchanged files", one.unchanged_seconds, many.unchanged_seconds),
    ):
        table.add_row(label, f"{a:.3f}", f"{b:.3f}", f"{b / a:.2f}×")
    console.print(table)
    console.print(
        f"resources/s: single {one.per_second(one.ingest_seconds)['resources']:,.0f}, "
        f"cluster {many.per_second(many.ingest_seconds)['resources']:,.0f}"
    )
    failures = one.failures + many.failures
    for error in failures:
        err_console.print(f"[bold red]failed[/] {error}", soft_wrap=True)
    if failures:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    from chartside.groups import bench_app

    app.command("ingest")(ingest_command)
    bench_app.command("ingest")(bench_ingest_command)
