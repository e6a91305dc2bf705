"""Engines and transactions.

Two engines, two roles: `admin` is the owner (migrations, ingestion, slot generation) and
`app` is a non-owner role without BYPASSRLS that every tool and web request uses. Patient
data is only ever read through `patient_transaction`, which sets `app.patient_id` for that
one transaction (`SET LOCAL`), so row-level security filters every statement and the setting
cannot leak to the next user of a pooled connection.

`SET LOCAL` rather than `set_config(…, true)` (same semantics on one server): on a Citus
coordinator with `citus.propagate_set_commands = 'local'` (records.distribution sets it),
`SET LOCAL` travels with the transaction to every worker it touches, where the shards'
policies run; a `set_config` call does not, and the workers' policies would then see no
patient and silently return nothing (measured; tests/citus/test_rls_on_workers.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from psycopg import sql
from sqlalchemy import Connection, Engine, create_engine
from sqlalchemy.engine import make_url

from records.embedded import EmbeddedServer, ensure_database, start_embedded
from records.settings import Settings


def set_patient_sql(patient_id: str) -> str:
    """`SET LOCAL app.patient_id = '<id>'`: a utility command takes no bind parameters, so the
    id is quoted by psycopg as a literal (run it with `set_patient`, never through `text()`,
    whose `:name` parsing would mangle ids with colons)."""
    if not patient_id:
        raise ValueError("patient_id is required")
    return "SET LOCAL app.patient_id = " + sql.Literal(patient_id).as_string(None).strip()


def set_patient(conn: Connection, patient_id: str) -> None:
    """Set the patient for the rest of `conn`'s transaction.

    Sent through the psycopg connection without parameters: SQLAlchemy's `exec_driver_sql`
    passes an empty parameter list, which makes psycopg read a `%` in the id as a placeholder.
    """
    conn.connection.driver_connection.execute(set_patient_sql(patient_id))


def normalise_url(url: str) -> str:
    """Accept postgres:// and postgresql:// and always use the psycopg 3 driver."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def derive_app_url(admin_url: str, role: str, password: str) -> str:
    """Same server and database as the owner URL, but logged in as the application role."""
    url = make_url(normalise_url(admin_url)).set(username=role, password=password)
    return url.render_as_string(hide_password=False)


@dataclass
class Database:
    """Both engines for one configured database. Create with `open_database`."""

    settings: Settings
    admin_url: str
    app_url: str
    embedded: EmbeddedServer | None = None
    _admin: Engine | None = field(default=None, repr=False)
    _app: Engine | None = field(default=None, repr=False)

    @property
    def admin(self) -> Engine:
        if self._admin is None:
            self._admin = create_engine(self.admin_url, pool_pre_ping=True, pool_size=2, max_overflow=4)
        return self._admin

    @property
    def app(self) -> Engine:
        if self._app is None:
            self._app = create_engine(
                self.app_url,
                pool_pre_ping=True,
                pool_size=self.settings.db_pool_size,
                max_overflow=self.settings.db_pool_size,
                pool_timeout=self.settings.db_pool_timeout_s,
            )
        return self._app

    def dispose(self) -> None:
        for engine in (self._admin, self._app):
            if engine is not None:
                engine.dispose()
        self._admin = self._app = None

    def describe(self) -> str:
        where = f"embedded ({self.embedded.pgdata})" if self.embedded else "external"
        return f"{where} {make_url(self.admin_url).render_as_string(hide_password=True)}"


def open_database(settings: Settings, database_name: str | None = None) -> Database:
    """Resolve URLs; start the embedded server (and create its database) when no URL is set."""
    password = settings.app_db_password.get_secret_value()
    if settings.database_url:
        admin_url = normalise_url(settings.database_url)
        app_url = normalise_url(
            settings.app_database_url or derive_app_url(admin_url, settings.app_db_role, password)
        )
        return Database(settings=settings, admin_url=admin_url, app_url=app_url)
    server = start_embedded(settings.resolved_data_dir())
    name = database_name or settings.database_name
    ensure_database(server, name)
    return Database(
        settings=settings,
        admin_url=server.uri(name),
        app_url=settings.app_database_url or server.uri(name, user=settings.app_db_role, password=password),
        embedded=server,
    )


@contextmanager
def patient_transaction(engine: Engine, patient_id: str) -> Iterator[Connection]:
    """One transaction in which row-level security exposes exactly one patient's rows."""
    if not patient_id:
        raise ValueError("patient_id is required")
    with engine.begin() as conn:
        set_patient(conn, patient_id)
        yield conn
