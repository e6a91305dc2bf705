"""The generated cohort goes through the real ingestion path with zero warnings, and the hard
cases arrive in the database as the traps they are meant to be."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import text

from fhir_ingest import loader
from synthea_data.hard_cases import find_case

from .conftest import Cohort


def test_generated_cohort_ingests_cleanly(clean_db, cohort_dir: Path, cohort: Cohort) -> None:
    report = loader.ingest_paths(clean_db, [cohort_dir])
    assert report.ok
    assert len(report.files) == len(cohort.patients) + 2
    for outcome in report.files:
        assert outcome.status == "ingested", f"{outcome.path.name}: {outcome.status}"
        assert not outcome.warnings, f"{outcome.path.name}: {outcome.warnings[:3]}"
    with clean_db.admin.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM patients")).scalar_one() == len(cohort.patients)
        unlinked = conn.execute(
            text("SELECT count(*) FROM encounters WHERE practitioner_id IS NULL OR organization_id IS NULL")
        ).scalar_one()
        assert unlinked == 0, "conditional references to practitioners/organizations must all resolve"
        notes = conn.execute(text("SELECT count(*) FROM clinical_notes")).scalar_one()
        assert notes == sum(1 for _ in cohort.resources("Encounter"))

        eie = find_case(cohort.manifest, "entered_in_error_rows")
        status = conn.execute(
            text("SELECT verification_status FROM conditions WHERE patient_id = :p AND id = :c"),
            {"p": eie["patient_id"], "c": eie["resources"]["condition"]},
        ).scalar_one()
        assert status == "entered-in-error"

        restart = find_case(cohort.manifest, "medication_stopped_then_restarted")
        rows = dict(
            conn.execute(
                text("SELECT id, status FROM medication_requests WHERE patient_id = :p AND code = '860975'"),
                {"p": restart["patient_id"]},
            ).all()
        )
        assert rows[restart["resources"]["stopped_request"]] == "stopped"
        assert rows[restart["resources"]["restarted_request"]] == "active", (
            "medicationReference must resolve to RxNorm"
        )
