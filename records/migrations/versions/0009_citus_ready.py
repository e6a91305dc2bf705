"""Citus: the slot guard without a cross-table read (docs/scaling.md, change 2)

The old policy on `appointment_slots` checked the booking patient with
`EXISTS (SELECT … FROM appointments …)`. On Citus `appointment_slots` is a reference table and
`appointments` is distributed, and Citus refuses the policy outright ("Subqueries are not
supported in policies on distributed tables", measured on Citus 14.0.1). The slot now carries
`booked_patient_id`, set together with `booked_appointment_id`, and the policy compares it with
the transaction's patient. Same protection: the application role can neither steal nor free
another patient's slot, and can only claim a slot for its own patient.

Frozen SQL: this revision imports nothing from live code.

Revision ID: 0009
Revises: 0005
Create Date: 2026-12-01
"""

from __future__ import annotations

from alembic import op

revision = "0009"
down_revision = "0005"
branch_labels = None
depends_on = None

SETTING = "current_setting('app.patient_id', true)"


def _role() -> str:
    role = op.get_context().config.attributes["app_role"]
    if not role.replace("_", "").isalnum():
        raise ValueError(f"unsafe role name: {role!r}")
    return f'"{role}"'


def upgrade() -> None:
    op.execute("ALTER TABLE appointment_slots ADD COLUMN booked_patient_id text")
    op.execute(
        "UPDATE appointment_slots s SET booked_patient_id = a.patient_id FROM appointments a "
        "WHERE a.id = s.booked_appointment_id AND a.slot_id = s.id"
    )
    op.execute("DROP POLICY IF EXISTS slots_claim_own ON appointment_slots")
    op.execute(
        "CREATE POLICY slots_claim_own ON appointment_slots FOR UPDATE "
        f"USING (booked_appointment_id IS NULL OR booked_patient_id = {SETTING}) "
        f"WITH CHECK (booked_appointment_id IS NULL OR booked_patient_id = {SETTING})"
    )
    op.execute(f"GRANT UPDATE (booked_appointment_id, booked_patient_id) ON appointment_slots TO {_role()}")


def downgrade() -> None:
    op.execute(f"REVOKE UPDATE (booked_patient_id) ON appointment_slots FROM {_role()}")
    op.execute("DROP POLICY IF EXISTS slots_claim_own ON appointment_slots")

    def held(extra: str = "") -> str:
        return (
            "EXISTS (SELECT 1 FROM appointments a WHERE a.id = appointment_slots.booked_appointment_id "
            f"AND a.patient_id = {SETTING}{extra})"
        )

    op.execute(
        "CREATE POLICY slots_claim_own ON appointment_slots FOR UPDATE "
        f"USING (booked_appointment_id IS NULL OR {held()}) "
        f"WITH CHECK (booked_appointment_id IS NULL OR {held(' AND a.slot_id = appointment_slots.id')})"
    )
    op.execute("ALTER TABLE appointment_slots DROP COLUMN booked_patient_id")
