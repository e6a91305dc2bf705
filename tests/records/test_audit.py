"""The one audit writer (`records.audit`): any value an actor chose is storable, nothing is lost."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from records.audit import LONG, SHORT, storable, write_audit, write_audit_and_commit
from records.database import patient_transaction


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(pid=st.text(max_size=400), detail=st.text(max_size=900))
def test_any_text_is_written_and_read_back_visibly(clean_db, pid, detail):
    write_audit(
        clean_db.app,
        actor="test",
        role="patient",
        action="probe",
        outcome="denied",
        target_patient_id=pid or None,
        detail=detail or None,
    )
    with clean_db.admin.begin() as conn:
        row = conn.execute(
            text("SELECT target_patient_id, detail FROM audit_log ORDER BY id DESC LIMIT 1")
        ).one()
        conn.execute(text("DELETE FROM audit_log"))
    assert row.target_patient_id == (storable(pid) if pid else None)
    assert row.detail == (storable(detail, LONG) if detail else None)
    if pid:
        assert "\x00" not in row.target_patient_id and len(row.target_patient_id) <= SHORT * 4
        assert row.target_patient_id.replace("\\x00", "\x00").startswith(pid[:SHORT].split("\x00")[0])


def test_a_nul_is_made_visible_not_dropped():
    assert storable("pat\x00evil") == "pat\\x00evil"
    assert storable("x" * 300) == "x" * SHORT


def _actions(db) -> list[str]:
    with db.admin.begin() as conn:
        return list(conn.execute(text("SELECT action FROM audit_log ORDER BY id")).scalars())


def test_the_row_and_the_commit_go_together(clean_db):
    with patient_transaction(clean_db.app, "p-1") as conn:
        write_audit(conn, actor="t", role="clinician", action="earlier", outcome="ok")
        write_audit_and_commit(conn, actor="t", role="clinician", action="tool:x", outcome="ok")
        assert conn.connection.driver_connection.info.transaction_status.name == "IDLE"
    assert _actions(clean_db) == ["earlier", "tool:x"]


def test_a_row_that_cannot_be_written_commits_nothing(clean_db):
    with pytest.raises(Exception, match="actor"), patient_transaction(clean_db.app, "p-1") as conn:
        write_audit(conn, actor="t", role="clinician", action="earlier", outcome="ok")
        write_audit_and_commit(conn, actor=None, role="clinician", action="tool:x", outcome="ok")
    assert _actions(clean_db) == []
