"""Small stand-ins for the record and booking tools, written to the same contracts.

They exist so the MCP transports can be tested before (and independently of) the real tool
catalog: each reads through `ctx.connection` (the registry's patient-scoped transaction),
cites every row through the shared `HandleBook`, and the booking pair keeps the narrow-write
rules (`find_slots` records what it offered in the conversation; `book_appointment` accepts
only an offered slot, takes a row lock, and is idempotent by the scope's message id).
`build_registry` is also what the stdio subprocess test loads with `--registry`.
"""

from __future__ import annotations

import uuid
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import text

from tools.registry import Registry, ToolContext
from tools.results import ToolResult


class NoArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ConditionArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    status: Literal["active", "all"] = Field("active", description="Only active conditions, or all.")


class LabArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    code: str | None = Field(None, description="LOINC code to restrict to.")


class SlotArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    specialty: str = Field(description="Department specialty, e.g. 'general practice'.")
    limit: int = Field(3, ge=1, le=10)


class BookArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    slot_id: str = Field(description="A slot id returned by find_slots in this conversation.")
    reason: str = Field("", max_length=200)


def build_registry() -> Registry:
    registry = Registry()

    @registry.tool("get_demographics", section="demographics")
    def get_demographics(ctx: ToolContext, args: NoArgs) -> ToolResult:
        """The patient's name, birth date and gender."""
        row = (
            ctx.connection.execute(text("SELECT patient_id, full_name, birth_date, gender FROM patients"))
            .mappings()
            .first()
        )
        if row is None:
            return ToolResult(text="No demographics on record.")
        c = ctx.handles.cite("patient", row["patient_id"], row["full_name"], [str(row["birth_date"])])
        return ToolResult(
            text=f"[{c.handle}] {row['full_name']}, born {row['birth_date']}, {row['gender']}",
            rows=[dict(row) | {"handle": c.handle}],
            citations=[c],
            total=1,
        )

    @registry.tool("list_conditions", section="conditions")
    def list_conditions(ctx: ToolContext, args: ConditionArgs) -> ToolResult:
        """The patient's conditions (diagnoses), active only by default."""
        sql = "SELECT id, display, clinical_status, onset FROM conditions"
        if args.status == "active":
            sql += " WHERE clinical_status = 'active'"
        rows = ctx.connection.execute(text(sql + " ORDER BY onset")).mappings().all()
        lines, out, cites = [], [], []
        for row in rows:
            c = ctx.handles.cite("condition", row["id"], row["display"], [str(row["onset"].date())])
            lines.append(
                f"[{c.handle}] {row['display']} ({row['clinical_status']}, since {row['onset'].date()})"
            )
            out.append(dict(row) | {"handle": c.handle})
            cites.append(c)
        return ToolResult(
            text="\n".join(lines) or "No conditions on record.", rows=out, citations=cites, total=len(out)
        )

    @registry.tool("latest_labs", section="labs")
    def latest_labs(ctx: ToolContext, args: LabArgs) -> ToolResult:
        """The newest result per lab code."""
        rows = (
            ctx.connection.execute(
                text(
                    "SELECT DISTINCT ON (code) id, code, display, value_num, value_unit, effective "
                    "FROM observations WHERE (CAST(:code AS text) IS NULL OR code = :code) "
                    "ORDER BY code, effective DESC"
                ),
                {"code": args.code},
            )
            .mappings()
            .all()
        )
        lines, out, cites = [], [], []
        for row in rows:
            c = ctx.handles.cite("observation", row["id"], row["display"], [str(row["value_num"])])
            lines.append(f"[{c.handle}] {row['display']}: {row['value_num']} {row['value_unit']}")
            out.append(dict(row) | {"handle": c.handle})
            cites.append(c)
        return ToolResult(
            text="\n".join(lines) or "No lab results.", rows=out, citations=cites, total=len(out)
        )

    @registry.tool("find_slots", section="appointments")
    def find_slots(ctx: ToolContext, args: SlotArgs) -> ToolResult:
        """Free appointment slots in a department; only these may then be booked."""
        rows = (
            ctx.connection.execute(
                text(
                    "SELECT s.id, s.starts_at, d.name AS department FROM appointment_slots s "
                    "JOIN departments d ON d.id = s.department_id WHERE d.specialty = :sp "
                    "AND s.booked_appointment_id IS NULL AND s.starts_at > now() ORDER BY s.starts_at LIMIT :n"
                ),
                {"sp": args.specialty, "n": args.limit},
            )
            .mappings()
            .all()
        )
        lines, out, cites = [], [], []
        for row in rows:
            ctx.connection.execute(
                text(
                    "INSERT INTO offered_slots (patient_id, conversation_id, slot_id) VALUES (:p, :c, :s) "
                    "ON CONFLICT DO NOTHING"
                ),
                {"p": ctx.scope.patient_id, "c": ctx.scope.conversation_id, "s": row["id"]},
            )
            c = ctx.handles.cite("slot", row["id"], row["department"], [row["starts_at"].isoformat()])
            lines.append(
                f"[{c.handle}] slot_id={row['id']} {row['department']} at {row['starts_at']:%Y-%m-%d %H:%M}"
            )
            out.append(dict(row) | {"handle": c.handle})
            cites.append(c)
        return ToolResult(
            text="\n".join(lines) or "No free slots.", rows=out, citations=cites, total=len(out)
        )

    @registry.tool("book_appointment", section="appointments", writes=True)
    def book_appointment(ctx: ToolContext, args: BookArgs) -> ToolResult:
        """Book a slot that find_slots offered earlier in this conversation."""
        conn, scope = ctx.connection, ctx.scope
        key = f"msg:{scope.message_id}:slot:{args.slot_id}"
        existing = (
            conn.execute(text("SELECT id, slot_id FROM appointments WHERE idempotency_key = :k"), {"k": key})
            .mappings()
            .first()
        )
        if existing is not None:
            c = ctx.handles.cite("appointment", existing["id"], "appointment")
            return ToolResult(
                text=f"[{c.handle}] Already booked by this same request: appointment {existing['id']}",
                rows=[dict(existing) | {"handle": c.handle}],
                citations=[c],
                total=1,
            )
        offered = conn.execute(
            text("SELECT 1 FROM offered_slots WHERE conversation_id = :c AND slot_id = :s"),
            {"c": scope.conversation_id, "s": args.slot_id},
        ).first()
        if offered is None:
            return ToolResult.failure(
                "not_allowed", "That slot was not offered in this conversation; call find_slots first."
            )
        slot = conn.execute(
            text("SELECT booked_appointment_id FROM appointment_slots WHERE id = :s FOR UPDATE"),
            {"s": args.slot_id},
        ).first()
        if slot is None or slot.booked_appointment_id is not None:
            return ToolResult.failure("conflict", "That slot has just been taken; offer the others.")
        appointment_id = f"appt-{uuid.uuid4().hex[:12]}"
        conn.execute(
            text(
                "INSERT INTO appointments (patient_id, id, slot_id, status, reason, idempotency_key, "
                "conversation_id, booked_by) VALUES (:p, :id, :s, 'booked', :r, :k, :c, :by)"
            ),
            {
                "p": scope.patient_id,
                "id": appointment_id,
                "s": args.slot_id,
                "r": args.reason,
                "k": key,
                "c": scope.conversation_id,
                "by": scope.actor,
            },
        )
        conn.execute(
            # the slot names its patient too (the slot guard policy, migration 0009)
            text(
                "UPDATE appointment_slots SET booked_appointment_id = :a, booked_patient_id = :p WHERE id = :s"
            ),
            {"a": appointment_id, "p": scope.patient_id, "s": args.slot_id},
        )
        c = ctx.handles.cite("appointment", appointment_id, "appointment")
        return ToolResult(
            text=f"[{c.handle}] Booked appointment {appointment_id} in slot {args.slot_id}",
            rows=[{"id": appointment_id, "slot_id": args.slot_id, "handle": c.handle}],
            citations=[c],
            total=1,
        )

    return registry


READ_TOOL_ARGUMENTS = {
    "get_demographics": {},
    "list_conditions": {"status": "all"},
    "latest_labs": {},
}
