"""The accounts this process has authenticated, by credential: a hint for the answer stream's
opening (server/opening.py), which re-checks every fact it takes from here in its own
transaction, so a revoked session or a changed account is refused as soon as it changes."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from starlette.requests import Request

from records.accounts import token_digest
from server.auth import SESSION_ACCOUNT, SESSION_ISSUED, Principal, bearer_token

CACHE_SIZE = 4096  # accounts; an entry is a few hundred bytes


def principal_key(request: Request) -> tuple[Any, ...] | None:
    """What identifies the caller's credential: the bearer token's digest, or the session's
    account and issue time (a new login is a new key). None: nothing cacheable."""
    token = bearer_token(request)
    if token is not None:
        return ("token", token_digest(token))
    if "session" not in request.scope:
        return None
    uid, issued = request.session.get(SESSION_ACCOUNT), request.session.get(SESSION_ISSUED)
    if isinstance(uid, int) and isinstance(issued, int | float):
        return ("session", uid, float(issued))
    return None


class PrincipalCache:
    """Accounts this process has authenticated through the guard, by credential (bounded LRU).

    A hint, never a decision: `open_answer` re-checks every fact it relies on in its own
    transaction. Thread-safe (the guard fills it from worker threads)."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self.size = size
        self._entries: OrderedDict[tuple[Any, ...], Principal] = OrderedDict()
        self._lock = threading.Lock()

    def put(self, key: tuple[Any, ...], principal: Principal) -> None:
        with self._lock:
            self._entries[key] = principal
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)

    def get(self, key: tuple[Any, ...]) -> Principal | None:
        with self._lock:
            principal = self._entries.get(key)
            if principal is not None:
                self._entries.move_to_end(key)
            return principal

    def drop(self, key: tuple[Any, ...]) -> None:
        with self._lock:
            self._entries.pop(key, None)

    def __len__(self) -> int:
        return len(self._entries)
