"""Accounts: hashing, the CLI, and the demo accounts `make run` prints."""

from __future__ import annotations

from sqlalchemy import text
from typer.testing import CliRunner

from records.accounts import authenticate_password, authenticate_token, create_account, verify_password
from server.demo import create_demo_accounts, demo_password
from tests.server.conftest import PASSWORD, A, B, C


def test_passwords_are_stored_as_argon2id_hashes(world):
    with world.db.admin.connect() as conn:
        stored = conn.execute(
            text("SELECT password_hash FROM accounts WHERE username = 'alice'")
        ).scalar_one()
    assert stored.startswith("$argon2id$") and PASSWORD not in stored
    assert verify_password(stored, PASSWORD) and not verify_password(stored, PASSWORD + "x")
    assert authenticate_password(world.db.app, "alice", PASSWORD).bound_patient_id == A
    assert authenticate_token(world.db.app, world.eve_token).username == "eve"
    with world.db.admin.connect() as conn:
        token_hash = conn.execute(
            text("SELECT api_token_hash FROM accounts WHERE username = 'eve'")
        ).scalar_one()
    assert world.eve_token not in token_hash


def test_account_rules_are_enforced_with_clear_messages(world):
    import pytest

    from records.accounts import AccountError

    with pytest.raises(AccountError, match="no patient with id nobody"):
        create_account(world.db, username="x1", role="patient", password=PASSWORD, patients=["nobody"])
    with pytest.raises(AccountError, match="exactly one patient"):
        create_account(world.db, username="x2", role="patient", password=PASSWORD, patients=[A, B])
    with pytest.raises(AccountError, match="already taken"):
        create_account(world.db, username="alice", role="patient", password=PASSWORD, patients=[A])
    with pytest.raises(AccountError, match="role"):
        create_account(world.db, username="x3", role="admin", password=PASSWORD, patients=[A])


def test_users_cli_adds_lists_and_reports_errors(world, monkeypatch):
    from chartside import cli
    from server import cli as server_cli

    monkeypatch.setattr(server_cli, "_open", lambda: _NoDispose(world.db))
    app = cli.build()
    runner = CliRunner()
    added = runner.invoke(
        app,
        ["users", "add", "--role", "clinician", "--patient", A, "--patient", C, "--password-stdin", "dana"],
        input="a long password\n",
    )
    assert added.exit_code == 0, added.output
    assert "created clinician account dana for 2 patient(s)" in added.output
    missing = runner.invoke(
        app,
        ["users", "add", "--role", "patient", "--patient", "ghost", "--password-stdin", "gus"],
        input="pw-pw-pw-pw\n",
    )
    assert missing.exit_code == 1 and "no patient with id ghost" in missing.output
    listed = runner.invoke(app, ["users", "list"])
    assert "dana" in listed.output and "clinician" in listed.output
    assert authenticate_password(world.db.app, "dana", "a long password").panel == (A, C)


class _NoDispose:
    def __init__(self, db):
        self._db = db

    def __getattr__(self, name):
        return getattr(self._db, name)

    def dispose(self):
        pass


def test_demo_accounts_are_created_once_and_bound_to_ingested_patients(world):
    first = create_demo_accounts(world.db)
    again = create_demo_accounts(world.db)
    # issue 18 item 1: no evaluator (and no published token) unless asked for
    assert [c.username for c in first] == ["patient1", "patient2", "patient3", "clinician"]
    assert first == again
    patient1 = authenticate_password(world.db.app, "patient1", demo_password("patient1"))
    assert patient1 is not None and patient1.bound_patient_id in (A, B, C)
    clinician = authenticate_password(world.db.app, "clinician", demo_password("clinician"))
    assert set(clinician.panel) == {A, B, C}


def test_the_demo_evaluator_exists_only_when_asked_and_its_token_is_fresh_and_read_only(world):
    asked = create_demo_accounts(world.db, evaluator=True)
    (evaluator,) = [c for c in asked if c.role == "evaluator"]
    assert evaluator.token and evaluator.token.startswith("cs_") and "demo" not in evaluator.token
    account = authenticate_token(world.db.app, evaluator.token)
    assert account.role == "evaluator" and account.write_mode == "none"
    again = create_demo_accounts(world.db, evaluator=True)
    assert [c.token for c in again if c.role == "evaluator"] == [None]  # shown once only
    assert authenticate_token(world.db.app, evaluator.token) is not None
