"""The schema keeps its promises: patient tables are isolated and ready for distribution."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from records import migrate
from records.database import patient_transaction
from records.models import Base, patient_tables


def test_upgrade_is_idempotent(db):
    before, after = migrate.upgrade(db)
    assert before == after == migrate.head_revision()


def test_every_patient_table_keys_include_patient_id():
    for table in Base.metadata.sorted_tables:
        if "patient_id" not in table.columns:
            continue
        assert "patient_id" in table.primary_key.columns, f"{table.name}: primary key lacks patient_id"
        for constraint in table.constraints:
            if constraint.__class__.__name__ == "UniqueConstraint":
                assert "patient_id" in constraint.columns, f"{table.name}: {constraint.name} lacks patient_id"
        for index in table.indexes:
            if index.unique:
                assert "patient_id" in index.columns, f"{table.name}: {index.name} lacks patient_id"


def test_rls_enabled_and_forced_on_every_patient_table(db):
    with db.admin.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT c.relname, c.relrowsecurity, c.relforcerowsecurity, "
                "(SELECT count(*) FROM pg_policy p WHERE p.polrelid = c.oid) "
                "FROM pg_class c JOIN information_schema.columns col "
                "  ON col.table_name = c.relname AND col.column_name = 'patient_id' "
                "WHERE c.relkind = 'r' AND col.table_schema = 'public'"
            )
        ).all()
    found = {name for name, *_ in rows}
    assert found == set(patient_tables())
    for name, enabled, forced, policies in rows:
        assert enabled and forced and policies >= 1, name


def test_app_role_is_not_owner_and_cannot_bypass(db, settings):
    role = settings.app_db_role
    with db.admin.connect() as conn:
        superuser, bypass = conn.execute(
            text("SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = :r"), {"r": role}
        ).one()
        owned = conn.execute(
            text("SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tableowner = :r"),
            {"r": role},
        ).scalar_one()
    assert not superuser and not bypass and owned == 0


def _insert_patient(conn, pid: str, name: str) -> None:
    conn.execute(text("INSERT INTO patients (patient_id, full_name) VALUES (:p, :n)"), {"p": pid, "n": name})


def test_app_role_sees_one_patient_and_nothing_when_unset(clean_db):
    db = clean_db
    for pid in ("p-a", "p-b"):
        with patient_transaction(db.admin, pid) as conn:
            _insert_patient(conn, pid, f"name {pid}")
    with db.app.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM patients")).scalar_one() == 0
    with patient_transaction(db.app, "p-a") as conn:
        assert conn.execute(text("SELECT patient_id FROM patients")).scalars().all() == ["p-a"]
    # the setting is transaction-local: the pooled connection forgets it
    with db.app.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM patients")).scalar_one() == 0


def test_rls_rejects_writing_another_patients_row(clean_db):
    for pid in ("p-a", "p-b"):
        with patient_transaction(clean_db.admin, pid) as conn:
            _insert_patient(conn, pid, f"name {pid}")
    insert = text("INSERT INTO conversations (patient_id, id, role) VALUES ('p-b', 'c1', 'patient')")
    with (
        pytest.raises(Exception, match="row-level security"),
        patient_transaction(clean_db.app, "p-a") as conn,
    ):
        conn.execute(insert)
    with patient_transaction(clean_db.app, "p-b") as conn:
        conn.execute(insert)


def test_app_role_cannot_rewrite_audit(clean_db):
    with clean_db.app.begin() as conn:
        conn.execute(
            text("INSERT INTO audit_log (actor, role, action, outcome) VALUES ('t', 'patient', 'x', 'ok')")
        )
    with pytest.raises(Exception, match="permission denied"), clean_db.app.begin() as conn:
        conn.execute(text("DELETE FROM audit_log"))


def test_head_revision_read_from_the_files_is_alembics_own():
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    cfg = Config()
    cfg.set_main_option("script_location", str(migrate.MIGRATIONS_DIR))
    assert migrate.head_revision() == ScriptDirectory.from_config(cfg).get_current_head()


def test_current_revision_matches_alembics_migration_context(db):
    from alembic.runtime.migration import MigrationContext

    with db.admin.connect() as conn:
        assert migrate.current_revision(db) == MigrationContext.configure(conn).get_current_revision()
