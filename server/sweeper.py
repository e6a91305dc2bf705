"""Closing the answers of a server process that died mid-answer (crash, kill -9, power loss).

A message is `running` while one process answers it. If that process dies, nobody would ever
close it: its stream would only ping until the run timeout, and every reload of the
conversation would hold one of the account's stream slots.

Each server process takes an id and holds a PostgreSQL session-level advisory lock on it for
its whole life, on a connection of its own; the database releases the lock the moment that
connection dies, however the process ended. Claims (`run_claims`, written with the
pending → running claim and deleted with the final event) name their owner, so a sweeper
asks the database a precise question — is the owner's lock free? — rather than guessing from
timestamps, and it works across any number of processes. The sweep runs when a process
starts and then every `SWEEP_INTERVAL_S`.

A swept message is closed like any other failed answer: an `error` event ("the service
restarted while answering"), status `error`, and its audit row, in one transaction.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass

import orjson
from sqlalchemy import Connection, text

from records.audit import write_audit
from records.database import Database, patient_transaction

log = logging.getLogger(__name__)

SWEEP_INTERVAL_S = 10.0
RESTARTED = {
    "type": "error",
    "kind": "unavailable",
    "message": "The service restarted while answering. Please ask again.",
}
_LOCK_SQL = "hashtextextended(:owner, 0)"


@dataclass
class RunOwner:
    """This process's identity in `run_claims`, alive as long as its lock connection is."""

    id: str
    _conn: Connection | None = None

    @classmethod
    def start(cls, db: Database) -> RunOwner:
        owner = cls(id=f"run-owner-{uuid.uuid4().hex}")
        owner._conn = db.admin.connect()
        owner._conn.execute(text(f"SELECT pg_advisory_lock({_LOCK_SQL})"), {"owner": owner.id})
        owner._conn.commit()
        return owner

    def stop(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(Exception):
                # unlock first: the server ends a closed session's backend (and frees its locks)
                # only some time after the socket closes, so a sweep right after a clean stop
                # could still see this owner alive
                self._conn.execute(text(f"SELECT pg_advisory_unlock({_LOCK_SQL})"), {"owner": self.id})
                self._conn.commit()
            with contextlib.suppress(Exception):
                # really close the session (a pooled connection would keep it, and the lock)
                self._conn.invalidate()
                self._conn.close()
            self._conn = None


def owner_is_alive(db: Database, owner: str) -> bool:
    """True while the process holding `owner`'s advisory lock is connected."""
    with db.admin.connect() as conn:
        acquired = conn.execute(text(f"SELECT pg_try_advisory_lock({_LOCK_SQL})"), {"owner": owner}).scalar()
        if acquired:
            conn.execute(text(f"SELECT pg_advisory_unlock({_LOCK_SQL})"), {"owner": owner})
        conn.commit()
    return not acquired


def close_orphan(db: Database, *, patient_id: str, message_id: str, owner: str) -> bool:
    """Close one message its dead owner left running; False if it was closed meanwhile."""
    with patient_transaction(db.app, patient_id) as conn:
        closed = conn.execute(
            text(
                "UPDATE messages SET status = 'error', metrics = CAST(:x AS jsonb), finished_at = now() "
                "WHERE patient_id = :p AND id = :m AND status = 'running' RETURNING conversation_id"
            ),
            {"p": patient_id, "m": message_id, "x": orjson.dumps({"error": "unavailable"}).decode()},
        ).one_or_none()
        conn.execute(
            text("DELETE FROM run_claims WHERE message_id = :m AND owner = :o"), {"m": message_id, "o": owner}
        )
        if closed is None:
            return False
        seq, text_seen = conn.execute(
            text(
                "SELECT COALESCE(max(seq), 0) + 1, COALESCE(bool_or(type = 'text'), false) "
                "FROM message_events WHERE patient_id = :p AND message_id = :m"
            ),
            {"p": patient_id, "m": message_id},
        ).one()
        ending = {**RESTARTED, "text_withdrawn": text_seen}  # the streamed text was no answer
        conn.execute(
            text(
                "INSERT INTO message_events (patient_id, message_id, seq, type, payload) "
                "VALUES (:p, :m, :s, 'error', CAST(:d AS jsonb))"
            ),
            {"p": patient_id, "m": message_id, "s": seq, "d": orjson.dumps(ending).decode()},
        )
        write_audit(
            conn,
            actor="sweeper",
            role="system",
            action="answer",
            outcome="error",
            target_patient_id=patient_id,
            detail=f"message {message_id}: closed after its server process ({owner}) died",
            conversation_id=closed.conversation_id,
        )
    return True


def sweep(db: Database, *, me: str | None = None) -> int:
    """Close every message whose owner process is gone; returns how many were closed."""
    with db.admin.connect() as conn:
        claims = conn.execute(
            text("SELECT message_id, run_patient_id, owner FROM run_claims WHERE owner IS DISTINCT FROM :me"),
            {"me": me},
        ).all()
    alive: dict[str, bool] = {}
    closed = 0
    for claim in claims:
        if claim.owner not in alive:
            alive[claim.owner] = owner_is_alive(db, claim.owner)
        if not alive[claim.owner]:
            closed += close_orphan(
                db, patient_id=claim.run_patient_id, message_id=claim.message_id, owner=claim.owner
            )
    if closed:
        log.warning("closed %d answer(s) left running by a server process that died", closed)
    return closed


@contextlib.asynccontextmanager
async def sweeping(db: Database, interval_s: float = SWEEP_INTERVAL_S) -> AsyncIterator[RunOwner | None]:
    """For a server's lifespan: hold this process's owner lock, sweep at once and periodically.

    Yields None when the lock cannot be taken (the database is away at start): runs are then
    not claimed in `run_claims` at all, rather than claimed by an owner that looks dead.
    """
    try:
        owner = await asyncio.to_thread(RunOwner.start, db)
    except Exception:
        log.warning("no run-owner lock (database unavailable?): answers of this process are not swept")
        yield None
        return

    async def loop() -> None:
        while True:
            try:
                await asyncio.to_thread(sweep, db, me=owner.id)
            except Exception:  # the database may be away; the next round tries again
                log.warning("the stale-answer sweep could not run", exc_info=True)
            await asyncio.sleep(interval_s)

    task = asyncio.create_task(loop(), name="stale-run-sweeper")
    try:
        yield owner
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await asyncio.to_thread(owner.stop)
