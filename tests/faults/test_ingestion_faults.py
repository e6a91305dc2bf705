"""Ingestion under faults: a bundle is written whole or not at all, whatever fails and wherever.

* A bundle that fails at entry N of M — while mapping (a bad value) or while writing (the
  database refuses row N after rows 1…N-1 went in) — leaves the database exactly as it was:
  the patient's previous version intact, or no trace of a new patient; the error names the
  file and the entry.
* The same folder ingested twice at the same time, by two processes, ends with the same rows
  as ingesting it once.
"""

from __future__ import annotations

import copy
import json
import multiprocessing
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from fhir_ingest.loader import ingest_paths
from records.database import open_database
from tests.conftest import wipe
from tests.faults.ingest_support import (
    bundle_patient_id,
    cohort,
    database_digest,
    patient_digest,
    write_bundle,
)


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    return cohort(tmp_path_factory.mktemp("cohort"), patients=3, seed=5)


@pytest.fixture()
def loaded(clean_db, generated):
    """Support bundles and the first two patients ingested; the third is kept back (new patient)."""
    support, patients = generated
    report = ingest_paths(clean_db, [*support, *patients[:2]])
    assert report.ok, [f.error for f in report.failures]
    return clean_db


def _entries_of(bundle: dict, kind: str) -> list[int]:
    return [i for i, e in enumerate(bundle["entry"]) if e["resource"]["resourceType"] == kind]


POISONS = {
    # (resource type to poison, how) → a value the mapper must refuse
    "bad date": ("Observation", lambda r: r.__setitem__("effectiveDateTime", "2024-13-45")),
    "dangling reference": ("Condition", lambda r: r.__setitem__("encounter", {"reference": "urn:uuid:gone"})),
    "wrong type": ("MedicationRequest", lambda r: r.__setitem__("authoredOn", 20240101)),
    "no resourceType": ("Immunization", lambda r: r.pop("resourceType")),
}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_bundle_failing_at_entry_n_of_m_rolls_back_whole(loaded, generated, tmp_path, data):
    db = loaded
    _, patients = generated
    target = data.draw(st.sampled_from(patients), label="bundle")  # two already ingested, one new
    original = json.loads(target.read_text())
    pid = bundle_patient_id(original)
    kind, poison = POISONS[data.draw(st.sampled_from(sorted(POISONS)), label="poison")]
    candidates = _entries_of(original, kind)
    index = data.draw(st.sampled_from(candidates), label="entry")
    changed = copy.deepcopy(original)
    # a genuine change too (so a half-applied write could not look like the old version) …
    changed["entry"][_entries_of(changed, "Patient")[0]]["resource"]["name"][0]["family"] = "Changed"
    poison(changed["entry"][index]["resource"])  # … and entry N poisoned
    before = database_digest(db, (pid,))

    report = ingest_paths(db, [write_bundle(tmp_path / target.name, changed)])

    (outcome,) = report.files
    assert outcome.status == "failed"
    assert target.name in outcome.error and f"entry {index}" in outcome.error, outcome.error
    assert database_digest(db, (pid,)) == before


def test_the_database_refusing_row_n_mid_write_rolls_back_the_rows_before_it(loaded, generated, tmp_path):
    """Not a validation failure: rows 1…N-1 were already sent in the same transaction."""
    db = loaded
    _, patients = generated
    bundle = json.loads(patients[0].read_text())
    pid = bundle_patient_id(bundle)
    observations = _entries_of(bundle, "Observation")
    victim = bundle["entry"][observations[len(observations) // 2]]["resource"]["id"]
    bundle["entry"][_entries_of(bundle, "Patient")[0]]["resource"]["name"][0]["family"] = "Changed"
    before = database_digest(db, (pid,))
    with db.admin.begin() as conn:
        conn.execute(
            text(
                "CREATE FUNCTION refuse_row() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                "RAISE EXCEPTION 'disk full (simulated) at %', NEW.id; END $$"
            )
        )
        conn.execute(
            text(
                "CREATE TRIGGER refuse_row BEFORE INSERT ON observations FOR EACH ROW "
                f"WHEN (NEW.id = '{victim}') EXECUTE FUNCTION refuse_row()"
            )
        )
    try:
        report = ingest_paths(db, [write_bundle(tmp_path / patients[0].name, bundle)])
    finally:
        with db.admin.begin() as conn:
            conn.execute(text("DROP TRIGGER refuse_row ON observations"))
            conn.execute(text("DROP FUNCTION refuse_row()"))
    (outcome,) = report.files
    assert outcome.status == "failed" and patients[0].name in outcome.error
    assert "Traceback" not in outcome.error
    assert database_digest(db, (pid,)) == before  # the previous version, every row of it
    assert patient_digest(db, pid)["patients"][0] == 1


def _ingest_in_process(settings_json: dict, folder: str, barrier, results) -> None:
    from records.settings import Settings

    database = open_database(Settings(_env_file=None, **settings_json))
    barrier.wait(60)
    report = ingest_paths(database, [Path(folder)])
    results.put([(f.path.name, f.status, f.error) for f in report.files])
    database.dispose()


def test_the_same_folder_ingested_twice_at_once_ends_as_if_ingested_once(db, settings, generated):
    support, _ = generated
    folder = support[0].parent
    wipe(db)
    once = ingest_paths(db, [folder])
    assert once.ok
    expected = database_digest(db)

    wipe(db)
    ctx = multiprocessing.get_context("spawn")
    barrier, results = ctx.Barrier(2), ctx.Queue()
    workers = [
        ctx.Process(
            target=_ingest_in_process, args=(settings.model_dump(mode="json"), str(folder), barrier, results)
        )
        for _ in range(2)
    ]
    for w in workers:
        w.start()
    outcomes = [results.get(timeout=300) for _ in workers]
    for w in workers:
        w.join(60)
    assert database_digest(db) == expected
    for outcome in outcomes:  # neither run failed (the later writer may rewrite identical rows)
        assert {status for _, status, _ in outcome} <= {"ingested", "replaced", "unchanged"}, outcome
    per_file = {}
    for outcome in outcomes:
        for name, status, _ in outcome:
            per_file.setdefault(name, []).append(status)
    assert all("ingested" in statuses for statuses in per_file.values()), per_file
    wipe(db)
