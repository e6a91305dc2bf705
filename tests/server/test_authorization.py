"""The patient binding: nobody reaches a record that is not theirs, and nothing tells them why."""

from __future__ import annotations

import pytest

from records.accounts import set_disabled
from tests.server.conftest import CANARY, A, B, C, ask, audit_rows, login

GETS = [
    "/api/patients/{p}/record",
    "/api/patients/{p}/records/condition/cond-a1",
    "/api/patients/{p}/messages/0123456789abcdef0123456789abcdef",
    "/api/patients/{p}/messages/0123456789abcdef0123456789abcdef/events",
]


@pytest.fixture()
def served(serve):
    return serve()


def _bodies(client, patient: str) -> list[tuple[int, bytes]]:
    out = [(r.status_code, r.content) for r in (client.get(u.format(p=patient)) for u in GETS)]
    post = client.post(f"/api/patients/{patient}/messages", json={"question": "hi"}, headers=client.headers)
    return [*out, (post.status_code, post.content)]


def test_patient_on_another_patients_url_gets_the_same_404_as_a_missing_patient(served, world):
    with served.client() as client:
        csrf = login(client, "alice")
        client.headers["X-CSRF-Token"] = csrf
        other = _bodies(client, B)
        missing = _bodies(client, "no-such-patient")
        own = client.get(f"/api/patients/{A}/record")
    assert {status for status, _ in other} == {404}
    assert other == missing
    assert CANARY.encode() not in b"".join(body for _, body in other)
    assert own.status_code == 200
    denied = audit_rows(world.db, actor="alice", target_patient_id=B)
    assert len(denied) == len(GETS) + 1 and {r.outcome for r in denied} == {"denied"}
    assert {r.outcome for r in audit_rows(world.db, actor="alice", target_patient_id="no-such-patient")} == {
        "denied"
    }
    assert {r.outcome for r in audit_rows(world.db, actor="alice", target_patient_id=A)} == {"ok"}


def test_clinician_reaches_panel_patients_only(served, world):
    with served.client() as client:
        csrf = login(client, "carol")
        client.headers["X-CSRF-Token"] = csrf
        assert client.get(f"/api/patients/{A}/record").status_code == 200
        assert client.get(f"/api/patients/{C}/record").status_code == 200
        outside = _bodies(client, B)
        missing = _bodies(client, "no-such-patient")
        page = client.get(f"/patients/{B}", headers={"Accept": "text/html"})
    assert outside == missing and {s for s, _ in outside} == {404}
    assert page.status_code == 404 and CANARY not in page.text and "Bob" not in page.text
    assert {r.outcome for r in audit_rows(world.db, actor="carol", target_patient_id=B)} == {"denied"}


def test_no_session_and_a_forged_cookie_get_identical_401s_and_are_audited(served, world):
    with served.client() as anonymous:
        none = _bodies(anonymous, A)
    forged_value = "eyJ1aWQiOiAxfQ==.ZmFrZQ.c2lnbmF0dXJl"  # {"uid": 1} with a made-up signature
    with served.client(cookies={"chartside_session": forged_value}) as forged_client:
        forged = _bodies(forged_client, A)
    with served.client(headers={"Authorization": "Bearer cs_not-a-real-token"}) as bad_token:
        token = _bodies(bad_token, A)
    assert {s for s, _ in none} == {401}
    assert none == forged == token
    rows = audit_rows(world.db, actor="anonymous", target_patient_id=A)
    assert len(rows) == 3 * (len(GETS) + 1) and {r.outcome for r in rows} == {"unauthenticated"}


def test_a_cookie_signed_with_another_key_is_rejected(serve, world):
    import base64
    import json

    from itsdangerous import TimestampSigner

    served = serve()
    payload = base64.b64encode(json.dumps({"uid": 1, "csrf": "x"}).encode())
    cookie = TimestampSigner("attacker-key").sign(payload).decode()
    with served.client(cookies={"chartside_session": cookie}) as client:
        response = client.get(f"/api/patients/{A}/record")
        me = client.get("/api/me")
    assert response.status_code == 401 and me.status_code == 401


def test_evaluator_tokens_read_their_panel_through_the_api_only(served, world):
    """Issue 18 item 1: asking reveals the record, so the evaluator may open cited rows too
    (records.capabilities); it has no web page and its panel still binds."""
    with served.client(headers={"Authorization": f"Bearer {world.eve_token}"}) as client:
        posted = ask(client, A)
        record = client.get(f"/api/patients/{A}/record")
        cited = client.get(f"/api/patients/{A}/records/condition/cond-a1")
        outside = ask(client, B)
        outside_record = client.get(f"/api/patients/{B}/record")
        page = client.get(f"/patients/{A}", headers={"Accept": "text/html"}, follow_redirects=False)
    assert posted.status_code == 201
    assert record.status_code == 200 and cited.status_code == 200
    assert outside.status_code == 404 and outside_record.status_code == 404
    assert page.status_code in (303, 403)


