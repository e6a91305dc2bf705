"""`chartside generate …` and `chartside bench generate`."""

from __future__ import annotations

import datetime as dt
import time
from pathlib import Path

import typer
from rich.table import Table

from chartside.console import console, fail, reporting
from chartside.groups import bench_app
from synthea_data.bench import median_counts, run_generation_benchmark
from synthea_data.clock import REFERENCE_TODAY
from synthea_data.generator import GeneratorError, generate_cohort
from synthea_data.hard_cases import MANIFEST_NAME, load_manifest
from synthea_data.stats import file_resource_counts


def generate_command(
    out: Path = typer.Option(..., "--out", help="Folder to write the cohort into (created; must be empty)."),
    patients: int = typer.Option(30, "--patients", "-n", help="Number of patient bundles."),
    seed: int = typer.Option(1, "--seed", help="Same seed, same files, byte for byte."),
    force: bool = typer.Option(
        False, "--force", help="Replace a cohort this generator wrote into --out before."
    ),
    today: str = typer.Option(
        REFERENCE_TODAY.isoformat(), "--today", help="The simulated present (YYYY-MM-DD): records end here."
    ),
    reference_ranges: bool = typer.Option(
        False,
        "--reference-ranges",
        help="Also write lab reference ranges and interpretation flags (real Synthea writes neither; for tests).",
    ),
) -> None:
    """Generate a deterministic cohort in real Synthea's bundle format (patients + support bundles)."""
    try:
        reference_day = dt.date.fromisoformat(today)
    except ValueError:
        raise fail(f"--today {today!r} is not a date like 2026-11-01") from None
    started = time.perf_counter()
    try:
        with reporting("generating patients") as report_progress:
            paths = generate_cohort(
                out,
                patients=patients,
                seed=seed,
                progress=report_progress,
                overwrite=force,
                today=reference_day,
                reference_ranges=reference_ranges,
            )
    except GeneratorError as exc:
        raise fail(str(exc)) from None
    seconds = time.perf_counter() - started
    size = sum(p.stat().st_size for p in paths)
    console.print(
        f"wrote {patients} patient bundles + 2 support bundles to [bold]{out}[/] "
        f"({size / 1e6:.1f} MB, seed {seed}) in {seconds:.1f} s — {patients / seconds:.1f} patients/s"
    )
    manifest = load_manifest(out)
    names = {p["index"]: p["name"] for p in manifest["patient_files"]}
    cases = Table(
        "hard case", "patient", title=f"Deliberate hard cases (resource ids in {out / MANIFEST_NAME})"
    )
    for case in manifest["hard_cases"]:
        cases.add_row(case["key"], names[case["patient_index"]])
    if manifest["hard_cases"]:
        console.print(cases)


def bench_generate_command(
    patients: int = typer.Option(50, "--patients", "-n", help="Patients to generate."),
    seed: int = typer.Option(1, "--seed"),
    sample: list[Path] = typer.Option(
        [], "--sample", help="A real Synthea bundle to compare resource counts with (repeatable)."
    ),
) -> None:
    """Generation throughput (patients/s, MB/s), time per phase, and parse cost of the same bytes."""
    if patients < 1:
        raise fail("--patients must be at least 1")
    for path in sample:
        if not path.is_file():
            raise fail(f"--sample {path}: no such file")
    result = run_generation_benchmark(patients, seed)
    table = Table("phase", "seconds", "share", title=f"Generating {patients} patients (seed {seed})")
    for phase, seconds in result.phases.items():
        table.add_row(phase, f"{seconds:.3f}", f"{seconds / result.total_seconds:.0%}")
    table.add_row("[bold]total[/]", f"{result.total_seconds:.3f}", "100%")
    console.print(table)
    console.print(
        f"{result.patients_per_second:.1f} patients/s, {result.megabytes_per_second:.1f} MB/s, "
        f"{result.resources / patients:.0f} resources and {result.bytes_written / patients / 1e6:.2f} MB per patient"
    )
    console.print(
        f"parsing the same {result.bytes_written / 1e6:.1f} MB with orjson: {result.parse_seconds:.3f} s "
        f"→ generation costs {result.total_seconds / result.parse_seconds:.1f}× a parse of its output"
    )
    generated = median_counts(result)
    columns = [("generated (median)", generated)] + [(p.name[:28], file_resource_counts(p)) for p in sample]
    kinds = sorted({k for _, counts in columns for k in counts}, key=lambda k: -generated.get(k, 0))
    counts_table = Table(
        "resource type", *[name for name, _ in columns], title="Resources per patient bundle"
    )
    for kind in kinds:
        counts_table.add_row(kind, *[str(counts.get(kind, 0)) for _, counts in columns])
    counts_table.add_row("[bold]total[/]", *[str(sum(counts.values())) for _, counts in columns])
    console.print(counts_table)


def register(app: typer.Typer) -> None:
    app.command("generate")(generate_command)
    bench_app.command("generate")(bench_generate_command)
