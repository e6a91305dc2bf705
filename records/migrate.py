"""Versioned schema migrations (Alembic), applied idempotently by `chartside db upgrade`.

The app role's password comes from settings, so migrations read it from the Alembic config
attributes rather than from the environment.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import inspect, text

from records.database import Database

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
UPGRADE_LOCK_KEY = 727_001  # advisory lock: two processes upgrading at once take turns


def _config(db: Database, connection) -> Config:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.attributes["connection"] = connection
    cfg.attributes["app_role"] = db.settings.app_db_role
    cfg.attributes["app_password"] = db.settings.app_db_password.get_secret_value()
    return cfg


def head_revision() -> str | None:
    """The newest revision, read from the revision files' `revision` / `down_revision` literals.

    Without importing alembic or the revisions (`chartside db status` starts in a fraction of
    the time); `tests/records/test_schema.py` checks it equals alembic's own answer.
    """
    revisions: dict[str, object] = {}
    for path in sorted((MIGRATIONS_DIR / "versions").glob("*.py")):
        values = {}
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            # `revision = "0006"` or `revision: str = "0006"`
            target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None
            if isinstance(node, ast.AnnAssign) and node.value is not None:
                target = node.target
            if isinstance(target, ast.Name) and target.id in ("revision", "down_revision"):
                values[target.id] = ast.literal_eval(node.value)
        if "revision" in values:
            revisions[values["revision"]] = values.get("down_revision")
    parents = {p for down in revisions.values() for p in (down if isinstance(down, tuple) else (down,))}
    heads = sorted(r for r in revisions if r not in parents)
    if len(heads) > 1:
        raise RuntimeError(f"migrations have several heads: {heads}")
    return heads[0] if heads else None


def current_revision(db: Database) -> str | None:
    """The database's revision (alembic's own table), None on an empty database."""
    with db.admin.connect() as conn:
        if not inspect(conn).has_table("alembic_version"):
            return None
        return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()


def upgrade(db: Database, revision: str = "head") -> tuple[str | None, str | None]:
    """Bring the schema to `revision`. Returns (before, after)."""
    from alembic import command
    from alembic.runtime.migration import MigrationContext

    from records import distribution  # imports the models: only an upgrade needs them

    with db.admin.begin() as conn:
        conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": UPGRADE_LOCK_KEY})
        before = MigrationContext.configure(conn).get_current_revision()
        command.upgrade(_config(db, conn), revision)
        after = MigrationContext.configure(conn).get_current_revision()
        # on a Citus coordinator: distribute what the migrations built (a no-op elsewhere)
        distribution.distribute(conn)
    return before, after
