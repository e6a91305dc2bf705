"""`chartside up` — what `make run` calls: everything a fresh clone needs, then serve.

Each step is idempotent and cheap when its work is already done, so `make run` is the same
command the first time and every time after.
"""

from __future__ import annotations

import typer

from chartside.console import console
from records import migrate
from records.database import Database, open_database
from records.settings import get_settings


def prepare(db: Database) -> None:
    """Schema, then demo data. Later steps (cohort, leaflets, slots, accounts) hook in here."""
    before, after = migrate.upgrade(db)
    console.print(f"schema: {after}" + (" (upgraded)" if before != after else ""))
    prepare_leaflets(db)
    prepare_notes(db)  # keep last: it indexes the notes of whatever cohort the steps above loaded


def prepare_notes(db: Database) -> None:
    """Embed the clinical notes not yet indexed (a separate, resumable pass; nothing to do when done)."""
    from knowledge.embeddings import get_embedder
    from knowledge.note_index import index_notes

    report = index_notes(db, get_embedder(db.settings), show_progress=True)
    if report.notes:
        console.print(
            f"notes: indexed {report.notes} notes of {report.patients} patients ({report.chunks} chunks)"
        )


def prepare_leaflets(db: Database) -> None:
    """The shipped leaflets, embedded once (later runs compare checksums and do nothing)."""
    from knowledge.embeddings import check_dimensions, get_embedder
    from knowledge.leaflet_store import ensure_leaflets

    embedder = get_embedder(db.settings)
    check_dimensions(db.admin, embedder.dimension, embedder.model_name)
    outcomes = ensure_leaflets(db, embedder, show_progress=True)
    changed = [o for o in outcomes if o.status in ("added", "replaced")]
    failed = [o for o in outcomes if o.status == "failed"]
    console.print(
        f"leaflets: {len(outcomes) - len(failed)} ready"
        + (f", {len(changed)} (re)indexed" if changed else "")
    )
    for o in failed:
        console.print(f"[red]leaflet {o.path.name} not indexed:[/] {o.error}")


def up_command() -> None:
    """Start the database, load the demo data if absent, and serve the web app."""
    settings = get_settings()
    db = open_database(settings)
    try:
        prepare(db)
    finally:
        db.dispose()
    console.print("[yellow]the web server is not built yet; the database is ready.[/]")


def register(app: typer.Typer) -> None:
    app.command("up")(up_command)
