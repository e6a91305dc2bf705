"""accounts.evaluation_sandbox: an evaluator account may write only when this marks it so

Evaluator tokens are read-only (`records.capabilities`): booking and cancelling are refused
unless the operator created the account for an evaluation sandbox, whose writes the
evaluation harness undoes.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

from __future__ import annotations

from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("ALTER TABLE accounts ADD COLUMN evaluation_sandbox boolean NOT NULL DEFAULT false")


def downgrade() -> None:
    op.execute("ALTER TABLE accounts DROP COLUMN evaluation_sandbox")
