"""Connections between packages that may not import each other.

Ingestion (`fhir_ingest`) may only import `records`, but a patient's new notes must be
searchable right after `chartside ingest` (DESIGN: "notes are indexed during or right after
record ingestion"). The CLI layer, which may import everything, hooks the note indexer in.
"""

from __future__ import annotations

import typer

from chartside.console import err_console, reporter


def index_notes_after_ingest(db, report) -> None:
    """Embed the notes of the patients this ingest wrote (unchanged files have nothing new)."""
    from knowledge.embeddings import get_embedder
    from knowledge.note_index import index_notes

    patients = sorted(
        {f.patient_id for f in report.files if f.status in ("ingested", "replaced") and f.patient_id}
    )
    if not patients:
        return
    result = index_notes(db, get_embedder(db.settings), patients, progress=reporter)
    if result.notes:
        err_console.print(
            f"notes: indexed {result.notes} notes of {result.patients} patients ({result.chunks} chunks)"
        )


def register(app: typer.Typer) -> None:
    from fhir_ingest import cli as ingest_cli

    if index_notes_after_ingest not in ingest_cli.AFTER_INGEST:
        ingest_cli.AFTER_INGEST.append(index_notes_after_ingest)
