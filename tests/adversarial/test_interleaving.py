"""200 interleaved requests for A and B over a small connection pool: no row crosses over, and the
per-transaction patient setting is gone after every transaction.

The pool is 2 connections (+2 overflow), so every connection serves both patients many times
over. A's latest HbA1c is 6.1 %, B's is 9.9 % with canaries in B's record; each answer must
carry its own patient's value and nothing of the other's. Afterwards every pooled connection
is checked out at once and asked what patient it is set to (nothing) and what it can see
(nothing).
"""

from __future__ import annotations

import itertools
from concurrent.futures import ThreadPoolExecutor

from sqlalchemy import text

from records.database import Database
from tests import conftest as base
from tests.live_agent import ask_and_read
from tests.server.conftest import CANARY, A, B
from tests.tools.conftest import make_ctx
from tools.catalog import build_registry

REQUESTS = 200
QUESTION = "What is my latest HbA1c?"
OWN = {A: "6.1", B: "9.9"}
FOREIGN = {A: ("9.9", CANARY, "Bob Brown"), B: ("6.1", "7.2", "Alice Anders", "Metformin")}


def _small_pool(world) -> Database:
    return Database(
        settings=base.test_settings(db_pool_size=2, db_pool_timeout_s=30),
        admin_url=world.db.admin_url,
        app_url=world.db.app_url,
    )


def _assert_pool_is_clean(db: Database) -> None:
    size = db.app.pool.size()
    held = [db.app.connect() for _ in range(size)]
    try:
        for conn in held:
            setting = conn.execute(text("SELECT current_setting('app.patient_id', true)")).scalar()
            assert setting in (None, ""), setting
            assert conn.execute(text("SELECT count(*) FROM patients")).scalar_one() == 0
            assert conn.execute(text("SELECT count(*) FROM observations")).scalar_one() == 0
            conn.rollback()
    finally:
        for conn in held:
            conn.close()


def test_interleaved_questions_over_a_tiny_pool_never_cross(serve_agent, world):
    small = _small_pool(world)
    live = serve_agent("offline", db=small, max_streams_per_account=16)
    clients = {A: live.client("alice"), B: live.client("bob")}
    order = list(itertools.islice(itertools.cycle([A, B]), REQUESTS))

    def one(patient: str) -> tuple[str, str, str]:
        answer = ask_and_read(clients[patient], patient, QUESTION)
        return patient, answer.terminal[0], answer.content

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(one, order))

    assert len(results) == REQUESTS
    for patient, terminal, content in results:
        assert terminal == "done", content[-300:]
        assert OWN[patient] in content
        for foreign in FOREIGN[patient]:
            assert foreign not in content, (patient, foreign)
    assert small.app.pool.checkedout() == 0
    _assert_pool_is_clean(small)
    small.dispose()


def test_interleaved_tool_calls_in_threads_over_two_connections_never_cross(world):
    small = _small_pool(world)
    registry = build_registry()
    order = list(itertools.islice(itertools.cycle([A, B]), REQUESTS))

    def one(patient: str) -> tuple[str, str]:
        # wall clock: the seeded rows are dated by the database's now(), after the default pinned NOW
        ctx = make_ctx(small, patient, conversation_id=f"conv-{patient}", now=None)
        result = registry.execute(ctx, "get_labs", {"query": "A1C", "latest_only": True})
        assert result.ok, result.text
        return patient, result.text + str(result.rows)

    with ThreadPoolExecutor(12) as pool:
        results = list(pool.map(one, order))
    for patient, said in results:
        assert OWN[patient] in said
        for foreign in FOREIGN[patient]:
            assert foreign not in said, (patient, foreign)
    _assert_pool_is_clean(small)
    small.dispose()
