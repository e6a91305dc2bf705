"""The chat page in headless Chromium with a SCRIPTED agent, for what the real product cannot
be made to do on demand: record text that is hostile markup, and an agent whose runs and side
effects are counted (so a reload is proven to replay rather than re-run). The product's own
journeys — a demo patient asking, booking, opening citations; a clinician switching patients —
run against the real agent in test_e2e_browser.py.
"""

from __future__ import annotations

import pytest
from sqlalchemy import text

from agent.events import (
    CitationEvent,
    DoneEvent,
    ErrorEvent,
    StatusEvent,
    TextEvent,
    ToolCallEvent,
    ToolResultEvent,
)
from records.database import patient_transaction
from server.scripted_agent import Effect
from tests.server.browser_support import ARTIFACTS, ask, log_in, watch
from tests.server.conftest import PASSWORD, A

pytestmark = pytest.mark.browser

HOSTILE_CONDITION = "<script>alert('x')</script> (disorder)"  # seeded for patient A (conftest)


def _script(db):
    """A stand-in for the agent with the shapes the real one emits (lab answer, passages, slots, booking)."""

    def book(request):
        with patient_transaction(db.app, request.scope.patient_id) as conn:
            conn.execute(
                text(
                    "INSERT INTO appointments (patient_id, id, slot_id, status, idempotency_key, conversation_id) "
                    "VALUES (:p, 'appt-1', 'slot-1', 'booked', :k, :c)"
                ),
                {
                    "p": request.scope.patient_id,
                    "k": request.scope.message_id,
                    "c": request.scope.conversation_id,
                },
            )
        row = {
            "handle": "B1",
            "appointment_id": "appt-1",
            "department": "Diabetes clinic",
            "starts_at": "2030-01-07T09:00:00+00:00",
            "ends_at": "2030-01-07T09:30:00+00:00",
        }
        return [
            ToolCallEvent(id="t2", name="book_appointment", input={"slot_id": "slot-1"}),
            ToolResultEvent(
                id="t2", name="book_appointment", ok=True, summary="booked", handles=["B1"], rows=[row]
            ),
        ]

    def script(request):
        q = request.question.lower()
        if q.startswith("book s1") and "(slot_id slot-1)" in q:
            return [
                StatusEvent(text="Booking your appointment…"),
                Effect("book_appointment", book),
                TextEvent(delta="Your appointment at the Diabetes clinic is booked [B1]."),
                CitationEvent(handle="B1", kind="appointment", record_id="appt-1", label="Diabetes clinic"),
                DoneEvent(answer="Your appointment at the Diabetes clinic is booked [B1].", mode="offline"),
            ]
        if "book" in q:
            slot = {
                "handle": "S1",
                "slot_id": "slot-1",
                "department": "Diabetes clinic",
                "starts_at": "2030-01-07T09:00:00+00:00",
                "ends_at": "2030-01-07T09:30:00+00:00",
            }
            return [
                StatusEvent(text="Looking for free appointment slots…"),
                ToolCallEvent(id="t1", name="find_slots", input={"specialty_or_department": "diabetes"}),
                ToolResultEvent(
                    id="t1", name="find_slots", ok=True, summary="1 free slot", handles=["S1"], rows=[slot]
                ),
                TextEvent(delta="There is a free slot at the Diabetes clinic [S1]. Shall I book it?"),
                CitationEvent(handle="S1", kind="slot", record_id="slot-1", label="Diabetes clinic"),
                DoneEvent(
                    answer="There is a free slot at the Diabetes clinic [S1]. Shall I book it?",
                    mode="offline",
                ),
            ]
        if "note" in q:  # the seeded note and leaflet both carry markup that must stay text
            answer = "The note says diabetes is well controlled [N1]. The leaflet advises regular meals [K1]."
            return [
                TextEvent(delta=answer),
                CitationEvent(handle="N1", kind="note", record_id="note-a1#1", label="Progress note"),
                CitationEvent(handle="K1", kind="leaflet", record_id="diabetes#0", label="Diet"),
                DoneEvent(answer=answer, mode="offline"),
            ]
        answer = "Your latest HbA1c was 6.1 % on 2024-03-01 [L1]."
        return [
            StatusEvent(text="Looking up your lab results…"),
            ToolCallEvent(id="t1", name="get_labs", input={"query": "A1C", "latest_only": True}),
            ToolResultEvent(
                id="t1", name="get_labs", ok=True, summary="1 lab result", handles=["L1"], total=1
            ),
            TextEvent(delta="Your latest HbA1c was 6.1 % "),
            TextEvent(delta="on 2024-03-01 [L1]."),
            CitationEvent(handle="L1", kind="observation", record_id="obs-a3", label="HbA1c 6.1 %"),
            DoneEvent(answer=answer, mode="offline", metrics={"total_ms": 12.5, "tool_calls": 1}),
        ]

    return script


