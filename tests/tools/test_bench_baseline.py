"""The tools bench's baseline must not change what it is compared with: psycopg deallocates a
connection's prepared statements on ROLLBACK, so a baseline that rolled back made every tool
call after it on that pooled connection plan its statements again (find_slots looked 11× a
`SELECT 1` on an idle machine partly because of it)."""

from __future__ import annotations

from sqlalchemy import create_engine, text

from tools.bench import bare_round_trip, flushed_commit


def _prepared_statements(conn) -> int:
    return conn.execute(text("SELECT count(*) FROM pg_prepared_statements")).scalar_one()


def test_the_baseline_leaves_the_pooled_connections_prepared_statements_alone(db):
    engine = create_engine(db.app.url, pool_size=1, max_overflow=0)  # one pooled connection
    try:
        for _ in range(6):  # psycopg prepares a statement on its 5th execution
            with engine.begin() as conn:
                conn.execute(text("SELECT count(*) FROM patients WHERE patient_id = :p"), {"p": "x"})
        with engine.begin() as conn:
            assert _prepared_statements(conn) >= 1
        bare_round_trip(engine)
        with engine.begin() as conn:
            assert _prepared_statements(conn) >= 1, "the baseline dropped the prepared statements"
        with engine.connect() as conn:  # what the baseline used to do: the block rolls back
            conn.execute(text("SELECT 1"))
        with engine.begin() as conn:
            assert _prepared_statements(conn) == 0  # psycopg's behaviour, which the baseline avoids
    finally:
        engine.dispose()


def test_the_flush_baseline_commits_a_transaction_of_its_own(db):
    """`flushed_commit` (the tools bench's "COMMIT with WAL flush" row) takes a transaction id
    and commits it, so its COMMIT waits for the WAL flush a tool call's audit row waits for."""
    engine = create_engine(db.app.url, pool_size=1, max_overflow=0)
    try:
        xid = flushed_commit(engine)
        with engine.begin() as conn:
            status = conn.execute(text("SELECT pg_xact_status(CAST(:x AS text)::xid8)"), {"x": str(xid)})
            assert status.scalar_one() == "committed"
    finally:
        engine.dispose()
