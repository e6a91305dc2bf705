"""Conversations, messages and their stored events (all patient data, under RLS).

Every function opens its own `patient_transaction`, so the rows it can touch are the bound
patient's only, whatever the ids it is given. Messages and conversations also belong to the
account that created them: another account (even one allowed to see the same patient) gets
"not found".
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass
from typing import Any

import orjson
from sqlalchemy import Connection, text
from sqlalchemy.exc import IntegrityError

from agent.base import Turn
from records.audit import write_audit
from records.database import Database, patient_transaction, retry_after_disconnect

TERMINAL_STATUSES = frozenset({"done", "error", "cancelled"})
HISTORY_TURNS = 10


@dataclass(frozen=True)
class StoredMessage:
    id: str
    patient_id: str
    conversation_id: str
    account_id: int | None
    question: str
    scope: dict[str, Any] | None
    status: str
    answer: str | None
    metrics: dict[str, Any] | None
    pinned_now: dt.datetime | None
    created_at: dt.datetime
    last_seq: int

    @property
    def finished(self) -> bool:
        return self.status in TERMINAL_STATUSES


@dataclass(frozen=True)
class StoredEvent:
    seq: int
    type: str
    payload: dict[str, Any]


@dataclass(frozen=True)
class Outcome:
    """How an answer ended, for its audit row (written with the message's final status)."""

    actor: str
    role: str
    outcome: str  # ok | error | cancelled
    detail: str


class NotOwned(LookupError):
    """The conversation or message does not exist for this patient and account."""


def new_id() -> str:
    return uuid.uuid4().hex


def create_message(
    db: Database,
    *,
    patient_id: str,
    account_id: int,
    role: str,
    question: str,
    conversation_id: str | None,
    scope: dict[str, Any] | None,
    pinned_now: dt.datetime | None,
) -> StoredMessage:
    """Store the question (and a new conversation when none is given) in one transaction."""
    message_id = new_id()
    with patient_transaction(db.app, patient_id) as conn:
        if conversation_id is None:
            conversation_id = new_id()
            conn.execute(
                text("INSERT INTO conversations (patient_id, id, account_id, role) VALUES (:p, :c, :a, :r)"),
                {"p": patient_id, "c": conversation_id, "a": account_id, "r": role},
            )
        else:
            owner = conn.execute(
                text("SELECT account_id FROM conversations WHERE patient_id = :p AND id = :c"),
                {"p": patient_id, "c": conversation_id},
            ).one_or_none()
            if owner is None or owner.account_id != account_id:
                raise NotOwned(conversation_id)
        conn.execute(
            text(
                "INSERT INTO messages (patient_id, id, conversation_id, account_id, question, scope, "
                "pinned_now) VALUES (:p, :m, :c, :a, :q, CAST(:s AS jsonb), :n)"
            ),
            {
                "p": patient_id,
                "m": message_id,
                "c": conversation_id,
                "a": account_id,
                "q": question,
                "s": orjson.dumps(scope).decode() if scope is not None else None,
                "n": pinned_now,
            },
        )
    message = load_message(db, patient_id=patient_id, message_id=message_id, account_id=account_id)
    assert message is not None
    return message


_MESSAGE_SQL = (
    "SELECT m.id, m.patient_id, m.conversation_id, m.account_id, m.question, m.scope, m.status, "
    "m.answer, m.metrics, m.pinned_now, m.created_at, "
    "COALESCE((SELECT max(seq) FROM message_events e WHERE e.patient_id = :p AND e.message_id = m.id), 0) "
    "AS last_seq "
    "FROM messages m"
)


def _message(row) -> StoredMessage:
    return StoredMessage(**row._mapping)


def load_message(db: Database, *, patient_id: str, message_id: str, account_id: int) -> StoredMessage | None:
    with patient_transaction(db.app, patient_id) as conn:
        return message_in(conn, patient_id=patient_id, message_id=message_id, account_id=account_id)


def message_in(
    conn: Connection, *, patient_id: str, message_id: str, account_id: int
) -> StoredMessage | None:
    """`load_message` inside a transaction the caller holds (one already bound to the patient)."""
    row = conn.execute(
        text(f"{_MESSAGE_SQL} WHERE m.patient_id = :p AND m.id = :m AND m.account_id = :a"),
        {"p": patient_id, "m": message_id, "a": account_id},
    ).one_or_none()
    return _message(row) if row else None


def conversation_messages(
    db: Database, *, patient_id: str, conversation_id: str, account_id: int
) -> list[StoredMessage]:
    with patient_transaction(db.app, patient_id) as conn:
        owner = conn.execute(
            text("SELECT account_id FROM conversations WHERE patient_id = :p AND id = :c"),
            {"p": patient_id, "c": conversation_id},
        ).one_or_none()
        if owner is None or owner.account_id != account_id:
            raise NotOwned(conversation_id)
        rows = conn.execute(
            text(
                f"{_MESSAGE_SQL} WHERE m.patient_id = :p AND m.conversation_id = :c ORDER BY m.created_at, m.id"
            ),
            {"p": patient_id, "c": conversation_id},
        ).all()
    return [_message(r) for r in rows]


def history(db: Database, message: StoredMessage) -> list[Turn]:
    """Earlier answered turns of the same conversation, oldest first (for follow-ups)."""
    with patient_transaction(db.app, message.patient_id) as conn:
        return _history(conn, message)


def _history(conn: Connection, message: StoredMessage) -> list[Turn]:
    rows = conn.execute(
        text(
            "SELECT question, answer FROM messages WHERE patient_id = :p AND conversation_id = :c AND created_at < :t "
            "AND status = 'done' AND answer IS NOT NULL ORDER BY created_at DESC LIMIT :n"
        ),
        {"p": message.patient_id, "c": message.conversation_id, "t": message.created_at, "n": HISTORY_TURNS},
    ).all()
    return [Turn(question=r.question, answer=r.answer) for r in reversed(rows)]


def claim(db: Database, message: StoredMessage, owner: str | None = None) -> list[Turn] | None:
    """pending → running, for exactly one caller across all server processes.

    Returns the conversation's earlier turns (read in the same transaction) to the winner,
    None to everyone else. With `owner` (this process's id, server.sweeper) the claim is
    recorded in `run_claims` in the same transaction, so a sweeper can close the message if
    the process dies before answering.

    The commit does not wait for its disk flush (it is on the path to the answer's first
    event). Exactly-once is unaffected — the UPDATE's row lock decides the winner, and other
    transactions see the claim as soon as it commits — and a crash that loses the flip loses
    the run with it (and its `run_claims` row): the message is then "pending" again and the
    next reader answers it. The message's closing write is synchronous, which makes
    everything before it durable too.
    """
    with patient_transaction(db.app, message.patient_id) as conn:
        return claim_in(conn, message, owner)


def claim_in(conn: Connection, message: StoredMessage, owner: str | None = None) -> list[Turn] | None:
    """`claim` inside a transaction the caller holds (bound to the message's patient).

    A won claim makes the caller's transaction commit without waiting for its disk flush
    (`claim`'s reasons). The events route's transaction also holds the guard's "ok" audit
    row, which is then exactly as durable as the claim: a tool result reaches a reader only
    after that call's own audited, synchronous transaction, and `done` only after the
    synchronous closing write, and either flush makes both durable (WAL is flushed in order).
    A PostgreSQL crash in the fraction of a second before such a flush loses the claim and
    the audit row together (one transaction), never one without the other.
    """
    won = conn.execute(
        text(
            "UPDATE messages SET status = 'running' WHERE patient_id = :p AND id = :m AND status = 'pending'"
        ),
        {"p": message.patient_id, "m": message.id},
    ).rowcount
    if won != 1:
        return None
    conn.execute(text("SET LOCAL synchronous_commit = off"))
    if owner is not None:
        conn.execute(
            text("INSERT INTO run_claims (message_id, run_patient_id, owner) VALUES (:m, :p, :o)"),
            {"m": message.id, "p": message.patient_id, "o": owner},
        )
    return _history(conn, message)


def append_events(
    db: Database,
    *,
    patient_id: str,
    message_id: str,
    events: list[StoredEvent],
    final: tuple[str, str | None, dict[str, Any] | None] | None = None,
    outcome: Outcome | None = None,
) -> None:
    """Write a batch of events; with `final` = (status, answer, metrics) also close the message.

    One transaction, so a message is never marked finished without its last event, nor has a
    last event without being marked finished — nor without the audit row of its `outcome`.
    """
    with patient_transaction(db.app, patient_id) as conn:
        if events:
            conn.execute(
                text(
                    "INSERT INTO message_events (patient_id, message_id, seq, type, payload) "
                    "VALUES (:p, :m, :s, :t, CAST(:d AS jsonb))"
                ),
                [
                    {
                        "p": patient_id,
                        "m": message_id,
                        "s": e.seq,
                        "t": e.type,
                        "d": orjson.dumps(e.payload).decode(),
                    }
                    for e in events
                ],
            )
        if final is not None:
            status, answer, metrics = final
            conn.execute(
                text(
                    "UPDATE messages SET status = :s, answer = :a, metrics = CAST(:x AS jsonb), "
                    "finished_at = now() WHERE patient_id = :p AND id = :m"
                ),
                {
                    "s": status,
                    "a": answer,
                    "x": orjson.dumps(metrics).decode() if metrics is not None else None,
                    "p": patient_id,
                    "m": message_id,
                },
            )
            conn.execute(text("DELETE FROM run_claims WHERE message_id = :m"), {"m": message_id})
        if outcome is not None:
            write_audit(
                conn,
                **answer_audit(
                    outcome, patient_id, message_id, conversation_of(conn, patient_id, message_id)
                ),
            )


def answer_audit(
    outcome: Outcome, patient_id: str, message_id: str, conversation_id: str | None
) -> dict[str, Any]:
    """The answer's audit row (`write_audit`'s keywords): who asked, how it ended."""
    return {
        "actor": outcome.actor,
        "role": outcome.role,
        "action": "answer",
        "outcome": outcome.outcome,
        "target_patient_id": patient_id,
        "detail": f"message {message_id}: {outcome.detail}",
        "conversation_id": conversation_id,
    }


class ClosedElsewhere(RuntimeError):
    """The message was closed by another writer (the sweeper) before these events were stored."""


def append_events_resuming(
    db: Database,
    *,
    patient_id: str,
    message_id: str,
    events: list[StoredEvent],
    final: tuple[str, str | None, dict[str, Any] | None] | None = None,
    outcome: Outcome | None = None,
) -> None:
    """`append_events`, run again on a fresh connection if its connection was killed, and
    resumed after a commit whose reply was lost: the numbers it already stored then come back
    as duplicates. While the message is running only its run writes its events, so those are
    this run's own and the batch goes on after them; a message closed meanwhile by someone else
    raises `ClosedElsewhere` (retrying could never succeed)."""
    kwargs: dict[str, Any] = {
        "patient_id": patient_id,
        "message_id": message_id,
        "final": final,
        "outcome": outcome,
    }
    try:
        retry_after_disconnect(append_events, db, events=events, **kwargs)
        return
    except IntegrityError:
        with patient_transaction(db.app, patient_id) as conn:
            status, stored = conn.execute(
                text(
                    "SELECT m.status, (SELECT COALESCE(max(seq), 0) FROM message_events e "
                    "WHERE e.patient_id = m.patient_id AND e.message_id = m.id) "
                    "FROM messages m WHERE m.patient_id = :p AND m.id = :m"
                ),
                {"p": patient_id, "m": message_id},
            ).one()
    if status in TERMINAL_STATUSES:
        if final is not None and status == final[0] and events and stored == events[-1].seq:
            return  # it was this very write that committed
        raise ClosedElsewhere(message_id)
    append_events(db, events=[e for e in events if e.seq > stored], **kwargs)


def conversation_of(conn: Connection, patient_id: str, message_id: str) -> str | None:
    return conn.execute(
        text("SELECT conversation_id FROM messages WHERE patient_id = :p AND id = :m"),
        {"p": patient_id, "m": message_id},
    ).scalar_one_or_none()


def stored_events(
    db: Database, *, patient_id: str, message_id: str, after_seq: int
) -> tuple[list[StoredEvent], str]:
    """Events after `after_seq`, in order, and the message's status.

    The status is read first: a message is closed in the same transaction as its last event,
    so if it was already closed then, the events read next include the last one.
    """
    with patient_transaction(db.app, patient_id) as conn:
        status = conn.execute(
            text("SELECT status FROM messages WHERE patient_id = :p AND id = :m"),
            {"p": patient_id, "m": message_id},
        ).scalar_one()
        rows = conn.execute(
            text(
                "SELECT seq, type, payload FROM message_events WHERE patient_id = :p AND message_id = :m "
                "AND seq > :s ORDER BY seq"
            ),
            {"p": patient_id, "m": message_id, "s": after_seq},
        ).all()
    return [StoredEvent(r.seq, r.type, r.payload) for r in rows], status