def test_record_note_and_leaflet_markup_stays_text(serve, world, browser):
    served = serve(_script(world.db))
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    seen = watch(page, served.url)
    alerts: list[str] = []
    page.on("dialog", lambda d: (alerts.append(d.message), d.dismiss()))
    log_in(page, served.url, "alice", PASSWORD)
    page.wait_for_url(f"**/patients/{A}")
    assert HOSTILE_CONDITION in page.locator("aside.record").inner_text()

    message = ask(page, "What do my notes say?")
    message.locator("button.cite", has_text="N1").click()
    dialog = page.locator("#record-dialog")
    dialog.locator(".passage.cited").get_by_text("Assessment: diabetes well controlled.").wait_for()
    dialog.locator(".full-text summary").click()
    assert "<img src=https://evil.example/x.png>" in dialog.locator(".note-text").inner_text()
    assert dialog.locator(".note-text mark").inner_text() == "Assessment: diabetes well controlled."
    assert dialog.locator("img").count() == 0
    dialog.get_by_role("button", name="Close").click()

    message.locator("button.cite", has_text="K1").click()
    dialog.locator("h2", has_text="Living with type 2 diabetes").wait_for()
    assert "![x](https://evil.example/track.png)" in dialog.locator(".passage").inner_text()
    assert page.locator("main img").count() == 0
    page.screenshot(path=str(ARTIFACTS / "hostile-text.png"))
    assert alerts == [] and seen.problems == [] and seen.external == []


def test_a_reload_replays_the_conversation_without_running_the_agent_again(serve, world, browser):
    served = serve(_script(world.db))
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    seen = watch(page, served.url)
    log_in(page, served.url, "alice", PASSWORD)
    page.wait_for_url(f"**/patients/{A}")
    message = ask(page, "What is my latest HbA1c?")
    assert message.locator(".answer").inner_text().startswith("Your latest HbA1c was 6.1 %")
    assert message.locator(".trace summary").inner_text() == "How this was answered (1 step)"

    offer = ask(page, "Please book me a diabetes check-up")
    offer.get_by_role("button", name="Choose S1").click()
    confirm = page.locator("#confirm-dialog")
    assert "Mon 2030-01-07 09:00–09:30 UTC" in confirm.inner_text()
    confirm.get_by_role("button", name="Confirm booking").click()
    booked = page.locator("#messages > li").nth(2)
    booked.locator(".booking").wait_for()
    assert booked.locator(".booking").inner_text().startswith("Booked. Mon 2030-01-07 09:00–09:30 UTC")
    assert "Mon 2030-01-07 09:00–09:30 UTC" in page.locator("#upcoming-appointments").inner_text()

    page.reload()
    page.locator('#messages > li:nth-child(3) .answer[aria-busy="false"]').wait_for(timeout=20_000)
    assert page.locator("#messages > li").count() == 3
    assert served.agent.runs == 3 and served.agent.effects["book_appointment"] == 1
    with patient_transaction(world.db.admin, A) as conn:
        assert conn.execute(text("SELECT count(*) FROM appointments")).scalar_one() == 1
    assert seen.problems == [] and seen.external == []


def test_keyboard_only_user_can_ask(serve, world, browser):
    served = serve(_script(world.db))
    page = browser.new_context().new_page()
    log_in(page, served.url, "alice", PASSWORD)
    page.wait_for_url(f"**/patients/{A}")
    page.get_by_role("textbox", name="Ask about").focus()
    page.keyboard.type("What is my latest HbA1c?")
    page.keyboard.press("Enter")
    page.locator('.answer[aria-busy="false"]').wait_for(timeout=20_000)
    assert page.locator(".answer").get_attribute("aria-live") == "polite"
    page.locator("button.cite").first.focus()
    page.keyboard.press("Enter")
    page.locator("#record-dialog[open]").wait_for()
    page.keyboard.press("Escape")
    assert page.locator("#record-dialog[open]").count() == 0


def test_text_streamed_before_an_error_is_struck_out_not_presented_as_the_answer(serve, world, browser):
    """Issue 18 item 13: an answer that ends in an error (here: it could not be kept) had shown
    its streamed text like a delivered answer with a note under it. Now the text is struck out
    under a label saying it is no answer — live, and again after a reload."""
    partial = "Your latest HbA1c was 6.1 % on 2024-03-01 [L1]."
    served = serve(
        [
            StatusEvent(text="Looking up your lab results…"),
            TextEvent(delta=partial),
            ErrorEvent(
                kind="database",
                message="The record database stopped responding, so this answer was not kept.",
            ),
        ]
    )
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    seen = watch(page, served.url)
    log_in(page, served.url, "alice", PASSWORD)
    page.wait_for_url(f"**/patients/{A}")
    for attempt in ("live", "reload"):
        if attempt == "reload":
            page.reload()
            page.locator('#messages > li .answer[aria-busy="false"]').wait_for(timeout=20_000)
            message = page.locator("#messages > li").first
        else:
            message = ask(page, "What is my latest HbA1c?")
        answer = message.locator(".answer")
        assert "Not an answer" in answer.locator(".withdrawn-label").inner_text()
        assert answer.locator("s.withdrawn-text").inner_text() == partial
        assert answer.locator("button.cite").count() == 0  # nothing in it is offered as a citation
        assert "was not kept" in message.locator(".error").inner_text()
    page.screenshot(path=str(ARTIFACTS / "withdrawn-answer.png"))
    assert served.agent.runs == 1 and seen.problems == [] and seen.external == []
