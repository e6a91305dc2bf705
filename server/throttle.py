"""Per-account limits: request and question rates (429 + Retry-After) and open streams.

Rates use the `limits` library's moving window: a burst cannot straddle a window edge to get
twice the allowance, and the storage can be swapped for a shared one (Redis, memcached) when
several server processes run behind a load balancer. Open-stream counts are per process.
"""

from __future__ import annotations

import math
import threading
import time
from collections import Counter

from limits import RateLimitItem, parse, storage, strategies

from records.settings import Settings
from server.errors import too_many


class RateLimits:
    def __init__(self, settings: Settings, storage_uri: str = "memory://") -> None:
        self._limiter = strategies.MovingWindowRateLimiter(storage.storage_from_string(storage_uri))
        self._items: dict[str, tuple[RateLimitItem, str]] = {
            "api": (parse(f"{settings.api_rate_per_minute}/minute"), "Too many requests."),
            "ask": (
                parse(f"{settings.ask_rate_per_minute}/minute"),
                "You are asking faster than this service allows.",
            ),
            # failed logins only (server.login): per (username, client), and per client
            "login": (parse(f"{settings.login_rate_per_minute}/minute"), "Too many failed logins."),
            "login_spray": (parse(f"{settings.login_spray_per_minute}/minute"), "Too many failed logins."),
            # requests without a valid session or token, per client address
            "anonymous": (parse(f"{settings.api_rate_per_minute}/minute"), "Too many requests."),
        }

    def check(self, kind: str, key: str) -> None:
        """Raise 429 if `key` has used up its allowance, without counting this request."""
        item, _ = self._items[kind]
        if not self._limiter.test(item, kind, key):
            self._refuse(kind, key)

    def count(self, kind: str, key: str) -> None:
        """Count one event against `key` (refusals are made by `check`)."""
        item, _ = self._items[kind]
        self._limiter.hit(item, kind, key)

    def clear(self, kind: str, key: str) -> None:
        item, _ = self._items[kind]
        self._limiter.clear(item, kind, key)

    def hit(self, kind: str, key: str) -> None:
        """Count one request; raise 429 with the seconds until the window has room again."""
        item, _ = self._items[kind]
        if not self._limiter.hit(item, kind, key):
            self._refuse(kind, key)

    def _refuse(self, kind: str, key: str) -> None:
        item, message = self._items[kind]
        reset_at, _ = self._limiter.get_window_stats(item, kind, key)
        wait = math.ceil(reset_at - time.time())
        raise too_many(f"{message} Try again in {max(1, wait)} s.", wait)


class StreamSlots:
    """How many answer streams each account has open right now (this process)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._open: Counter[int] = Counter()
        self._lock = threading.Lock()

    def acquire(self, account_id: int) -> bool:
        with self._lock:
            if self._open[account_id] >= self.limit:
                return False
            self._open[account_id] += 1
            return True

    def release(self, account_id: int) -> None:
        with self._lock:
            self._open[account_id] -= 1
            if self._open[account_id] <= 0:
                del self._open[account_id]
