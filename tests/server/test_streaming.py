"""Answers stream as SSE, are generated once, persist as they go, and replay on reconnect."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

from sqlalchemy import text

from agent.events import DoneEvent, StatusEvent, TextEvent, ToolCallEvent, ToolResultEvent
from records.database import patient_transaction
from server.scripted_agent import Effect, Gate, quick_answer_script
from tests.server.conftest import A, ask, login, stream


def _bearer(world) -> dict[str, str]:
    return {"Authorization": f"Bearer {world.eve_token}"}


def _stored(db, message_id: str) -> tuple[str, list[tuple[int, str]]]:
    with patient_transaction(db.admin, A) as conn:
        status = conn.execute(
            text("SELECT status FROM messages WHERE id = :m"), {"m": message_id}
        ).scalar_one()
        events = conn.execute(
            text("SELECT seq, type FROM message_events WHERE message_id = :m ORDER BY seq"), {"m": message_id}
        ).all()
    return status, [tuple(e) for e in events]


def _wait_for(predicate, what: str, limit_s: float = 20.0) -> None:
    """Wait for a condition the server reaches asynchronously (bounded; not a timing assertion)."""
    deadline = time.monotonic() + limit_s
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"never happened: {what}")
        time.sleep(0.02)


def test_events_arrive_in_order_and_end_with_done(serve, world):
    served = serve()
    with served.client() as client:
        csrf = login(client, "alice")
        posted = ask(client, A, csrf=csrf)
        assert posted.status_code == 201
        mid = posted.json()["message_id"]
        status, events = stream(client, A, mid)
    assert status == 200
    script = quick_answer_script()
    assert [e[1] for e in events] == [s.type for s in script]
    assert [e[0] for e in events] == list(range(1, len(script) + 1))
    assert events[-1][1] == "done" and events[-1][2]["answer"].endswith("[L1].")
    stored_status, stored = _stored(world.db, mid)
    assert stored_status == "done"
    assert stored == [(e[0], e[1]) for e in events]
    with served.client() as client:
        login(client, "alice")
        message = client.get(f"/api/patients/{A}/messages/{mid}").json()
    assert message["status"] == "done" and message["answer"] == events[-1][2]["answer"]


def test_an_agent_failure_ends_in_a_generic_error_event(serve, world):
    def explode(_request):
        raise RuntimeError("SELECT * FROM patients WHERE patient_id = 'pat-b'")

    served = serve([StatusEvent(text="Looking…"), Effect("boom", explode)])
    with served.client(headers=_bearer(world)) as client:
        mid = ask(client, A).json()["message_id"]
        _, events = stream(client, A, mid)
    assert [e[1] for e in events] == ["status", "error"]
    assert events[-1][2]["kind"] == "internal"
    assert "SELECT" not in events[-1][2]["message"] and "pat-b" not in events[-1][2]["message"]
    assert _stored(world.db, mid)[0] == "error"


def test_reconnect_with_last_event_id_replays_without_rerunning_tools(serve, world):
    gate = Gate("after-booking")
    booked: list[str] = []

    def book(request):
        booked.append(request.scope.message_id)
        return [
            ToolCallEvent(id="t1", name="book_appointment", input={"slot_id": "slot-1"}),
            ToolResultEvent(id="t1", name="book_appointment", ok=True, summary="booked", handles=["B1"]),
        ]

    script = [
        StatusEvent(text="Booking…"),
        Effect("book_appointment", book),
        gate,
        TextEvent(delta="Booked [B1]."),
        DoneEvent(answer="Booked [B1].", mode="offline"),
    ]
    served = serve(script, stream_grace_s=30.0)
    with served.client(headers=_bearer(world)) as client:
        mid = ask(client, A, "Book slot slot-1").json()["message_id"]
        # first connection: read up to the booking result, then drop the connection mid-run
        _, first = stream(client, A, mid, stop_after=3)
        assert [e[1] for e in first] == ["status", "tool_call", "tool_result"]
        assert gate.reached.wait(10)
        # reconnect from event 2: event 3 is replayed, then the live run continues
        replay: dict[str, list] = {}

        def reconnect():
            replay["events"] = stream(client, A, mid, last_id=2)[1]

        reader = threading.Thread(target=reconnect)
        reader.start()
        _wait_for(
            lambda: served.runs._runs and next(iter(served.runs._runs.values())).readers == 1, "reconnected"
        )
        gate.open()
        reader.join(20)
        assert [e[0] for e in replay["events"]] == [3, 4, 5]
        assert [e[1] for e in replay["events"]] == ["tool_result", "text", "done"]
        # after the end: a full replay from storage, and nothing new from the last id
        _, full = stream(client, A, mid, last_id=0)
        status_after_last, _ = stream(client, A, mid, last_id=5)
    assert [e[0] for e in full] == [1, 2, 3, 4, 5]
    assert first == full[:3] and replay["events"] == full[2:]
    assert status_after_last == 204
    assert served.agent.runs == 1
    assert served.agent.effects["book_appointment"] == 1 and booked == [mid]


def test_concurrent_readers_of_a_new_message_share_one_run(serve, world):
    gate = Gate("hold")
    served = serve(
        [StatusEvent(text="one"), gate, TextEvent(delta="x"), DoneEvent(answer="x", mode="offline")],
        stream_grace_s=30.0,
    )
    with served.client(headers=_bearer(world)) as client:
        mid = ask(client, A).json()["message_id"]
    results = []

    def read():
        with served.client(headers=_bearer(world)) as c:
            results.append(stream(c, A, mid)[1])

    with ThreadPoolExecutor(3) as pool:
        futures = [pool.submit(read) for _ in range(3)]
        assert gate.reached.wait(10)
        _wait_for(
            lambda: served.runs._runs and next(iter(served.runs._runs.values())).readers == 3, "three readers"
        )
        gate.open()
        for f in futures:
            f.result(30)
    assert served.agent.runs == 1
    assert results[0] == results[1] == results[2]
    assert [e[1] for e in results[0]] == ["status", "text", "done"]


def test_a_booking_conversation_replayed_books_once(serve, world):
    """Booking writes a real appointment row; replays (any number) never write a second one."""

    def book(request):
        with patient_transaction(world.db.app, request.scope.patient_id) as conn:
            conn.execute(
                text(
                    "INSERT INTO appointments (patient_id, id, slot_id, status, idempotency_key, conversation_id) "
                    "VALUES (:p, :i, 'slot-1', 'booked', :k, :c)"
                ),
                {
                    "p": request.scope.patient_id,
                    "i": f"appt-{request.scope.message_id}",
                    "k": request.scope.message_id,
                    "c": request.scope.conversation_id,
                },
            )
        return [ToolResultEvent(id="t1", name="book_appointment", ok=True, summary="booked", handles=["B1"])]

    served = serve([Effect("book_appointment", book), DoneEvent(answer="Booked [B1].", mode="offline")])
    with served.client(headers=_bearer(world)) as client:
        mid = ask(client, A, "Yes, please book slot slot-1.").json()["message_id"]
        streams = [stream(client, A, mid, last_id=i)[1] for i in (None, 0, 1, 0)]
    assert [e[1] for e in streams[0]] == ["tool_result", "done"]
    assert streams[1] == streams[0] and streams[3] == streams[0] and streams[2] == streams[0][1:]
    assert served.agent.effects["book_appointment"] == 1
    with patient_transaction(world.db.admin, A) as conn:
        assert conn.execute(text("SELECT count(*) FROM appointments")).scalar_one() == 1


def test_a_client_that_goes_away_cancels_the_run_and_closes_the_message(serve, world):
    gate = Gate("never", timeout_s=60)
    served = serve(
        [StatusEvent(text="Looking…"), gate, DoneEvent(answer="late", mode="offline")], stream_grace_s=0.0
    )
    with served.client(headers=_bearer(world)) as client:
        mid = ask(client, A).json()["message_id"]
        _, first = stream(client, A, mid, stop_after=1)
    assert [e[1] for e in first] == ["status"]
    _wait_for(lambda: _stored(world.db, mid)[0] != "running", "message closed")
    status, events = _stored(world.db, mid)
    assert status == "cancelled"
    assert events == [(1, "status"), (2, "error")]
    assert served.agent.closed_early == 1 and served.agent.runs == 1
    with served.client(headers=_bearer(world)) as client:
        _, replay = stream(client, A, mid)
    assert replay[-1][1] == "error" and replay[-1][2]["kind"] == "cancelled"
    assert served.agent.runs == 1


def test_a_run_past_its_deadline_is_stopped_with_a_timeout(serve, world):
    served = serve(
        [StatusEvent(text="Looking…"), Gate("never", timeout_s=60), DoneEvent(answer="late", mode="offline")],
        run_timeout_s=0.5,
    )
    with served.client(headers=_bearer(world)) as client:
        mid = ask(client, A).json()["message_id"]
        _, events = stream(client, A, mid)
    assert [e[1] for e in events] == ["status", "error"] and events[-1][2]["kind"] == "timeout"
    assert _stored(world.db, mid)[0] == "error"


def test_follow_up_questions_carry_the_conversation(serve, world):
    served = serve()
    with served.client(headers=_bearer(world)) as client:
        first = ask(client, A, "What is my HbA1c?").json()
        stream(client, A, first["message_id"])
        second = ask(client, A, "And last year?", conversation_id=first["conversation_id"]).json()
        stream(client, A, second["message_id"])
    assert second["conversation_id"] == first["conversation_id"]
    later = served.agent.requests[1]
    assert [t.question for t in later.history] == ["What is my HbA1c?"]
    assert later.history[0].answer.endswith("[L1].")
    assert later.scope.patient_id == A and later.scope.message_id == second["message_id"]
    assert later.scope.role == "evaluator" and later.scope.actor == "eve"


def test_evaluators_may_pin_now_and_it_reaches_the_agent(serve, world):
    served = serve()
    with served.client(headers=_bearer(world)) as client:
        mid = ask(client, A, now="2024-06-01T12:00:00+00:00").json()["message_id"]
        stream(client, A, mid)
    assert served.agent.requests[0].now.isoformat() == "2024-06-01T12:00:00+00:00"


def test_the_first_event_waits_for_one_round_trip_and_no_worker_thread(serve, world, monkeypatch):
    """On the way to an answer's first event, for an account the guard has already seen (its
    POST), the server sends ONE query on the event loop's pool (server/opening.py: the
    revocation check, message, audit row, claim and history, then COMMIT) and uses no
    connection of the engine (no worker-thread hop); the event writes and the closing write come
    after it. Counted while the run is held before its first event, for a token and a session."""
    import psycopg
    from sqlalchemy import event

    gate = Gate("before-first-event")
    served = serve([gate, StatusEvent(text="Looking…"), DoneEvent(answer="ok", mode="offline")])
    counts = {"checkout": 0, "commit": 0, "queries": 0}
    real_execute = psycopg.AsyncCursor.execute
    real_mogrify = psycopg.AsyncClientCursor.mogrify  # binds each query `run_script` sends

    async def counted_execute(self, *args, **kwargs):
        counts["queries"] += 1
        return await real_execute(self, *args, **kwargs)

    def counted_mogrify(self, *args, **kwargs):
        counts["queries"] += 1
        return real_mogrify(self, *args, **kwargs)

    def checkout(*_args):
        counts["checkout"] += 1

    def commit(*_args):
        counts["commit"] += 1

    monkeypatch.setattr(psycopg.AsyncCursor, "execute", counted_execute)
    monkeypatch.setattr(psycopg.AsyncClientCursor, "mogrify", counted_mogrify)
    for headers, login_as in ((_bearer(world), None), ({}, "alice")):
        gate.opened.clear()
        gate.reached.clear()
        with served.client(headers=headers) as client:
            csrf = login(client, login_as) if login_as else None
            mid = ask(client, A, csrf=csrf).json()["message_id"]
            event.listen(world.db.app, "checkout", checkout)
            event.listen(world.db.app, "commit", commit)
            try:
                counts.update(checkout=0, commit=0, queries=0)
                with ThreadPoolExecutor(1) as pool:
                    reading = pool.submit(stream, client, A, mid)
                    assert gate.reached.wait(10)
                    seen = dict(counts)
                    gate.open()
                    status, events = reading.result(20)
            finally:
                event.remove(world.db.app, "checkout", checkout)
                event.remove(world.db.app, "commit", commit)
        assert seen == {"checkout": 0, "commit": 0, "queries": 1}, login_as or "token"
        assert status == 200 and [e[1] for e in events] == ["status", "done"]
        assert _stored(world.db, mid)[0] == "done"


def test_a_stream_stops_holding_back_closing_writes_once_its_first_event_is_out(serve, world):
    """`FirstEvents` counts the answer streams still waiting for their first event (closing
    writes wait for them): a stream leaves the count when its first event has been sent, while
    its run goes on, and the count is back to zero when streams end (it leaked one per stream,
    so every closing write waited its full `CLOSE_DEFER_S`)."""
    gate = Gate("after-the-first-event")
    served = serve([StatusEvent(text="Looking…"), gate, DoneEvent(answer="ok", mode="offline")])
    waiting = served.runs.first_events
    with served.client(headers=_bearer(world)) as client:
        mid = ask(client, A).json()["message_id"]
        with ThreadPoolExecutor(1) as pool:
            reading = pool.submit(stream, client, A, mid)
            assert gate.reached.wait(10)
            _wait_for(lambda: waiting.waiting == 0, "the stream counted as past its first event")
            gate.open()
            status, events = reading.result(20)
        assert status == 200 and [e[1] for e in events] == ["status", "done"]
        for _ in range(3):
            stream(client, A, ask(client, A).json()["message_id"])
    assert waiting.waiting == 0


def test_events_published_before_the_reader_looks_go_out_as_one_batch():
    """A reader takes every event its run has published since it last looked, in one batch
    (`_sse` writes a batch as one body chunk), and a batch ends at the terminal event."""
    import asyncio
    import datetime as dt

    from server.runs import Run, RunManager
    from server.store import StoredEvent, StoredMessage
    from tests.conftest import test_settings

    message = StoredMessage(
        id="m1", patient_id=A, conversation_id="c1", account_id=1, question="q", scope=None,
        status="running", answer=None, metrics=None, pinned_now=None,
        created_at=dt.datetime.now(dt.UTC), last_seq=0,
    )  # fmt: skip

    def event(seq: int, kind: str) -> StoredEvent:
        return StoredEvent(seq, kind, {"type": kind})

    async def read() -> list[list[tuple[int, str]]]:
        runs = RunManager(db=None, settings=test_settings(), agent=None)  # type: ignore[arg-type]
        run = Run(message=message, events=[event(1, "status"), event(2, "text"), event(3, "text")])
        batches = []
        reader = runs.events(message, actor="eve", role="evaluator", after_seq=1, live=run)
        batches.append([(e.seq, e.type) for e in await anext(reader)])
        run.events += [event(4, "citation"), event(5, "done"), event(6, "text")]
        run.finished = True
        run.notify()
        batches += [[(e.seq, e.type) for e in batch] async for batch in reader]
        return batches

    assert asyncio.run(read()) == [[(2, "text"), (3, "text")], [(4, "citation"), (5, "done")]]


def test_events_are_stored_while_the_run_waits_not_only_at_its_end(serve, world):
    """A batch is written `WRITE_LINGER_S` after its first event while the run goes on (a
    reader in another process sees it), and a later batch after that; the closing write
    takes the rest with the final status."""
    first_pause, second_pause = Gate("first"), Gate("second")
    served = serve(
        [
            StatusEvent(text="Looking…"),
            TextEvent(delta="One."),
            first_pause,
            TextEvent(delta=" Two."),
            second_pause,
            DoneEvent(answer="One. Two.", mode="offline"),
        ]
    )
    with served.client(headers=_bearer(world)) as client:
        mid = ask(client, A).json()["message_id"]
        with ThreadPoolExecutor(1) as pool:
            reading = pool.submit(stream, client, A, mid)
            assert first_pause.reached.wait(10)
            _wait_for(lambda: _stored(world.db, mid) == ("running", [(1, "status"), (2, "text")]), "batch 1")
            first_pause.open()
            assert second_pause.reached.wait(10)
            _wait_for(lambda: _stored(world.db, mid)[1][-1] == (3, "text"), "batch 2")
            second_pause.open()
            status, events = reading.result(20)
    assert status == 200 and [e[1] for e in events] == ["status", "text", "text", "done"]
    assert _stored(world.db, mid) == ("done", [(1, "status"), (2, "text"), (3, "text"), (4, "done")])


def test_a_run_goes_on_after_its_first_event_once_other_answers_have_sent_theirs(monkeypatch):
    """After its first event a run waits while other answers of the process have not sent
    their first event (`FirstEvents`), up to `CLOSE_DEFER_S`: their openings go before its
    later work (here a zero-latency agent; with a real one, its tool calls)."""
    import asyncio
    import datetime as dt

    from server import runs as runs_module
    from server.runs import RunManager
    from server.scripted_agent import ScriptedAgent
    from server.store import StoredMessage
    from tests.conftest import test_settings

    message = StoredMessage(
        id="m1", patient_id=A, conversation_id="c1", account_id=1, question="q", scope=None,
        status="running", answer=None, metrics=None, pinned_now=None,
        created_at=dt.datetime.now(dt.UTC), last_seq=0,
    )  # fmt: skip
    written: list[list[str]] = []

    async def write(_fn, _db, **kwargs):  # the event writes, recorded instead of stored
        written.append([e.type for e in kwargs["events"]])

    async def scenario(release: bool) -> list[str]:
        agent = ScriptedAgent(
            [StatusEvent(text="Looking…"), TextEvent(delta="Hi."), DoneEvent(answer="Hi.", mode="offline")]
        )
        manager = RunManager(db=None, settings=test_settings(), agent=agent, run_in_thread=write)  # type: ignore[arg-type]
        other = manager.first_events.begin()  # another answer, still waiting for its first event
        run = manager.adopt(message, [], actor="eve", role="evaluator")
        for _ in range(50):
            await asyncio.sleep(0)
        seen = [e.type for e in run.events]
        if release:
            other()
        await asyncio.wait_for(run.task, 10)
        return seen + ["|"] + [e.type for e in run.events]

    monkeypatch.setattr(runs_module, "CLOSE_DEFER_S", 30.0)
    assert asyncio.run(scenario(release=True)) == ["status", "|", "status", "text", "done"]
    monkeypatch.setattr(runs_module, "CLOSE_DEFER_S", 0.05)  # never released: it waits no longer
    assert asyncio.run(scenario(release=False))[-3:] == ["status", "text", "done"]
    assert [kind for batch in written for kind in batch] == ["status", "text", "done"] * 2  # all stored
