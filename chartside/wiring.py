"""Connections between packages that may not import each other.

Ingestion (`fhir_ingest`) may only import `records`, but a patient's new notes must be
searchable right after `chartside ingest` (DESIGN: "notes are indexed during or right after
record ingestion"). The CLI layer, which may import everything, hooks the note indexer in.
"""

from __future__ import annotations

import typer

from chartside.console import err_console, reporting


def index_notes_after_ingest(db, report) -> None:
    """Embed the notes of every patient this ingest saw that still has notes without chunks.

    Unchanged files count too: when an earlier ingest was killed after committing some
    bundles but before indexing their notes, the re-run finds those bundles unchanged, and
    their notes must still be indexed (`patients_with_pending_notes` asks the database).
    """
    from knowledge.embeddings import load_embedder
    from knowledge.note_index import index_notes, patients_with_pending_notes

    seen = sorted(
        {
            f.patient_id
            for f in report.files
            if f.status in ("ingested", "replaced", "unchanged") and f.patient_id
        }
    )
    embedder = load_embedder(db.settings)
    patients = patients_with_pending_notes(db, seen, embedder.model_name)
    if not patients:
        return
    with reporting("Indexing notes") as report_progress:
        result = index_notes(db, embedder, patients, progress=report_progress)
    if result.notes:
        err_console.print(
            f"notes: indexed {result.notes} notes of {result.patients} patients ({result.chunks} chunks)"
        )


def bench_notes_command(
    patients: int = typer.Option(10, help="Patients in the generated Synthea-format cohort."),
    seed: int = typer.Option(7, help="Cohort seed."),
    rounds: int = typer.Option(3, help="Rounds of each measurement (alternated)."),
) -> None:
    """Note indexing vs the embedding model's own passages/s, on the same passages, side by side."""
    from chartside.bench_notes import print_index_result, run_index_benchmark

    print_index_result(run_index_benchmark(patients=patients, seed=seed, rounds=rounds))


def register(app: typer.Typer) -> None:
    from chartside.groups import bench_app

    bench_app.command("notes")(bench_notes_command)
    from fhir_ingest import cli as ingest_cli

    if index_notes_after_ingest not in ingest_cli.AFTER_INGEST:
        ingest_cli.AFTER_INGEST.append(index_notes_after_ingest)
