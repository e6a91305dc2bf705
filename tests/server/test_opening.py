"""The answer stream's opening from a cached principal (server/opening.py) decides nothing on
its own: every fact it takes from the cache is checked again in the transaction that claims,
a run still happens once per message across servers, and every answer keeps its audit rows."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import text

from records.accounts import end_sessions, issue_token, load_account, set_disabled
from records.database import patient_transaction
from server.scripted_agent import Gate, quick_answer_script
from tests.server.conftest import A, C, ask, audit_rows, fail_event_writes, login, stream
from tests.server.test_streaming import _stored, _wait_for


def _account_id(db, username: str) -> int:
    with db.admin.connect() as conn:
        return conn.execute(text("SELECT id FROM accounts WHERE username = :u"), {"u": username}).scalar_one()


def _end_sessions(db, username: str) -> None:
    time.sleep(0.01)  # the session was issued strictly before its end (time.time() resolution)
    end_sessions(db.admin, _account_id(db, username))


def _drop_from_panel(db, username: str, patient: str) -> None:
    with db.admin.begin() as conn:
        conn.execute(
            text("DELETE FROM clinician_panels WHERE account_id = :a AND panel_patient_id = :p"),
            {"a": _account_id(db, username), "p": patient},
        )


REVOCATIONS = {
    # name: (who, how it is revoked, the status the events URL then gets)
    "session ended (logout elsewhere, new password)": ("alice", lambda db: _end_sessions(db, "alice"), 401),
    "account disabled": ("alice", lambda db: set_disabled(db, "alice", True), 401),
    "API token replaced": ("eve", lambda db: issue_token(db, "eve"), 401),
    "taken off the clinician's panel": ("carol", lambda db: _drop_from_panel(db, "carol", A), 404),
    "evaluator taken off the panel": ("eve", lambda db: _drop_from_panel(db, "eve", A), 404),
}


@pytest.mark.parametrize("revocation", list(REVOCATIONS))
def test_a_credential_revoked_after_it_was_cached_is_refused_at_the_opening(serve, world, revocation):
    who, revoke, refused = REVOCATIONS[revocation]
    served = serve()
    services = served.app.state.services
    headers = {"Authorization": f"Bearer {world.eve_token}"} if who == "eve" else {}
    with served.client(headers=headers) as client:
        csrf = None if who == "eve" else login(client, who)
        mid = ask(client, A, csrf=csrf).json()["message_id"]  # the guard caches the principal
        assert len(services.principals) == 1
        revoke(world.db)
        status, events = stream(client, A, mid)
    assert status == refused and events == []
    assert served.agent.runs == 0
    assert _stored(world.db, mid) == ("pending", [])  # not claimed: the check is in the claim's transaction
    opened = audit_rows(world.db, action="http:GET events")
    assert [r.outcome for r in opened] == ["unauthenticated" if refused == 401 else "denied"]
    assert len(services.principals) == 0  # the stale entry is gone


def test_the_same_credential_keeps_working_until_it_is_revoked(serve, world):
    """The control of the test above: without a revocation, the cached opening answers, writes
    the guard's "ok" audit row, records the claim while the run is live and clears it after."""
    gate = Gate("mid-run")
    served = serve([quick_answer_script()[0], gate, *quick_answer_script()[1:]])
    with served.client() as client:
        csrf = login(client, "carol")
        mid = ask(client, C, csrf=csrf).json()["message_id"]
        with ThreadPoolExecutor(1) as pool:
            reading = pool.submit(stream, client, C, mid)
            assert gate.reached.wait(10)
            with world.db.admin.connect() as conn:
                claims = conn.execute(
                    text("SELECT run_patient_id FROM run_claims WHERE message_id = :m"), {"m": mid}
                )
                assert claims.scalars().all() == [C]
            gate.open()
            status, events = reading.result(20)
    assert status == 200 and events[-1][1] == "done"
    ok = audit_rows(world.db, action="http:GET events")
    assert [(r.actor, r.outcome, r.target_patient_id) for r in ok] == [("carol", "ok", C)]
    with world.db.admin.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM run_claims")).scalar_one() == 0


def test_a_new_login_is_a_new_cache_entry_and_an_old_session_stays_refused(serve, world):
    served = serve()
    with served.client() as old, served.client() as new:
        login(old, "alice")
        mid = ask(old, A, csrf=old.get("/api/me").json()["csrf_token"]).json()["message_id"]
        _end_sessions(world.db, "alice")
        csrf = login(new, "alice")  # issued after the end: valid
        mid_new = ask(new, A, csrf=csrf).json()["message_id"]
        assert stream(old, A, mid)[0] == 401
        status, events = stream(new, A, mid_new)
    assert status == 200 and events[-1][1] == "done"
    assert load_account(world.db.admin, _account_id(world.db, "alice")).sessions_valid_after is not None


def test_two_servers_racing_for_the_same_messages_answer_each_once(serve, world):
    """Two server processes (two apps, two run managers, one database), every message read by
    both at once through their cached openings: each message is run exactly once, and both
    readers get the whole answer (one live, the other from storage)."""
    first, second = serve(), serve()
    headers = {"Authorization": f"Bearer {world.eve_token}"}
    messages = 6
    with first.client(headers=headers) as one, second.client(headers=headers) as two:
        mids = [ask(one, A, f"question {i}").json()["message_id"] for i in range(messages)]
        assert two.get(f"/api/patients/{A}/messages/{mids[0]}").status_code == 200  # caches eve there too
        start = threading.Barrier(2)

        def read_all(client):
            start.wait(10)
            return [stream(client, A, mid) for mid in mids]

        with ThreadPoolExecutor(2) as pool:
            results = [f.result(60) for f in [pool.submit(read_all, one), pool.submit(read_all, two)]]
    assert first.agent.runs + second.agent.runs == messages
    script = [s.type for s in quick_answer_script()]
    for reader in results:
        for status, events in reader:
            assert status == 200 and [e[1] for e in events] == script
    for mid in mids:
        assert _stored(world.db, mid) == ("done", [(i, t) for i, t in enumerate(script, start=1)])
    assert len(audit_rows(world.db, action="answer")) == messages


