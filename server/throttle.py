"""Per-account limits: request and question rates (429 + Retry-After) and open streams.

Rates use a moving window: a burst cannot straddle a window edge to get twice the allowance.
In process (`memory://`, the default) that is `MovingWindow`, below; any other storage URI
gives the `limits` library's moving window over that storage, a shared one (Redis, memcached)
when several server processes run behind a load balancer. Open-stream counts are per process.
"""

from __future__ import annotations

import math
import threading
import time
from collections import Counter, deque

from limits import RateLimitItem, parse, storage, strategies

from records.settings import Settings
from server.errors import too_many


class MovingWindow:
    """`limits.strategies.MovingWindowRateLimiter` over in-process memory (`hit`, `test`,
    `clear`, `get_window_stats`, same answers), without its storage's expiry thread.

    `limits`' memory storage starts a `threading.Timer` (10 ms) on the first hit after the last
    one fired, so steady traffic started a thread about every 10 ms, on the event loop of every
    request that counts (the answer stream's opening among them), each start waiting for the
    new thread to be scheduled (milliseconds on a busy machine; `chartside bench serve`), and
    the timer's sweep of every key held the GIL. Here a key keeps the times of its hits in
    the window, oldest first, dropped as they leave it when the key is next used; keys left
    empty are swept out at most every `SWEEP_S`, inline."""

    SWEEP_S = 60.0

    def __init__(self) -> None:
        self._hits: dict[str, tuple[float, deque[float]]] = {}  # key → (its window in s, hit times)
        self._lock = threading.Lock()
        self._swept = time.time()

    def _window(self, item: RateLimitItem, identifiers: tuple[str, ...], now: float) -> deque[float]:
        key = item.key_for(*identifiers)
        found = self._hits.get(key)
        if found is None:
            found = self._hits[key] = (item.get_expiry(), deque())
        expiry, hits = found
        while hits and hits[0] <= now - expiry:
            hits.popleft()
        return hits

    def hit(self, item: RateLimitItem, *identifiers: str) -> bool:
        now = time.time()
        with self._lock:
            hits = self._window(item, identifiers, now)
            if len(hits) >= item.amount:
                return False
            hits.append(now)
            if now - self._swept > self.SWEEP_S:
                self._sweep(now)
            return True

    def test(self, item: RateLimitItem, *identifiers: str) -> bool:
        with self._lock:
            return len(self._window(item, identifiers, time.time())) < item.amount

    def clear(self, item: RateLimitItem, *identifiers: str) -> None:
        with self._lock:
            self._hits.pop(item.key_for(*identifiers), None)

    def get_window_stats(self, item: RateLimitItem, *identifiers: str) -> tuple[float, int]:
        """(when the window has room again, the hits it still allows)."""
        now = time.time()
        with self._lock:
            hits = self._window(item, identifiers, now)
            return (hits[0] if hits else now) + item.get_expiry(), max(0, item.amount - len(hits))

    def _sweep(self, now: float) -> None:
        """Drop the keys whose every hit has left its window."""
        self._swept = now
        for key in [k for k, (expiry, hits) in self._hits.items() if not hits or hits[-1] <= now - expiry]:
            del self._hits[key]


class RateLimits:
    def __init__(self, settings: Settings, storage_uri: str = "memory://") -> None:
        self._limiter: MovingWindow | strategies.MovingWindowRateLimiter = (
            MovingWindow()
            if storage_uri == "memory://"
            else strategies.MovingWindowRateLimiter(storage.storage_from_string(storage_uri))
        )
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
