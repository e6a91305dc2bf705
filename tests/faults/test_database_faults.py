"""The database fails under a question: a clear message, a closed message, an audit row.

* down mid-question (every connection cut, new ones refused, then back): the user is told the
  answer could not be kept; once the database is back the message is closed as an error
  with its audit row — never left "running";
* backends terminated mid-question (a restart): pooled connections are re-checked, so the
  answer still completes;
* a connection killed inside a tool's transaction: the tool reports a failure, the model is
  told not to guess, and the answer says it could not look it up;
* the pool exhausted, and a database that is not there at all: 503 with Retry-After.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator

import pytest
from sqlalchemy import text

from agent.fake_api import MessageReply, text_message, tool_use_message
from records.database import Database
from server import runs
from tests import conftest as base
from tests.faults.pg_proxy import PgProxy
from tests.live_agent import ask_and_read, audit, stored_message
from tests.server.conftest import CSRF_META, PASSWORD, A, stream

QUESTION = "What is my latest HbA1c?"
LABS = tool_use_message([("get_labs", {"query": "A1C", "latest_only": True})])


def _database(world, app_url: str, **settings) -> Database:
    return Database(
        settings=base.test_settings(**settings), admin_url=world.db.admin_url, app_url=app_url, embedded=None
    )


@pytest.fixture()
def proxy(world) -> Iterator[PgProxy]:
    if world.db.embedded is None:
        pytest.skip("the outage proxy fronts the embedded server's Unix socket")
    proxy = PgProxy(world.db.embedded.socket_dir)
    yield proxy
    proxy.close()


def _script(live, *steps) -> None:
    """Replies in order; a step may be a callable run (in the fake's thread) before its reply."""
    queue = list(steps)

    def responder(_request):
        step = queue.pop(0)
        if isinstance(step, tuple):
            action, reply = step
            action()
            step = reply
        return MessageReply(step)

    live.api.responder = responder


def _terminate_app_backends(world) -> int:
    with world.db.admin.connect() as conn:
        killed = conn.execute(
            text(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE datname = current_database() AND usename = :role AND pid <> pg_backend_pid()"
            ),
            {"role": world.db.settings.app_db_role},
        ).scalar_one()
        conn.commit()
    return killed


def _wait_for(condition, seconds: float = 30.0):
    deadline = time.monotonic() + seconds
    while True:
        value = condition()
        if value:
            return value
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.1)


def _answer_audit(world, message_id: str):
    return [r for r in audit(world.db, action="answer") if message_id in (r.detail or "")]


def test_database_down_mid_question_is_explained_and_the_message_closed_when_it_returns(
    world, proxy, serve_agent
):
    proxy.up()
    live = serve_agent(db=_database(world, proxy.url(world.db.app_url), db_pool_timeout_s=2))
    _script(live, (proxy.down, LABS), text_message("I could not look that up right now."))
    client = live.client("alice")
    answer = ask_and_read(client, A, QUESTION)

    kind, data = answer.terminal
    assert (kind, data["kind"]) == ("error", "database")
    assert "database" in data["message"] and "ask again" in data["message"].lower()
    assert "6.1" not in answer.content  # no answer was made up while the record was unreachable
    assert stored_message(world.db, A, answer.message_id).status == "running"  # nothing could be written

    proxy.up()
    closed = _wait_for(lambda: _answer_audit(world, answer.message_id))
    assert [(r.outcome, r.actor, r.target_patient_id) for r in closed] == [("error", "alice", A)]
    stored = stored_message(world.db, A, answer.message_id)
    assert (stored.status, stored.answer) == ("error", None)
    # the stored ending is the one the user saw
    _, replayed = stream(live.client("alice"), A, answer.message_id, last_id=0)
    assert replayed[-1] == answer.events[-1]
    # and the service answers again
    _script(live, LABS, text_message("Your latest HbA1c was 6.1 % on 2024-03-01 [L1]."))
    assert ask_and_read(client, A, QUESTION).terminal[0] == "done"


def test_backends_terminated_mid_question_the_answer_still_completes(world, serve_agent):
    live = serve_agent()
    killed = []
    _script(
        live,
        (lambda: killed.append(_terminate_app_backends(world)), LABS),
        text_message("Your latest HbA1c was 6.1 % on 2024-03-01 [L1]."),
    )
    answer = ask_and_read(live.client("alice"), A, QUESTION)
    assert killed and killed[0] >= 1  # pooled connections really were killed under the run
    kind, data = answer.terminal
    assert kind == "done" and data["grounding"]["grounded"] and "6.1" in data["answer"]
    assert [r.outcome for r in audit(world.db, action="tool:get_labs")] == ["ok"]
    assert [r.outcome for r in _answer_audit(world, answer.message_id)] == ["ok"]