def test_a_closing_write_that_keeps_failing_ends_in_an_error_and_its_audit_row_comes_later(
    serve, world, monkeypatch
):
    """The bookkeeping writer killed for the closing write (events + final status + the answer's
    audit row, one transaction): the reader is not told "done" — the stream ends with a database
    error, the streamed text withdrawn — and once the database takes writes again the message
    is closed with its events and its audit row, none lost."""
    down = threading.Event()
    down.set()
    fail_event_writes(
        monkeypatch,
        lambda kwargs: down.is_set() and kwargs.get("final") is not None,
        error=ConnectionError("the writer's connection was killed"),
    )
    served = serve()
    with served.client(headers={"Authorization": f"Bearer {world.eve_token}"}) as client:
        mid = ask(client, A).json()["message_id"]
        status, events = stream(client, A, mid)
    assert status == 200
    assert events[-1][1] == "error" and events[-1][2]["kind"] == "database"
    assert events[-1][2]["text_withdrawn"] is True
    assert _stored(world.db, mid)[0] == "running" and audit_rows(world.db, action="answer") == []
    down.clear()
    _wait_for(lambda: _stored(world.db, mid)[0] == "error", "the message closed once the writes came back")
    stored = _stored(world.db, mid)[1]
    assert stored == [(e[0], e[1]) for e in events]  # every event the reader saw, in order
    (row,) = audit_rows(world.db, action="answer")
    assert (row.actor, row.outcome) == ("eve", "error") and mid in row.detail
    with patient_transaction(world.db.admin, A) as conn:
        assert conn.execute(text("SELECT count(*) FROM run_claims")).scalar_one() == 0


def test_the_cached_opening_is_one_round_trip_committing_access_audit_and_claim_together(
    serve, world, monkeypatch
):
    """What the first event waits for: ONE query on the opening's pool, from BEGIN to COMMIT,
    after which the "ok" audit row and the claim (with its run_claims row) are committed."""
    import psycopg

    sent: list[str] = []
    real, real_mogrify = psycopg.AsyncClientCursor.execute, psycopg.AsyncClientCursor.mogrify

    async def counted(self, query, *args, **kwargs):
        sent.append(str(query))
        return await real(self, query, *args, **kwargs)

    def counted_mogrify(self, query, *args, **kwargs):  # binds each query `run_script` sends
        sent.append(str(query))
        return real_mogrify(self, query, *args, **kwargs)

    gate = Gate("mid-run")
    served = serve([quick_answer_script()[0], gate, *quick_answer_script()[1:]])
    with served.client() as client:
        csrf = login(client, "carol")
        mid = ask(client, C, csrf=csrf).json()["message_id"]
        monkeypatch.setattr(psycopg.AsyncClientCursor, "execute", counted)
        monkeypatch.setattr(psycopg.AsyncClientCursor, "mogrify", counted_mogrify)
        with ThreadPoolExecutor(1) as pool:
            reading = pool.submit(stream, client, C, mid)
            assert gate.reached.wait(10)  # the first event is out: the run has started
            assert len(sent) == 1 and sent[0].startswith("BEGIN;") and sent[0].endswith("COMMIT")
            assert "EXECUTE chartside_open_" in sent[0]  # statements the pool's connections prepared
            assert _stored(world.db, mid)[0] == "running"
            assert [r.outcome for r in audit_rows(world.db, action="http:GET events")] == ["ok"]
            with world.db.admin.connect() as conn:
                claims = conn.execute(
                    text("SELECT count(*) FROM run_claims WHERE message_id = :m"), {"m": mid}
                )
                assert claims.scalar_one() == 1
            gate.open()
            status, events = reading.result(20)
    assert status == 200 and events[-1][1] == "done"
    assert served.agent.runs == 1


def test_an_opening_whose_prepared_statement_is_gone_falls_back_to_the_guard(serve, world, monkeypatch):
    """A pooled connection that lost its prepared statements (a `DEALLOCATE ALL` or `DISCARD
    ALL` run on it) fails the opening's one query, which then wrote nothing: the guard opens the
    stream instead (one "ok" audit row, one run), and the connection is dropped from the pool,
    whose replacement prepares them again."""
    from server import opening

    real = opening.opening_sql

    def gone(*args, **kwargs):
        return real(*args, **kwargs).replace("EXECUTE chartside_open_message(", "EXECUTE chartside_gone(")

    monkeypatch.setattr(opening, "opening_sql", gone)
    served = serve()
    with served.client(headers={"Authorization": f"Bearer {world.eve_token}"}) as client:
        mid = ask(client, A).json()["message_id"]
        status, events = stream(client, A, mid)
    assert status == 200 and [e[1] for e in events] == [s.type for s in quick_answer_script()]
    assert [r.outcome for r in audit_rows(world.db, action="http:GET events")] == ["ok"]
    assert served.agent.runs == 1 and _stored(world.db, mid)[0] == "done"
    assert served.app.state.services.answer_pool.get_stats().get("returns_bad", 0) >= 1
