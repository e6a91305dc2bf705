"""Accounts: who may log in, and which patients each account may see.

Passwords are hashed with argon2id (argon2-cffi's defaults follow the RFC 9106 low-memory
profile), so a leaked accounts table does not give away passwords. API tokens are 256-bit
random strings; they are stored as a SHA-256 digest, which is enough for a secret that is
not guessable and lets the server find the account by digest in one indexed lookup.

Accounts are written by the owner role (the CLI, `chartside up`); the web server's
application role may only read them.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import hashlib
import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from sqlalchemy import Connection, Engine, text

from records.capabilities import WriteMode, capabilities_for, write_mode_for
from records.database import Database, patient_transaction

ROLES = ("patient", "clinician", "evaluator")
TOKEN_PREFIX = "cs_"

_hasher = PasswordHasher()


@functools.cache
def _dummy_hash() -> str:
    """Verified against when the username does not exist, so a wrong username costs the same
    time. Made on first use, not at import: an argon2 hash is ~0.1 s of CPU on the way to
    serving, and every process that imports this module (the CLI, `make run`) paid it."""
    return _hasher.hash("not-a-password")


class AccountError(ValueError):
    """A request to create or change an account that cannot be honoured (message names why)."""


@dataclass(frozen=True)
class Account:
    id: int
    username: str
    role: str
    display_name: str | None
    bound_patient_id: str | None
    disabled: bool
    panel: tuple[str, ...] = field(default=())
    sessions_valid_after: dt.datetime | None = None  # sessions issued earlier are refused
    evaluation_sandbox: bool = False  # an evaluator whose writes an evaluation harness undoes

    @property
    def capabilities(self) -> frozenset[str]:
        """What this account may do (records.capabilities decides, for every door)."""
        return capabilities_for(self.role, evaluation_sandbox=self.evaluation_sandbox)

    @property
    def write_mode(self) -> WriteMode:
        return write_mode_for(self.role, evaluation_sandbox=self.evaluation_sandbox)

    def may_see(self, patient_id: str) -> bool:
        """The binding rule: a patient sees only their own record, others only their panel."""
        if self.disabled:
            return False
        if self.role == "patient":
            return self.bound_patient_id == patient_id
        return patient_id in self.panel

    @property
    def patient_ids(self) -> tuple[str, ...]:
        if self.role == "patient":
            return (self.bound_patient_id,) if self.bound_patient_id else ()
        return self.panel


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(password_hash: str | None, password: str) -> bool:
    dummy = _dummy_hash()  # made (once) whether or not the account exists: the same time either way
    try:
        return _hasher.verify(password_hash or dummy, password) and password_hash is not None
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def new_api_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


# --- reading (application role) ---------------------------------------------------------------

# The panel comes in the same row (one round trip per request's authentication, not two).
_ACCOUNT_COLUMNS = (
    "id, username, role, display_name, bound_patient_id, disabled, sessions_valid_after, "
    "evaluation_sandbox, "
    "ARRAY(SELECT cp.panel_patient_id FROM clinician_panels cp WHERE cp.account_id = accounts.id "
    "ORDER BY cp.panel_patient_id) AS panel"
)


def _account_from_row(conn: Connection, row) -> Account:
    panel: tuple[str, ...] = tuple(row.panel or ()) if row.role != "patient" else ()
    return Account(
        id=row.id,
        username=row.username,
        role=row.role,
        display_name=row.display_name,
        bound_patient_id=row.bound_patient_id,
        disabled=row.disabled,
        panel=panel,
        sessions_valid_after=row.sessions_valid_after,
        evaluation_sandbox=row.evaluation_sandbox,
    )


@contextlib.contextmanager
def _connected(target: Engine | Connection) -> Iterator[Connection]:
    """The caller's connection (the read joins its transaction), or a fresh one of the engine."""
    if isinstance(target, Connection):
        yield target
    else:
        with target.connect() as conn:
            yield conn


def load_account(target: Engine | Connection, account_id: int) -> Account | None:
    with _connected(target) as conn:
        row = conn.execute(
            text(f"SELECT {_ACCOUNT_COLUMNS} FROM accounts WHERE id = :id"), {"id": account_id}
        ).one_or_none()
        return _account_from_row(conn, row) if row else None


def authenticate_password(engine: Engine, username: str, password: str) -> Account | None:
    """The account if the password matches and the account is enabled; None otherwise."""
    with engine.connect() as conn:
        row = conn.execute(
            text(f"SELECT {_ACCOUNT_COLUMNS}, password_hash FROM accounts WHERE username = :u"),
            {"u": username},
        ).one_or_none()
        ok = verify_password(row.password_hash if row else None, password)
        if not ok or row is None or row.disabled:
            return None
        return _account_from_row(conn, row)


