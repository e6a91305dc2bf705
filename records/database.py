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

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

from psycopg import generators, sql
from psycopg.errors import error_from_result
from psycopg.pq import ExecStatus, TransactionStatus
from sqlalchemy import Connection, Engine, create_engine
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

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


def begin_for_patient(conn: Connection, patient_id: str) -> None:
    """Open `conn`'s transaction and set its patient in ONE round trip (else `set_patient`).

    psycopg opens a transaction lazily: its own `BEGIN`, a round trip, before the first
    statement, here the `SET LOCAL` (another). Every tool call and patient page opens this
    way, so both go as one simple query instead (`BEGIN; SET LOCAL …`). psycopg reads the
    transaction state from libpq before each statement, so it sends no `BEGIN` of its own
    afterwards and commits or rolls back as usual. Only where psycopg's own `BEGIN` would be
    a plain one and none is open yet; otherwise (an isolation level, read-only, autocommit,
    an open transaction) `set_patient` as before."""
    driver = conn.connection.driver_connection
    pgconn = driver.pgconn
    plain = not driver.autocommit and driver.isolation_level is None and driver.read_only is None
    if not plain or driver.deferrable is not None or pgconn.transaction_status != TransactionStatus.IDLE:
        set_patient(conn, patient_id)
        return
    pgconn.send_query(f"BEGIN; {set_patient_sql(patient_id)}".encode(pgconn._encoding))
    for result in driver.wait(generators.execute(pgconn)):  # as psycopg's own commands are run
        if result.status != ExecStatus.COMMAND_OK:
            raise error_from_result(result, encoding=pgconn._encoding)


@contextmanager
def patient_transaction(engine: Engine, patient_id: str) -> Iterator[Connection]:
    """One transaction in which row-level security exposes exactly one patient's rows."""
    if not patient_id:
        raise ValueError("patient_id is required")
    with engine.begin() as conn:
        begin_for_patient(conn, patient_id)
        yield conn


T = TypeVar("T")


def retry_after_disconnect(fn: Callable[..., T], *args: Any, attempts: int = 3, **kwargs: Any) -> T:
    """Run `fn` (one whole transaction) again when its connection was killed under it.

    A connection terminated by the server (a restart, a failover, an administrator's
    `pg_terminate_backend`) fails the transaction it was in, which therefore committed
    nothing; SQLAlchemy marks such errors `connection_invalidated` and drops the connection,
    so a second run gets a fresh one. Any other error is raised at once.
    """
    for attempt in range(attempts):
        try:
            return fn(*args, **kwargs)
        except DBAPIError as exc:
            if not exc.connection_invalidated or attempt == attempts - 1:
                raise
    raise AssertionError("unreachable")
