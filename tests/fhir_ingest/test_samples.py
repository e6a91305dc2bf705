"""Against real Synthea output (../shared/synthea-samples; skipped when absent).

Expected numbers are computed here from the raw JSON with the standard library, independently
of the loader's own parsing and mapping.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
from collections import Counter
from pathlib import Path

import pytest

from fhir_ingest.loader import ingest_paths
from tests.conftest import wipe
from tests.fhir_ingest.dbutil import execute, patient_counts, scalar, table_counts

pytestmark = pytest.mark.samples

COUNTED = {
    "Condition": "conditions",
    "MedicationRequest": "medication_requests",
    "Observation": "observations",
    "Encounter": "encounters",
    "Immunization": "immunizations",
    "AllergyIntolerance": "allergies",
    "DocumentReference": "clinical_notes",
}


def patient_files(samples: Path) -> list[Path]:
    return sorted(p for p in samples.rglob("*.json") if "Information" not in p.name)


def raw(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def patient_id(bundle: dict) -> str:
    (patient,) = [e["resource"] for e in bundle["entry"] if e["resource"]["resourceType"] == "Patient"]
    return patient["id"]


def one(samples: Path, prefix: str) -> Path:
    (path,) = [p for p in patient_files(samples) if p.name.startswith(prefix)]
    return path


@pytest.fixture(scope="module")
def loaded(db, samples_dir):
    wipe(db)
    report = ingest_paths(db, [samples_dir])
    yield report
    wipe(db)


def test_every_bundle_ingests(loaded, samples_dir):
    assert loaded.ok, [f.error for f in loaded.failures]
    patients = [f for f in loaded.files if f.kind == "patient"]
    assert sorted(f.path for f in patients) == patient_files(samples_dir)
    assert {f.status for f in loaded.files} == {"ingested"}
    assert sum(1 for f in loaded.files if f.kind != "patient") == 4


def test_per_patient_counts_equal_the_raw_json(loaded, db, samples_dir):
    for path in patient_files(samples_dir):
        bundle = raw(path)
        types = Counter(e["resource"]["resourceType"] for e in bundle["entry"])
        expected = {table: types[rtype] for rtype, table in COUNTED.items()}
        got = patient_counts(db, patient_id(bundle))
        assert {t: got[t] for t in expected} == expected, path.name
        assert got["patients"] == 1


def test_notes_are_stored_once(loaded, db):
    duplicated = scalar(
        db,
        "SELECT count(*) FROM diagnostic_reports r JOIN clinical_notes n "
        "ON n.patient_id = r.patient_id AND n.id = r.note_id WHERE r.presented_text IS NOT NULL",
    )
    linked = scalar(db, "SELECT count(*) FROM diagnostic_reports WHERE note_id IS NOT NULL")
    notes = scalar(db, "SELECT count(*) FROM clinical_notes")
    assert duplicated == 0 and linked == notes  # Synthea repeats every note in one report
    assert scalar(db, "SELECT count(*) FROM clinical_notes WHERE text LIKE '%' || chr(13) || '%'") == 0


def test_aaron_loads_with_unresolved_conditional_references_reported(loaded, db, samples_dir):
    path = one(samples_dir, "Aaron697")
    outcome = next(f for f in loaded.files if f.path == path)
    assert outcome.status == "ingested" and outcome.warnings

    known = set()
    for support in samples_dir.rglob("*Information*.json"):
        for e in raw(support)["entry"]:
            for ident in e["resource"].get("identifier", []):
                known.add((e["resource"]["resourceType"], ident["value"]))
    unresolvable = set()
    for e in raw(path)["entry"]:
        if e["resource"]["resourceType"] != "Encounter":
            continue
        r = e["resource"]
        for ref in (
            [p["individual"] for p in r["participant"]]
            + [r["serviceProvider"]]
            + [loc["location"] for loc in r["location"]]
        ):
            rtype, _, rest = ref["reference"].partition("?identifier=")
            if (rtype, rest.split("|")[1]) not in known:
                unresolvable.add(ref["reference"])
    assert unresolvable  # the bundle really comes from another Synthea run
    warned = " ".join(outcome.warnings)
    assert all(reference in warned for reference in unresolvable)
    pid = patient_id(raw(path))
    links = scalar(
        db,
        "SELECT count(*) FROM encounters WHERE patient_id = :p AND "
        "(practitioner_id IS NOT NULL OR organization_id IS NOT NULL OR location_id IS NOT NULL)",
        p=pid,
    )
    names = scalar(db, "SELECT count(practitioner_name) FROM encounters WHERE patient_id = :p", p=pid)
    assert links == 0 and names == patient_counts(db, pid)["encounters"]


def test_other_patients_link_to_their_practitioners(loaded, db):
    unlinked = scalar(
        db,
        "SELECT count(*) FROM encounters e JOIN source_files s ON s.bundle_patient_id = e.patient_id "
        "WHERE e.practitioner_id IS NULL AND s.path NOT LIKE '%Aaron697%'",
    )
    assert unlinked == 0
    # a practitioner's id is not its NPI
    assert scalar(db, "SELECT count(*) FROM practitioners WHERE id = npi") == 0


def test_denny_is_deceased_and_his_medications_ended(loaded, db, samples_dir):
    pid = patient_id(raw(one(samples_dir, "Denny560")))
    died = dt.datetime(2013, 6, 7, 9, 9, 58, tzinfo=dt.UTC)  # 2013-06-07T02:09:58-07:00
    assert scalar(db, "SELECT deceased FROM patients WHERE patient_id = :p", p=pid) is True
    assert scalar(db, "SELECT deceased_at FROM patients WHERE patient_id = :p", p=pid) == died
    active = scalar(
        db, "SELECT count(*) FROM medication_requests WHERE patient_id = :p AND status = 'active'", p=pid
    )
    still_running = scalar(
        db,
        "SELECT count(*) FROM medication_requests WHERE patient_id = :p AND status = 'active' "
        "AND (ended_at IS NULL OR ended_at > :died)",
        p=pid,
        died=died,
    )
    assert active > 0 and still_running == 0
    assert scalar(db, "SELECT count(*) FROM patients WHERE deceased") == 1


def test_reingesting_the_folder_changes_nothing(loaded, db, samples_dir):
    before = table_counts(db)
    again = ingest_paths(db, [samples_dir])
    assert again.ok and {f.status for f in again.files} == {"unchanged"}
    assert table_counts(db) == before


def corruptions(bundle: dict, other_patient: str) -> dict[str, tuple[object, str, str]]:
    """name → (broken bundle or raw text, expected field, words in the message)."""
    entries = bundle["entry"]
    obs = next(i for i, e in enumerate(entries) if e["resource"]["resourceType"] == "Observation")
    cond = next(i for i, e in enumerate(entries) if e["resource"]["resourceType"] == "Condition")
    text = json.dumps(bundle)
    cases: dict[str, tuple[object, str, str]] = {
        "truncated": (text[: len(text) // 2], "(JSON syntax)", "truncated")
    }
    b = copy.deepcopy(bundle)
    del b["entry"][obs]["resource"]["resourceType"]
    cases["missing resourceType"] = (b, "resource.resourceType", "missing")
    b = copy.deepcopy(bundle)
    b["entry"][obs]["resource"]["effectiveDateTime"] = 1357
    cases["wrong type"] = (b, "resource.effectiveDateTime", "got int")
    b = copy.deepcopy(bundle)
    b["entry"][cond]["resource"]["subject"] = {"reference": f"Patient/{other_patient}"}
    cases["foreign subject"] = (b, "resource.subject.reference", "not this bundle's patient")
    b = copy.deepcopy(bundle)
    b["entry"][obs]["resource"]["encounter"] = {"reference": "urn:uuid:3f1b8e8e-0000-4000-8000-000000000000"}
    cases["dangling urn"] = (b, "resource.encounter.reference", "dangling")
    return cases


def test_corrupted_real_bundles_fail_clearly_and_write_nothing(loaded, db, samples_dir, tmp_path):
    source = one(samples_dir, "Bret7")
    other = patient_id(raw(one(samples_dir, "Zelda766")))
    before = table_counts(db)
    for name, (broken, field, words) in corruptions(raw(source), other).items():
        path = tmp_path / f"{name.replace(' ', '_')}_{source.name}"
        path.write_text(broken if isinstance(broken, str) else json.dumps(broken), encoding="utf-8")
        report = ingest_paths(db, [path])
        assert not report.ok, name
        error = report.failures[0].error
        assert error.startswith(str(path)), (name, error)
        assert "entry " in error and f"field {field}" in error and words in error, (name, error)
        assert table_counts(db) == before, name


def test_a_changed_real_bundle_replaces_that_patient_atomically(loaded, db, samples_dir, tmp_path):
    source = one(samples_dir, "Denny560")
    bundle = raw(source)
    pid = patient_id(bundle)
    others_before = {
        p: patient_counts(db, p) for p in map(patient_id, map(raw, patient_files(samples_dir))) if p != pid
    }
    execute(db, "INSERT INTO conversations (patient_id, id, role) VALUES (:p, 'keep-me', 'clinician')", p=pid)

    observations = [
        i for i, e in enumerate(bundle["entry"]) if e["resource"]["resourceType"] == "Observation"
    ]
    dropped = set(observations[:10])
    changed = copy.deepcopy(bundle)
    changed["entry"] = [e for i, e in enumerate(changed["entry"]) if i not in dropped]
    for e in changed["entry"]:  # reports must not point at the dropped observations
        e["resource"].pop("result", None) if e["resource"]["resourceType"] == "DiagnosticReport" else None
    path = tmp_path / source.name
    path.write_text(json.dumps(changed), encoding="utf-8")
    try:
        report = ingest_paths(db, [path])
        assert report.ok and report.files[0].status == "replaced"
        assert patient_counts(db, pid)["observations"] == len(observations) - 10
        assert {p: patient_counts(db, p) for p in others_before} == others_before
        assert scalar(db, "SELECT count(*) FROM conversations WHERE patient_id = :p", p=pid) == 1
        assert scalar(db, "SELECT count(*) FROM source_files WHERE bundle_patient_id = :p", p=pid) == 1
    finally:
        restored = ingest_paths(db, [source])
        execute(db, "DELETE FROM conversations WHERE id = 'keep-me'")
    assert restored.files[0].status == "replaced"
    assert patient_counts(db, pid)["observations"] == len(observations)
