"""Issue 18 item 14: the answer's event writer survives its connection being killed."""

from __future__ import annotations

import pytest

from server import store
from tests.server.conftest import A, ask, fail_event_writes, login, once, stream
from tests.server.test_streaming import _stored


def test_a_killed_writer_connection_does_not_lose_the_answer(serve, world, monkeypatch):
    failures: list[int] = []

    fail_event_writes(monkeypatch, once(failures))  # the first batch meets a killed connection
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
    lost: list[int] = []

    fail_event_writes(monkeypatch, once(lost), after_commit=True)
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


def test_a_closing_write_on_connections_the_server_killed_still_closes_the_answer(serve, world, caplog):
    """Not simulated: every connection of the application role is terminated by the server
    while the run is held, so the closing write's one round trip meets a dead pooled
    connection; the run writes the same transaction through the writer thread instead, and the
    answer, its events and its audit row are all there."""
    from concurrent.futures import ThreadPoolExecutor

    from sqlalchemy import text

    from server.scripted_agent import Gate, quick_answer_script
    from tests.server.conftest import audit_rows

    gate = Gate("mid-run")
    served = serve([quick_answer_script()[0], gate, *quick_answer_script()[1:]])
    with served.client(headers={"Authorization": f"Bearer {world.eve_token}"}) as client:
        mid = ask(client, A).json()["message_id"]
        with ThreadPoolExecutor(1) as pool:
            reading = pool.submit(stream, client, A, mid)
            assert gate.reached.wait(10)
            with world.db.admin.connect() as conn:
                killed = conn.execute(
                    text(
                        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = "
                        "current_database() AND usename <> current_user AND pid <> pg_backend_pid()"
                    )
                ).scalar_one()
            assert killed >= 1
            caplog.set_level("INFO", logger="server.runs")
            gate.open()
            status, events = reading.result(30)
    assert status == 200 and events[-1][1] == "done", events[-1]
    status_in_db, rows = _stored(world.db, mid)
    assert status_in_db == "done" and rows == [(e[0], e[1]) for e in events]
    assert [r.outcome for r in audit_rows(world.db, action="answer")] == ["ok"]
    assert any("goes to the writer thread" in r.getMessage() for r in caplog.records)
