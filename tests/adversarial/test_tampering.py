"""URL, body, cookie and conversation tampering: another patient's record is never reached,
nothing is written for the wrong patient, and every attempt is audited as denied.

The attacker is alice (patient account bound to A). B's data carries canaries that must never
appear in any response.
"""

from __future__ import annotations

import base64
import json

import httpx
import itsdangerous
import pytest

from tests.live_agent import audit, record_snapshot
from tests.server.conftest import CANARY, A, B, C, ask, login, stream

TAMPERED_IDS = [
    B,
    "PAT-B",
    "pat%2Db",
    "%70at-b",
    "pat-b%00",
    "pat-b%20",
    "pat-a%2F..%2Fpat-b",
    "pat-a'%20OR%20'1'='1",
    "pat-a%25",
    "%2A",
]


@pytest.fixture()
def alice(serve, world):
    served = serve()
    client = served.client()
    client.headers["X-CSRF-Token"] = login(client, "alice")
    yield served, client
    client.close()


def _no_b_data(response: httpx.Response) -> None:
    assert CANARY not in response.text and "Bob Brown" not in response.text and "9.9" not in response.text


@pytest.mark.parametrize("pid", TAMPERED_IDS)
def test_tampered_patient_ids_in_the_url_are_not_found_and_audited(alice, world, pid):
    _, client = alice
    before = record_snapshot(world.db)
    for method, path, body in (
        ("GET", f"/api/patients/{pid}/record", None),
        ("GET", f"/api/patients/{pid}/records/condition/cond-b1", None),
        ("GET", f"/api/patients/{pid}/records/patient/{B}", None),
        ("POST", f"/api/patients/{pid}/messages", {"question": "What is my latest HbA1c?"}),
    ):
        response = client.request(method, path, json=body)
        assert response.status_code == 404, (method, path, response.status_code)
        assert response.json() == {"error": "not_found", "message": "Not found."}
        _no_b_data(response)
    assert record_snapshot(world.db) == before
    if "%2F" not in pid:  # an encoded slash matches no route at all: a plain 404, nothing to audit
        denied = audit(world.db, actor="alice", outcome="denied")
        assert len(denied) == 4  # every attempt is on the record, with the id that was asked for
        assert all(r.target_patient_id and r.target_patient_id != A for r in denied)


def test_query_string_and_body_cannot_switch_the_patient(alice, world):
    _, client = alice
    record = client.get(f"/api/patients/{A}/record", params={"patient_id": B, "patient": B})
    assert record.status_code == 200 and record.json()["patient"]["patient_id"] == A
    _no_b_data(record)
    sneaky = client.post(f"/api/patients/{A}/messages", json={"question": "labs?", "patient_id": B})
    assert sneaky.status_code == 400 and "unknown field" in sneaky.json()["message"]
    # a row id of B's record, asked for on A's own URL
    assert client.get(f"/api/patients/{A}/records/condition/cond-b1").status_code == 404
    assert client.get(f"/api/patients/{A}/records/observation/obs-b1").status_code == 404


def test_a_message_or_conversation_of_another_patient_or_account_is_not_found(serve, world):
    served = serve()
    with served.client() as bob, served.client() as alice, served.client() as carol:
        bob_csrf = login(bob, "bob")
        posted = ask(bob, B, "What are my conditions?", csrf=bob_csrf).json()
        assert stream(bob, B, posted["message_id"])[0] == 200
        alice_csrf = login(alice, "alice")
        carol_csrf = login(carol, "carol")
        mine = ask(alice, A, csrf=alice_csrf).json()
        before = record_snapshot(world.db)
        for client, csrf, pid in ((alice, alice_csrf, A), (alice, alice_csrf, B), (carol, carol_csrf, A)):
            # bob's conversation continued by someone else, on their own or on bob's URL
            reply = ask(client, pid, "And before that?", csrf=csrf, conversation_id=posted["conversation_id"])
            assert reply.status_code == 404
            for url in (
                f"/api/patients/{pid}/messages/{posted['message_id']}",
                f"/api/patients/{pid}/messages/{posted['message_id']}/events",
                f"/api/patients/{pid}/conversations/{posted['conversation_id']}",
            ):
                response = client.get(url)
                assert response.status_code == 404, url
                _no_b_data(response)
        # carol may see patient A, but alice's conversation is alice's
        reply = ask(carol, A, "And before that?", csrf=carol_csrf, conversation_id=mine["conversation_id"])
        assert reply.status_code == 404
        assert carol.get(f"/api/patients/{A}/messages/{mine['message_id']}/events").status_code == 404
        assert record_snapshot(world.db) == before
    assert served.agent.runs == 1  # only bob's own question ever ran


