"""Row-level security runs on the workers, with the patient set per transaction.

What Citus does with the two ways of setting `app.patient_id` (measured on Citus 14.0.1):
`set_config('app.patient_id', …, true)` is a function call evaluated on the coordinator only,
so the shards' policies on the workers see no patient and return nothing — silently; `SET LOCAL
app.patient_id = …` with `citus.propagate_set_commands = 'local'` is sent to every worker the
transaction touches and lasts exactly as long as the transaction. `patient_transaction` uses
the latter.
"""

from __future__ import annotations

import psycopg
import pytest
from sqlalchemy import text

from records.database import patient_transaction
from records.scheduling import generate_slots
from tests.builder import RecordBuilder, reference_data
from tests.tools.conftest import NOW

A, B = "rls-w-a", "rls-w-b"


@pytest.fixture(scope="module")
def two(citus_db):
    from tests.conftest import wipe

    wipe(citus_db)
    reference_data(citus_db)
    for pid in (A, B):
        rec = RecordBuilder(pid, name=f"{pid} Patient")
        rec.condition("Essential hypertension")
        rec.write(citus_db)
    generate_slots(citus_db, days=3, start=NOW.date())
    yield citus_db
    wipe(citus_db)


def _ids(conn, sql: str = "SELECT patient_id FROM conditions") -> set[str]:
    return set(conn.execute(text(sql)).scalars())


def test_set_config_is_not_forwarded_to_the_workers(two):
    with two.app.begin() as conn:
        conn.execute(text("SELECT set_config('app.patient_id', :p, true)"), {"p": A})
        assert conn.execute(text("SELECT current_setting('app.patient_id', true)")).scalar_one() == A
        # the coordinator knows the patient, the shard's policy on the worker does not
        assert _ids(conn, f"SELECT patient_id FROM conditions WHERE patient_id = '{A}'") == set()


def test_set_local_reaches_the_workers_for_one_transaction(two):
    with patient_transaction(two.app, A) as conn:
        assert _ids(conn, f"SELECT patient_id FROM conditions WHERE patient_id = '{A}'") == {A}
        # a fan-out query (no filter) still sees one patient: every shard applied the policy
        assert _ids(conn) == {A}
        assert _ids(conn, f"SELECT patient_id FROM conditions WHERE patient_id = '{B}'") == set()
    with two.app.begin() as conn:  # the same pooled connections, the next transaction: no patient
        assert _ids(conn) == set()


def test_every_shard_of_every_patient_table_has_its_policy_forced(two):
    with two.admin.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT result FROM run_command_on_shards('conditions', $$SELECT c.relrowsecurity "
                "AND c.relforcerowsecurity AND EXISTS (SELECT 1 FROM pg_policy p WHERE p.polrelid = c.oid) "
                "FROM pg_class c WHERE c.oid = '%s'::regclass$$)"
            )
        ).scalars()
        assert set(rows) == {"t"}
        tables = conn.execute(
            text("SELECT logicalrelid::regclass::text FROM pg_dist_partition WHERE partmethod = 'h'")
        ).scalars()
        for table in tables:
            secured = conn.execute(
                text(
                    "SELECT bool_and(success AND result = 't') FROM run_command_on_shards(:t, "
                    "$$SELECT relrowsecurity AND relforcerowsecurity FROM pg_class WHERE oid = '%s'::regclass$$)"
                ),
                {"t": table},
            ).scalar_one()
            assert secured, f"a shard of {table} is not row-level secured"


def test_the_app_role_on_a_worker_sees_only_its_patient(two, cluster):
    """Straight to a worker's shard, bypassing the coordinator: the policy is the worker's own."""
    with two.admin.connect() as conn:
        shard, port = conn.execute(
            text(
                "SELECT shard_name, nodeport FROM citus_shards WHERE table_name = 'conditions'::regclass "
                "AND shardid = get_shard_id_for_distribution_column('conditions', CAST(:p AS text))"
            ),
            {"p": A},
        ).one()
        database = conn.execute(text("SELECT current_database()")).scalar_one()
    password = two.settings.app_db_password.get_secret_value()
    dsn = f"postgresql://{two.settings.app_db_role}:{password}@127.0.0.1:{port}/{database}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        assert conn.execute(f"SELECT count(*) FROM {shard}").fetchone()[0] == 0  # no patient set
        with conn.transaction():
            conn.execute(f"SET LOCAL app.patient_id = '{B}'")
            assert conn.execute(f"SELECT count(*) FROM {shard} WHERE patient_id = '{A}'").fetchone()[0] == 0
        with conn.transaction():
            conn.execute(f"SET LOCAL app.patient_id = '{A}'")
            assert conn.execute(f"SELECT count(*) FROM {shard}").fetchone()[0] >= 1


def test_the_slot_guard_holds_on_the_reference_table(two):
    """Booked by A, the slot can be neither freed nor taken by a transaction for B."""
    with two.admin.begin() as conn:
        slot = conn.execute(text("SELECT id FROM appointment_slots ORDER BY starts_at LIMIT 1")).scalar_one()
        conn.execute(
            text(
                "UPDATE appointment_slots SET booked_appointment_id = 'appt-a', booked_patient_id = :p WHERE id = :s"
            ),
            {"p": A, "s": slot},
        )
    try:
        with patient_transaction(two.app, B) as conn:
            freed = conn.execute(
                text(
                    "UPDATE appointment_slots SET booked_appointment_id = NULL, booked_patient_id = NULL WHERE id = :s"
                ),
                {"s": slot},
            ).rowcount
            assert freed == 0
        with pytest.raises(Exception, match="row-level security"), patient_transaction(two.app, B) as conn:
            other = conn.execute(
                text("SELECT id FROM appointment_slots WHERE booked_appointment_id IS NULL LIMIT 1")
            ).scalar_one()
            conn.execute(
                text(
                    "UPDATE appointment_slots SET booked_appointment_id = 'x', booked_patient_id = :p WHERE id = :s"
                ),
                {"p": A, "s": other},
            )
    finally:
        with two.admin.begin() as conn:
            conn.execute(
                text(
                    "UPDATE appointment_slots SET booked_appointment_id = NULL, booked_patient_id = NULL WHERE id = :s"
                ),
                {"s": slot},
            )
