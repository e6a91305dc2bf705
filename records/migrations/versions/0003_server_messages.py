"""server: a message can pin "now" (evaluators); the app role may read the schema revision

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("messages", sa.Column("pinned_now", sa.DateTime(timezone=True), nullable=True))
    # /healthz reports the schema revision without the server holding owner credentials
    role = _quote_ident(op.get_context().config.attributes["app_role"])
    op.execute(f"GRANT SELECT ON alembic_version TO {role}")


def downgrade() -> None:
    op.drop_column("messages", "pinned_now")


# --- frozen: the SQL as it was at this revision ------------------------------------------------
# A revision never imports live code, so its meaning cannot change when `records.security`
# does (tests/records/test_migrations_frozen.py checks it).


def _quote_ident(name: str) -> str:
    if not name.replace("_", "").isalnum():
        raise ValueError(f"unsafe identifier: {name!r}")
    return f'"{name}"'
