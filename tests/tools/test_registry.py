"""The registry's promises: validation that explains, a rolled-back transaction on expected
failures, a generic result for crashes, one audit row per call, and safe parallel calls."""

from __future__ import annotations

import logging
import threading

import pytest
from sqlalchemy import text

from records.database import patient_transaction
from tests.builder import RecordBuilder
from tests.tools.conftest import make_ctx
from tools.registry import Registry, ToolContext, ToolError, ToolInput
from tools.results import ToolResult


class Empty(ToolInput):
    pass


def _scratch_registry() -> Registry:
    reg = Registry()

    @reg.tool("explode", section="labs")
    def explode(ctx: ToolContext, args: Empty) -> ToolResult:
        raise RuntimeError("secret internal detail: password=hunter2")

    @reg.tool("write_then_refuse", section="appointments", writes=True)
    def write_then_refuse(ctx: ToolContext, args: Empty) -> ToolResult:
        ctx.connection.execute(
            text("INSERT INTO conversations (patient_id, id, role) VALUES (:p, 'rolled-back', 'patient')"),
            {"p": ctx.scope.patient_id},
        )
        raise ToolError("conflict", "Slot was just taken. Call find_slots again.")

    return reg


def audit_rows(db) -> list:
    with db.admin.connect() as conn:
        return conn.execute(
            text(
                "SELECT actor, role, target_patient_id, action, outcome, args_digest FROM audit_log ORDER BY id"
            )
        ).all()


def test_unknown_fields_such_as_patient_id_are_rejected(clean_db, registry):
    RecordBuilder("p-a").write(clean_db)
    result = registry.execute(make_ctx(clean_db, "p-a"), "get_conditions", {"patient_id": "p-b"})
    assert not result.ok and result.error_kind == "bad_argument"
    assert "'patient_id' is not an argument of get_conditions; remove it" in result.text


def test_wrong_types_and_values_say_what_to_fix(clean_db, registry):
    ctx = make_ctx(clean_db, "p-a")
    bad_enum = registry.execute(ctx, "get_conditions", {"status": "current"})
    assert (
        bad_enum.error_kind == "bad_argument" and "'status'" in bad_enum.text and "'active'" in bad_enum.text
    )
    bad_date = registry.execute(ctx, "get_labs", {"since": "last tuesday"})
    assert bad_date.error_kind == "bad_argument" and "'since'" in bad_date.text
    not_object = registry.execute(ctx, "get_labs", ["A1C"])
    assert not_object.error_kind == "bad_argument" and "JSON object" in not_object.text


def test_unknown_and_disallowed_tools(clean_db, registry):
    ctx = make_ctx(clean_db, "p-a")
    assert registry.execute(ctx, "drop_tables", {}).error_kind == "not_found"
    denied = registry.execute(ctx, "get_labs", {}, allowed=["get_conditions"])
    assert denied.error_kind == "not_allowed"


def test_a_crash_becomes_a_generic_result_and_a_logged_traceback(clean_db, caplog):
    RecordBuilder("p-a").write(clean_db)
    with caplog.at_level(logging.ERROR, logger="tools.registry"):
        result = _scratch_registry().execute(make_ctx(clean_db, "p-a"), "explode", {})
    assert not result.ok and result.error_kind == "internal"
    assert (
        "hunter2" not in result.text and "Traceback" not in result.text and "RuntimeError" not in result.text
    )
    assert "do not guess" in result.text
    assert any("hunter2" in (r.exc_text or "") or r.exc_info for r in caplog.records)


def test_tool_error_rolls_back_what_the_tool_wrote(clean_db):
    RecordBuilder("p-a").write(clean_db)
    result = _scratch_registry().execute(make_ctx(clean_db, "p-a"), "write_then_refuse", {})
    assert result.error_kind == "conflict" and "find_slots" in result.text
    with patient_transaction(clean_db.admin, "p-a") as conn:
        assert conn.execute(text("SELECT count(*) FROM conversations")).scalar_one() == 0


def test_every_call_allowed_or_denied_writes_one_audit_row(clean_db, registry):
    RecordBuilder("p-a").write(clean_db)
    ctx = make_ctx(clean_db, "p-a", role="clinician")
    registry.execute(ctx, "get_labs", {"query": "A1C"})
    registry.execute(ctx, "get_labs", {"patient_id": "p-b"})
    registry.execute(ctx, "get_labs", {}, allowed=["get_conditions"])
    registry.execute(ctx, "no_such_tool", {})
    rows = audit_rows(clean_db)
    assert [(r.action, r.outcome) for r in rows] == [
        ("tool:get_labs", "ok"),
        ("tool:get_labs", "bad_argument"),
        ("tool:get_labs", "not_allowed"),
        ("tool:no_such_tool", "not_found"),
    ]
    assert {(r.actor, r.role, r.target_patient_id) for r in rows} == {("test:p-a", "clinician", "p-a")}
    assert rows[0].args_digest and rows[0].args_digest != rows[1].args_digest


@pytest.mark.parametrize(
    "statement",
    [
        "SELECT * FROM audit_log",
        "UPDATE audit_log SET outcome = 'ok'",
        "DELETE FROM audit_log",
        "TRUNCATE audit_log",
    ],
)
def test_app_role_can_only_append_to_the_audit_log(clean_db, statement):
    with clean_db.app.begin() as conn:
        conn.execute(
            text("INSERT INTO audit_log (actor, role, action, outcome) VALUES ('t', 'patient', 'x', 'ok')")
        )
    with pytest.raises(Exception, match="permission denied"), clean_db.app.begin() as conn:
        conn.execute(text(statement))
    assert len(audit_rows(clean_db)) == 1


def test_parallel_calls_sharing_one_context_get_distinct_handles(clean_db, registry):
    rec = RecordBuilder("p-a")
    for i in range(6):
        rec.condition(f"Condition {i}")
        rec.observation(f"Test {i}", code=f"1000{i}-1", value=float(i))
    rec.write(clean_db)
    ctx = make_ctx(clean_db, "p-a")
    results: list[ToolResult] = []
    threads = [
        threading.Thread(target=lambda name=name: results.append(registry.execute(ctx, name, {})))
        for name in ["get_conditions", "get_labs", "get_conditions", "get_labs"]
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r.ok for r in results)
    handles = [c.handle for c in ctx.handles.by_handle.values()]
    assert len(handles) == len(set(handles)) == 12
    # the same record keeps its handle across calls
    first, again = [r for r in results if r.rows and r.rows[0]["kind"] == "condition"][:2]
    assert first.handles == again.handles
