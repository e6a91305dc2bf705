"""tools: row-level security on appointment slots, index for free-slot search

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from records import security

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
    for stmt in security.slot_guard_sql():
        op.execute(stmt)


def downgrade() -> None:
    for stmt in security.drop_slot_guard_sql():
        op.execute(stmt)
    op.drop_index("ix_appointment_slots_free", table_name="appointment_slots")
