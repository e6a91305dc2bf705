"""The generator's deliberate traps, read through the evaluator's ground truth.

A generated cohort names, in `cohort.manifest`, which patient carries which trap and the ids
of the resources involved; after ingestion the truth must fall on the right side of each.
"""

from __future__ import annotations

import datetime as dt

import pytest

from evals.generate import GenerateOptions, generate
from evals.truth import load_record
from evals.vocab import contraindicated
from fhir_ingest import loader
from synthea_data import generator
from synthea_data.hard_cases import find_case, load_manifest

NOW = dt.datetime(2026, 11, 29, 12, tzinfo=dt.UTC)


@pytest.fixture(scope="module")
def traps(db, tmp_path_factory):
    from tests.conftest import wipe

    folder = tmp_path_factory.mktemp("cohort") / "cohort"
    generator.generate_cohort(folder, patients=6, seed=3)
    wipe(db)
    assert loader.ingest_paths(db, [folder]).ok
    yield db, load_manifest(folder)
    wipe(db)


def _case(manifest, key):
    entry = find_case(manifest, key)
    return entry["patient_id"], entry["resources"]


def test_entered_in_error_rows_are_not_the_truth(traps):
    db, manifest = traps
    pid, ids = _case(manifest, "entered_in_error_rows")
    record = load_record(db, pid, NOW)
    a1c = record.series("4548-4")
    assert ids["observation"] not in {m.record_id for m in a1c}  # 13.9 %, one minute after the real one
    assert ids["corrected_observation"] in {m.record_id for m in a1c}
    assert ids["condition"] not in {c.id for c in record.valid_conditions()}
    assert ids["prescription"] not in {m.id for m in record.valid_medications()}
    _, questions = generate(
        db, GenerateOptions(seed=1, now=NOW, categories=("latest_first", "negation", "list"))
    )
    for q in questions:
        if (
            q.patient_id == pid
            and q.template == "latest_value"
            and q.gold[0].id == ids["corrected_observation"]
        ):
            assert q.expected.value != 13.9


def test_stopped_then_restarted_and_recurring(traps):
    db, manifest = traps
    pid, ids = _case(manifest, "medication_stopped_then_restarted")
    active = {m.id for m in load_record(db, pid, NOW).active_medications()}
    assert ids["restarted_request"] in active and ids["stopped_request"] not in active
    pid, ids = _case(manifest, "condition_resolved_then_recurring")
    record = load_record(db, pid, NOW)
    current = {c.id for c in record.active_conditions()}
    assert ids["recurrence"] in current and ids["first_episode"] not in current


def test_lab_crossing_its_range_and_immunization_not_done(traps):
    db, manifest = traps
    pid, ids = _case(manifest, "lab_crosses_reference_range")
    series = {m.record_id: m for m in load_record(db, pid, NOW).series("4548-4")}
    normal, high = series[ids["normal_observation"]], series[ids["high_observation"]]
    assert normal.ref_high is not None and normal.value <= normal.ref_high < high.value
    pid, ids = _case(manifest, "immunization_not_done")
    assert ids["immunization"] not in {i.id for i in load_record(db, pid, NOW).given_immunizations()}


def test_penicillin_allergy_and_amoxicillin_and_the_deceased(traps):
    db, manifest = traps
    pid, ids = _case(manifest, "penicillin_allergy_with_amoxicillin")
    record = load_record(db, pid, NOW)
    allergy = next(a for a in record.current_allergies() if a.id == ids["allergy"])
    prescription = next(m for m in record.valid_medications() if m.id == ids["prescription"])
    assert contraindicated(allergy.display, prescription.display)
    if prescription in record.active_medications():
        _, questions = generate(db, GenerateOptions(seed=1, now=NOW, categories=("cross_resource",)))
        conflict = next(q for q in questions if q.patient_id == pid and q.template == "drug_allergy_conflict")
        assert any(ids["prescription"] in item.record_ids for item in conflict.expected.items)
    pid, ids = _case(manifest, "deceased_with_active_medication")
    record = load_record(db, pid, NOW)
    assert record.patient.deceased and record.active_medications() == []
    assert ids["active_request"] in {m.id for m in record.valid_medications()}
