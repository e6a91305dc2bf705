"""`chartside up` — what `make run` calls: everything a fresh clone needs, then serve.

Each step is idempotent and cheap when its work is already done, so `make run` is the same
command the first time and every time after.
"""

from __future__ import annotations

import typer

from chartside.console import console, reporting
from fhir_ingest.loader import ingest_paths
from records import migrate
from records.database import Database, open_database
from records.scheduling import generate_slots
from records.settings import Settings, get_settings
from synthea_data.demo import demo_cohort_dir, ensure_demo_cohort
from synthea_data.hard_cases import SCENARIO_PATIENTS, load_manifest

DEMO_SLOT_DAYS = 28  # four weeks of bookable time from today; re-running only adds the new days


def prepare(db: Database, settings: Settings | None = None) -> None:
    """Schema, demo cohort, appointment slots, leaflets, note index: each step idempotent."""
    before, after = migrate.upgrade(db)
    console.print(f"schema: {after}" + (" (upgraded)" if before != after else ""))
    if settings is not None:
        load_demo_cohort(db, settings)
        stats = generate_slots(db, days=DEMO_SLOT_DAYS)
        console.print(
            f"appointment slots: {stats.departments} departments, {stats.slots_added} new slots "
            f"from {stats.start} ({stats.days} days)"
        )
    prepare_leaflets(db)
    prepare_notes(db)  # keep last: it indexes the notes of whatever cohort the steps above loaded


def load_demo_cohort(db: Database, settings: Settings) -> None:
    """Generate the demo cohort once (seeded, so every clone gets the same patients), then ingest it.

    Ingestion skips unchanged files by checksum, so running this on every `make run` is cheap.
    """
    with reporting("generating patients") as report_progress:
        cohort, created = ensure_demo_cohort(
            settings.resolved_data_dir(),
            patients=settings.demo_patients,
            seed=settings.demo_seed,
            progress=report_progress,
        )
    console.print(f"demo cohort: {cohort}" + (" (generated)" if created else ""))
    with reporting("ingesting") as report_progress:
        report = ingest_paths(db, [cohort], progress=report_progress)
    if not report.ok:
        console.print("[yellow]the demo cohort did not ingest cleanly; see `chartside ingest` for details[/]")


def demo_hard_case_patients(settings: Settings) -> list[str]:
    """The demo cohort's hard-case patients, in manifest order (empty if there is no manifest)."""
    try:
        manifest = load_manifest(demo_cohort_dir(settings.resolved_data_dir()))
    except (OSError, ValueError):
        return []
    return [entry["patient_id"] for entry in manifest.get("patient_files", [])[:SCENARIO_PATIENTS]]


def prepare_notes(db: Database) -> None:
    """Embed the clinical notes not yet indexed (a separate, resumable pass; nothing to do when done)."""
    from knowledge.embeddings import load_embedder
    from knowledge.note_index import index_notes

    with reporting("Indexing notes") as report_progress:
        report = index_notes(db, load_embedder(db.settings), progress=report_progress)
    if report.notes:
        console.print(
            f"notes: indexed {report.notes} notes of {report.patients} patients ({report.chunks} chunks, "
            f"{report.embedded} distinct texts embedded)"
        )


def prepare_leaflets(db: Database) -> None:
    """The shipped leaflets, embedded once (later runs compare checksums and do nothing)."""
    from knowledge.embeddings import load_embedder
    from knowledge.leaflet_store import ensure_leaflets

    embedder = load_embedder(db.settings, engine=db.admin)
    with reporting("Embedding leaflets") as report_progress:
        outcomes = ensure_leaflets(db, embedder, progress=report_progress)
    changed = [o for o in outcomes if o.status in ("added", "replaced")]
    failed = [o for o in outcomes if o.status == "failed"]
    console.print(
        f"leaflets: {len(outcomes) - len(failed)} ready"
        + (f", {len(changed)} (re)indexed" if changed else "")
    )
    for o in failed:
        console.print(f"[red]leaflet {o.path.name} not indexed:[/] {o.error}")


def up_command(
    host: str = typer.Option(None, help="Interface to listen on (default: CHARTSIDE_HOST)."),
    port: int = typer.Option(None, min=1, max=65535, help="Port (default: CHARTSIDE_PORT, 8000)."),
    evaluator: bool = typer.Option(
        False, "--evaluator", help="Also create the demo evaluator (a read-only API token, printed once)."
    ),
) -> None:
    """Start the database, load the demo data if absent, and serve the web app."""
    from server.cli import check_port_free, print_demo_credentials, serve
    from server.demo import create_demo_accounts

    settings = get_settings()
    check_port_free(host or settings.host, port or settings.port)  # before minutes of preparation
    db = open_database(settings)
    try:
        prepare(db, settings)
        # after the cohort is loaded: demo accounts are bound to ingested patients
        print_demo_credentials(
            create_demo_accounts(db, preferred=demo_hard_case_patients(settings), evaluator=evaluator)
        )
        serve(settings, db, host=host, port=port)
    finally:
        db.dispose()


def register(app: typer.Typer) -> None:
    app.command("up")(up_command)
