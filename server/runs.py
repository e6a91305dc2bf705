"""One agent run per message, persisted as it goes, replayable by any number of readers.

* **Once.** A run starts only after `store.claim` flipped the message from pending to
  running — an UPDATE that exactly one caller wins, across processes — so two tabs, a
  reconnect or a retry never run the tools twice (a reconnect during booking cannot book
  twice). In this process a per-message lock makes the claim-and-register step atomic.
* **Persisted.** Events are numbered (1, 2, …: the SSE ids) and written in batches: whatever
  has queued since the last commit, `WRITE_LINGER_S` after the first of it (group commit).
  The terminal event is written together with the message's final status and whatever was
  still queued, in one transaction, and readers see it only after that commit, so "done" on
  screen means "done" in the database. A quick answer thus costs one write transaction
  instead of one per event.
* **Off the path.** The first event waits only for the opening (server/opening.py: one
  query on the event loop) or, failing that, the guard's claim in a request thread. An event
  write is one query on the event loop too (server/closing.py; a writer thread of its own,
  `WRITER_THREADS`, if that fails), and a closing write waits (up to `CLOSE_DEFER_S`) while
  other answers have not sent their first event (`FirstEvents`), so under load a new
  answer's opening does not queue behind other answers' bookkeeping.
* **Replay.** A reader that arrives late, or reconnects with Last-Event-ID, first gets the
  events after that id, then follows the live run. A reader in another process (or after
  the run finished) reads the stored events and polls for more until the message is closed.
* **Cancel.** When the last reader leaves, the run waits `stream_grace_s` for a reconnect
  and is then cancelled: the model call is abandoned (the agent's generator is closed) and
  the message is closed as `cancelled` with a stored error event, never left half-written.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool, PoolTimeout
from sqlalchemy.exc import SQLAlchemyError
from starlette.concurrency import run_in_threadpool

from agent.base import Agent, AgentRequest, Turn
from agent.events import DoneEvent, ErrorEvent, is_terminal
from records.capabilities import WriteMode
from records.database import Database, retry_after_disconnect
from records.settings import Settings
from server import closing, store
from server.store import StoredEvent, StoredMessage
from tools.catalog import writing_tools
from tools.scope import PatientScope

log = logging.getLogger(__name__)

POLL_INTERVAL_S = 0.25
WRITER_THREADS = 2  # event writes of all runs; group commit makes their batches grow under load
WRITE_LINGER_S = 0.05  # how long a queued event may wait for company before it is written
CLOSE_DEFER_S = 0.05  # how long a closing write may wait for other answers' first events

CANCELLED = ErrorEvent(kind="cancelled", message="The answer was stopped because the page was closed.")
CANCELLED_DURING_WRITE = ErrorEvent(
    kind="cancelled",
    message="The answer was stopped because the page was closed while {action} was in progress; it "
    "either finished or was not made at all, never half-done. Ask to list your appointments to see which.",
)
TIMED_OUT = ErrorEvent(kind="timeout", message="The answer took too long and was stopped. Please try again.")
FAILED = ErrorEvent(kind="internal", message="Something went wrong while answering. Please try again.")
UNFINISHED = ErrorEvent(kind="internal", message="The answer ended without finishing. Please ask again.")
STALLED = ErrorEvent(kind="timeout", message="The answer is not progressing. Please ask again.")
SHUTDOWN = ErrorEvent(kind="unavailable", message="The service restarted while answering. Please ask again.")
STORAGE_FAILED = ErrorEvent(
    kind="database",
    message="The record database stopped responding while answering, so the answer was not kept. "
    "Please ask again in a moment.",
)
NOT_SAVED = ErrorEvent(
    kind="database",
    message="The record database stopped responding, so this answer was not kept. "
    "Please ask again in a moment.",
)
UNREADABLE = ErrorEvent(
    kind="database",
    message="The record database stopped responding, so this answer cannot be shown right now. "
    "Reload the page in a moment to see how it ended.",
)
CLOSE_RETRY_S = (0.5, 1.0, 2.0, 4.0, 8.0)  # then every 8 s until run_timeout_s has passed
FINAL_RETRY_S = (0.5, 1.0, 2.0)  # the closing write, before the answer is given up as not kept
READ_RETRY_S = (0.5, 1.0, 2.0)  # a reader's poll of stored events, before it is told it cannot follow


TERMINAL_TYPES = frozenset({"done", "error"})


def withdrawing(error: ErrorEvent, text_seen: bool) -> ErrorEvent:
    """The error as readers get it: marked `text_withdrawn` when text was streamed before it."""
    return (
        error.model_copy(update={"text_withdrawn": True}) if text_seen and not error.text_withdrawn else error
    )


Batch = list[StoredEvent]  # events a reader can send together: all there were when it looked


def _ending_terminally(
    read: Callable[..., AsyncIterator[Batch]],
) -> Callable[..., AsyncIterator[Batch]]:
    """Whatever happens on the way, a stream of `read(self, message, …, after_seq=…)` ends with
    a terminal event: if reading fails (the database stopped under a reader of stored events)
    or the events run out without one, the reader is sent an error — not stored, since this
    reader does not own the run — instead of a stream that is simply cut off."""

    @functools.wraps(read)
    async def reading(self: Any, message: StoredMessage, **kwargs: Any) -> AsyncIterator[Batch]:
        last, text_seen = kwargs["after_seq"], False
        try:
            async for batch in read(self, message, **kwargs):
                end = next((i + 1 for i, e in enumerate(batch) if e.type in TERMINAL_TYPES), None)
                yield batch[:end]
                if end is not None:
                    return
                last = batch[-1].seq
                text_seen = text_seen or any(e.type == "text" for e in batch)
        except Exception as exc:
            log.warning("the answer stream of message %s broke off: %r", message.id, exc)
            ending = UNREADABLE if isinstance(exc, SQLAlchemyError) else FAILED
        else:
            ending = UNFINISHED
        yield [StoredEvent(last + 1, ending.type, withdrawing(ending, text_seen).model_dump(mode="json"))]

    return reading


class FirstEvents:
    """Answer streams of this process that have not sent their first event yet.

    A run that has published its first event, and later its closing write (events, final
    status, audit row), wait for them, each up to `CLOSE_DEFER_S`: the first events of answers
    that arrive together are sent before the rest of the runs and the bookkeeping of the
    answers among them, which would otherwise take the event loop and the database from their
    openings. "done" still reaches a reader only after its closing write has committed."""

    def __init__(self) -> None:
        self.waiting = 0
        self._quiet = asyncio.Event()
        self._quiet.set()

    def begin(self) -> Callable[[], None]:
        """Count one stream; the returned function uncounts it (once, however often called)."""
        self.waiting += 1
        self._quiet.clear()
        ended = False

        def end() -> None:
            nonlocal ended
            if not ended:
                ended = True
                self.waiting -= 1
                if self.waiting == 0:
                    self._quiet.set()

        return end

    async def quiet(self, limit_s: float) -> None:
        if self.waiting:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(limit_s):
                    await self._quiet.wait()


class StorageFailed(ConnectionError):
    """The events of a run could not be written: the run stops instead of streaming unsaved."""


@dataclass
class Run:
    message: StoredMessage
    events: list[StoredEvent] = field(default_factory=list)  # published to readers, in order
    finished: bool = False
    readers: int = 0
    task: asyncio.Task | None = None
    cancel_timer: asyncio.TimerHandle | None = None
    wakeup: asyncio.Event = field(default_factory=asyncio.Event)
    next_seq: int = 1
    unsaved: list[StoredEvent] = field(default_factory=list)
    flush_timer: asyncio.TimerHandle | None = None  # a batch lingers for company (`WRITE_LINGER_S`)
    flushing: asyncio.Task | None = None  # the batch being written
    write_failed: bool = False
    closing: bool = False
    close_later: asyncio.Task | None = None
    writes_in_flight: dict[str, str] = field(default_factory=dict)  # tool call id → writing tool name
    actor: str = ""
    role: str = ""

    @property
    def key(self) -> tuple[str, str]:
        return (self.message.patient_id, self.message.id)

    def notify(self) -> None:
        woken, self.wakeup = self.wakeup, asyncio.Event()
        woken.set()


class RunManager:
    def __init__(
        self,
        *,
        db: Database,
        settings: Settings,
        agent: Agent,
        run_in_thread: Callable[..., Any] | None = None,
        owner: str | None = None,
        pool: AsyncConnectionPool | None = None,
    ) -> None:
        self.db = db
        self.pool = pool  # the openings' asyncio pool: event writes in one round trip (server.closing)
        self.owner = owner  # this process's id in run_claims (server.sweeper), if it keeps one
        self.settings = settings
        self.agent = agent
        self._runs: dict[tuple[str, str], Run] = {}
        self._locks: dict[tuple[str, str], asyncio.Lock] = {}
        self._to_thread = run_in_thread or run_in_threadpool  # reads and claims: request threads
        self._writes: ThreadPoolExecutor | None = None
        self._write_in_thread = run_in_thread or self._in_write_thread
        self._closing: set[asyncio.Task] = set()  # messages waiting for the database to be closed
        self.started = 0  # runs started by this process (tests and the benchmark read it)
        self.first_events = FirstEvents()  # streams not yet past their first event (server.routes)

    async def _in_write_thread(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        """Run an event write in the writers' own threads (kept off the first event's path)."""
        if self._writes is None:
            self._writes = ThreadPoolExecutor(max_workers=WRITER_THREADS, thread_name_prefix="run-writer")
        return await asyncio.get_running_loop().run_in_executor(
            self._writes, functools.partial(fn, *args, **kwargs)
        )

    # --- starting ----------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def opening(self, patient_id: str, message_id: str) -> AsyncIterator[bool]:
        """Hold the message's start lock; yields whether a run of it is live in this process.

        A caller that claims the message inside (`store.claim_in`) calls `adopt` before
        leaving, so that a second reader waiting on the lock finds the run and follows it.
        """
        key = (patient_id, message_id)
        lock = self._locks.setdefault(key, asyncio.Lock())
        try:
            async with lock:
                yield key in self._runs
        finally:
            if not lock.locked() and key not in self._runs:
                self._locks.pop(key, None)

    def adopt(
        self,
        message: StoredMessage,
        turns: list[Turn],
        *,
        actor: str,
        role: str,
        writes: WriteMode | None = None,
    ) -> Run:
        """Start the run of a message the caller has just claimed (inside `opening`, with
        `store.claim_in(…, owner=self.owner)`); pass the run to `events(live=…)`, which follows
        it even if it has finished in the meantime."""
        return self._runs.get((message.patient_id, message.id)) or self._start(
            message, turns, actor=actor, role=role, writes=writes
        )

    # --- readers ---------------------------------------------------------------------------

    @_ending_terminally
    async def events(
        self,
        message: StoredMessage,
        *,
        actor: str,
        role: str,
        after_seq: int,
        writes: WriteMode | None = None,
        live: Run | None = None,
    ) -> AsyncIterator[Batch]:
        """Every event after `after_seq`, live when the run is here, from storage otherwise;
        always ending with a terminal event (`_ending_terminally`). In batches: whatever had
        been published (or stored) when the reader looked, so that the events a run produced
        while its reader waited for the event loop go out in one write, never split later."""
        if live is not None:
            async for batch in self._follow_live(live, after_seq):
                yield batch
            return
        key = (message.patient_id, message.id)
        lock = self._locks.setdefault(key, asyncio.Lock())
        async with lock:
            run = self._runs.get(key)
            if run is None and message.status == "pending":
                turns = await self._to_thread(store.claim, self.db, message, self.owner)
                if turns is not None:
                    run = self._start(message, turns, actor=actor, role=role, writes=writes)
        if not lock.locked() and key not in self._runs:
            self._locks.pop(key, None)
        if run is not None:
            async for batch in self._follow_live(run, after_seq):
                yield batch
        else:
            async for batch in self._follow_stored(message, after_seq):
                yield batch

    async def _follow_live(self, run: Run, after_seq: int) -> AsyncIterator[Batch]:
        run.readers += 1
        if run.cancel_timer is not None:
            run.cancel_timer.cancel()
            run.cancel_timer = None
        try:
            index = next((i for i, e in enumerate(run.events) if e.seq > after_seq), len(run.events))
            while True:
                wakeup = run.wakeup
                if index < len(run.events):
                    batch = run.events[index:]
                    index += len(batch)
                    yield batch
                    continue  # more may have been published while the batch was sent
                if run.finished:
                    return
                await wakeup.wait()
        finally:
            run.readers -= 1
            if run.readers == 0 and not run.finished:
                self._schedule_cancel(run)

    async def _follow_stored(self, message: StoredMessage, after_seq: int) -> AsyncIterator[Batch]:
        """For a run owned by another process (or finished): stored events, polled until closed."""
        last, text_seen = after_seq, False
        idle_since = time.monotonic()
        while True:
            events, status = await self._poll_stored(message, last)
            if events:
                yield events
                last = events[-1].seq
                text_seen = text_seen or any(e.type == "text" for e in events)
            if status in store.TERMINAL_STATUSES:
                return
            if events:
                idle_since = time.monotonic()
            elif time.monotonic() - idle_since > self.settings.run_timeout_s:
                # not persisted: this process does not own the run; the reader is told, that is all
                yield [
                    StoredEvent(
                        last + 1, STALLED.type, withdrawing(STALLED, text_seen).model_dump(mode="json")
                    )
                ]
                return
            await asyncio.sleep(POLL_INTERVAL_S)

    async def _poll_stored(self, message: StoredMessage, after_seq: int) -> tuple[list[StoredEvent], str]:
        """One poll, retried over a short database outage (READ_RETRY_S); then the error is raised."""
        for wait in (*READ_RETRY_S, None):
            try:
                return await self._to_thread(
                    retry_after_disconnect,
                    store.stored_events,
                    self.db,
                    patient_id=message.patient_id,
                    message_id=message.id,
                    after_seq=after_seq,
                )
            except SQLAlchemyError:
                if wait is None:
                    raise
                await asyncio.sleep(wait)
        raise AssertionError("unreachable")

    # --- the run ---------------------------------------------------------------------------

    def _start(
        self,
        message: StoredMessage,
        turns: list[Turn],
        *,
        actor: str,
        role: str,
        writes: WriteMode | None = None,
    ) -> Run:
        run = Run(message=message, next_seq=message.last_seq + 1, actor=actor, role=role)
        self._runs[run.key] = run
        self.started += 1
        run.task = asyncio.create_task(
            self._drive(run, turns, actor=actor, role=role, writes=writes), name=f"run-{message.id}"
        )
        return run

    def _schedule_cancel(self, run: Run) -> None:
        if run.task is None or run.task.done():
            return
        grace = self.settings.stream_grace_s
        if grace <= 0:
            run.task.cancel()
        else:
            run.cancel_timer = asyncio.get_running_loop().call_later(grace, run.task.cancel)

    async def _drive(
        self, run: Run, turns: list[Turn], *, actor: str, role: str, writes: WriteMode | None = None
    ) -> None:
        terminal: DoneEvent | ErrorEvent | None = None
        try:
            request = self._request(run.message, turns, actor=actor, role=role, writes=writes)
            async with asyncio.timeout(self.settings.run_timeout_s):
                async with contextlib.aclosing(self.agent.run(request)) as stream:
                    first = True
                    async for event in stream:
                        if is_terminal(event):
                            terminal = event
                            break
                        self._publish(run, event.type, event.model_dump(mode="json"), store_soon=not first)
                        self._track_writes(run, event)
                        if run.write_failed:
                            raise StorageFailed("events could not be stored")
                        if first:  # the rest of the run comes after this answer's first event is
                            first = False  # out, and other answers' (up to CLOSE_DEFER_S); its
                            await self.first_events.quiet(CLOSE_DEFER_S)  # batch lingers from here
                            self._store_soon(run)
            terminal = terminal or UNFINISHED
        except asyncio.CancelledError:
            terminal = CANCELLED
            if run.writes_in_flight:  # the tool's transaction finished (or never began) first
                action = next(iter(run.writes_in_flight.values())).replace("_", " ")
                terminal = ErrorEvent(
                    kind="cancelled", message=CANCELLED_DURING_WRITE.message.format(action=action)
                )
        except TimeoutError:
            terminal = TIMED_OUT
        except StorageFailed:
            terminal = STORAGE_FAILED
        except Exception:
            log.exception("run for message %s failed", run.message.id)
            terminal = FAILED
        await asyncio.shield(self._close(run, terminal))

    @staticmethod
    def _request(
        message: StoredMessage, turns: list[Turn], *, actor: str, role: str, writes: WriteMode | None = None
    ) -> AgentRequest:
        scope = PatientScope(
            patient_id=message.patient_id,
            role=role,  # type: ignore[arg-type]
            actor=actor,
            conversation_id=message.conversation_id,
            message_id=message.id,
            writes=writes,  # the account's, from records.capabilities
        )
        return AgentRequest(
            scope=scope,
            question=message.question,
            history=turns,
            ask_scope=message.scope,
            now=message.pinned_now,
        )

    @staticmethod
    def _track_writes(run: Run, event: Any) -> None:
        """Which booking/cancelling calls have started but not reported back (for a cancel)."""
        if event.type == "tool_call" and event.name in writing_tools():
            run.writes_in_flight[event.id] = event.name
        elif event.type == "tool_result":
            run.writes_in_flight.pop(event.id, None)

    def _publish(self, run: Run, type_: str, payload: dict[str, Any], *, store_soon: bool = True) -> None:
        event = StoredEvent(run.next_seq, type_, payload)
        run.next_seq += 1
        run.events.append(event)
        run.unsaved.append(event)
        if store_soon:
            self._store_soon(run)
        run.notify()

    def _store_soon(self, run: Run) -> None:
        """Write what is unsaved `WRITE_LINGER_S` from now, unless a write is already coming."""
        if run.unsaved and run.flush_timer is None and run.flushing is None and not run.closing:
            run.flush_timer = asyncio.get_running_loop().call_later(WRITE_LINGER_S, self._write_batch, run)

    def _write_batch(self, run: Run) -> None:
        """Commit whatever has queued since the first unsaved event, `WRITE_LINGER_S` ago (a
        burst of events is one transaction); unless the run is closing, whose final write takes
        the queue with it. No task per run: a quick answer's events all go with that final write.

        The write is never cancelled: a cancelled `to_thread` whose function has not started yet
        is dropped by the executor, which would silently lose the batch it carried."""
        run.flush_timer = None
        if not run.closing:
            run.flushing = asyncio.create_task(self._batch_written(run), name=f"events-{run.message.id}")

    async def _batch_written(self, run: Run) -> None:
        try:
            await self._flush(run)
        finally:
            run.flushing = None
            self._store_soon(run)  # what was published while this batch was being written

    async def _flush(
        self,
        run: Run,
        final: tuple[str, str | None, dict[str, Any] | None] | None = None,
        outcome: store.Outcome | None = None,
    ) -> None:
        batch, run.unsaved = run.unsaved, []
        if not batch and final is None:
            return
        try:
            await self._store(run, batch, final, outcome)
        except Exception:
            log.exception("could not store events of message %s", run.message.id)
            run.unsaved = batch + run.unsaved  # kept for the closing write: a replay shows them too
            run.write_failed = True
            if final is not None:
                raise

    async def _store(
        self,
        run: Run,
        batch: list[StoredEvent],
        final: tuple[str, str | None, dict[str, Any] | None] | None,
        outcome: store.Outcome | None,
    ) -> None:
        """One transaction: ONE round trip on the event loop (`server.closing`) when this
        manager has the pool; if that fails, or without a pool, `store.append_events_resuming`
        in a writer thread (again after a killed connection or a lost reply)."""
        where = {"patient_id": run.message.patient_id, "message_id": run.message.id}
        if self.pool is not None:
            try:
                await closing.write_events(
                    self.pool,
                    **where,
                    conversation_id=run.message.conversation_id,
                    events=batch,
                    final=final,
                    outcome=outcome,
                )
                return
            except (psycopg.Error, PoolTimeout, OSError) as exc:
                log.info("event write of message %s goes to the writer thread: %r", run.message.id, exc)
        await self._write_in_thread(
            store.append_events_resuming, self.db, **where, events=batch, final=final, outcome=outcome
        )

    async def _close(self, run: Run, terminal: DoneEvent | ErrorEvent) -> None:
        run.closing = True
        if run.flush_timer is not None:
            run.flush_timer.cancel()
            run.flush_timer = None
        if run.flushing is not None:
            await run.flushing  # a write in progress finishes first; the rest goes with the final one
        await self.first_events.quiet(CLOSE_DEFER_S)  # other answers' first events go first
        text_seen = any(e.type == "text" for e in run.events)
        if isinstance(terminal, ErrorEvent):
            terminal = withdrawing(terminal, text_seen)
        payload = terminal.model_dump(mode="json")
        event = StoredEvent(run.next_seq, terminal.type, payload)
        run.unsaved.append(event)
        if isinstance(terminal, DoneEvent):
            final = (
                "done",
                terminal.answer,
                {**terminal.metrics, "mode": terminal.mode, "cost_usd": terminal.cost_usd},
            )
        else:
            final = ("cancelled" if terminal.kind == "cancelled" else "error", None, {"error": terminal.kind})
        if not await self._final_flush(run, final, self._outcome(run, terminal)):
            # the database is unreachable: tell the readers now that this is no answer (the text
            # they were streamed is withdrawn), and close the message — with the events it could
            # not write and its audit row — as soon as the database is back, never left "running"
            payload = withdrawing(NOT_SAVED, text_seen).model_dump(mode="json")
            event = StoredEvent(event.seq, "error", payload)
            pending = [e for e in run.unsaved if e.seq < event.seq] + [event]
            run.unsaved = []
            run.close_later = asyncio.create_task(
                self._close_later(run, pending), name=f"close-{run.message.id}"
            )
            self._closing.add(run.close_later)
            run.close_later.add_done_callback(self._closing.discard)
        run.next_seq += 1
        run.events.append(event)
        run.finished = True
        run.notify()
        self._runs.pop(run.key, None)
        self._locks.pop(run.key, None)

    async def _final_flush(
        self, run: Run, final: tuple[str, str | None, dict[str, Any] | None], outcome: store.Outcome
    ) -> bool:
        """The closing write, retried over a short outage (FINAL_RETRY_S): False if it failed.

        The readers wait for it — "done" on screen means "done" in the database — so a
        database that is back within a few seconds still delivers the answer.
        """
        for wait in (*FINAL_RETRY_S, None):
            try:
                await self._flush(run, final, outcome)
                return True
            except Exception:
                if wait is None:
                    return False
                await asyncio.sleep(wait)
        raise AssertionError("unreachable")

    @staticmethod
    def _outcome(run: Run, terminal: DoneEvent | ErrorEvent) -> store.Outcome:
        """The audit row of the answer: who asked, how it ended (and why, for errors)."""
        if isinstance(terminal, DoneEvent):
            return store.Outcome(run.actor, run.role, "ok", f"answered ({terminal.mode})")
        outcome = "cancelled" if terminal.kind == "cancelled" else "error"
        return store.Outcome(run.actor, run.role, outcome, f"{terminal.kind}: {terminal.message}")

    async def _close_later(self, run: Run, events: list[StoredEvent]) -> None:
        """Retry closing a message whose final write failed, until run_timeout_s has passed.

        `events` are those not yet stored, ending with the error the readers were shown."""
        deadline = time.monotonic() + self.settings.run_timeout_s
        outcome = self._outcome(run, ErrorEvent.model_validate(events[-1].payload))
        for attempt in range(10_000):
            await asyncio.sleep(CLOSE_RETRY_S[min(attempt, len(CLOSE_RETRY_S) - 1)])
            try:
                await self._write_in_thread(
                    store.append_events_resuming,
                    self.db,
                    patient_id=run.message.patient_id,
                    message_id=run.message.id,
                    events=events,
                    final=("error", None, {"error": "database"}),
                    outcome=outcome,
                )
                return
            except store.ClosedElsewhere:
                log.warning(
                    "message %s was closed by another writer before its ending was stored", run.message.id
                )
                return
            except Exception:
                if time.monotonic() > deadline:
                    log.error(
                        "message %s could not be closed: the database is still unreachable", run.message.id
                    )
                    return

    # --- lifecycle -------------------------------------------------------------------------

    def running(self) -> int:
        return len(self._runs)

    async def shutdown(self) -> None:
        """Cancel every run (each closes its message as cancelled) and wait for them."""
        tasks = [r.task for r in self._runs.values() if r.task is not None]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        for task in list(self._closing):  # closing messages after a database outage: give up
            task.cancel()
        if self._writes is not None:
            self._writes.shutdown(wait=False)
            self._writes = None
