"""One agent run per message, persisted as it goes, replayable by any number of readers.

* **Once.** A run starts only after `store.claim` flipped the message from pending to
  running — an UPDATE that exactly one caller wins, across processes — so two tabs, a
  reconnect or a retry never run the tools twice (a reconnect during booking cannot book
  twice). In this process a per-message lock makes the claim-and-register step atomic.
* **Persisted.** Events are numbered (1, 2, …: the SSE ids) and written by a per-run writer
  that takes whatever has queued since its last commit (group commit: one transaction per
  batch under load, one per event when idle). The terminal event is written together with
  the message's final status, and readers see it only after that commit, so "done" on screen
  means "done" in the database.
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
import logging
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from agent.base import Agent, AgentRequest, Turn
from agent.events import DoneEvent, ErrorEvent, is_terminal
from records.database import Database
from records.settings import Settings
from server import store
from server.store import StoredEvent, StoredMessage
from tools.catalog import writing_tools
from tools.scope import PatientScope

log = logging.getLogger(__name__)

POLL_INTERVAL_S = 0.25

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
    message="The record database stopped responding, so this answer could not be saved. "
    "Please ask again in a moment.",
)
CLOSE_RETRY_S = (0.5, 1.0, 2.0, 4.0, 8.0)  # then every 8 s until run_timeout_s has passed


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
    writer_wakeup: asyncio.Event = field(default_factory=asyncio.Event)
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
    ) -> None:
        self.db = db
        self.settings = settings
        self.agent = agent
        self._runs: dict[tuple[str, str], Run] = {}
        self._locks: dict[tuple[str, str], asyncio.Lock] = {}
        self._to_thread = run_in_thread or asyncio.to_thread
        self._closing: set[asyncio.Task] = set()  # messages waiting for the database to be closed
        self.started = 0  # runs started by this process (tests and the benchmark read it)

    # --- readers ---------------------------------------------------------------------------

    async def events(
        self, message: StoredMessage, *, actor: str, role: str, after_seq: int
    ) -> AsyncIterator[StoredEvent]:
        """Every event after `after_seq`, live when the run is here, from storage otherwise."""
        key = (message.patient_id, message.id)
        lock = self._locks.setdefault(key, asyncio.Lock())
        async with lock:
            run = self._runs.get(key)
            if run is None and message.status == "pending":
                turns = await self._to_thread(store.claim, self.db, message)
                if turns is not None:
                    run = self._start(message, turns, actor=actor, role=role)
        if not lock.locked() and key not in self._runs:
            self._locks.pop(key, None)
        if run is not None:
            async for event in self._follow_live(run, after_seq):
                yield event
        else:
            async for event in self._follow_stored(message, after_seq):
                yield event

    async def _follow_live(self, run: Run, after_seq: int) -> AsyncIterator[StoredEvent]:
        run.readers += 1
        if run.cancel_timer is not None:
            run.cancel_timer.cancel()
            run.cancel_timer = None
        try:
            index = next((i for i, e in enumerate(run.events) if e.seq > after_seq), len(run.events))
            while True:
                wakeup = run.wakeup
                while index < len(run.events):
                    yield run.events[index]
                    index += 1
                if run.finished:
                    return
                await wakeup.wait()
        finally:
            run.readers -= 1
            if run.readers == 0 and not run.finished:
                self._schedule_cancel(run)

    async def _follow_stored(self, message: StoredMessage, after_seq: int) -> AsyncIterator[StoredEvent]:
        """For a run owned by another process (or finished): stored events, polled until closed."""
        last = after_seq
        idle_since = time.monotonic()
        while True:
            events, status = await self._to_thread(
                store.stored_events,
                self.db,
                patient_id=message.patient_id,
                message_id=message.id,
                after_seq=last,
            )
            for event in events:
                yield event
                last = event.seq
            if status in store.TERMINAL_STATUSES:
                return
            if events:
                idle_since = time.monotonic()
            elif time.monotonic() - idle_since > self.settings.run_timeout_s:
                # not persisted: this process does not own the run; the reader is told, that is all
                yield StoredEvent(last + 1, STALLED.type, STALLED.model_dump(mode="json"))
                return
            await asyncio.sleep(POLL_INTERVAL_S)

    # --- the run ---------------------------------------------------------------------------

    def _start(self, message: StoredMessage, turns: list[Turn], *, actor: str, role: str) -> Run:
        run = Run(message=message, next_seq=message.last_seq + 1, actor=actor, role=role)
        self._runs[run.key] = run
        self.started += 1
        run.task = asyncio.create_task(
            self._drive(run, turns, actor=actor, role=role), name=f"run-{message.id}"
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

    async def _drive(self, run: Run, turns: list[Turn], *, actor: str, role: str) -> None:
        writer = asyncio.create_task(self._write_loop(run), name=f"writer-{run.message.id}")
        terminal: DoneEvent | ErrorEvent | None = None
        try:
            request = self._request(run.message, turns, actor=actor, role=role)
            async with asyncio.timeout(self.settings.run_timeout_s):
                async with contextlib.aclosing(self.agent.run(request)) as stream:
                    async for event in stream:
                        if is_terminal(event):
                            terminal = event
                            break
                        self._publish(run, event.type, event.model_dump(mode="json"))
                        self._track_writes(run, event)
                        if run.write_failed:
                            raise StorageFailed("events could not be stored")
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
        await asyncio.shield(self._close(run, terminal, writer))

    @staticmethod
    def _request(message: StoredMessage, turns: list[Turn], *, actor: str, role: str) -> AgentRequest:
        scope = PatientScope(
            patient_id=message.patient_id,
            role=role,  # type: ignore[arg-type]
            actor=actor,
            conversation_id=message.conversation_id,
            message_id=message.id,
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

    def _publish(self, run: Run, type_: str, payload: dict[str, Any]) -> None:
        event = StoredEvent(run.next_seq, type_, payload)
        run.next_seq += 1
        run.events.append(event)
        run.unsaved.append(event)
        run.writer_wakeup.set()
        run.notify()

    async def _write_loop(self, run: Run) -> None:
        """Commit whatever has queued; returns once `closing` is set and the queue is empty.

        Never cancelled: a cancelled `to_thread` whose function has not started yet is dropped
        by the executor, which would silently lose the batch it carried.
        """
        while True:
            await run.writer_wakeup.wait()
            run.writer_wakeup.clear()
            await self._flush(run)
            if run.closing and not run.unsaved:
                return

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
            await self._to_thread(
                store.append_events,
                self.db,
                patient_id=run.message.patient_id,
                message_id=run.message.id,
                events=batch,
                final=final,
                outcome=outcome,
            )
        except Exception:
            log.exception("could not store events of message %s", run.message.id)
            run.write_failed = True
            if final is not None:
                raise

    async def _close(self, run: Run, terminal: DoneEvent | ErrorEvent, writer: asyncio.Task) -> None:
        run.closing = True
        run.writer_wakeup.set()
        await writer
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
        try:
            await self._flush(run, final, self._outcome(run, terminal))
        except Exception:
            # the database is unreachable: tell the readers now, and close the message (with its
            # audit row) as soon as the database is back, so it is never left "running"
            payload = NOT_SAVED.model_dump(mode="json")
            event = StoredEvent(event.seq, "error", payload)
            run.close_later = asyncio.create_task(
                self._close_later(run, event), name=f"close-{run.message.id}"
            )
            self._closing.add(run.close_later)
            run.close_later.add_done_callback(self._closing.discard)
        run.next_seq += 1
        run.events.append(event)
        run.finished = True
        run.notify()
        self._runs.pop(run.key, None)
        self._locks.pop(run.key, None)

    @staticmethod
    def _outcome(run: Run, terminal: DoneEvent | ErrorEvent) -> store.Outcome:
        """The audit row of the answer: who asked, how it ended (and why, for errors)."""
        if isinstance(terminal, DoneEvent):
            return store.Outcome(run.actor, run.role, "ok", f"answered ({terminal.mode})")
        outcome = "cancelled" if terminal.kind == "cancelled" else "error"
        return store.Outcome(run.actor, run.role, outcome, f"{terminal.kind}: {terminal.message}")

    async def _close_later(self, run: Run, event: StoredEvent) -> None:
        """Retry closing a message whose final write failed, until run_timeout_s has passed."""
        deadline = time.monotonic() + self.settings.run_timeout_s
        outcome = self._outcome(run, ErrorEvent.model_validate(event.payload))
        for attempt in range(10_000):
            await asyncio.sleep(CLOSE_RETRY_S[min(attempt, len(CLOSE_RETRY_S) - 1)])
            try:
                await self._to_thread(
                    store.append_events,
                    self.db,
                    patient_id=run.message.patient_id,
                    message_id=run.message.id,
                    events=[event],
                    final=("error", None, {"error": "database"}),
                    outcome=outcome,
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
