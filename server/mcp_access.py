"""Who may read which record over `/mcp`: the web API's own accounts and binding rule.

It lives here, with the accounts, and the web app hands it to `mcp_server.http.McpMount`
(an `mcp_server.http_auth.AccountAccess`), so `mcp_server` never imports `server`.

The token check, the account (re-read on every request, so a disabled account or a changed
panel takes effect at once) and the rule "a patient sees only their own record, others only
their panel" are the web API's (`server.accounts`), so `/mcp` binds a patient exactly as the
chat API does. A patient that does not exist and one the account may not see are refused
identically.
"""

from __future__ import annotations

from records.database import Database
from server.accounts import Account, authenticate_token, patient_exists, token_digest
from server.auth import CAPABILITIES

# Reading rows is the web API's `read_record` capability (patients, clinicians); evaluators
# work on question sets through the agent and do not browse records.
MCP_CAPABILITY = "read_record"

__all__ = ["Account", "account_for_token", "hash_api_token", "may_use_mcp", "permitted_patient"]


def hash_api_token(token: str) -> str:
    return token_digest(token)


def account_for_token(db: Database, token: str) -> Account | None:
    """The enabled account holding this token, or None."""
    return authenticate_token(db.app, token) if token else None


def may_use_mcp(account: Account) -> bool:
    return MCP_CAPABILITY in CAPABILITIES.get(account.role, frozenset())


def permitted_patient(db: Database, account: Account, requested: str | None) -> str | None:
    """The patient this connection is bound to, or None (refuse).

    A patient account is bound to its own record (naming another patient is refused, naming
    none is fine); every other account must name a patient it may see.
    """
    patient_id = account.bound_patient_id if account.role == "patient" and not requested else requested
    if not patient_id or not account.may_see(patient_id):
        return None
    return patient_id if patient_exists(db, patient_id) else None
