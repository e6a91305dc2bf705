"""Issue 18 item 14: the answer's event writer survives its connection being killed."""

from __future__ import annotations

import pytest
from sqlalchemy.exc import OperationalError

from server import store
from tests.server.conftest import A, ask, login, stream
from tests.server.test_streaming import _stored


def test_a_killed_writer_connection_does_not_lose_the_answer(serve, world, monkeypatch):
    real = store.append_events
    failures: list[int] = []

    def killed_once(*args, **kwargs):
        if not failures:  # the first batch meets a connection the server terminated
            failures.append(1)
            raise OperationalError(
                "INSERT INTO message_events …",
                {},
                Exception("terminating connection"),
                connection_invalidated=True,
            )
        return real(*args, **kwargs)

    monkeypatch.setattr(store, "append_events", killed_once)
    served = serve()
    with served.client() as client:
        csrf = login(client, "alice")
        mid = ask(client, A, csrf=csrf).json()["message_id"]
        status, events = stream(client, A, mid)
        stored = client.get(f"/api/patients/{A}/messages/{mid}").json()
    assert failures == [1] and status == 200
    assert events[-1][1] == "done", events[-1]
    assert stored["status"] == "done"
    status_in_db, rows = _stored(world.db, mid)  # every event kept, none lost with the failed batch
    assert status_in_db == "done" and rows == [(e[0], e[1]) for e in events]


def test_a_batch_whose_commit_reply_was_lost_is_resumed_not_failed(serve, world, monkeypatch):
    """The connection dies after COMMIT but before its reply: the batch is stored, the writer
    cannot know and writes it again. The duplicates are its own (the message is still running),
    so the write resumes after them instead of failing the answer."""
    real = store.append_events
    lost: list[int] = []

    def committed_then_killed(*args, **kwargs):
        real(*args, **kwargs)
        if not lost:
            lost.append(1)
            raise OperationalError(
                "COMMIT", {}, Exception("server closed the connection"), connection_invalidated=True
            )

    monkeypatch.setattr(store, "append_events", committed_then_killed)
    served = serve()
    with served.client() as client:
        csrf = login(client, "alice")
        mid = ask(client, A, csrf=csrf).json()["message_id"]
        status, events = stream(client, A, mid)
    assert lost == [1] and status == 200 and events[-1][1] == "done", events[-1]
    status_in_db, rows = _stored(world.db, mid)
    assert status_in_db == "done" and rows == [(e[0], e[1]) for e in events]


def test_events_of_a_message_closed_by_someone_else_are_refused(world):
    """The sweeper closed the message (its owner looked dead): a late write of its run must not
    slip in under the sweeper's ending, and retrying it could never succeed."""
    from server.sweeper import close_orphan
    from tests.server.test_sweeper import _message

    message = _message(world)
    assert store.claim(world.db, message, "run-owner-presumed-dead") is not None
    assert close_orphan(world.db, patient_id=A, message_id=message.id, owner="run-owner-presumed-dead")
    late = [store.StoredEvent(1, "text", {"type": "text", "delta": "late"})]
    with pytest.raises(store.ClosedElsewhere):
        store.append_events_resuming(
            world.db, patient_id=A, message_id=message.id, events=late, final=("done", "late", {})
        )
    events, status = store.stored_events(world.db, patient_id=A, message_id=message.id, after_seq=0)
    assert status == "error" and [e.type for e in events] == ["error"]
