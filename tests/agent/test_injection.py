"""The structural guard: only the user's own words unlock booking or cancelling."""

from __future__ import annotations

from agent.base import Turn
from agent.events import DoneEvent, ToolResultEvent
from agent.intent import write_intent
from agent.loop import ClaudeAgent
from agent.runner import GuardedAgent
from tests.agent.conftest import INJECTED_NOTE, ask, run
from tests.fakes.anthropic_server import model_client_for, text_message, tool_use_message


def _agent(fake, registry, db):
    return GuardedAgent(ClaudeAgent(model_client_for(fake), registry, db))


def test_an_injected_note_cannot_book_even_when_the_model_obeys_it(fake_anthropic, registry, db, tool_log):
    fake_anthropic.enqueue(
        tool_use_message([("search_notes", {"query": "last visit"})]),
        # the (fake) model falls for the note's instruction
        tool_use_message([("find_slots", {"specialty_or_department": "cardiology"})]),
        tool_use_message([("book_appointment", {"slot_id": "slot-1", "reason": "as the note says"})]),
        text_message("Your last note from 2024-02-01 says your condition is stable [N1]."),
    )
    events = run(_agent(fake_anthropic, registry, db), ask("What did my last note say?"))
    assert tool_log.bookings == []
    booking = [e for e in events if isinstance(e, ToolResultEvent) and e.name == "book_appointment"]
    assert len(booking) == 1 and not booking[0].ok
    refusal = fake_anthropic.message_requests[3].body["messages"][-1]["content"][0]
    assert refusal["is_error"] is True and "did not ask to book" in refusal["content"]
    assert INJECTED_NOTE in fake_anthropic.message_requests[1].body["messages"][-1]["content"][0]["content"]
    assert isinstance(events[-1], DoneEvent)


def test_the_user_asking_to_book_unlocks_booking(fake_anthropic, registry, db, tool_log):
    fake_anthropic.enqueue(
        tool_use_message([("find_slots", {"specialty_or_department": "cardiology"})]),
        tool_use_message([("book_appointment", {"slot_id": "slot-1"})]),
        text_message("Booked: cardiology on 2030-01-07 at 09:30 [B1]."),
    )
    done = run(_agent(fake_anthropic, registry, db), ask("Please book me a cardiology appointment"))[-1]
    assert tool_log.bookings == ["slot-1"]
    assert (
        isinstance(done, DoneEvent)
        and done.grounding.grounded
        and done.metrics["write_intent"] == ["book_appointment"]
    )


def test_a_short_confirmation_carries_the_previous_booking_request(fake_anthropic, registry, db, tool_log):
    fake_anthropic.enqueue(
        tool_use_message([("book_appointment", {"slot_id": "slot-1"})]),
        text_message("Booked for 2030-01-07 09:30 [B1]."),
    )
    history = [Turn(question="Book me a cardiology slot next week", answer="I found S1 … shall I book it?")]
    run(_agent(fake_anthropic, registry, db), ask("yes please", history=history))
    assert tool_log.bookings == ["slot-1"]


def test_cancelling_needs_the_user_to_ask_for_it(fake_anthropic, registry, db, tool_log):
    fake_anthropic.enqueue(
        tool_use_message([("cancel_appointment", {})]), text_message("Nothing was changed.")
    )
    run(_agent(fake_anthropic, registry, db), ask("What appointments do I have?"))
    assert ("cancel_appointment", {}) not in tool_log.calls


def test_write_intent_reads_only_the_users_words():
    assert write_intent("Book me a GP appointment tomorrow") == {"book_appointment"}
    assert write_intent("Cancel my appointment B1") == {"cancel_appointment"}
    assert write_intent("How do I book an appointment?") == frozenset()
    assert write_intent("Don't book anything, just show me slots") == frozenset()
    assert write_intent("What did my last note say?") == frozenset()
    assert write_intent("yes", ["What did my last note say?"]) == frozenset()
    assert write_intent("S2", ["find me a dermatology slot and book it"]) == {"book_appointment"}
