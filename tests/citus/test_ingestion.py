"""Ingestion on the cluster: one bundle = one patient = one single-shard-group transaction.

The project's own ingestion tests (two passes, COPY and INSERT, replace-on-change, a failure
midway) run unchanged on the cluster under `make test-citus`; this one checks what only a
cluster can show: each patient's rows, in every table, sit on one node, and the cohort is
spread over the workers.
"""

from __future__ import annotations

from sqlalchemy import text

from fhir_ingest.loader import ingest_paths
from fhir_ingest.writer import RecordWriter
from records.models import patient_tables
from synthea_data.generator import generate_cohort
from tests.citus.conftest import node_of
from tests.conftest import wipe


def test_a_cohort_lands_one_node_per_patient_spread_over_the_workers(citus_db, tmp_path):
    wipe(citus_db)
    # new patients are not written several to a transaction here (that would span nodes)
    assert not RecordWriter(citus_db, use_copy=True).can_write_together()
    generate_cohort(tmp_path / "cohort", patients=12, seed=19)
    report = ingest_paths(citus_db, [tmp_path / "cohort"], use_copy=True)
    assert report.ok, [f.error for f in report.failures]
    assert report.patients_written == 12
    with citus_db.admin.connect() as conn:
        pids = list(conn.execute(text("SELECT patient_id FROM patients")).scalars())
        assert len(pids) == 12
        nodes_by_patient: dict[str, set[int]] = {}
        for table in patient_tables():
            holders = conn.execute(text(f"SELECT DISTINCT patient_id FROM {table}")).scalars().all()
            for pid in holders:
                nodes_by_patient.setdefault(pid, set()).add(node_of(conn, table, pid))
        assert all(len(ports) == 1 for ports in nodes_by_patient.values()), nodes_by_patient
        workers = {port for ports in nodes_by_patient.values() for port in ports}
        assert len(workers) >= 2, "12 patients all on one worker: the hash spread is not working"
        observations = conn.execute(text("SELECT count(*) FROM observations")).scalar_one()
        assert observations > 0
    again = ingest_paths(citus_db, [tmp_path / "cohort"], use_copy=True)
    assert again.ok and {f.status for f in again.files} == {"unchanged"}
    wipe(citus_db)
