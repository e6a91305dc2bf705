"""accounts.evaluation_sandbox (evaluators write only in a sandbox) and run_claims (stale runs)

Evaluator tokens are read-only (`records.capabilities`): booking and cancelling are refused
unless the operator created the account for an evaluation sandbox, whose writes the
evaluation harness undoes.

`run_claims` says which server process answers which message, so `server.sweeper` can close
the messages of a process that died mid-answer instead of leaving them `running`.

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


def _app_role() -> str:
    role = op.get_context().config.attributes["app_role"]
    if not role.replace("_", "").isalnum():
        raise ValueError(f"unsafe role name: {role!r}")
    return f'"{role}"'


def upgrade() -> None:
    op.execute("ALTER TABLE accounts ADD COLUMN evaluation_sandbox boolean NOT NULL DEFAULT false")
    op.execute(
        "CREATE TABLE run_claims (message_id text PRIMARY KEY, run_patient_id text NOT NULL, "
        "owner text NOT NULL, claimed_at timestamptz NOT NULL DEFAULT now())"
    )
    op.execute("CREATE INDEX ix_run_claims_owner ON run_claims (owner)")
    op.execute(f"GRANT SELECT, INSERT, DELETE ON run_claims TO {_app_role()}")


def downgrade() -> None:
    op.execute("DROP TABLE run_claims")
    op.execute("ALTER TABLE accounts DROP COLUMN evaluation_sandbox")
