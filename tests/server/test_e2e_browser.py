"""The product end to end in headless Chromium, as `make run` assembles it: a generated cohort
(with its hard-case patients), ingested; appointment slots from its organisations; the shipped
leaflets and a patient's notes embedded; the demo accounts; the web app with its default
agent (the offline planner, since tests have no API key).

A demo patient asks about their medications and opens a citation, books a check-up through
the confirmation step (the appointment is in the database exactly once and shows in the
record panel, also after a reload), asks where to park and about their notes and opens those
passages; the demo clinician switches between patients on their panel. Every expectation is
read from the database, not written here. Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from playwright.sync_api import expect
from sqlalchemy import text

from fhir_ingest.loader import ingest_paths
from knowledge.embeddings import get_embedder
from knowledge.leaflet_store import ensure_leaflets
from knowledge.note_index import index_notes
from records.database import Database
from records.scheduling import generate_slots
from server.app import create_app
from server.demo import DemoCredential, create_demo_accounts
from server.formatting import appointment_when
from server.live import LiveServer
from synthea_data.generator import generate_cohort
from synthea_data.hard_cases import SCENARIO_PATIENTS, load_manifest
from tests.conftest import test_settings as settings_for_tests
from tests.conftest import wipe
from tests.server.browser_support import ARTIFACTS, ask, launch, log_in, watch

pytestmark = pytest.mark.browser

COHORT_PATIENTS = 8
COHORT_SEED = 7  # the demo cohort's seed (records.settings.Settings.demo_seed)
SLOT_DAYS = 28  # as `make run` (chartside.up.DEMO_SLOT_DAYS)
PHONE = {"width": 390, "height": 844}


@dataclass
class Product:
    db: Database
    url: str
    accounts: dict[str, DemoCredential]


@pytest.fixture(scope="module")
def product(db: Database, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Product]:
    """What `chartside up` prepares, on a smaller cohort, then the app on a loopback port."""
    wipe(db)
    settings = settings_for_tests(stream_grace_s=0.0)
    cohort = tmp_path_factory.mktemp("e2e") / "cohort"
    generate_cohort(cohort, patients=COHORT_PATIENTS, seed=COHORT_SEED)
    report = ingest_paths(db, [cohort])
    assert report.ok, report
    generate_slots(db, days=SLOT_DAYS)
    embedder = get_embedder(settings)
    ensure_leaflets(db, embedder)
    hard_cases = [e["patient_id"] for e in load_manifest(cohort)["patient_files"][:SCENARIO_PATIENTS]]
    accounts = {c.username: c for c in create_demo_accounts(db, preferred=hard_cases)}
    index_notes(db, embedder, [accounts["patient1"].patients[0]])  # the one whose notes are asked about
    app = create_app(settings, db=db)  # the default agent: what `chartside serve` runs
    with LiveServer(app) as live:
        yield Product(db=db, url=live.url, accounts=accounts)
    wipe(db)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launch()


def rows(db: Database, sql: str, **params: Any) -> list[Any]:
    with db.admin.connect() as conn:
        return conn.execute(text(sql), params).all()


def active_medications(db: Database, patient_id: str) -> set[str]:
    found = rows(
        db,
        "SELECT display FROM medication_requests WHERE patient_id = :p AND status = 'active' "
        "AND (ended_at IS NULL OR ended_at > now())",
        p=patient_id,
    )
    return {r.display for r in found}


def appointments(db: Database, patient_id: str) -> list[Any]:
    return rows(
        db,
        "SELECT a.id, a.slot_id, a.status, s.starts_at, s.ends_at FROM appointments a "
        "JOIN appointment_slots s ON s.id = a.slot_id WHERE a.patient_id = :p",
        p=patient_id,
    )


def open_citation(page: Any, message: Any, prefix: str) -> Any:
    """Click the first citation button of a kind (M…, K…, N…) in a message; the opened dialog."""
    message.locator("button.cite", has_text=re.compile(rf"^{prefix}\d+$")).first.click()
    dialog = page.locator("#record-dialog[open]")
    dialog.wait_for()
    expect(dialog.locator("h2")).not_to_have_text("Loading…")  # (the page's CSP forbids eval-based waits)
    return dialog


def test_a_demo_patient_asks_books_and_opens_every_kind_of_citation(product, browser):
    patient1 = product.accounts["patient1"]
    pid = patient1.patients[0]
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    seen = watch(page, product.url)
    log_in(page, product.url, "patient1", patient1.password)
    page.wait_for_url(f"**/patients/{pid}")
    assert page.get_by_role("heading", level=1).inner_text() == patient1.names[0]
    assert "Offline mode" in page.locator("#offline-notice").inner_text()

    # medications: every active prescription in the record, each cited; a citation opens its row
    meds = active_medications(product.db, pid)
    assert meds, "the first hard-case patient has active prescriptions"
    message = ask(page, "What medications am I taking?")
    answer = message.locator(".answer").inner_text()
    for display in meds:
        assert display in answer
    assert message.locator(".grounding").is_hidden()  # every claim matched its cited row
    assert message.locator(".trace summary").inner_text().startswith("How this was answered (")
    dialog = open_citation(page, message, "M")
    assert dialog.locator("h2").inner_text() in meds
    assert dict(zip(*[dialog.locator(f".fields {t}").all_inner_texts() for t in ("dt", "dd")], strict=True))[
        "Status"
    ] == ("active")
    page.screenshot(path=str(ARTIFACTS / "patient-citation.png"))
    dialog.get_by_role("button", name="Close").click()

    # booking: slots offered → one chosen → a confirmation naming it → booked once
    offer = ask(page, "Book me a check-up")
    assert "Nothing is booked yet" in offer.locator(".answer").inner_text()
    assert offer.locator(".grounding").is_hidden() and "from_date" not in offer.inner_text()
    choice = offer.get_by_role("button", name="Choose S2")
    shown_when = choice.locator(".slot-when").inner_text()
    choice.click()
    confirm = page.locator("#confirm-dialog")
    assert confirm.is_visible() and shown_when in confirm.inner_text()
    page.screenshot(path=str(ARTIFACTS / "patient-confirm.png"))
    assert appointments(product.db, pid) == []  # not before confirming
    confirm.get_by_role("button", name="Confirm booking").click()
    booked = page.locator("#messages > li").nth(2)
    booked.locator('.answer[aria-busy="false"]').wait_for(timeout=30_000)
    assert booked.locator(".booking").inner_text().startswith(f"Booked. {shown_when}")
    (appointment,) = appointments(product.db, pid)  # exactly one
    chosen_slot = re.search(r"slot_id (\S+?)\)", booked.locator(".question").inner_text()).group(1)
    assert appointment.status == "booked" and appointment.slot_id == chosen_slot
    assert appointment_when(appointment.starts_at, appointment.ends_at) == shown_when
    upcoming = page.locator("#upcoming-appointments li")
    assert upcoming.count() == 1 and shown_when in upcoming.inner_text()
    assert offer.get_by_role("button", name="Chosen: S2").is_disabled()  # one confirmation per offer
    page.screenshot(path=str(ARTIFACTS / "patient-view.png"), full_page=True)

    # a reload replays the conversation from storage: nothing runs again, nothing is booked twice
    page.reload()
    page.locator('#messages > li:nth-child(3) .answer[aria-busy="false"]').wait_for(timeout=30_000)
    assert page.locator("#messages > li").count() == 3
    assert len(appointments(product.db, pid)) == 1
    assert shown_when in page.locator("#upcoming-appointments").inner_text()  # rendered by the server now

    # a hospital leaflet: the cited passage opens, with its leaflet's title
    park = ask(page, "Where can I park?")
    assert "parking" in park.locator(".answer").inner_text().lower()
    dialog = open_citation(page, park, "K")
    assert dialog.locator("h2").inner_text() == "Parking and getting to the hospital"
    passage = dialog.locator(".passage.cited").inner_text()
    assert passage and passage.split("\n")[0] in park.locator(".answer").inner_text()
    page.screenshot(path=str(ARTIFACTS / "patient-leaflet.png"))
    dialog.get_by_role("button", name="Close").click()

    # the last visit's note is read by date (issue 16): its citation opens the whole note
    last = ask(page, "What did the doctor write at my last visit?")
    dialog = open_citation(page, last, "N")
    whole = " ".join(dialog.locator(".passage").inner_text().split())
    assert whole and whole[:60] in " ".join(last.locator(".answer").inner_text().split())
    dialog.get_by_role("button", name="Close").click()

    # a topic searched in the notes: the cited passage opens, highlighted inside the whole note
    notes = ask(page, "What did the doctor write about my medications?")
    dialog = open_citation(page, notes, "N")
    passage = dialog.locator(".passage.cited").inner_text()
    dialog.locator(".full-text summary").click()
    assert dialog.locator(".full-text mark").inner_text() == passage
    page.screenshot(path=str(ARTIFACTS / "patient-note.png"))
    dialog.get_by_role("button", name="Close").click()

    page.set_viewport_size(PHONE)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.get_by_role("heading", level=1).scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "patient-phone.png"))
    offer.locator(".slots").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "patient-phone-slots.png"))
    assert seen.problems == [] and seen.external == []


def test_the_demo_clinician_switches_between_patients_on_the_panel(product, browser):
    clinician = product.accounts["clinician"]
    first, second = clinician.patients[:2]
    first_name, second_name = clinician.names[:2]
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    seen = watch(page, product.url)
    log_in(page, product.url, "clinician", clinician.password)
    page.wait_for_url("**/patients")
    listed = page.locator(".patient-list strong").all_inner_texts()
    assert sorted(listed) == sorted(clinician.names)

    page.get_by_role("link", name=first_name).click()
    page.wait_for_url(f"**/patients/{first}")
    message = ask(page, "What medications is the patient taking?")
    for display in active_medications(product.db, first):
        assert display in message.locator(".answer").inner_text()
    page.screenshot(path=str(ARTIFACTS / "clinician-view.png"), full_page=True)

    page.get_by_text("Switch patient").click()
    page.get_by_role("link", name=second_name).click()
    page.wait_for_url(f"**/patients/{second}")
    assert page.get_by_role("heading", level=1).inner_text() == second_name
    assert page.locator("#messages > li").count() == 0  # the other patient's conversation stays there
    assert first_name not in page.locator("aside.record").inner_text()
    message = ask(page, "What medications is the patient taking?")
    answer = message.locator(".answer").inner_text()
    for display in active_medications(product.db, second):
        assert display in answer
    for display in active_medications(product.db, first) - active_medications(product.db, second):
        assert display not in answer
    page.screenshot(path=str(ARTIFACTS / "clinician-switched.png"), full_page=True)
    assert seen.problems == [] and seen.external == []
