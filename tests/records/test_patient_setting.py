"""The patient setting is `SET LOCAL` (forwarded by Citus), with the id quoted as a literal.

A utility command takes no bind parameters, so `set_patient_sql` quotes the id itself; any id
the server could bind (quotes, backslashes, colons, percent signs, unicode) must arrive intact
and last exactly one transaction. On plain PostgreSQL the distribution step is a no-op.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from records.citus_build import CitusBuildError, build
from records.database import begin_for_patient, patient_transaction, set_patient_sql
from records.distribution import distribute, placement
from tests.round_trips import round_trips

IDS = st.text(
    st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), min_size=1, max_size=60
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(patient_id=IDS)
def test_any_id_arrives_intact_for_one_transaction(db, patient_id):
    with patient_transaction(db.app, patient_id) as conn:
        assert conn.execute(text("SELECT current_setting('app.patient_id', true)")).scalar_one() == patient_id
    with db.app.begin() as conn:
        assert conn.execute(text("SELECT current_setting('app.patient_id', true)")).scalar_one() in (None, "")


def test_the_statement_is_one_set_local_with_a_literal():
    assert set_patient_sql("O'Brien; RESET ALL") == "SET LOCAL app.patient_id = 'O''Brien; RESET ALL'"
    with pytest.raises(ValueError):
        set_patient_sql("")


def test_the_transaction_opens_with_its_patient_in_one_round_trip(db):
    with round_trips(db.app) as trips, patient_transaction(db.app, "p-1") as conn:
        assert conn.execute(text("SELECT current_setting('app.patient_id')")).scalar_one() == "p-1"
    assert trips.statements == [
        "BEGIN; SET LOCAL app.patient_id = 'p-1'",
        "SELECT current_setting('app.patient_id')",
        "COMMIT",
    ]
    assert trips.count == 3


def test_a_transaction_opened_with_its_patient_still_rolls_back(db):
    with db.app.connect() as conn:
        transaction = conn.begin()
        begin_for_patient(conn, "p-1")
        conn.execute(text("CREATE TEMP TABLE opened_here (x int)"))
        transaction.rollback()
        assert conn.execute(text("SELECT to_regclass('pg_temp.opened_here')")).scalar_one() is None


def test_a_transaction_psycopg_opens_its_own_way_sets_the_patient_after_it(db):
    """An isolation level (or read-only, autocommit, an open transaction): psycopg's own BEGIN."""
    with db.app.connect().execution_options(isolation_level="SERIALIZABLE") as conn, conn.begin():
        begin_for_patient(conn, "p-2")
        assert (
            conn.execute(text("SELECT current_setting('transaction_isolation')")).scalar_one()
            == "serializable"
        )
        assert conn.execute(text("SELECT current_setting('app.patient_id')")).scalar_one() == "p-2"
        begin_for_patient(conn, "p-3")  # already open: SET LOCAL alone
        assert conn.execute(text("SELECT current_setting('app.patient_id')")).scalar_one() == "p-3"


def test_distribution_does_nothing_without_citus(db):
    with db.admin.begin() as conn:
        assert not distribute(conn).changed
        assert set(placement(conn).values()) == {"local"}


def test_make_citus_says_where_the_source_should_be(tmp_path):
    missing = tmp_path / "citus-14.0.1.tar.gz"
    with pytest.raises(CitusBuildError, match=str(missing)):
        build(tarball=missing, root=tmp_path / "out")
    assert not (tmp_path / "out").exists()
