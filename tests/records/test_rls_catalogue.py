"""The second wall: row-level security on every patient table, checked from the catalogue
AND by probing as the application role with a deliberately unfiltered query.

`rls_violations` is the check; the sabotage tests below prove it fails when a policy is
dropped, disabled or made permissive, and passes again once restored.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy import insert, text

from records import security
from records.database import Database, patient_transaction
from records.models import Base, patient_tables
from tests.builder import RecordBuilder

A, B = "rls-a", "rls-b"


def fill_every_patient_table(db: Database, pid: str, slot_id: str) -> None:
    rec = RecordBuilder(pid)
    enc = rec.encounter()
    rec.condition("Hypertension", encounter_id=enc)
    rec.medication("lisinopril 10 MG")
    rec.blood_pressure(120, 80)
    rec.allergy("Penicillin", reactions=[("Hives", "mild")])
    rec.immunization("Influenza")
    rec.procedure("Screening")
    rec.care_plan("Self care")
    rec.write(db)
    t = Base.metadata.tables
    with patient_transaction(db.admin, pid) as conn:
        conn.execute(
            insert(t["clinical_notes"]).values(patient_id=pid, id=f"{pid}-n", text="note", text_sha256="x")
        )
        conn.execute(insert(t["note_chunks"]).values(patient_id=pid, note_id=f"{pid}-n", seq=0, text="note"))
        conn.execute(insert(t["diagnostic_reports"]).values(patient_id=pid, id=f"{pid}-dr"))
        conn.execute(insert(t["conversations"]).values(patient_id=pid, id=f"{pid}-c", role="patient"))
        conn.execute(
            insert(t["messages"]).values(
                patient_id=pid, id=f"{pid}-m", conversation_id=f"{pid}-c", question="q"
            )
        )
        conn.execute(
            insert(t["message_events"]).values(
                patient_id=pid, message_id=f"{pid}-m", seq=0, type="text", payload={}
            )
        )
        conn.execute(
            insert(t["offered_slots"]).values(patient_id=pid, conversation_id=f"{pid}-c", slot_id=slot_id)
        )
        conn.execute(
            insert(t["appointments"]).values(
                patient_id=pid,
                id=f"{pid}-appt",
                slot_id=slot_id,
                status="cancelled",
                idempotency_key=f"{pid}-k",
            )
        )


@pytest.fixture()
def two_patients(clean_db: Database) -> Database:
    with clean_db.admin.begin() as conn:
        conn.execute(
            text("INSERT INTO departments (id, name, specialty) VALUES ('d1', 'GP', 'General Practice')")
        )
        conn.execute(
            text(
                "INSERT INTO appointment_slots (id, department_id, starts_at, ends_at) VALUES ('s1', 'd1', :s, :e)"
            ),
            {
                "s": dt.datetime(2030, 1, 1, 9, tzinfo=dt.UTC),
                "e": dt.datetime(2030, 1, 1, 9, 30, tzinfo=dt.UTC),
            },
        )
    for pid in (A, B):
        fill_every_patient_table(clean_db, pid, "s1")
    return clean_db


def rls_violations(db: Database, role: str, me: str = A) -> list[str]:
    """Everything wrong with the second wall, as readable findings (empty = sound)."""
    found: list[str] = []
    with db.admin.connect() as conn:
        catalogue = conn.execute(
            text(
                "SELECT c.relname, c.relrowsecurity, c.relforcerowsecurity, pg_get_userbyid(c.relowner), "
                "(SELECT count(*) FROM pg_policy p WHERE p.polrelid = c.oid) "
                "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname = 'public' AND c.relkind = 'r' AND EXISTS ("
                "  SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'patient_id' "
                "  AND NOT a.attisdropped)"
            )
        ).all()
        bypass = conn.execute(
            text("SELECT rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = :r"), {"r": role}
        ).scalar_one()
        mine = {
            name: conn.execute(
                text(f'SELECT count(*) FROM "{name}" WHERE patient_id = :p'), {"p": me}
            ).scalar_one()
            for name, *_ in catalogue
        }
    if bypass:
        found.append(f"role {role} is superuser or has BYPASSRLS")
    if {name for name, *_ in catalogue} != set(patient_tables()):
        found.append("the catalogue's patient tables differ from records.models.patient_tables()")
    for name, enabled, forced, owner, policies in catalogue:
        if not enabled:
            found.append(f"{name}: row-level security disabled")
        if not forced:
            found.append(f"{name}: row-level security not forced")
        if owner == role:
            found.append(f"{name}: owned by the application role")
        if policies == 0:
            found.append(f"{name}: no policy")
    for name in sorted(mine):
        # a deliberately buggy query: no patient filter at all
        with patient_transaction(db.app, me) as conn:
            others, own = conn.execute(
                text(
                    f'SELECT count(*) FILTER (WHERE patient_id <> :p), count(*) FILTER (WHERE patient_id = :p) FROM "{name}"'
                ),
                {"p": me},
            ).one()
        if others:
            found.append(f"{name}: patient {me} sees {others} rows of other patients")
        if own != mine[name]:
            found.append(f"{name}: patient {me} sees {own} of its {mine[name]} rows")
    return found


@contextmanager
def sabotaged(db: Database, table: str, *statements: str) -> Iterator[None]:
    with db.admin.begin() as conn:
        for stmt in statements:
            conn.execute(text(stmt))
    try:
        yield
    finally:
        with db.admin.begin() as conn:
            for stmt in security.enable_rls_sql(table):
                conn.execute(text(stmt))


def test_every_patient_table_has_rows_for_both_patients(two_patients):
    with two_patients.admin.connect() as conn:
        for name in patient_tables():
            pids = set(conn.execute(text(f'SELECT DISTINCT patient_id FROM "{name}"')).scalars())
            assert pids == {A, B}, f"{name}: the probe needs rows of both patients, has {pids}"


def test_the_second_wall_is_sound(two_patients, settings):
    assert rls_violations(two_patients, settings.app_db_role) == []
    assert rls_violations(two_patients, settings.app_db_role, me=B) == []


@pytest.mark.parametrize("unset", [None, ""])
def test_no_patient_set_sees_nothing(two_patients, unset):
    with two_patients.app.begin() as conn:
        if unset is not None:
            conn.execute(text("SELECT set_config('app.patient_id', :v, true)"), {"v": unset})
        for name in patient_tables():
            assert conn.execute(text(f'SELECT count(*) FROM "{name}"')).scalar_one() == 0, name


def test_dropping_a_policy_is_detected_then_restored(two_patients, settings):
    with sabotaged(two_patients, "conditions", f"DROP POLICY {security.POLICY} ON conditions"):
        found = rls_violations(two_patients, settings.app_db_role)
        assert "conditions: no policy" in found
        assert "conditions: patient rls-a sees 0 of its 1 rows" in found
    assert rls_violations(two_patients, settings.app_db_role) == []


def test_disabling_rls_is_detected_as_a_leak(two_patients, settings):
    with sabotaged(
        two_patients, "medication_requests", "ALTER TABLE medication_requests DISABLE ROW LEVEL SECURITY"
    ):
        found = rls_violations(two_patients, settings.app_db_role)
        assert "medication_requests: row-level security disabled" in found
        assert "medication_requests: patient rls-a sees 1 rows of other patients" in found
    assert rls_violations(two_patients, settings.app_db_role) == []


def test_a_permissive_policy_passes_the_catalogue_but_not_the_probe(two_patients, settings):
    with sabotaged(
        two_patients,
        "observations",
        f"DROP POLICY {security.POLICY} ON observations",
        f"CREATE POLICY {security.POLICY} ON observations USING (true)",
    ):
        found = rls_violations(two_patients, settings.app_db_role)
        assert found == ["observations: patient rls-a sees 1 rows of other patients"]
    assert rls_violations(two_patients, settings.app_db_role) == []
