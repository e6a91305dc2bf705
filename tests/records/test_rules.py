"""`records.rules` (what the tools and the panel use) against `evals/truth.py` (the evaluator's
independent restatement in plain Python), on a generated Synthea-format cohort.

Two definitions written apart, agreeing on every patient of a cohort that has deceased
patients, stopped and death-ended prescriptions, abated and refuted conditions: if either one
drifts, this fails on the row that differs.
"""

from __future__ import annotations

import datetime as dt

import pytest

from evals.truth import list_patients, load_record
from fhir_ingest.loader import ingest_paths
from records.database import patient_transaction
from records.queries.allergies import list_allergies
from records.queries.conditions import list_conditions
from records.queries.medications import list_medications
from server.record_view import KEY_LABS, at_a_glance
from synthea_data.clock import REFERENCE_TODAY
from synthea_data.generator import generate_cohort

END = dt.datetime.combine(REFERENCE_TODAY, dt.time(12), tzinfo=dt.UTC)  # where the cohort's records end
MANY = 10_000


@pytest.fixture()
def cohort(clean_db, tmp_path):
    generate_cohort(tmp_path / "cohort", patients=12, seed=20)
    report = ingest_paths(clean_db, [tmp_path / "cohort"])
    assert report.ok
    return clean_db


# at the cohort's end (where evaluations pin "now") and at clocks pinned in its past
@pytest.mark.parametrize(
    "now", [END, dt.datetime(2019, 3, 1, tzinfo=dt.UTC), dt.datetime(2021, 7, 1, tzinfo=dt.UTC)]
)
def test_rules_and_the_evaluators_truth_agree_on_a_generated_cohort(cohort, now):
    patients = list_patients(cohort)
    assert len(patients) == 12
    compared = {"medications": 0, "conditions": 0, "allergies": 0, "labs": 0, "deceased": 0}
    for pid in patients:
        truth = load_record(cohort, pid, now)
        assert truth is not None
        with patient_transaction(cohort.app, pid) as conn:
            meds = list_medications(conn, patient_id=pid, status="active", now=now, limit=MANY).items
            conds = list_conditions(conn, patient_id=pid, status="active", now=now, limit=MANY).items
            allergies = list_allergies(conn, patient_id=pid, current_only=True, limit=MANY).items
        assert {m.id for m in meds} == {m.id for m in truth.active_medications()}, pid
        assert {c.id for c in conds} == {c.id for c in truth.active_conditions()}, pid
        assert {a.id for a in allergies} == {a.id for a in truth.current_allergies()}, pid
        glance = at_a_glance(cohort, pid, now=now)  # the panel: same rules, same answers
        assert {m["id"] for m in glance.medications} == {m.id for m in meds}
        assert {c["id"] for c in glance.conditions + glance.findings} == {c.id for c in conds}
        assert {a["id"] for a in glance.allergies} == {a.id for a in allergies}
        for code, _ in KEY_LABS:
            series = truth.series(code)
            shown = [s for s in glance.labs if s.code == code]
            assert bool(series) == bool(shown), (pid, code)
            if series:
                newest = max(m.effective for m in series)
                assert shown[0].latest_at == newest, (pid, code)
                assert shown[0].latest_value in {m.value for m in series if m.effective == newest}
                compared["labs"] += 1
        compared["medications"] += len(meds)
        compared["conditions"] += len(conds)
        compared["allergies"] += len(allergies)
        compared["deceased"] += bool(truth.patient.deceased)
    if now == END:  # the cohort exercises every rule (comparing empty sets would prove nothing)
        assert all(compared.values()), compared
