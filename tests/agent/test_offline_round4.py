"""Round four of the offline planner (issue 16, part A): booking in two turns, counts filtered by
reason, conclusions first and plain plurals. Each test failed before its fix."""

from __future__ import annotations

import datetime as dt

import pytest

from agent.base import Turn
from agent.offline import Planner, render_result
from tests.agent.test_offline import ALL_TOOLS

TODAY = dt.date(2026, 12, 1)
OFFER = (
    "Free slots in Paediatrics, 2026-12-10 to 2026-12-16, earliest first (2 of 9 shown):\n"
    "- Thu 2026-12-10 09:00–09:30 UTC — Paediatrics · slot_id slot-a [S1]\n"
    "- Thu 2026-12-10 09:30–10:00 UTC — Paediatrics · slot_id slot-b [S2]\n"
)


@pytest.mark.parametrize(
    ("question", "since", "until"),
    [
        ("Please book me a Paediatrics appointment between 10 December 2026 and 16 December 2026.", "2026-12-10", "2026-12-16"),
        ("Book the patient a Paediatrics appointment between 2026-12-16 and 2026-12-22.", "2026-12-16", "2026-12-22"),
        # no year said, and the days are behind us: the next such days, not last year's
        ("Book me in with cardiology between 3 and 9 November", "2027-11-03", "2027-11-09"),
        ("Any dermatology slots from 4 January to 8 January?", "2027-01-04", "2027-01-08"),
    ],
)  # fmt: skip
def test_a_booking_window_said_as_a_range_is_searched_as_that_range(question, since, until):
    (call,) = Planner(ALL_TOOLS).plan(question, [], TODAY).calls
    assert call.name == "find_slots"
    assert (call.input["from_date"], call.input["to_date"]) == (since, until)


@pytest.mark.parametrize(
    "question",
    [
        "What Paediatrics appointments are free between 10 December 2026 and 16 December 2026?",
        "Which cardiology times are available next week?",
    ],
)
def test_asking_which_appointments_are_free_offers_slots_not_the_booked_list(question):
    plan = Planner(ALL_TOOLS).plan(question, [], TODAY)
    assert [c.name for c in plan.calls] == ["find_slots"]


@pytest.mark.parametrize(
    ("reply", "slot"),
    [
        ("The earliest one you found works for me, please book it.", "slot-a"),
        ("Book the earliest of those.", "slot-a"),
        ("Yes, book the first of those for me.", "slot-a"),
        ("the soonest please", "slot-a"),
        ("Book the patient into the second one.", "slot-b"),
    ],
)
def test_a_confirmation_naming_the_earliest_or_an_ordinal_books_that_slot(reply, slot):
    history = [Turn(question="Which Paediatrics slots are free?", answer=OFFER)]
    plan = Planner(ALL_TOOLS).plan(reply, history, TODAY)
    assert plan.kind == "book"
    assert [(c.name, c.input["slot_id"]) for c in plan.calls] == [("book_appointment", slot)]


def test_a_tool_explanation_keeps_its_sentence_for_people_and_drops_the_one_for_the_model():
    text = (
        "No free slots in Paediatrics (RIVERBEND MEDICAL CENTER) from 2027-02-26 to 2027-02-26. "
        "Call find_slots with a later from_date, or another department."
    )
    assert render_result(text) == (
        "No free slots in Paediatrics (RIVERBEND MEDICAL CENTER) from 2027-02-26 to 2027-02-26."
    )
