"""`chartside ingest` leaves the new notes searchable: the note index runs right after ingestion."""

from __future__ import annotations

from sqlalchemy import text
from typer.testing import CliRunner

from chartside.cli import build
from synthea_data.generator import generate_cohort


def test_ingest_indexes_the_notes_it_wrote(clean_db, settings, monkeypatch, tmp_path):
    monkeypatch.setattr("fhir_ingest.cli.get_settings", lambda: settings)
    generate_cohort(tmp_path / "cohort", patients=2, seed=3)
    result = CliRunner().invoke(build(), ["ingest", "--quiet", str(tmp_path / "cohort")])
    assert result.exit_code == 0, result.output
    with clean_db.admin.connect() as conn:
        notes = conn.execute(text("SELECT count(*) FROM clinical_notes")).scalar_one()
        indexed = conn.execute(
            text("SELECT count(DISTINCT note_id) FROM note_chunks WHERE embedding IS NOT NULL")
        ).scalar_one()
    assert notes > 0 and indexed == notes

    # unchanged files: nothing new to index, and nothing is re-embedded
    result = CliRunner().invoke(build(), ["ingest", "--quiet", str(tmp_path / "cohort")])
    assert result.exit_code == 0 and "notes: indexed" not in result.output
