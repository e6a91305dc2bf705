"""Limits and hygiene: body size, question length, rates, streams, control characters, headers."""

from __future__ import annotations

import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from agent.events import DoneEvent, StatusEvent
from records.database import patient_transaction
from server.question_text import INVISIBLE, QuestionError, clean_question
from server.scripted_agent import Gate
from tests.server.conftest import A, ask, login


def _bearer(world):
    return {"Authorization": f"Bearer {world.eve_token}"}


def test_an_oversized_body_gets_413(serve, world):
    served = serve(max_body_bytes=2048)
    with served.client(headers=_bearer(world)) as client:
        response = ask(client, A, "x" * 5000)
    assert response.status_code == 413
    assert "Traceback" not in response.text


def test_an_over_long_question_gets_400_naming_the_limit(serve, world):
    served = serve(max_question_chars=50)
    with served.client(headers=_bearer(world)) as client:
        response = ask(client, A, "a" * 51)
        fine = ask(client, A, "a" * 50)
    assert response.status_code == 400 and "limit of 50" in response.json()["message"]
    assert fine.status_code == 201


def test_control_characters_are_refused_and_invisible_ones_removed(serve, world):
    served = serve()
    with served.client(headers=_bearer(world)) as client:
        refused = ask(client, A, "what is \x1b[2J my A1C")
        cleaned = ask(client, A, "what is\u200b my\u202e A1C?\r\nthanks")
    assert refused.status_code == 400 and "U+001B" in refused.json()["message"]
    assert cleaned.status_code == 201
    with patient_transaction(world.db.admin, A) as conn:
        stored = conn.execute(
            text("SELECT question FROM messages WHERE id = :m"), {"m": cleaned.json()["message_id"]}
        ).scalar_one()
    assert stored == "what is my A1C?\nthanks"


def test_asking_too_fast_gets_429_with_retry_after(serve, world):
    served = serve(ask_rate_per_minute=2)
    with served.client(headers=_bearer(world)) as client:
        statuses = [ask(client, A).status_code for _ in range(2)]
        limited = ask(client, A)
    assert statuses == [201, 201]
    assert limited.status_code == 429
    assert 1 <= int(limited.headers["Retry-After"]) <= 60
    assert limited.json()["error"] == "rate_limited"


def test_too_many_open_streams_per_account_gets_429(serve, world):
    gate = Gate("hold")
    served = serve(
        [StatusEvent(text="…"), gate, DoneEvent(answer="ok", mode="offline")],
        max_streams_per_account=1,
        stream_grace_s=30,
    )
    with served.client(headers=_bearer(world)) as client:
        first_id = ask(client, A).json()["message_id"]
        second_id = ask(client, A).json()["message_id"]
        with client.stream("GET", f"/api/patients/{A}/messages/{first_id}/events") as open_stream:
            assert open_stream.status_code == 200
            assert gate.reached.wait(10)
            blocked = client.get(f"/api/patients/{A}/messages/{second_id}/events")
            gate.open()
            open_stream.read()
        after = client.get(f"/api/patients/{A}/messages/{second_id}/events")
    assert blocked.status_code == 429 and "Retry-After" in blocked.headers
    assert after.status_code == 200


def test_malformed_asks_get_clear_400s(serve, world):
    served = serve()
    with served.client(headers=_bearer(world)) as client:
        url = f"/api/patients/{A}/messages"
        not_json = client.post(
            url, content=b"question=hi", headers={"Content-Type": "application/x-www-form-urlencoded"}
        )
        broken = client.post(url, content=b"{", headers={"Content-Type": "application/json"})
        extra = ask(client, A, patient_id="pat-b")
        bad_scope = ask(client, A, scope={"section": "everything"})
        bad_conv = ask(client, A, conversation_id="../../etc")
        bad_last_id = client.get(
            f"{url}/0123456789abcdef0123456789abcdef/events", headers={"Last-Event-ID": "abc"}
        )
    assert not_json.status_code == 415
    assert broken.status_code == 400
    assert extra.status_code == 400 and "patient_id" in extra.json()["message"]
    assert bad_scope.status_code == 400 and "scope" in bad_scope.json()["message"]
    assert bad_conv.status_code == 400
    assert bad_last_id.status_code in (400, 404)


