"""Who is asking (session cookie or bearer token), what their role may do, and CSRF.

Browsers authenticate with a signed session cookie (Starlette's SessionMiddleware:
itsdangerous-signed, HttpOnly, SameSite=Lax); API clients and evaluators send
`Authorization: Bearer <token>`. A cookie-authenticated POST must also carry the session's
CSRF token (synchronizer token: a hidden form field or the `X-CSRF-Token` header), because
SameSite=Lax alone still lets some cross-site requests through older browsers and
same-site subdomains. Bearer requests need no CSRF token: a browser never adds that header
on its own.

The account is re-read on every request, so a disabled account or a changed panel takes
effect at once even though the cookie itself cannot be revoked.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from typing import Literal

from sqlalchemy import Connection
from starlette.requests import Request

from records.accounts import Account, authenticate_token, load_account
from records.database import Database
from server.errors import csrf_failed

SESSION_ACCOUNT = "uid"
SESSION_CSRF = "csrf"
SESSION_ISSUED = "iat"  # when the session was created (epoch seconds): see sessions_valid_after
CSRF_HEADER = "x-csrf-token"


@dataclass(frozen=True)
class Principal:
    account: Account
    via: Literal["session", "token"]

    @property
    def actor(self) -> str:
        return self.account.username

    @property
    def role(self) -> str:
        return self.account.role

    def can(self, capability: str) -> bool:
        """Decided by records.capabilities, the one table every door reads."""
        return capability in self.account.capabilities


def bearer_token(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return None


def resolve_principal(db: Database, request: Request, conn: Connection | None = None) -> Principal | None:
    """Blocking (database): call from a worker thread. Given `conn`, the account is read in
    that connection's transaction (the guard's one transaction per request)."""
    source = conn if conn is not None else db.app
    token = bearer_token(request)
    if token is not None:
        account = authenticate_token(source, token)
        return Principal(account, "token") if account else None
    uid = request.session.get(SESSION_ACCOUNT)
    if not isinstance(uid, int):
        return None
    account = load_account(source, uid)
    if account is None or account.disabled or _revoked(account, request.session.get(SESSION_ISSUED)):
        request.session.clear()
        return None
    return Principal(account, "session")


def csrf_token(request: Request) -> str:
    """The session's CSRF token, created on first use (also before login: login is a POST too)."""
    token = request.session.get(SESSION_CSRF)
    if not isinstance(token, str):
        token = secrets.token_urlsafe(32)
        request.session[SESSION_CSRF] = token
    return token


def check_csrf(request: Request, supplied: str | None) -> None:
    expected = request.session.get(SESSION_CSRF)
    if not isinstance(expected, str) or not supplied or not secrets.compare_digest(expected, supplied):
        raise csrf_failed()


def start_session(request: Request, account: Account) -> None:
    """A fresh session on login (new CSRF token too), so a planted session id is worthless."""
    request.session.clear()
    request.session[SESSION_ACCOUNT] = account.id
    request.session[SESSION_CSRF] = secrets.token_urlsafe(32)
    request.session[SESSION_ISSUED] = time.time()


def _revoked(account: Account, issued: object) -> bool:
    """Issued before the account's sessions were ended (logout, new password), or undated."""
    if account.sessions_valid_after is None:
        return False
    return not isinstance(issued, int | float) or issued <= account.sessions_valid_after.timestamp()
