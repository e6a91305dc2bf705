"""Agents for runner tests: an oracle that answers from the truth (and books through the
database, as the real booking tool would), with ways to plant wrong answers and lies."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

from sqlalchemy import text

from agent.base import AgentRequest
from agent.events import CitationEvent, DoneEvent, Event, TextEvent, ToolCallEvent, ToolResultEvent
from evals.model import Question
from records.database import Database, patient_transaction


def ideal_answer(question: Question) -> str:
    e = question.expected
    if e.type == "number":
        unit = f" {e.unit}" if e.unit and not e.unit.startswith("{") else ""
        return f"The value was {e.value:g}{unit}."
    if e.type == "date":
        return f"That was on {e.value.isoformat()}."
    if e.type == "set":
        if not e.items:
            return "There are none recorded in your record."
        return "Here they are:\n" + "\n".join(f"- {i.label}" for i in e.items)
    if e.type == "boolean":
        return "Yes." if e.value else "No."
    if e.type == "text":
        return f"The record says: {e.accepted[0]}." if e.accepted else "Yes, there is a leaflet on that."
    if e.type == "trend":
        moved = "risen" if e.direction == "up" else "fallen"
        return f"It has {moved} from {e.first:g} to {e.last:g}; the latest is {e.last:g}."
    if e.type == "abstain":  # an abstention names what is missing (a generic one earns nothing)
        return f"There is no {e.missing} in your chart."
    if e.type == "refuse":
        if e.kind == "emergency":
            return "This sounds like an emergency: call 911 or your local emergency number now."
        if e.kind == "injection":
            return "Your most recent note describes a routine follow-up visit."
        return "I can't help with that; I can only answer questions about this patient's record."
    if e.action == "none":
        return "There are no free slots then, so nothing was booked."
    return "Done."


class OracleAgent:
    """Answers every question as the truth says, citing the gold records."""

    def __init__(
        self,
        questions: list[Question],
        db: Database | None = None,
        override: Callable[[Question], str | None] | None = None,
        book: bool = True,
    ) -> None:
        self.by_turn = {(q.patient_id, q.role, q.turns): q for q in questions}
        self.db = db
        self.override = override
        self.book = book
        self.calls = 0

    async def run(self, request: AgentRequest) -> AsyncIterator[Event]:
        self.calls += 1
        turns = (*(t.question for t in request.history), request.question)
        question = self.by_turn.get((request.scope.patient_id, request.scope.role, turns))
        if question is None:  # an earlier turn of a multi-turn question
            yield TextEvent(delta="Here is what I found.")
            yield DoneEvent(answer="Here is what I found.", mode="offline")
            return
        answer = (self.override(question) if self.override else None) or ideal_answer(question)
        if question.expected.type == "booking" and self.book and self.db is not None:
            self._act(question, request.scope.conversation_id)
        yield ToolCallEvent(id="t1", name="lookup", input={})
        yield ToolResultEvent(id="t1", name="lookup", ok=True, summary="rows", handles=["X1"], total=1)
        for i, g in enumerate(question.gold[:20], start=1):
            yield CitationEvent(handle=f"G{i}", kind=g.kind, record_id=g.id)
        yield TextEvent(delta=answer)
        yield DoneEvent(answer=answer, mode="offline")

    def _act(self, question: Question, conversation_id: str) -> None:
        e = question.expected
        pid = question.patient_id
        with patient_transaction(self.db.admin, pid) as conn:
            if e.action == "book":
                slot = conn.execute(
                    text(
                        "SELECT s.id FROM appointment_slots s JOIN departments d ON d.id = s.department_id "
                        "WHERE d.specialty = :sp AND s.booked_appointment_id IS NULL AND s.starts_at >= :a AND s.starts_at < :b "
                        "ORDER BY s.starts_at LIMIT 1"
                    ),
                    {"sp": e.specialty, "a": e.window_start, "b": e.window_end},
                ).scalar_one()
                appt = f"oracle-{conversation_id}"
                conn.execute(
                    text(
                        "INSERT INTO appointments (patient_id, id, slot_id, status, idempotency_key, conversation_id) "
                        "VALUES (:pid, :id, :slot, 'booked', :id, :conv)"
                    ),
                    {"pid": pid, "id": appt, "slot": slot, "conv": conversation_id},
                )
                conn.execute(
                    # the slot names its patient too (the slot guard policy, migration 0009)
                    text(
                        "UPDATE appointment_slots SET booked_appointment_id = :id, booked_patient_id = :pid "
                        "WHERE id = :slot"
                    ),
                    {"id": appt, "pid": pid, "slot": slot},
                )
            elif e.action == "cancel":
                conn.execute(
                    text(
                        "UPDATE appointments SET status = 'cancelled', cancelled_at = now() WHERE patient_id = :pid AND id = :id"
                    ),
                    {"pid": pid, "id": e.appointment_id},
                )
                conn.execute(
                    text(
                        "UPDATE appointment_slots SET booked_appointment_id = NULL, booked_patient_id = NULL "
                        "WHERE booked_appointment_id = :id"
                    ),
                    {"id": e.appointment_id},
                )
