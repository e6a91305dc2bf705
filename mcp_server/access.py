"""Who may read which record over HTTP: bearer tokens → accounts → a bound patient.

Mirrors the chat API's rule (patients: their own record only; clinicians: a patient on their
panel, named in the connection). A patient that does not exist and a patient the account may
not see are refused identically, so the refusal does not reveal whether an id exists.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from sqlalchemy import text

from records.database import Database, patient_transaction

# Accounts are who-may-see-whom, not record data: readable by the application role without a
# patient set (see records.models.Account).
ACCOUNT_BY_TOKEN = text(
    "SELECT id, username, role, bound_patient_id, disabled FROM accounts WHERE api_token_hash = :h"
)
ON_PANEL = text("SELECT 1 FROM clinician_panels WHERE account_id = :a AND panel_patient_id = :p")
PATIENT_EXISTS = text("SELECT 1 FROM patients WHERE patient_id = :p")

# Roles that read records (the web API's `read_record` capability). Evaluators work on
# question sets and ask through the agent; they do not browse rows.
MCP_ROLES = ("patient", "clinician")


def hash_api_token(token: str) -> str:
    """API tokens are long random strings, so a fast hash is enough (no salt, no stretching)
    and keeps the lookup an index probe on the unique `accounts.api_token_hash`."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class Account:
    id: int
    username: str
    role: str
    bound_patient_id: str | None


def account_for_token(db: Database, token: str) -> Account | None:
    """The enabled account holding this token, or None."""
    if not token:
        return None
    with db.app.connect() as conn:
        row = conn.execute(ACCOUNT_BY_TOKEN, {"h": hash_api_token(token)}).first()
    if row is None or row.disabled:
        return None
    return Account(id=row.id, username=row.username, role=row.role, bound_patient_id=row.bound_patient_id)


def patient_exists(db: Database, patient_id: str) -> bool:
    with patient_transaction(db.app, patient_id) as conn:
        return conn.execute(PATIENT_EXISTS, {"p": patient_id}).first() is not None


def permitted_patient(db: Database, account: Account, requested: str | None) -> str | None:
    """The patient this account's connection is bound to, or None (refuse).

    Patients get their own record (naming another patient is refused; naming none is fine).
    Everyone else reaches only a patient on their panel, named in the connection.
    """
    if account.role == "patient":
        patient_id = account.bound_patient_id
        if not patient_id or (requested and requested != patient_id):
            return None
    else:
        if not requested:
            return None
        with db.app.connect() as conn:
            if conn.execute(ON_PANEL, {"a": account.id, "p": requested}).first() is None:
                return None
        patient_id = requested
    return patient_id if patient_exists(db, patient_id) else None
