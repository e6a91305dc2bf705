"""Issue 18 item 6: login limits that stop guessing without locking the real user out.

Before: ten wrong passwords (from anywhere) locked the username for everyone, and spraying one
password across many usernames was unlimited.
"""

from __future__ import annotations

import httpx

from tests.server.conftest import CSRF_META, PASSWORD, audit_rows


def _client(served, source: str) -> httpx.Client:
    """A client connecting from another loopback address (another machine, to the server)."""
    return httpx.Client(base_url=served.url, timeout=30, transport=httpx.HTTPTransport(local_address=source))


def _try(client: httpx.Client, username: str, password: str) -> httpx.Response:
    token = CSRF_META.search(client.get("/login").text).group(1)
    return client.post("/login", data={"username": username, "password": password, "csrf_token": token})


def test_an_attackers_failures_lock_out_the_attacker_not_the_user(serve, world):
    served = serve(login_rate_per_minute=5)
    with _client(served, "127.0.0.2") as attacker, _client(served, "127.0.0.1") as alice:
        guesses = [_try(attacker, "alice", f"guess-{i}").status_code for i in range(5)]
        locked = _try(attacker, "alice", PASSWORD)  # even the right password: no oracle
        assert guesses == [401] * 5 and locked.status_code == 429 and "Retry-After" in locked.headers
        assert _try(alice, "alice", PASSWORD).status_code == 303
    assert "limited" in {r.outcome for r in audit_rows(world.db, action="login")}


def test_spraying_many_usernames_from_one_client_is_limited(serve, world):
    served = serve(login_spray_per_minute=4)
    with _client(served, "127.0.0.3") as sprayer, _client(served, "127.0.0.1") as bob:
        tried = [_try(sprayer, name, "Summer2026!").status_code for name in ("alice", "bob", "carol", "x1")]
        assert tried == [401] * 4
        assert _try(sprayer, "x2", "Summer2026!").status_code == 429
        assert _try(sprayer, "bob", PASSWORD).status_code == 429
        assert _try(bob, "bob", PASSWORD).status_code == 303


def test_a_successful_login_clears_its_own_count(serve, world):
    served = serve(login_rate_per_minute=3)
    with _client(served, "127.0.0.4") as alice:
        for _ in range(2):
            assert _try(alice, "alice", "typo-typo").status_code == 401
        assert _try(alice, "alice", PASSWORD).status_code == 303
    with _client(served, "127.0.0.4") as again:
        for _ in range(2):
            assert _try(again, "alice", "typo-typo").status_code == 401
        assert _try(again, "alice", PASSWORD).status_code == 303
