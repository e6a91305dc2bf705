"""`chartside up` — what `make run` calls: everything a fresh clone needs, then serve.

Each step is idempotent and cheap when its work is already done, so `make run` is the same
command the first time and every time after.
"""

from __future__ import annotations

import typer

from chartside.console import console
from fhir_ingest.loader import ingest_paths
from records import migrate
from records.database import Database, open_database
from records.scheduling import generate_slots
from records.settings import Settings, get_settings
from synthea_data.demo import demo_cohort_dir, ensure_demo_cohort
from synthea_data.hard_cases import SCENARIO_PATIENTS, load_manifest

DEMO_SLOT_DAYS = 28  # four weeks of bookable time from today; re-running only adds the new days


def prepare(db: Database, settings: Settings | None = None) -> None:
    """Schema, then demo data. Later steps (leaflets, slots, accounts) hook in here."""
    before, after = migrate.upgrade(db)
    console.print(f"schema: {after}" + (" (upgraded)" if before != after else ""))
    if settings is not None:
        load_demo_cohort(db, settings)
        stats = generate_slots(db, days=DEMO_SLOT_DAYS)
        console.print(
            f"appointment slots: {stats.departments} departments, {stats.slots_added} new slots "
            f"from {stats.start} ({stats.days} days)"
        )


def load_demo_cohort(db: Database, settings: Settings) -> None:
    """Generate the demo cohort once (seeded, so every clone gets the same patients), then ingest it.

    Ingestion skips unchanged files by checksum, so running this on every `make run` is cheap.
    """
    cohort, created = ensure_demo_cohort(
        settings.resolved_data_dir(),
        patients=settings.demo_patients,
        seed=settings.demo_seed,
        show_progress=True,
    )
    console.print(f"demo cohort: {cohort}" + (" (generated)" if created else ""))
    report = ingest_paths(db, [cohort], show_progress=True)
    if not report.ok:
        console.print("[yellow]the demo cohort did not ingest cleanly; see `chartside ingest` for details[/]")


def demo_hard_case_patients(settings: Settings) -> list[str]:
    """The demo cohort's hard-case patients, in manifest order (empty if there is no manifest)."""
    try:
        manifest = load_manifest(demo_cohort_dir(settings.resolved_data_dir()))
    except (OSError, ValueError):
        return []
    return [entry["patient_id"] for entry in manifest.get("patient_files", [])[:SCENARIO_PATIENTS]]


def up_command() -> None:
    """Start the database, load the demo data if absent, and serve the web app."""
    from server.cli import print_demo_credentials, serve
    from server.demo import create_demo_accounts

    settings = get_settings()
    db = open_database(settings)
    try:
        prepare(db, settings)
        # after the cohort is loaded: demo accounts are bound to ingested patients
        print_demo_credentials(create_demo_accounts(db, preferred=demo_hard_case_patients(settings)))
        serve(settings, db)
    finally:
        db.dispose()


def register(app: typer.Typer) -> None:
    app.command("up")(up_command)