def _session_cookie(client: httpx.Client) -> str:
    return client.cookies.get("chartside_session")


def _forge(cookie: str, **changes) -> str:
    """Change the payload of a signed session cookie, keeping its (now wrong) signature."""
    payload, _, rest = cookie.partition(".")
    data = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    data.update(changes)
    forged = base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")
    return f"{forged}.{rest}"


def test_a_tampered_session_cookie_is_rejected(serve, world):
    served = serve()
    with served.client() as alice:
        login(alice, "alice")
        cookie = _session_cookie(alice)
    bob_id = next(r.id for r in _accounts(world) if r.username == "bob")
    for forged in (
        _forge(cookie, uid=bob_id),  # payload edited, signature kept
        cookie[:-2] + ("AA" if not cookie.endswith("AA") else "BB"),  # signature edited
        _resigned(cookie, "not-the-server-key", uid=bob_id),  # signed with a guessed key
    ):
        with served.client(cookies={"chartside_session": forged}) as mallory:
            for url in (f"/api/patients/{B}/record", f"/api/patients/{A}/record", "/api/me"):
                response = mallory.get(url)
                assert response.status_code == 401, (url, response.status_code)
                _no_b_data(response)


def _resigned(cookie: str, key: str, **changes) -> str:
    payload, _, _ = cookie.partition(".")
    data = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    data.update(changes)
    signer = itsdangerous.TimestampSigner(key)
    return signer.sign(base64.b64encode(json.dumps(data).encode())).decode()


def _accounts(world):
    from sqlalchemy import text

    with world.db.admin.connect() as conn:
        return conn.execute(text("SELECT id, username FROM accounts")).all()


def test_a_session_cookie_is_dead_after_logout(serve, world):
    """A copy of the cookie (another tab, a stolen one) stops working when the user logs out."""
    served = serve()
    with served.client() as alice:
        csrf = login(alice, "alice")
        stolen = _session_cookie(alice)
        assert alice.post("/logout", data={"csrf_token": csrf}).status_code == 303
    with served.client(cookies={"chartside_session": stolen}) as thief:
        assert thief.get(f"/api/patients/{A}/record").status_code == 401
        assert thief.get("/api/me").status_code == 401
    with served.client() as alice:  # logging in again works
        login(alice, "alice")
        assert alice.get(f"/api/patients/{A}/record").status_code == 200


def test_a_csrf_token_of_another_session_does_not_work(serve, world):
    served = serve()
    with served.client() as alice, served.client() as bob:
        login(alice, "alice")
        bob_csrf = login(bob, "bob")
        response = ask(alice, A, csrf=bob_csrf)
        assert response.status_code == 403 and response.json()["error"] == "csrf"
    assert served.agent.runs == 0


def test_a_clinician_cannot_reach_a_patient_off_their_panel(serve, world):
    served = serve()
    with served.client() as carol:
        csrf = login(carol, "carol")
        assert carol.get(f"/api/patients/{C}/record").status_code == 200
        for pid in (B, "PAT-C", "pat-c%00"):
            assert carol.get(f"/api/patients/{pid}/record").status_code == 404
            assert ask(carol, pid, csrf=csrf).status_code == 404
