"""medication_requests.ended_reason: why a request's ended_at is set

Ingestion decides when a prescription ended (its validity period, or the patient's death
for requests Synthea leaves `active`); the query layer needs the reason to explain it.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("medication_requests", sa.Column("ended_reason", sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column("medication_requests", "ended_reason")
