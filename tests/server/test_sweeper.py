"""Issue 18 item 3: answers a crashed server process left `running` are closed.

Before: after a crash mid-answer the message stayed `running`; after a restart its stream only
pinged until the run timeout, and each reload held one of the account's stream slots.
"""

from __future__ import annotations

from sqlalchemy import text

from records.database import patient_transaction
from server import store
from server.sweeper import RunOwner, owner_is_alive, sweep
from tests.server.conftest import A, audit_rows, login, stream


def _message(world, question: str = "What is my HbA1c?") -> store.StoredMessage:
    from records.accounts import load_account

    alice = next(a for a in _accounts(world) if a.username == "alice")
    account = load_account(world.db.app, alice.id)
    return store.create_message(
        world.db,
        patient_id=A,
        account_id=account.id,
        role="patient",
        question=question,
        conversation_id=None,
        scope=None,
        pinned_now=None,
    )


def _accounts(world):
    from records.accounts import list_accounts

    return list_accounts(world.db.admin)


def _status(world, message_id: str) -> str:
    with patient_transaction(world.db.admin, A) as conn:
        return conn.execute(text("SELECT status FROM messages WHERE id = :m"), {"m": message_id}).scalar_one()


def _claims(world) -> list[str]:
    with world.db.admin.connect() as conn:
        return list(conn.execute(text("SELECT message_id FROM run_claims ORDER BY 1")).scalars())


def test_only_the_claims_of_a_dead_process_are_closed(world):
    live = RunOwner.start(world.db)
    try:
        orphan, running = _message(world, "one"), _message(world, "two")
        assert store.claim(world.db, orphan, "run-owner-that-crashed") is not None
        assert store.claim(world.db, running, live.id) is not None
        assert owner_is_alive(world.db, live.id) and not owner_is_alive(world.db, "run-owner-that-crashed")
        assert sweep(world.db) == 1
        assert _status(world, orphan.id) == "error" and _status(world, running.id) == "running"
        assert _claims(world) == [running.id]
        events, status = store.stored_events(world.db, patient_id=A, message_id=orphan.id, after_seq=0)
        assert status == "error" and [e.type for e in events] == ["error"]
        assert "restarted" in events[0].payload["message"]
        assert [r.outcome for r in audit_rows(world.db, actor="sweeper")] == ["error"]
        assert sweep(world.db) == 0  # idempotent
    finally:
        live.stop()
    assert not owner_is_alive(world.db, live.id)  # the lock goes with its connection


def test_after_a_restart_the_stream_of_a_crashed_answer_ends_with_an_error(serve, world):
    crashed = _message(world)
    assert store.claim(world.db, crashed, "run-owner-of-the-process-before-the-restart") is not None
    served = serve(run_timeout_s=3600, stream_ping_s=1)  # without the sweep: pings for an hour
    with served.client() as client:
        login(client, "alice")
        status, events = stream(client, A, crashed.id)
    assert status == 200 and [e[1] for e in events] == ["error"]
    assert _status(world, crashed.id) == "error" and _claims(world) == []


def test_a_finished_answer_leaves_no_claim(serve, world):
    from tests.server.conftest import ask

    served = serve()
    with served.client() as client:
        csrf = login(client, "alice")
        mid = ask(client, A, csrf=csrf).json()["message_id"]
        _, events = stream(client, A, mid)
    assert events[-1][1] == "done" and _claims(world) == []
