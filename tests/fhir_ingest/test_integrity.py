"""Every reference the loader writes resolves, though the database no longer checks it per row.

Migration 0008 dropped the foreign keys from record rows to their patient, encounter and
parent observation/allergy (a per-row check was ~40 % of the database's work in an ingest).
These tests hold the loader to what the keys promised: after fresh loads, replacements,
and hypothesis' mutated bundles, no record row points at a patient, encounter, observation
or allergy that is not there.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from sqlalchemy import text

from fhir_ingest.loader import ingest_paths
from fhir_ingest.transform import PATIENT_TABLES_IN_WRITE_ORDER
from tests.faults.ingest_support import cohort
from tests.faults.test_bundle_fuzz import mutated

# (table, its columns, the table they point at, its columns): what the dropped keys checked
LINKS = [
    *((t, ("patient_id",), "patients", ("patient_id",)) for t in PATIENT_TABLES_IN_WRITE_ORDER),
    *(
        (t, ("patient_id", "encounter_id"), "encounters", ("patient_id", "id"))
        for t in PATIENT_TABLES_IN_WRITE_ORDER
        if t not in ("encounters", "observation_components", "allergies", "allergy_reactions")
    ),
    ("observation_components", ("patient_id", "observation_id"), "observations", ("patient_id", "id")),
    ("allergy_reactions", ("patient_id", "allergy_id"), "allergies", ("patient_id", "id")),
]


def orphans(db) -> dict[str, int]:
    """Rows whose reference finds nothing, per link (a NULL encounter is no reference)."""
    found = {}
    with db.admin.connect() as conn:
        for table, columns, target, keys in LINKS:
            match = " AND ".join(f"p.{k} = c.{c}" for c, k in zip(columns, keys, strict=True))
            present = " AND ".join(f"c.{c} IS NOT NULL" for c in columns)
            count = conn.execute(
                text(
                    f"SELECT count(*) FROM {table} c WHERE {present} AND NOT EXISTS (SELECT 1 FROM {target} p WHERE {match})"
                )
            ).scalar_one()
            if count:
                found[f"{table}.{'/'.join(columns)} → {target}"] = count
    return found


def test_record_tables_keep_keys_to_shared_rows_only(db):
    """The references inside a record are the loader's to keep (LINKS); shared ones stay keyed."""
    with db.admin.connect() as conn:
        targets = conn.execute(
            text(
                "SELECT DISTINCT dst.relname FROM pg_constraint c JOIN pg_class src ON src.oid = c.conrelid "
                "JOIN pg_class dst ON dst.oid = c.confrelid WHERE c.contype = 'f' AND src.relname = ANY(:t)"
            ),
            {"t": list(PATIENT_TABLES_IN_WRITE_ORDER)},
        ).scalars()
        assert set(targets) == {"practitioners", "organizations", "locations"}


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    return cohort(tmp_path_factory.mktemp("integrity-cohort"), patients=3, seed=8)


def test_a_cohort_and_its_replacement_leave_no_dangling_reference(clean_db, generated, tmp_path):
    support, patients = generated
    assert ingest_paths(clean_db, [*support, *patients]).ok
    assert orphans(clean_db) == {}
    # a changed bundle replaces the patient's rows: every table deleted and rewritten
    doc = json.loads(patients[0].read_text())
    doc["entry"] = [
        e for e in doc["entry"] if e["resource"]["resourceType"] not in ("Claim", "ExplanationOfBenefit")
    ]
    changed = tmp_path / patients[0].name
    changed.write_text(json.dumps(doc))
    (outcome,) = ingest_paths(clean_db, [changed]).files
    assert outcome.status == "replaced", outcome.error
    assert orphans(clean_db) == {}


def test_the_samples_leave_no_dangling_reference(clean_db, samples_dir):
    assert ingest_paths(clean_db, [samples_dir]).ok
    assert orphans(clean_db) == {}


def test_mutated_bundles_that_load_leave_no_dangling_reference(clean_db, generated, tmp_path):
    support, patients = generated
    assert ingest_paths(clean_db, support).ok
    loaded = []

    @settings(
        max_examples=40,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(case=mutated(patients))
    def run(case):
        name, raw, what = case
        path = tmp_path / name
        path.write_bytes(raw)
        (outcome,) = ingest_paths(clean_db, [path], force=True).files
        loaded.append(not outcome.failed)
        assert orphans(clean_db) == {}, what

    run()
    assert any(loaded)  # some mutations load (the others are refused whole)
