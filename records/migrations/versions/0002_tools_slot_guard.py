"""tools: row-level security on appointment slots, index for free-slot search

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index(
        "ix_appointment_slots_free",
        "appointment_slots",
        ["department_id", "starts_at"],
        unique=False,
        postgresql_where=sa.text("booked_appointment_id IS NULL"),
    )
    for stmt in _slot_guard_sql():
        op.execute(stmt)


def downgrade() -> None:
    for stmt in _drop_slot_guard_sql():
        op.execute(stmt)
    op.drop_index("ix_appointment_slots_free", table_name="appointment_slots")


# --- frozen: the SQL as it was at this revision ------------------------------------------------
# A revision never imports live code, so its meaning cannot change when `records.security`
# does (tests/records/test_migrations_frozen.py checks it).

PATIENT_SETTING = "current_setting('app.patient_id', true)"
SLOT_POLICY_READ = "slots_readable"
SLOT_POLICY_CLAIM = "slots_claim_own"


def _slot_guard_sql() -> list[str]:
    """Row-level security on `appointment_slots` (shared reference data, so not patient-keyed).

    Everyone may read slots. The application role may change a slot's
    `booked_appointment_id` only when the slot is free or held by its own patient's
    appointment, and may set it only to its own patient's appointment *for that slot*: a
    bug or injected statement can neither steal nor free another patient's booking.
    `SELECT … FOR UPDATE` applies the UPDATE policy too, so a slot another patient holds is
    invisible to the booking lock (booking then reports it taken). Not FORCEd: the owner
    (slot generation) is unaffected.
    """

    def held_by_own_patient(extra: str = "") -> str:
        return (
            "EXISTS (SELECT 1 FROM appointments a WHERE a.id = appointment_slots.booked_appointment_id "
            f"AND a.patient_id = {PATIENT_SETTING}{extra})"
        )

    return [
        "ALTER TABLE appointment_slots ENABLE ROW LEVEL SECURITY",
        f"DROP POLICY IF EXISTS {SLOT_POLICY_READ} ON appointment_slots",
        f"DROP POLICY IF EXISTS {SLOT_POLICY_CLAIM} ON appointment_slots",
        f"CREATE POLICY {SLOT_POLICY_READ} ON appointment_slots FOR SELECT USING (true)",
        f"CREATE POLICY {SLOT_POLICY_CLAIM} ON appointment_slots FOR UPDATE "
        f"USING (booked_appointment_id IS NULL OR {held_by_own_patient()}) "
        "WITH CHECK (booked_appointment_id IS NULL OR "
        f"{held_by_own_patient(' AND a.slot_id = appointment_slots.id')})",
    ]


def _drop_slot_guard_sql() -> list[str]:
    return [
        f"DROP POLICY IF EXISTS {SLOT_POLICY_READ} ON appointment_slots",
        f"DROP POLICY IF EXISTS {SLOT_POLICY_CLAIM} ON appointment_slots",
        "ALTER TABLE appointment_slots DISABLE ROW LEVEL SECURITY",
    ]
