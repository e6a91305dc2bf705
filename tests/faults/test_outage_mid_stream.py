"""Issue 18 item 13: the database stops while an answer is streaming.

Before the fix, one reader's stream was cut off without an `error` event (a reader following
the stored events of a run another server process owns: the poll raised inside the SSE
generator), and another reader was shown a full answer followed by "could not be saved" with
nothing telling it that the text above was not an answer.

Now every stream ends with a terminal `done` or `error` event, and an `error` that follows
streamed text says so (`text_withdrawn`): that text was neither checked against the record
nor kept, and the page strikes it out (tests/server/test_browser.py).
"""

from __future__ import annotations

import json
import threading

import httpx

from agent.fake_api import text_message
from server import store
from server.app import create_app
from server.live import LiveServer
from server.scripted_agent import Effect, ScriptedAgent, quick_answer_script
from server.sweeper import RunOwner
from tests import conftest as base
from tests.faults.test_database_faults import LABS, QUESTION, _answer_audit, _database, _script, _wait_for
from tests.faults.test_database_faults import proxy as proxy
from tests.live_agent import ask_and_read, stored_message
from tests.server.conftest import A, ask, login, stream
from tests.server.test_sweeper import _message

ANSWER = "Your latest HbA1c was 6.1 % on 2024-03-01 [L1]."


def test_an_answer_streamed_while_the_database_is_down_is_withdrawn(world, proxy, serve_agent):
    """The model's answer streams while the database is down. Depending on when the writer
    notices, the run stops mid-text or the whole text streams and the closing write fails;
    either way the reader was sent text, is told it is withdrawn, and once the database is back
    the stored stream ends the same way (with what was streamed before it)."""
    proxy.up()
    live = serve_agent(db=_database(world, proxy.url(world.db.app_url), db_pool_timeout_s=2))
    _script(live, LABS, (proxy.down, text_message(ANSWER)))
    answer = ask_and_read(live.client("alice"), A, QUESTION)

    kind, data = answer.terminal
    streamed = "".join(e["delta"] for e in answer.of("text"))
    assert streamed and ANSWER.startswith(streamed)  # text did reach the reader…
    assert (kind, data["kind"]) == ("error", "database") and "not kept" in data["message"]
    assert data["text_withdrawn"] is True  # …and is withdrawn, never presented as the answer
    assert not answer.of("done")

    proxy.up()
    _wait_for(lambda: _answer_audit(world, answer.message_id))
    stored = stored_message(world.db, A, answer.message_id)
    assert (stored.status, stored.answer) == ("error", None)
    _, replayed = stream(live.client("alice"), A, answer.message_id, last_id=0)
    # the events that could not be written while the database was down were kept for the
    # closing write: a reload shows exactly what the reader saw, ending in the same error
    assert replayed == answer.events


def test_a_stream_followed_from_storage_ends_with_an_error_when_the_database_stops(world, proxy, serve_agent):
    """Another server process owns the run; this one follows its stored events. The database
    stops under the poll: the reader gets a terminal error instead of a cut-off stream."""
    other_process = RunOwner.start(world.db)  # alive: the sweeper leaves its run alone
    try:
        message = _message(world)
        assert store.claim(world.db, message, other_process.id) is not None
        store.append_events(
            world.db,
            patient_id=A,
            message_id=message.id,
            events=[
                store.StoredEvent(1, "status", {"type": "status", "text": "Looking up your lab results…"}),
                store.StoredEvent(2, "text", {"type": "text", "delta": "Your latest HbA1c was "}),
            ],
        )
        proxy.up()
        live = serve_agent(
            mode="offline", db=_database(world, proxy.url(world.db.app_url), db_pool_timeout_s=2)
        )
        client = live.client()
        login(client, "alice")
        with client.stream("GET", f"/api/patients/{A}/messages/{message.id}/events") as response:
            assert response.status_code == 200
            events = _read_sse(response, after_two=lambda: threading.Thread(target=proxy.down).start())
        assert [e[1] for e in events] == ["status", "text", "error"]
        data = events[-1][2]
        assert data["kind"] == "database" and data["text_withdrawn"] is True
        assert "reload" in data["message"].lower()
        assert live.runs.running() == 0  # this process never ran it
    finally:
        proxy.up()
        other_process.stop()


def _read_sse(response, after_two) -> list[tuple[int, str, dict]]:
    """(id, event, data) of a whole stream; `after_two()` runs once two events have arrived."""
    events: list[tuple[int, str, dict]] = []
    current: dict[str, str] = {}
    for line in response.iter_lines():
        if line.startswith(":"):
            continue
        if line:
            key, _, value = line.partition(":")
            current[key] = value.removeprefix(" ")
            continue
        if "event" in current:
            events.append((int(current.get("id") or 0), current["event"], json.loads(current["data"])))
            if len(events) == 2:
                after_two()
        current = {}
    return events


def test_a_whole_answer_whose_closing_write_fails_is_withdrawn(world, proxy):
    """The whole answer has streamed when the database stops, just before the closing write
    ("streams a full answer and then says it could not be saved"): the error that replaces
    `done` withdraws the text, so the page strikes it out instead of presenting it."""
    proxy.up()
    db = _database(world, proxy.url(world.db.app_url), db_pool_timeout_s=2)

    def stop_the_database(_request):
        proxy.down()
        return []

    script = quick_answer_script()
    script.insert(len(script) - 1, Effect("database stops", stop_the_database))  # before `done`
    app = create_app(
        base.test_settings(stream_grace_s=0.0), db=db, agent_factory=lambda _resources: ScriptedAgent(script)
    )
    with LiveServer(app) as server, httpx.Client(base_url=server.url, timeout=60) as client:
        csrf = login(client, "alice")
        mid = ask(client, A, csrf=csrf).json()["message_id"]
        status, events = stream(client, A, mid)
        assert status == 200
        assert "".join(e[2]["delta"] for e in events if e[1] == "text") == ANSWER  # all of it…
        _, kind, data = events[-1]
        assert (kind, data["kind"], data["text_withdrawn"]) == ("error", "database", True)  # …withdrawn
        proxy.up()
        _wait_for(lambda: _answer_audit(world, mid))
        assert stored_message(world.db, A, mid).status == "error"
        assert stream(client, A, mid, last_id=0)[1] == events
    db.dispose()