def test_an_evaluator_with_the_right_password_gets_the_same_401_as_a_wrong_one(served, world):
    """Issue 18 item 6: a correct password must not be told apart by a different status."""
    from tests.server.conftest import CSRF_META, PASSWORD

    with served.client() as client:
        token = CSRF_META.search(client.get("/login").text).group(1)
        right = client.post("/login", data={"username": "eve", "password": PASSWORD, "csrf_token": token})
        wrong = client.post("/login", data={"username": "eve", "password": "nope-nope", "csrf_token": token})
    assert right.status_code == wrong.status_code == 401
    assert "Wrong username or password." in right.text and "Wrong username or password." in wrong.text
    assert [r.outcome for r in audit_rows(world.db, action="login", actor="eve")] == ["refused", "failed"]


def test_patients_cannot_pin_now(served, world):
    with served.client() as client:
        csrf = login(client, "alice")
        pinned = ask(client, A, csrf=csrf, now="2024-01-01T00:00:00+00:00")
    assert pinned.status_code == 400 and "evaluator" in pinned.json()["message"]


def test_csrf_is_required_on_cookie_posts_but_not_with_a_bearer_token(served, world):
    with served.client() as client:
        csrf = login(client, "alice")
        missing = ask(client, A)
        wrong = ask(client, A, csrf="not-the-token")
        right = ask(client, A, csrf=csrf)
        logout_without = client.post("/logout", data={})
    assert missing.status_code == 403 and missing.json()["error"] == "csrf"
    assert wrong.status_code == 403
    assert right.status_code == 201
    assert logout_without.status_code == 403
    with served.client(headers={"Authorization": f"Bearer {world.eve_token}"}) as api:
        assert ask(api, A).status_code == 201


def test_login_form_needs_its_csrf_token(served, world):
    with served.client() as client:
        client.get("/login")
        response = client.post("/login", data={"username": "alice", "password": "x"})
    assert response.status_code == 403


def test_wrong_password_and_unknown_user_look_the_same(served, world):
    with served.client() as client:
        from tests.server.conftest import CSRF_META

        token = CSRF_META.search(client.get("/login").text).group(1)
        wrong = client.post(
            "/login", data={"username": "alice", "password": "nope-nope", "csrf_token": token}
        )
        unknown = client.post(
            "/login", data={"username": "mallory", "password": "nope-nope", "csrf_token": token}
        )
    assert wrong.status_code == unknown.status_code == 401
    assert "Wrong username or password." in wrong.text and "Wrong username or password." in unknown.text
    assert [r.outcome for r in audit_rows(world.db, action="login")] == ["failed", "failed"]


def test_conversations_and_messages_of_another_account_are_not_found(served, world):
    with served.client() as alice:
        csrf = login(alice, "alice")
        posted = ask(alice, A, csrf=csrf).json()
    with served.client() as carol:
        carol_csrf = login(carol, "carol")
        reuse = ask(carol, A, csrf=carol_csrf, conversation_id=posted["conversation_id"])
        read = carol.get(f"/api/patients/{A}/messages/{posted['message_id']}")
        events = carol.get(f"/api/patients/{A}/messages/{posted['message_id']}/events")
        conversation = carol.get(f"/api/patients/{A}/conversations/{posted['conversation_id']}")
    assert reuse.status_code == read.status_code == events.status_code == conversation.status_code == 404


def test_a_disabled_account_is_logged_out_at_once(served, world):
    with served.client() as client:
        login(client, "alice")
        assert client.get(f"/api/patients/{A}/record").status_code == 200
        set_disabled(world.db, "alice", True)
        assert client.get(f"/api/patients/{A}/record").status_code == 401


def test_a_patient_cannot_see_another_patients_cited_row_even_on_their_own_url(served, world):
    """B's observation id on A's URL: row-level security finds nothing → the same 404."""
    with served.client() as client:
        csrf = login(client, "alice")
        theirs = client.get(f"/api/patients/{A}/records/observation/obs-b1")
        missing = client.get(f"/api/patients/{A}/records/observation/obs-zzz")
        scoped = ask(client, A, csrf=csrf, scope={"record": {"kind": "observation", "id": "obs-b1"}})
    assert theirs.status_code == missing.status_code == 404 and theirs.content == missing.content
    assert scoped.status_code == 404


def test_the_server_binds_each_accounts_write_mode_into_the_tool_scope(serve, world):
    """Issue 18 item 1: the evaluator's answers run with a read-only scope; a sandbox
    evaluator's with the sandbox mode; a patient's live."""
    from records.accounts import create_account

    _, sandbox_token = create_account(
        world.db, username="sandy", role="evaluator", patients=[A], with_token=True, evaluation_sandbox=True
    )
    served = serve()
    for headers in (
        {"Authorization": f"Bearer {world.eve_token}"},
        {"Authorization": f"Bearer {sandbox_token}"},
    ):
        with served.client(headers=headers) as client:
            posted = ask(client, A).json()
            client.get(f"/api/patients/{A}/messages/{posted['message_id']}/events").read()
    with served.client() as client:
        csrf = login(client, "alice")
        posted = ask(client, A, csrf=csrf).json()
        client.get(f"/api/patients/{A}/messages/{posted['message_id']}/events").read()
    assert [r.scope.write_mode for r in served.agent.requests] == ["none", "sandbox", "live"]