def authenticate_token(target: Engine | Connection, token: str) -> Account | None:
    if not token.startswith(TOKEN_PREFIX):
        return None
    with _connected(target) as conn:
        row = conn.execute(
            text(f"SELECT {_ACCOUNT_COLUMNS} FROM accounts WHERE api_token_hash = :h"),
            {"h": token_digest(token)},
        ).one_or_none()
        if row is None or row.disabled:
            return None
        return _account_from_row(conn, row)


def list_accounts(engine: Engine) -> list[Account]:
    with engine.connect() as conn:
        rows = conn.execute(text(f"SELECT {_ACCOUNT_COLUMNS} FROM accounts ORDER BY username")).all()
        return [_account_from_row(conn, r) for r in rows]


def patient_exists(db: Database, patient_id: str) -> bool:
    with patient_transaction(db.app, patient_id) as conn:
        return conn.execute(text("SELECT 1 FROM patients")).first() is not None


# --- writing (owner role) ------------------------------------------------------------------------


def create_account(
    db: Database,
    *,
    username: str,
    role: str,
    password: str | None = None,
    patients: list[str] | tuple[str, ...] = (),
    display_name: str | None = None,
    with_token: bool = False,
    token: str | None = None,
    evaluation_sandbox: bool = False,
) -> tuple[Account, str | None]:
    """Create one account; returns it and its API token (shown once) when one was asked for.

    Every named patient must exist, so a typo cannot create an account bound to nobody.
    """
    username = username.strip()
    if not username or len(username) > 64 or not all(c.isalnum() or c in "._-@" for c in username):
        raise AccountError(f"username {username!r}: use 1-64 letters, digits or . _ - @")
    if role not in ROLES:
        raise AccountError(f"role {role!r}: must be one of {', '.join(ROLES)}")
    if evaluation_sandbox and role != "evaluator":
        raise AccountError("only an evaluator account can be an evaluation sandbox's (--sandbox-writes)")
    if role == "patient" and len(patients) != 1:
        raise AccountError("a patient account is bound to exactly one patient (--patient ID)")
    if password is not None and len(password) < 8:
        raise AccountError("password: at least 8 characters")
    if password is None and not (with_token or token):
        raise AccountError("an account needs a password or an API token")
    missing = [p for p in patients if not patient_exists(db, p)]
    if missing:
        raise AccountError(f"no patient with id {', '.join(missing)} in the database (ingest it first)")
    issued = token or (new_api_token() if with_token else None)
    with db.admin.begin() as conn:
        if conn.execute(text("SELECT 1 FROM accounts WHERE username = :u"), {"u": username}).first():
            raise AccountError(f"username {username!r} is already taken")
        account_id = conn.execute(
            text(
                "INSERT INTO accounts (username, password_hash, role, display_name, bound_patient_id, "
                "api_token_hash, evaluation_sandbox) VALUES (:u, :ph, :r, :d, :b, :th, :sb) RETURNING id"
            ),
            {
                "u": username,
                "ph": hash_password(password) if password is not None else None,
                "r": role,
                "d": display_name,
                "b": patients[0] if role == "patient" else None,
                "th": token_digest(issued) if issued else None,
                "sb": evaluation_sandbox,
            },
        ).scalar_one()
        if role != "patient":
            for pid in dict.fromkeys(patients):
                conn.execute(
                    text("INSERT INTO clinician_panels (account_id, panel_patient_id) VALUES (:a, :p)"),
                    {"a": account_id, "p": pid},
                )
    account = load_account(db.admin, account_id)
    assert account is not None
    return account, issued


def issue_token(db: Database, username: str) -> str:
    """Replace the account's API token (the old one stops working) and return the new one."""
    token = new_api_token()
    with db.admin.begin() as conn:
        updated = conn.execute(
            text("UPDATE accounts SET api_token_hash = :h WHERE username = :u"),
            {"h": token_digest(token), "u": username},
        ).rowcount
    if not updated:
        raise AccountError(f"no account named {username!r}")
    return token


def set_disabled(db: Database, username: str, disabled: bool) -> None:
    with db.admin.begin() as conn:
        updated = conn.execute(
            text("UPDATE accounts SET disabled = :d WHERE username = :u"), {"d": disabled, "u": username}
        ).rowcount
    if not updated:
        raise AccountError(f"no account named {username!r}")


def end_sessions(engine: Engine, account_id: int) -> None:
    """Every session of the account issued until now stops working (logout)."""
    with engine.begin() as conn:
        conn.execute(
            text("UPDATE accounts SET sessions_valid_after = clock_timestamp() WHERE id = :id"),
            {"id": account_id},
        )


def set_password(db: Database, username: str, password: str) -> None:
    """A new password also ends the sessions opened with the old one."""
    if len(password) < 8:
        raise AccountError("password: at least 8 characters")
    with db.admin.begin() as conn:
        updated = conn.execute(
            text(
                "UPDATE accounts SET password_hash = :h, sessions_valid_after = clock_timestamp() "
                "WHERE username = :u"
            ),
            {"h": hash_password(password), "u": username},
        ).rowcount
    if not updated:
        raise AccountError(f"no account named {username!r}")
