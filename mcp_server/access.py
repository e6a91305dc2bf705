"""Who may read which record over `/mcp`: the web API's own accounts and binding rule.

Accounts and capabilities live below both doors (`records.accounts`, `records.capabilities`),
so neither `server` nor `mcp_server` imports the other for them.

The token check, the account (re-read on every request, so a disabled account or a changed
panel takes effect at once) and the rule "a patient sees only their own record, others only
their panel" are the web API's (`records.accounts`), so `/mcp` binds a patient exactly as the
chat API does. A patient that does not exist and one the account may not see are refused
identically.
"""

from __future__ import annotations

from records.accounts import Account, authenticate_token, patient_exists, token_digest
from records.capabilities import MCP
from records.database import Database

__all__ = ["Account", "account_for_token", "hash_api_token", "may_use_mcp", "permitted_patient"]


def hash_api_token(token: str) -> str:
    return token_digest(token)


def account_for_token(db: Database, token: str) -> Account | None:
    """The enabled account holding this token, or None."""
    return authenticate_token(db.app, token) if token else None


def may_use_mcp(account: Account) -> bool:
    """Patients and clinicians; evaluators score the agent through the API (records.capabilities)."""
    return MCP in account.capabilities


def permitted_patient(db: Database, account: Account, requested: str | None) -> str | None:
    """The patient this connection is bound to, or None (refuse).

    A patient account is bound to its own record (naming another patient is refused, naming
    none is fine); every other account must name a patient it may see.
    """
    patient_id = account.bound_patient_id if account.role == "patient" and not requested else requested
    if not patient_id or not account.may_see(patient_id):
        return None
    return patient_id if patient_exists(db, patient_id) else None