def test_a_connection_killed_inside_a_tool_transaction(world, serve_agent):
    live = serve_agent()
    lock_holder = world.db.admin.connect()
    released = threading.Event()

    def block_labs_then_kill() -> None:
        lock_holder.execute(text("LOCK TABLE observations IN ACCESS EXCLUSIVE MODE"))

        def killer() -> None:
            _wait_for(lambda: _waiting_on_lock(world), 20)
            _terminate_app_backends(world)
            lock_holder.rollback()
            released.set()

        threading.Thread(target=killer, daemon=True).start()

    _script(
        live,
        (block_labs_then_kill, LABS),
        text_message("I could not look up your lab results right now. Please try again later."),
    )
    try:
        answer = ask_and_read(live.client("alice"), A, QUESTION)
    finally:
        released.wait(30)
        lock_holder.close()
    (result,) = answer.of("tool_result")
    assert result["ok"] is False and result["name"] == "get_labs"
    # the model was told the lookup failed and not to guess
    sent = live.api.message_requests[1].body["messages"][-1]["content"][0]
    assert sent["is_error"] is True and "do not guess" in sent["content"]
    kind, data = answer.terminal
    assert kind == "done" and "could not look up" in data["answer"]
    assert [r.outcome for r in audit(world.db, action="tool:get_labs")] == ["internal"]
    assert live.db.app.pool.checkedout() == 0


def _waiting_on_lock(world) -> bool:
    with world.db.admin.connect() as conn:
        return bool(
            conn.execute(
                text(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                    "AND usename = :role AND wait_event_type = 'Lock'"
                ),
                {"role": world.db.settings.app_db_role},
            ).scalar_one()
        )


def test_an_exhausted_pool_gets_a_503_and_recovers(world, serve_agent):
    small = _database(world, world.db.app_url, db_pool_size=1, db_pool_timeout_s=1)
    live = serve_agent(db=small)
    client = live.client("alice")
    held = [small.app.connect() for _ in range(2)]  # pool_size 1 + overflow 1: all of it
    try:
        response = client.post(f"/api/patients/{A}/messages", json={"question": QUESTION})
        assert response.status_code == 503 and response.headers["retry-after"] == "5"
        assert response.json() == {
            "error": "busy",
            "message": "The service is busy right now. Please try again in a few seconds.",
        }
    finally:
        for conn in held:
            conn.close()
    _script(live, LABS, text_message("Your latest HbA1c was 6.1 % on 2024-03-01 [L1]."))
    assert ask_and_read(client, A, QUESTION).terminal[0] == "done"
    small.dispose()


def test_an_exhausted_pool_mid_question_ends_clearly_and_is_closed_later(world, serve_agent):
    """Both pools exhausted, the engine's (tools, and the run's fallback writer) and the answer
    stream's own (its openings and event writes), for longer than the closing write retries
    (each attempt waits for one pool, then the other): the reader gets a database error, and
    the message is closed with its audit row once the pools are free again."""
    timeout_s = 0.25
    pools = {"db_pool_size": 1, "db_pool_timeout_s": timeout_s}
    small = _database(world, world.db.app_url, **pools)
    live = serve_agent(db=small, **pools)
    held: list = []
    exhausted_s = 2 * timeout_s * (len(runs.FINAL_RETRY_S) + 1) + sum(runs.FINAL_RETRY_S) + 1.0

    def exhaust() -> None:
        held.extend(small.app.connect() for _ in range(2))  # size 1, overflow 1
        pool = live.app.state.services.answer_pool  # size 1
        taken = asyncio.run_coroutine_threadsafe(pool.getconn(), live.loop).result(10)

        def release() -> None:
            for conn in held:
                conn.close()
            asyncio.run_coroutine_threadsafe(pool.putconn(taken), live.loop).result(10)

        threading.Timer(exhausted_s, release).start()

    _script(live, (exhaust, LABS), text_message("I could not look that up right now."))
    answer = ask_and_read(live.client("alice"), A, QUESTION)
    kind, data = answer.terminal
    assert (kind, data["kind"]) == ("error", "database") and "ask again" in data["message"].lower()
    rows = _wait_for(lambda: _answer_audit(world, answer.message_id))
    assert [r.outcome for r in rows] == ["error"]
    assert stored_message(world.db, A, answer.message_id).status == "error"
    _wait_for(lambda: small.app.pool.checkedout() == 0, 10)
    small.dispose()


def test_a_database_that_is_not_there_gets_a_clear_503(world, proxy, serve_agent):
    live = serve_agent(db=_database(world, proxy.url(world.db.app_url), db_pool_timeout_s=2))  # never up
    health = live.client().get("/healthz")
    assert health.status_code == 503 and health.json()["database"] == "unreachable"
    api = live.client().post(
        f"/api/patients/{A}/messages",
        json={"question": QUESTION},
        headers={"Authorization": f"Bearer {world.eve_token}"},
    )
    assert api.status_code == 503 and api.json()["error"] == "unavailable"
    assert "database is unavailable" in api.json()["message"]
    browser = live.client(headers={"accept": "text/html"})
    csrf = CSRF_META.search(browser.get("/login").text).group(1)
    page = browser.post("/login", data={"username": "alice", "password": PASSWORD, "csrf_token": csrf})
    assert page.status_code == 503 and "database is unavailable" in page.text
    proxy.up()
    assert live.client().get("/healthz").status_code == 200
