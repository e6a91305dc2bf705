"""Issue 18 item 14: a transaction whose connection the server killed is run again.

`tests/faults/test_database_faults.py::test_a_connection_killed_inside_a_tool_transaction`
kills every application connection; under load the answer's event writer was in the middle
of a write then, so the answer ended with "could not be saved" instead of the model's reply.
"""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError, ProgrammingError

from records.database import retry_after_disconnect


def _kill(db, pid: int) -> None:
    with db.admin.connect() as conn:
        conn.execute(text("SELECT pg_terminate_backend(:p)"), {"p": pid})


def test_a_killed_connection_is_retried_on_a_fresh_one(db):
    calls: list[int] = []

    def write() -> int:
        with db.app.begin() as conn:
            pid = conn.execute(text("SELECT pg_backend_pid()")).scalar_one()
            calls.append(pid)
            if len(calls) == 1:
                _kill(db, pid)  # as an administrator or a failover would, mid-transaction
            return conn.execute(text("SELECT 41 + 1")).scalar_one()

    assert retry_after_disconnect(write) == 42
    assert len(calls) == 2 and calls[0] != calls[1]


def test_other_errors_are_not_retried(db):
    calls = []

    def broken() -> None:
        calls.append(1)
        with db.app.begin() as conn:
            conn.execute(text("SELECT * FROM no_such_table"))

    with pytest.raises(ProgrammingError):
        retry_after_disconnect(broken)
    assert calls == [1]


def test_a_connection_that_stays_dead_fails_after_the_attempts(db):
    calls = []

    def always_killed() -> None:
        with db.app.begin() as conn:
            calls.append(1)
            _kill(db, conn.execute(text("SELECT pg_backend_pid()")).scalar_one())
            conn.execute(text("SELECT 1"))

    with pytest.raises(DBAPIError):
        retry_after_disconnect(always_killed, attempts=2)
    assert calls == [1, 1]
