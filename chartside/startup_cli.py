"""`chartside bench startup`: the start-up bench's command (the timing lives in `startup_bench`)."""

from __future__ import annotations

import statistics

import typer

from chartside.groups import bench_app


def startup_command(
    repeats: int = typer.Option(5, "--repeats", help="Timed runs per case and variant (median reported)."),
    patient: str = typer.Option(
        None, "--patient", help="Patient for `chartside mcp`. Unset: the first patient in the database."
    ),
    no_mcp: bool = typer.Option(False, "--no-mcp", help="Skip the `chartside mcp` case."),
) -> None:
    """How long commands take to start: the lazy CLI vs importing every command."""
    from rich.table import Table

    from chartside.console import console, fail, progress
    from chartside.startup_bench import cases, load_average, measure

    if repeats < 1:
        raise fail("--repeats must be at least 1")
    if patient is None and not no_mcp:
        patient = first_patient()
        if patient is None:
            console.print("[yellow]no patient in the database: the `chartside mcp` case is skipped[/]")
    selected = cases(None if no_mcp else patient)
    load_before = load_average()
    with progress() as bar:
        task = bar.add_task("start-up runs", total=len(selected) * repeats * 2)
        results = measure(selected, repeats, progress=lambda done, total: bar.update(task, completed=done))
    table = Table(
        "command",
        "lazy (median s)",
        "eager (median s)",
        "eager / lazy",
        "lazy CPU (median s)",
        "lazy runs (s)",
        title=f"Start-up, {repeats} runs each, fresh interpreter per run",
    )
    for t in results:
        table.add_row(
            t.case,
            f"{statistics.median(t.lazy):.2f}",
            f"{statistics.median(t.eager):.2f}",
            f"{t.ratio:.1f}×",
            f"{statistics.median(t.lazy_cpu):.2f}",
            " ".join(f"{v:.2f}" for v in t.lazy),
        )
    console.print(table)
    console.print(f"load average before: {load_before}; after: {load_average()}")


def first_patient() -> str | None:
    from sqlalchemy import text

    from records.database import open_database
    from records.settings import get_settings

    db = open_database(get_settings())
    try:
        with db.admin.connect() as conn:
            return conn.execute(text("SELECT patient_id FROM patients ORDER BY patient_id LIMIT 1")).scalar()
    finally:
        db.dispose()


def register(app: typer.Typer) -> None:
    bench_app.command("startup")(startup_command)
