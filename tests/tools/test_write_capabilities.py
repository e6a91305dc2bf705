"""Issue 18 item 1: who may write, and by which clock — decided by records.capabilities.

Before: the evaluator token could book and cancel real appointments for every patient, and a
pinned `now` let it book slots that were already in the past.
"""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import text

from records.capabilities import capabilities_for, write_mode_for
from records.database import patient_transaction
from records.scheduling import generate_slots
from tests.builder import RecordBuilder, reference_data
from tests.tools.conftest import make_ctx

REAL_NOW = dt.datetime.now(dt.UTC)


@pytest.fixture()
def clinic(clean_db):
    reference_data(clean_db)
    RecordBuilder("p-w").write(clean_db)
    generate_slots(clean_db, days=3, start=REAL_NOW.date() - dt.timedelta(days=4))  # all in the past
    generate_slots(clean_db, days=7, start=REAL_NOW.date() + dt.timedelta(days=1))
    return clean_db


def _offer_and_book(registry, db, *, role, writes, now, from_date):
    ctx = make_ctx(db, "p-w", conversation_id="c", message_id="m1", role=role, now=now, writes=writes)
    offered = registry.execute(
        ctx, "find_slots", {"specialty_or_department": "general practice", "from_date": from_date.isoformat()}
    )
    assert offered.ok, offered.text
    slot = offered.rows[0]["slot_id"]
    return slot, registry.execute(ctx, "book_appointment", {"slot_id": slot})


def _appointments(db) -> int:
    with patient_transaction(db.admin, "p-w") as conn:
        return conn.execute(text("SELECT count(*) FROM appointments")).scalar_one()


def test_the_capability_table():
    assert write_mode_for("patient") == write_mode_for("clinician") == "live"
    assert write_mode_for("evaluator") == "none"
    assert write_mode_for("evaluator", evaluation_sandbox=True) == "sandbox"
    assert "write" not in capabilities_for("evaluator") and "mcp" not in capabilities_for("evaluator")
    assert capabilities_for("nobody") == frozenset()
    assert "pages" not in capabilities_for("evaluator", evaluation_sandbox=True)


def test_an_evaluator_scope_cannot_book_or_cancel(clinic, registry):
    _, booked = _offer_and_book(
        registry,
        clinic,
        role="evaluator",
        writes=None,
        now=None,
        from_date=REAL_NOW.date() + dt.timedelta(days=1),
    )
    assert not booked.ok and booked.error_kind == "not_allowed" and "read-only" in booked.text
    cancel = registry.execute(
        make_ctx(clinic, "p-w", role="evaluator", writes=None),
        "cancel_appointment",
        {"appointment_id": "a-1"},
    )
    assert not cancel.ok and cancel.error_kind == "not_allowed"
    assert _appointments(clinic) == 0


def test_a_pinned_past_now_cannot_book_a_slot_that_is_really_past(clinic, registry):
    pinned = REAL_NOW - dt.timedelta(days=5)
    _, booked = _offer_and_book(
        registry,
        clinic,
        role="patient",
        writes=None,
        now=pinned,
        from_date=pinned.date() + dt.timedelta(days=1),
    )
    assert not booked.ok and "in the past" in booked.text
    assert _appointments(clinic) == 0


def test_an_evaluation_sandbox_books_by_its_pinned_clock(clinic, registry):
    pinned = REAL_NOW - dt.timedelta(days=5)
    _, booked = _offer_and_book(
        registry,
        clinic,
        role="evaluator",
        writes="sandbox",
        now=pinned,
        from_date=pinned.date() + dt.timedelta(days=1),
    )
    assert booked.ok, booked.text
    assert _appointments(clinic) == 1
