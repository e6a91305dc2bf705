"""`make test-citus`: the tools, ingestion, booking, isolation and RLS tests on a real cluster.

Starts (or reuses) the local cluster (`records.cluster`: a coordinator + 2 workers), creates a
fresh database on every node, and runs pytest with `CHARTSIDE_TEST_DATABASE_URL` pointing at
the coordinator, so the project's own tests — unchanged — run against distributed tables,
plus `tests/citus/` (router plans, RLS on the workers, the concurrent bookings). The schema is
distributed by the `db` fixture's `migrate.upgrade`, exactly as `chartside db upgrade` does.

Never skips silently: if Citus is not built or the cluster cannot start, this exits non-zero
with the reason (`make test-citus` depends on `make citus`, which fails when the source is
absent). A cluster this script started is stopped at the end; one that was running stays.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from records.citus_build import CitusBuildError
from records.cluster import ClusterError, default_cluster
from tests.conftest import PROJECT_ROOT

DATABASE = "chartside_citus_test"
CLUSTER = "cluster-test"
WORKERS = 2
# the existing suites that exercise what distribution could break, run unchanged on the cluster
SUITES = [
    "tests/citus",
    "tests/tools/test_booking.py",
    "tests/tools/test_isolation.py",
    "tests/tools/test_search_tools.py",
    "tests/fhir_ingest/test_loader.py",
    "tests/adversarial/test_cross_patient.py",
    "tests/adversarial/test_interleaving.py",
    "tests/records/test_rls_catalogue.py",
    "tests/scale/test_distribution_ready.py",
]


def main(argv: list[str]) -> int:
    started = time.monotonic()
    # its own throwaway cluster (not the one `chartside cluster up` made), without fsync
    cluster = default_cluster(PROJECT_ROOT / ".chartside", name=CLUSTER, durable=False)
    was_running = bool(cluster.nodes()) and all(s.running for s in cluster.status())
    try:
        cluster.up(workers=WORKERS, say=lambda line: print(f"cluster: {line}", flush=True))
        cluster.drop_database(DATABASE)
        url = cluster.prepare_database(DATABASE)
    except (ClusterError, CitusBuildError) as exc:
        print(f"test-citus: FAILED to start the Citus cluster: {exc}", file=sys.stderr)
        return 2
    print(f"test-citus: coordinator + {WORKERS} workers ready, database {url}", flush=True)
    env = {
        **os.environ,
        "CHARTSIDE_TEST_DATABASE_URL": url,
        "CHARTSIDE_CITUS": "1",
        "CHARTSIDE_CITUS_CLUSTER": CLUSTER,
    }
    options = [a for a in argv if a.startswith("-")]
    paths = [a for a in argv if not a.startswith("-")] or SUITES
    try:
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-m",
                "not slow",
                "-p",
                "no:cacheprovider",
                *options,
                *paths,
            ],
            cwd=PROJECT_ROOT,
            env=env,
        )
    finally:
        cluster.drop_database(DATABASE)
        if not was_running:
            cluster.down(say=lambda line: print(f"cluster: {line}", flush=True))
    print(f"test-citus: {time.monotonic() - started:.0f} s in all", flush=True)
    return result.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
