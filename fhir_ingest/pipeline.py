"""Commit bundles in a background thread while the next one is parsed and mapped.

Most of a bundle's write is waiting: for PostgreSQL to run the COPYs, check foreign keys and
maintain indexes, in its own process. A sequential load leaves a core idle during that wait
and the other idle while Python parses and maps. Here the loader prepares bundle N+1 while
this thread writes bundle N, so the database's work overlaps Python's (`chartside bench
ingest` shows the ratio). Nothing about a bundle's guarantees changes: bundles are committed
one at a time, each in its own transaction, in file order, by one thread; at most one
prepared bundle waits in the queue, so memory stays a few bundles whatever the folder.

Everything the loader reports goes through this thread too (in order), so `done` is only
ever called from one thread. An unexpected exception in the thread stops the run: it is
raised again in the loader at its next hand-over or at the end.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from types import TracebackType
from typing import Generic, TypeVar

_STOP = object()
T = TypeVar("T")
Outcome = TypeVar("Outcome")


class BackgroundCommitter(Generic[T, Outcome]):
    """One writer thread: `submit(item)` → `commit(item)` → `done(outcome)`, in order."""

    def __init__(
        self, commit: Callable[[T], Outcome], done: Callable[[Outcome], None], *, name: str = "ingest-writer"
    ) -> None:
        self._commit = commit
        self._done = done
        self._queue: queue.Queue[object] = queue.Queue(maxsize=1)
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def __enter__(self) -> BackgroundCommitter[T, Outcome]:
        self._thread.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._put(_STOP)
        self._thread.join()
        if exc is None:
            self._raise_if_failed()

    def submit(self, item: T) -> None:
        """Queue one item to commit (blocks while the thread is still busy with an earlier one)."""
        self._raise_if_failed()
        self._put(("commit", item))

    def report(self, outcome: Outcome) -> None:
        """Pass an outcome that needs no commit (an unchanged file) to `done`, keeping the order."""
        self._raise_if_failed()
        self._put(("report", outcome))

    def wait_idle(self) -> None:
        """Return once everything submitted so far is committed (and reported)."""
        flushed = threading.Event()
        self._put(("flush", flushed))
        while not flushed.wait(0.05):
            if not self._thread.is_alive():
                break
        self._raise_if_failed()

    def _put(self, message: object) -> None:
        while True:
            if not self._thread.is_alive():
                return  # it died (the error is raised by the caller) or has stopped
            try:
                self._queue.put(message, timeout=0.05)
                return
            except queue.Full:
                continue

    def _raise_if_failed(self) -> None:
        if self._error is not None:
            raise self._error

    def _run(self) -> None:
        while True:
            message = self._queue.get()
            if message is _STOP:
                return
            kind, payload = message  # type: ignore[misc]
            try:
                if kind == "commit":
                    self._done(self._commit(payload))
                elif kind == "report":
                    self._done(payload)
                else:
                    payload.set()
            except BaseException as exc:  # handed to the loader's thread
                self._error = exc
                return
