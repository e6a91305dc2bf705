"""Count the round trips an engine's connections make, from libpq's own protocol trace.

A round trip is one wait for the server's `ReadyForQuery`: a simple query (however many
statements it carries) or an extended-protocol exchange up to its `Sync`. Counting at the
protocol level sees every message, whichever layer sent it (SQLAlchemy, a psycopg cursor, a
raw `pgconn.send_query`), which a `before_cursor_execute` listener does not.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from psycopg import pq
from sqlalchemy import Engine, event

_MESSAGE = re.compile(r"\n(?=[FB]\t)")
_SENT = re.compile(r'^F\t\d+\t(Query|Parse)\t (?:"[^"]*" )?"(.*)"', re.S)


@dataclass
class Trips:
    """What the traced connections sent, in order, and how many answers they waited for."""

    statements: list[str] = field(default_factory=list)
    count: int = 0


@contextmanager
def round_trips(engine: Engine) -> Iterator[Trips]:
    """Trace every connection `engine` hands out inside the block; the result is filled at its end."""
    trips = Trips()
    with tempfile.TemporaryFile() as out:

        def checkout(dbapi_conn: Any, _record: Any, _proxy: Any) -> None:
            dbapi_conn.pgconn.trace(out.fileno())
            dbapi_conn.pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS | pq.Trace.REGRESS_MODE)

        def checkin(dbapi_conn: Any, _record: Any) -> None:
            if dbapi_conn is not None:
                dbapi_conn.pgconn.untrace()

        event.listen(engine, "checkout", checkout)
        event.listen(engine, "checkin", checkin)
        try:
            yield trips
        finally:
            event.remove(engine, "checkout", checkout)
            event.remove(engine, "checkin", checkin)
        out.seek(0)
        for message in _MESSAGE.split(out.read().decode(errors="replace")):  # a statement may span lines
            sent = _SENT.match(message)
            if sent:
                trips.statements.append(sent.group(2).strip())
            trips.count += message.startswith("B\t5\tReadyForQuery")
