"""Connections between packages that may not import each other.

Ingestion (`fhir_ingest`) may only import `records`, but a patient's new notes must be
searchable right after `chartside ingest` (DESIGN: "notes are indexed during or right after
record ingestion"). The CLI layer, which may import everything, hooks the note indexer in.
"""

from __future__ import annotations

import typer

from chartside.console import err_console, reporter


def index_notes_after_ingest(db, report) -> None:
    """Embed the notes of every patient this ingest saw that still has notes without chunks.

    Unchanged files count too: when an earlier ingest was killed after committing some
    bundles but before indexing their notes, the re-run finds those bundles unchanged, and
    their notes must still be indexed (`patients_with_pending_notes` asks the database).
    """
    from knowledge.embeddings import get_embedder
    from knowledge.note_index import index_notes, patients_with_pending_notes

    seen = sorted(
        {
            f.patient_id
            for f in report.files
            if f.status in ("ingested", "replaced", "unchanged") and f.patient_id
        }
    )
    embedder = get_embedder(db.settings)
    patients = patients_with_pending_notes(db, seen, embedder.model_name)
    if not patients:
        return
    result = index_notes(db, embedder, patients, progress=reporter)
    if result.notes:
        err_console.print(
            f"notes: indexed {result.notes} notes of {result.patients} patients ({result.chunks} chunks)"
        )


def register(app: typer.Typer) -> None:
    from fhir_ingest import cli as ingest_cli

    if index_notes_after_ingest not in ingest_cli.AFTER_INGEST:
        ingest_cli.AFTER_INGEST.append(index_notes_after_ingest)
