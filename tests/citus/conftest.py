"""Fixtures for the tests that need a real Citus cluster (`make test-citus`).

`make test-citus` (tests/citus/run_suite.py) starts a coordinator + 2 workers and points
`CHARTSIDE_TEST_DATABASE_URL` at a fresh database on it, so the shared `db` fixture migrates
and distributes the schema there. Under plain `make test` (no cluster) every test in this
folder is skipped with that reason; under `make test-citus` a database without Citus is an
error, never a skip.
"""

from __future__ import annotations

import os

import pytest
from sqlalchemy import text

from records.cluster import Cluster, default_cluster
from records.database import Database
from records.distribution import citus_installed
from tests.conftest import PROJECT_ROOT

ON_CLUSTER = os.environ.get("CHARTSIDE_CITUS") == "1"


@pytest.fixture(scope="session", autouse=True)
def _require_cluster() -> None:
    if not ON_CLUSTER:
        pytest.skip("needs the Citus cluster: run `make test-citus`")


@pytest.fixture(scope="session")
def cluster() -> Cluster:
    return default_cluster(
        PROJECT_ROOT / ".chartside", name=os.environ.get("CHARTSIDE_CITUS_CLUSTER", "cluster")
    )


@pytest.fixture(scope="session")
def citus_db(db: Database) -> Database:
    with db.admin.connect() as conn:
        if not citus_installed(conn):
            pytest.fail(f"CHARTSIDE_CITUS=1 but {db.describe()} has no citus extension")
        workers = conn.execute(text("SELECT count(*) FROM pg_dist_node WHERE groupid > 0")).scalar_one()
    assert workers >= 2, f"expected a coordinator and at least 2 workers, found {workers} workers"
    return db


def node_of(conn, table: str, patient_id: str) -> int:
    """The port of the worker that holds `patient_id`'s shard of `table`."""
    return conn.execute(
        text(
            "SELECT nodeport FROM pg_dist_shard_placement WHERE shardid = "
            "get_shard_id_for_distribution_column(CAST(:t AS regclass), CAST(:p AS text))"
        ),
        {"t": table, "p": patient_id},
    ).scalar_one()
