"""accounts.sessions_valid_after: logging out (or a new password) ends every earlier session

Sessions are signed cookies, which the server cannot delete from a browser or from whoever
copied one. A login records when the session was issued; a session issued before its
account's `sessions_valid_after` is refused. The application role may set only that column.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("accounts", sa.Column("sessions_valid_after", sa.DateTime(timezone=True), nullable=True))
    role = _quote_ident(op.get_context().config.attributes["app_role"])
    op.execute(f"GRANT UPDATE (sessions_valid_after) ON accounts TO {role}")


def downgrade() -> None:
    role = _quote_ident(op.get_context().config.attributes["app_role"])
    op.execute(f"REVOKE UPDATE (sessions_valid_after) ON accounts FROM {role}")
    op.drop_column("accounts", "sessions_valid_after")


# --- frozen: the SQL as it was at this revision ------------------------------------------------
# A revision never imports live code, so its meaning cannot change when `records.security`
# does (tests/records/test_migrations_frozen.py checks it).


def _quote_ident(name: str) -> str:
    if not name.replace("_", "").isalnum():
        raise ValueError(f"unsafe identifier: {name!r}")
    return f'"{name}"'
