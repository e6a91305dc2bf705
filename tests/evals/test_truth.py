"""Ground truth applies the product's clinical semantics to what is in the database."""

from __future__ import annotations

from evals.truth import list_patients, load_record
from evals.vocab import drug_name
from tests.evals.cohort import NOW


def test_active_medications_exclude_stopped_ended_and_entered_in_error(cohort_db):
    record = load_record(cohort_db, "pat-ann", NOW)
    names = sorted(drug_name(m.display) for m in record.active_medications())
    # metformin was stopped then restarted: active; simvastatin completed, ibuprofen ended,
    # warfarin entered in error: none of them active.
    assert names == ["amoxicillin", "insulin glargine", "lisinopril", "metformin"]
    assert all(m.status != "entered-in-error" for m in record.valid_medications())


def test_conditions_resolved_recurring_and_entered_in_error(cohort_db):
    record = load_record(cohort_db, "pat-ann", NOW)
    active = {c.code for c in record.active_conditions()}
    assert active == {"59621000", "36971009", "44054006"}  # sinusitis recurred; bronchitis resolved
    assert "195967001" not in {c.code for c in record.valid_conditions()}  # asthma entered in error


def test_latest_is_newest_by_effective_time_not_insertion_order(cohort_db):
    record = load_record(cohort_db, "pat-ann", NOW)
    series = record.series("4548-4")
    assert [m.value for m in series] == [5.4, 6.9, 7.4, 8.1]  # the entered-in-error 3.0 is gone
    assert series[-1].ref_high == 5.7


def test_blood_pressure_parts_by_code_not_position(cohort_db):
    record = load_record(cohort_db, "pat-ann", NOW)
    assert [m.value for m in record.series("8480-6")] == [142, 135]
    assert [m.value for m in record.series("8462-4")] == [91, 85]


def test_allergies_and_immunizations(cohort_db):
    record = load_record(cohort_db, "pat-ann", NOW)
    assert [a.display for a in record.current_allergies()] == ["Penicillin V"]
    assert {i.code for i in record.given_immunizations()} == {"140"}  # the not-done Td is not given


def test_now_hides_what_had_not_happened_yet(cohort_db):
    import datetime as dt

    earlier = dt.datetime(2024, 6, 1, tzinfo=dt.UTC)
    record = load_record(cohort_db, "pat-ann", earlier)
    assert [m.value for m in record.series("4548-4")] == [5.4, 6.9]
    assert "amoxicillin" not in {drug_name(m.display) for m in record.active_medications()}


def test_patients_listed_and_unknown_patient_is_none(cohort_db):
    assert list_patients(cohort_db) == ["pat-ann", "pat-bob"]
    assert load_record(cohort_db, "nobody", NOW) is None


def test_a_deceased_patients_requests_ended_at_death_are_not_active(cohort_db):
    from sqlalchemy import text

    from records.database import patient_transaction

    with patient_transaction(cohort_db.admin, "pat-bob") as conn:
        conn.execute(
            text(
                "UPDATE medication_requests SET ended_reason = 'patient-deceased' WHERE patient_id = 'pat-bob'"
            )
        )
    record = load_record(cohort_db, "pat-bob", NOW)
    assert record.active_medications() == []
    assert len(record.valid_medications()) == 2
