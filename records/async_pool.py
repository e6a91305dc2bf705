"""An asyncio connection pool of the application role (psycopg_pool), beside `Database.app`.

The web server's answer stream opens with one short transaction that sits on the way to the
answer's first event (server/opening.py). Through `Database.app` it cost a worker-thread hop,
a pre-ping and a round trip per statement, each waiting for the GIL behind the event loop.
On this pool it runs on the event loop itself, a few statements per round trip. Same server, same
role (row-level security applies), same patient rule: a transaction sets `app.patient_id`
with `records.database.set_patient_sql` before it reads patient data.

No check on checkout: a connection the server dropped fails its first statement, the caller
falls back to the engine path (which retries and reports an outage), and the pool replaces
the broken connection when it is returned.
"""

from __future__ import annotations

from typing import Any

from psycopg_pool import AsyncConnectionPool
from sqlalchemy.engine import make_url

from records.database import Database


def libpq_url(sqlalchemy_url: str) -> str:
    """`postgresql+psycopg://…` (SQLAlchemy's) as the libpq URI psycopg connects with."""
    return make_url(sqlalchemy_url).set(drivername="postgresql").render_as_string(hide_password=False)


def app_pool(
    db: Database,
    *,
    max_size: int,
    timeout_s: float,
    options: dict[str, Any] | None = None,
    min_size: int = 1,
) -> AsyncConnectionPool:
    """A closed pool of the application role; `await pool.open()` inside the event loop.
    `options`: keyword arguments of `psycopg.AsyncConnection.connect` for every connection.
    `min_size`: connections kept open; beyond them the pool grows one connection at a time
    while callers wait (psycopg_pool), which a burst of requests after a quiet spell pays."""
    return AsyncConnectionPool(
        libpq_url(db.app_url),
        kwargs=options or {},
        min_size=max(1, min(min_size, max_size)),
        max_size=max(1, max_size),
        timeout=timeout_s,
        open=False,
        name="answer-openings",
    )
