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

import re
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import psycopg
from psycopg import generators
from psycopg.adapt import Transformer
from psycopg.pq import ExecStatus
from psycopg_pool import AsyncConnectionPool
from sqlalchemy.engine import make_url

from records.database import Database

_TUPLES_OK = ExecStatus.TUPLES_OK
_FATAL_ERROR = ExecStatus.FATAL_ERROR
_PLACEHOLDER = re.compile(r"%\((\w+)\)s")
PREPARED: dict[str, str] = {}  # every `Prepared` statement: name → its SQL (tests/scale reads it)


@dataclass(frozen=True)
class Prepared:
    """A statement prepared on every connection of a pool (`app_pool(prepared=…)`: `PREPARE`
    when the connection is opened) and run by `EXECUTE` inside a query of several statements
    (`call`): PostgreSQL parses, analyses and plans it once per connection instead of once per
    query (`chartside bench serve` measured most of the opening's database CPU there). `sql`
    keeps psycopg's `%(name)s` placeholders; `call` passes them in the same order, bound on
    the client like the rest of the query."""

    name: str
    sql: str
    params: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "params", tuple(dict.fromkeys(_PLACEHOLDER.findall(self.sql))))
        if PREPARED.setdefault(self.name, self.sql) != self.sql:
            raise ValueError(f"two statements prepared as {self.name}")

    def prepare(self) -> str:
        numbered = _PLACEHOLDER.sub(lambda m: f"${self.params.index(m.group(1)) + 1}", self.sql)
        return f"PREPARE {self.name} AS {numbered}"

    def call(self) -> str:
        return (
            f"EXECUTE {self.name}({', '.join(f'%({p})s' for p in self.params)})"
            if self.params
            else (f"EXECUTE {self.name}")
        )


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
    prepared: Sequence[Prepared] = (),
) -> AsyncConnectionPool:
    """A closed pool of the application role; `await pool.open()` inside the event loop.
    `options`: keyword arguments of `psycopg.AsyncConnection.connect` for every connection
    (autocommit, so that preparing leaves no transaction open). `min_size`: connections kept
    open; beyond them the pool grows one connection at a time while callers wait
    (psycopg_pool), which a burst of requests after a quiet spell pays. `prepared`: statements
    each new connection prepares (one query) before the pool hands it out."""
    preparing = "; ".join(p.prepare() for p in prepared)

    async def configure(conn: Any) -> None:
        await conn.execute(preparing)

    return AsyncConnectionPool(
        libpq_url(db.app_url),
        kwargs=options or {},
        min_size=max(1, min(min_size, max_size)),
        max_size=max(1, max_size),
        timeout=timeout_s,
        open=False,
        name="answer-openings",
        configure=configure if prepared else None,
    )


@asynccontextmanager
async def connection(pool: AsyncConnectionPool) -> AsyncIterator[Any]:
    """A connection of `pool` for queries that `EXECUTE` its `Prepared` statements. One that
    has lost them (a `DEALLOCATE ALL` or `DISCARD ALL` run on it) fails that query, and is
    then closed, so the pool replaces it with a new one, prepared again."""
    async with pool.connection() as conn:
        try:
            yield conn
        except psycopg.errors.InvalidSqlStatementName:
            await conn.close()
            raise


async def run_script(conn: psycopg.AsyncConnection, query: str, params: dict[str, Any]) -> list[list[tuple]]:
    """ONE query of several statements on a connection of `app_pool` (its `ClientCursor`
    binds `params` on the client), and the rows of each statement that returned rows, in
    order: what `cursor.execute` and a `fetchall` per result set give, without the cursor's
    per-execute and per-result-set bookkeeping (prepared-statement cache, result selection,
    row makers), which `chartside bench serve` measured at ~60 µs of the event loop's CPU per
    answer opening. The first failed statement is raised as psycopg raises it (a
    `psycopg.Error` of its SQLSTATE); the statements after it did not run."""
    sql = conn.cursor().mogrify(query, params).encode(conn.info.encoding)
    async with conn.lock:
        conn.pgconn.send_query(sql)
        results = await conn.wait(generators.execute(conn.pgconn))
    rows: list[list[tuple]] = []
    loader = None
    for result in results:
        status = result.status
        if status == _TUPLES_OK:
            loader = loader or Transformer(conn)
            loader.set_pgresult(result)
            rows.append(loader.load_rows(0, result.ntuples, tuple))
        elif status == _FATAL_ERROR:
            raise psycopg.errors.error_from_result(result, encoding=conn.info.encoding)
    return rows
