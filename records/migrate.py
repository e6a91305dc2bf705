"""Versioned schema migrations (Alembic), applied idempotently by `chartside db upgrade`.

The app role's password comes from settings, so migrations read it from the Alembic config
attributes rather than from the environment.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import text

from records import distribution
from records.database import Database

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
UPGRADE_LOCK_KEY = 727_001  # advisory lock: two processes upgrading at once take turns


def _config(db: Database, connection) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.attributes["connection"] = connection
    cfg.attributes["app_role"] = db.settings.app_db_role
    cfg.attributes["app_password"] = db.settings.app_db_password.get_secret_value()
    return cfg


def head_revision() -> str | None:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    return ScriptDirectory.from_config(cfg).get_current_head()


def current_revision(db: Database) -> str | None:
    with db.admin.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def upgrade(db: Database, revision: str = "head") -> tuple[str | None, str | None]:
    """Bring the schema to `revision`. Returns (before, after)."""
    with db.admin.begin() as conn:
        conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": UPGRADE_LOCK_KEY})
        before = MigrationContext.configure(conn).get_current_revision()
        command.upgrade(_config(db, conn), revision)
        after = MigrationContext.configure(conn).get_current_revision()
        # on a Citus coordinator: distribute what the migrations built (a no-op elsewhere)
        distribution.distribute(conn)
    return before, after
