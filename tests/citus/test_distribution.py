"""`chartside db upgrade` on a coordinator distributes the schema as docs/scaling.md says."""

from __future__ import annotations

from sqlalchemy import text

from records import migrate
from records.distribution import (
    CITUS_LOCAL_TABLES,
    COORDINATOR_LOCAL_TABLES,
    REFERENCE_TABLES,
    distribute,
    placement,
)
from records.models import patient_tables


def test_every_table_is_placed_as_the_plan_says(citus_db):
    with citus_db.admin.connect() as conn:
        where = placement(conn)
        colocation = dict(
            conn.execute(
                text("SELECT logicalrelid::regclass::text, colocationid FROM pg_dist_partition")
            ).all()
        )
        columns = dict(
            conn.execute(
                text(
                    "SELECT logicalrelid::regclass::text, column_to_column_name(logicalrelid, partkey) "
                    "FROM pg_dist_partition WHERE partmethod = 'h'"
                )
            ).all()
        )
    assert {t for t, kind in where.items() if kind == "distributed"} == set(patient_tables())
    assert {t for t, kind in where.items() if kind == "reference"} == set(REFERENCE_TABLES)
    assert {t for t, kind in where.items() if kind == "citus local"} == set(CITUS_LOCAL_TABLES)
    assert {t for t, kind in where.items() if kind == "local"} <= set(COORDINATOR_LOCAL_TABLES)
    # one shard group: a patient's rows in every table live on the same node
    assert {colocation[t] for t in patient_tables()} == {colocation["patients"]}
    assert set(columns.values()) == {"patient_id"}


def test_upgrade_again_changes_nothing(citus_db):
    before, after = migrate.upgrade(citus_db)
    assert before == after == migrate.head_revision()
    with citus_db.admin.begin() as conn:
        assert not distribute(conn).changed


def test_the_patient_setting_is_propagated_for_every_new_session(citus_db):
    with citus_db.app.connect() as conn:
        assert conn.execute(text("SHOW citus.propagate_set_commands")).scalar_one() == "local"