def test_security_headers_on_pages_and_api(serve, world):
    served = serve()
    with served.client() as client:
        page = client.get("/login")
        api = client.get(f"/api/patients/{A}/record")
        static = client.get("/static/chat.js")
    for response in (page, api, static):
        csp = response.headers["content-security-policy"]
        assert (
            "script-src 'self'" in csp and "frame-ancestors 'none'" in csp and "img-src 'self' data:" in csp
        )
        assert "unsafe-inline" not in csp
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["referrer-policy"] == "no-referrer"
    assert page.headers["cache-control"] == "no-store" and api.headers["cache-control"] == "no-store"
    cookie = page.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=lax" in cookie


def test_unexpected_errors_are_generic(serve, world, monkeypatch):
    from server import record_view

    def broken(*_args, **_kw):
        raise RuntimeError("relation secret_table; SELECT * FROM patients WHERE patient_id = 'pat-b'")

    monkeypatch.setattr(record_view, "at_a_glance", broken)
    served = serve()
    with served.client() as client:
        login(client, "alice")
        response = client.get(f"/api/patients/{A}/record")
        unknown = client.get("/api/nothing-here")
    assert response.status_code == 500
    assert response.json() == {"error": "internal", "message": "Something went wrong. Please try again."}
    assert unknown.status_code == 404 and unknown.json()["error"] == "not_found"


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_clean_question_never_passes_controls_or_invisibles(raw):
    try:
        cleaned = clean_question(raw, max_chars=200)
    except QuestionError as exc:
        assert str(exc).startswith("question:")
        return
    assert cleaned and len(cleaned) <= 200 and cleaned == cleaned.strip()
    for char in cleaned:
        assert char not in INVISIBLE
        assert unicodedata.category(char) != "Cc" or char in "\n\t"


@given(
    st.text(
        alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp", "Cf", "Zs")),
        min_size=1,
        max_size=100,
    )
)
def test_clean_question_keeps_visible_text(raw):
    assert clean_question(raw, max_chars=500) == unicodedata.normalize("NFC", raw)


def test_counting_requests_starts_no_thread_and_agrees_with_the_limits_library(monkeypatch):
    """The in-process moving window (`MovingWindow`) answers as `limits`' moving window over
    its memory storage does, without that storage's expiry timer: a thread started on the
    event loop on the first request after every 10 ms of quiet."""
    import threading
    import time

    from limits import parse, storage, strategies

    from server.throttle import MovingWindow, RateLimits
    from tests.conftest import test_settings

    started: list[str] = []
    real_start = threading.Thread.start
    limits = RateLimits(test_settings(api_rate_per_minute=1000))
    monkeypatch.setattr(threading.Thread, "start", lambda self: started.append(self.name) or real_start(self))
    for _ in range(3):
        for account in range(20):
            limits.hit("api", str(account))
        time.sleep(0.02)  # the old timer had fired and ended: the next hit started another
    assert started == []

    item = parse("5/second")
    ours, theirs = (
        MovingWindow(),
        strategies.MovingWindowRateLimiter(storage.storage_from_string("memory://")),
    )
    for _ in range(7):
        assert ours.test(item, "api", "1") == theirs.test(item, "api", "1")
        assert ours.hit(item, "api", "1") == theirs.hit(item, "api", "1")
    assert ours.get_window_stats(item, "api", "1")[1] == theirs.get_window_stats(item, "api", "1")[1] == 0
    ours.clear(item, "api", "1")
    theirs.clear(item, "api", "1")
    assert [ours.hit(item, "x") for _ in range(6)] == [theirs.hit(item, "x") for _ in range(6)]
