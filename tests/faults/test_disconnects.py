"""The user closes the page while a tool is running — a read, or a booking.

The tool's transaction is made to wait on a lock the test holds, the client hangs up, and
only then is the lock released. Expected: the run is cancelled (the model is not asked
again), the tool's transaction finishes whole (the booking is made exactly once, with its
audit row, and the slot agrees), the message is closed as cancelled with an answer audit row
that says so honestly, and no database connection is left checked out.
"""

from __future__ import annotations

import json
import time

from sqlalchemy import text

from agent.fake_api import MessageReply, text_message, tool_use_message
from records.database import patient_transaction
from tests.live_agent import audit, stored_message
from tests.server.conftest import A, ask, stream


def _script(live, *steps) -> None:
    queue = list(steps)

    def responder(_request):
        step = queue.pop(0)
        if isinstance(step, tuple):
            action, step = step
            action()
        return MessageReply(step)

    live.api.responder = responder


def _read_until_tool_call(client, message_id: str, tool: str) -> list[str]:
    """Read the answer stream until `tool` is called, then hang up (close the connection)."""
    seen = []
    with client.stream("GET", f"/api/patients/{A}/messages/{message_id}/events") as response:
        event = None
        for line in response.iter_lines():
            if line.startswith("event:"):
                event = line.partition(":")[2].strip()
                seen.append(event)
            elif (
                line.startswith("data:")
                and event == "tool_call"
                and json.loads(line.partition(":")[2])["name"] == tool
            ):
                break
    client.close()
    return seen


def _wait_for(condition, seconds: float = 20.0):
    deadline = time.monotonic() + seconds
    while not (value := condition()):
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.05)
    return value


def _cancel_requested(live) -> bool:
    runs = list(live.runs._runs.values())
    return bool(runs) and runs[0].task is not None and runs[0].task.cancelling() > 0


def _closed(world, message_id: str):
    return stored_message(world.db, A, message_id).status != "running"


def test_closing_the_page_during_a_read_tool_call(world, serve_agent):
    live = serve_agent(stream_grace_s=0.0)
    lock = world.db.admin.connect()
    _script(
        live,
        (
            lambda: lock.execute(text("LOCK TABLE observations IN ACCESS EXCLUSIVE MODE")),
            tool_use_message([("get_labs", {"query": "A1C", "latest_only": True})]),
        ),
        text_message("Your latest HbA1c was 6.1 % on 2024-03-01 [L1]."),
    )
    client = live.client("alice")
    message_id = ask(client, A, "What is my latest HbA1c?", csrf=client.headers["X-CSRF-Token"]).json()[
        "message_id"
    ]
    seen = _read_until_tool_call(client, message_id, "get_labs")
    assert seen[-1] == "tool_call"
    _wait_for(lambda: _cancel_requested(live))  # the server noticed; the tool is still blocked
    lock.rollback()
    lock.close()
    _wait_for(lambda: _closed(world, message_id))

    stored = stored_message(world.db, A, message_id)
    assert (stored.status, stored.answer) == ("cancelled", None)
    assert len(live.api.message_requests) == 1  # the model was not asked again
    assert [r.outcome for r in audit(world.db, action="tool:get_labs")] == ["ok"]  # the read finished whole
    (row,) = [r for r in audit(world.db, action="answer") if message_id in r.detail]
    assert row.outcome == "cancelled" and "page was closed" in row.detail
    _wait_for(lambda: live.db.app.pool.checkedout() == 0)


def test_closing_the_page_during_a_booking_books_exactly_once(world, serve_agent):
    live = serve_agent(stream_grace_s=0.0)
    lock = world.db.admin.connect()

    def hold_the_slot() -> None:
        lock.execute(text("SELECT id FROM appointment_slots WHERE id = 'slot-1' FOR UPDATE"))

    _script(
        live,
        tool_use_message([("find_slots", {"specialty_or_department": "diabetes"})]),
        (hold_the_slot, tool_use_message([("book_appointment", {"slot_id": "slot-1"})])),
        text_message("Your appointment is booked [B1]."),
    )
    client = live.client("alice")
    message_id = ask(
        client, A, "Please book me an appointment at the diabetes clinic", csrf=client.headers["X-CSRF-Token"]
    ).json()["message_id"]
    _read_until_tool_call(client, message_id, "book_appointment")
    _wait_for(lambda: _cancel_requested(live))
    lock.rollback()  # the booking transaction may now take the slot
    lock.close()
    _wait_for(lambda: _closed(world, message_id))

    with patient_transaction(world.db.admin, A) as conn:
        appointments = conn.execute(text("SELECT id, slot_id, status FROM appointments")).all()
        slot_holder = conn.execute(
            text("SELECT booked_appointment_id FROM appointment_slots WHERE id = 'slot-1'")
        ).scalar_one()
    assert [(a.slot_id, a.status) for a in appointments] == [("slot-1", "booked")]  # once, whole
    assert slot_holder == appointments[0].id  # the slot and the appointment agree
    assert [r.outcome for r in audit(world.db, action="tool:book_appointment")] == ["ok"]
    assert len(live.api.message_requests) == 2  # never asked to go on after the cancel

    stored = stored_message(world.db, A, message_id)
    assert stored.status == "cancelled"
    (row,) = [r for r in audit(world.db, action="answer") if message_id in r.detail]
    assert row.outcome == "cancelled" and "book appointment was in progress" in row.detail
    # coming back: the stored answer says what happened and that nothing is half-done
    status, events = stream(live.client("alice"), A, message_id)
    assert status == 200 and events[-1][1] == "error" and "never half-done" in events[-1][2]["message"]
    _wait_for(lambda: live.db.app.pool.checkedout() == 0)
