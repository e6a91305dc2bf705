"""End to end in headless Chromium: log in, ask, open a citation, book through the confirmation
step; a clinician switches patients. Screenshots go to test-artifacts/.

Chromium is Debian's package (`.ci/run` apt-gets it when absent) driven by Playwright for
Python with `executable_path` — Playwright never downloads a browser here. Without the
package the test skips with the reason on a developer machine and FAILS under CI, so a CI
run cannot pass without having exercised the browser.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from sqlalchemy import text

from agent.events import CitationEvent, DoneEvent, StatusEvent, TextEvent, ToolCallEvent, ToolResultEvent
from records.database import patient_transaction
from server.scripted_agent import Effect
from tests.conftest import PROJECT_ROOT
from tests.server.conftest import PASSWORD, A, C

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = PROJECT_ROOT / "test-artifacts"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]


def _require_chromium() -> None:
    if CHROMIUM.exists():
        return
    reason = "Debian's chromium is not installed (apt-get install chromium; .ci/run does it)"
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


def _script(db):
    """A stand-in for the agent with the shapes the real one emits (lab answer, slots, booking)."""

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
            "starts_at": "in 3 days",
        }
        return [
            ToolCallEvent(id="t2", name="book_appointment", input={"slot_id": "slot-1"}),
            ToolResultEvent(
                id="t2", name="book_appointment", ok=True, summary="booked", handles=["B1"], rows=[row]
            ),
        ]

    def script(request):
        q = request.question.lower()
        if q.startswith("book s1 (slot_id slot-1)"):
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
                "starts_at": "in 3 days, 09:00",
            }
            return [
                StatusEvent(text="Looking for free appointments…"),
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


@pytest.fixture()
def browser():
    _require_chromium()
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        instance = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield instance
        instance.close()


def _login(page, base: str, username: str) -> None:
    page.goto(f"{base}/login")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()


def _ask(page, question: str):
    before = page.locator("#messages > li").count()
    page.get_by_role("textbox", name="Ask about").fill(question)
    page.keyboard.press("Enter")
    message = page.locator("#messages > li").nth(before)
    message.locator('.answer[aria-busy="false"]').wait_for(timeout=20_000)
    return message


def test_patient_asks_opens_a_citation_and_books(serve, world, browser):
    served = serve(_script(world.db))
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    external: list[str] = []
    page.on("request", lambda r: external.append(r.url) if not r.url.startswith(served.url) else None)

    _login(page, served.url, "alice")
    page.wait_for_url(f"**/patients/{A}")
    message = _ask(page, "What is my latest HbA1c?")
    answer = message.locator(".answer")
    assert answer.inner_text().startswith("Your latest HbA1c was 6.1 %")
    assert message.locator(".trace summary").inner_text().startswith("How this was answered (1 steps)")
    message.locator("button.cite", has_text="L1").click()
    dialog = page.locator("#record-dialog")
    dialog.get_by_text("Hemoglobin A1c/Hemoglobin.total in Blood").wait_for()
    assert "6.1" in dialog.locator(".fields").inner_text()
    page.screenshot(path=str(ARTIFACTS / "patient-citation.png"), full_page=True)
    dialog.get_by_role("button", name="Close").click()

    offer = _ask(page, "Please book me a diabetes check-up")
    offer.get_by_role("button", name="Choose S1").click()
    confirm = page.locator("#confirm-dialog")
    assert confirm.is_visible() and "Diabetes clinic" in confirm.inner_text()
    with patient_transaction(world.db.admin, A) as conn:
        assert (
            conn.execute(text("SELECT count(*) FROM appointments")).scalar_one() == 0
        )  # not before confirming
    confirm.get_by_role("button", name="Confirm booking").click()
    booked = page.locator("#messages > li").nth(2)
    booked.locator(".booking").wait_for()
    assert booked.locator(".booking").inner_text().startswith("Booked.")
    page.screenshot(path=str(ARTIFACTS / "patient-view.png"), full_page=True)
    with patient_transaction(world.db.admin, A) as conn:
        assert conn.execute(text("SELECT count(*) FROM appointments")).scalar_one() == 1

    # a reload replays the conversation from storage without running anything again
    page.reload()
    page.locator('#messages > li:nth-child(3) .answer[aria-busy="false"]').wait_for(timeout=20_000)
    assert page.locator("#messages > li").count() == 3
    assert served.agent.runs == 3 and served.agent.effects["book_appointment"] == 1

    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(ARTIFACTS / "patient-phone.png"), full_page=False)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert problems == [] and external == []
    context.close()


def test_clinician_switches_patients(serve, world, browser):
    served = serve(_script(world.db))
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    _login(page, served.url, "carol")
    page.wait_for_url("**/patients")
    page.get_by_role("link", name="Alice Anders").click()
    page.wait_for_url(f"**/patients/{A}")
    _ask(page, "HbA1c trend since 2020?")
    page.screenshot(path=str(ARTIFACTS / "clinician-view.png"), full_page=True)
    page.get_by_text("Switch patient").click()
    page.get_by_role("link", name="Cara Chen").click()
    page.wait_for_url(f"**/patients/{C}")
    assert page.get_by_role("heading", level=1).inner_text() == "Cara Chen"
    assert "Alice" not in page.locator("aside.record").inner_text()
    page.screenshot(path=str(ARTIFACTS / "clinician-switched.png"), full_page=True)
    context.close()


def test_keyboard_only_user_can_ask(serve, world, browser):
    served = serve(_script(world.db))
    page = browser.new_context().new_page()
    _login(page, served.url, "alice")
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
    assert shutil.which("chromium") or CHROMIUM.exists()
