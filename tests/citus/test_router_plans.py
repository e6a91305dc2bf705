"""Every patient-scoped statement the tools and the web app send is a single-shard router query.

The statements are the ones the running code really sent (captured with `SqlCapture`, the
same capture `tests/scale` parses with pglast); here each one is `EXPLAIN`ed by the Citus
coordinator itself and must plan exactly one task, for every Citus scan in the plan
(subplans included). This is the check the static one in tests/scale stands in for.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from pglast import split

from records.database import set_patient_sql
from records.models import patient_tables
from tests.scale.sql_routing import SqlCapture, Statement, check_statement
from tests.scale.test_distribution_ready import A, _run_every_tool, two_patients  # noqa: F401
from tests.scale.test_server_routing import _session_of_use
from tests.server.conftest import A as WEB_A
from tests.server.conftest import serve, world  # noqa: F401
from tools.catalog import build_registry

PATIENT_TABLES = frozenset(patient_tables())


def task_counts(node: Any) -> Iterator[int]:
    """Every "Task Count" in a Citus EXPLAIN (FORMAT JSON) plan, at any depth."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "Task Count":
                yield int(value)
            else:
                yield from task_counts(value)
    elif isinstance(node, list):
        for item in node:
            yield from task_counts(item)


def each_statement(statements: list[Statement]) -> Iterator[str]:
    """Every SQL statement sent, one at a time: the answer stream's opening sends a whole
    transaction (BEGIN; SET LOCAL …; …; COMMIT) as one query, and EXPLAIN takes one statement."""
    for statement in statements:
        for sql in split(statement.rendered()):
            if sql.lstrip().split(None, 1)[0].upper() in {"SELECT", "WITH", "INSERT", "UPDATE", "DELETE"}:
                yield sql


def explain_all(db, statements: list[Statement], patient: str) -> tuple[int, list[str]]:
    """EXPLAIN each statement that touches a patient table; (how many, the ones not single-task)."""
    problems: list[str] = []
    explained = 0
    seen: set[str] = set()
    raw = db.app.raw_connection()
    try:
        pg = raw.driver_connection
        with pg.transaction(force_rollback=True):
            pg.execute(set_patient_sql(patient))
            for sql in each_statement(statements):
                check = check_statement(Statement(sql, None), PATIENT_TABLES)
                if not check.touched or sql in seen:
                    continue
                seen.add(sql)
                with pg.transaction(force_rollback=True):
                    plan = pg.execute("EXPLAIN (FORMAT JSON) " + sql).fetchone()[0]
                plan = orjson.loads(plan) if isinstance(plan, str) else plan
                counts = list(task_counts(plan))
                explained += 1
                if not counts or any(c != 1 for c in counts):
                    problems.append(f"Task Count {counts or 'none (not a Citus plan)'}: {sql[:300]}")
    finally:
        raw.close()
    return explained, problems


@pytest.fixture(scope="module")
def embedder(settings):
    from knowledge.embeddings import get_embedder

    return get_embedder(settings)


def test_every_tool_statement_plans_one_task(citus_db, two_patients, embedder):  # noqa: F811
    capture = SqlCapture()
    with capture.on(two_patients.app):
        called = _run_every_tool(two_patients, A, embedder)
    assert called == set(build_registry().names())
    explained, problems = explain_all(two_patients, capture.statements, A)
    assert explained >= 20, f"only {explained} patient statements captured"
    assert problems == [], "\n".join(problems)


def test_every_web_app_statement_plans_one_task(citus_db, serve, world):  # noqa: F811
    served = serve()
    capture = SqlCapture()
    with capture.on(world.db.app):
        _session_of_use(served)
    explained, problems = explain_all(world.db, capture.statements, WEB_A)
    assert explained >= 10, f"only {explained} patient statements captured"
    assert problems == [], "\n".join(problems)


def test_the_checker_sees_a_fan_out(citus_db, two_patients):  # noqa: F811
    """The EXPLAIN check can fail: a statement left to row-level security plans a task per shard."""
    explained, problems = explain_all(two_patients, [Statement("SELECT count(*) FROM conditions", None)], A)
    assert explained == 1 and len(problems) == 1, problems
    assert problems[0].startswith("Task Count [") and not problems[0].startswith("Task Count [1]")
