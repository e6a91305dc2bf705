"""Password login: who is let in, and how failures are limited without locking anyone out.

* **Lockout is per (username, client address)**: ten wrong passwords from one address slow
  that address down for that username; the real user, elsewhere, still logs in.
* **A spray limit per client address** counts failures across every username, so trying one
  password against many accounts is bounded too.
* **Every failed login looks the same**: wrong password, unknown username, disabled account,
  or an account that has no web page (evaluators use API tokens) all get 401 with one
  sentence, so the status does not tell an attacker that a guessed password was right. The
  audit log records what really happened. A limited client gets 429 whatever it sends.

Only failures are counted; a successful login clears its (username, client) count.
"""

from __future__ import annotations

from dataclasses import dataclass

from records.accounts import Account, authenticate_password
from records.audit import write_audit
from records.capabilities import PAGES
from records.database import Database
from server.errors import ApiError
from server.throttle import RateLimits

FAILED_MESSAGE = "Wrong username or password."


@dataclass(frozen=True)
class LoginResult:
    account: Account | None  # set only when the login succeeded
    status: int  # 303 (in), 401 (failed), 429 (limited)
    message: str | None = None
    retry_after_s: int | None = None


def lockout_key(username: str, client: str) -> str:
    return f"{username.strip().lower() or '-'}|{client}"


def attempt_login(
    db: Database, limits: RateLimits, *, username: str, password: str, client: str
) -> LoginResult:
    """Check the limits, verify the password, count a failure, audit. Blocking (database)."""
    key = lockout_key(username, client)
    try:
        limits.check("login", key)
        limits.check("login_spray", client)
    except ApiError as exc:
        write_audit(
            db.app,
            actor=username or "-",
            role="anonymous",
            action="login",
            outcome="limited",
            detail=f"from {client}",
        )
        return LoginResult(None, 429, exc.message, int(exc.headers.get("Retry-After", "60")))
    account = authenticate_password(db.app, username, password)
    if account is not None and PAGES in account.capabilities:
        write_audit(
            db.app, actor=username, role=account.role, action="login", outcome="ok", detail=f"from {client}"
        )
        limits.clear("login", key)
        return LoginResult(account, 303)
    limits.count("login", key)
    limits.count("login_spray", client)
    write_audit(
        db.app,
        actor=username or "-",
        role=account.role if account else "anonymous",
        action="login",
        outcome="refused" if account else "failed",
        detail=f"from {client}" + (f": role {account.role} has no web page" if account else ""),
    )
    return LoginResult(None, 401, FAILED_MESSAGE)
