"""Read, parse and map patient bundles in worker processes while this process writes.

Parsing and mapping are pure Python and hold the GIL, so a thread cannot run them beside the
writer; worker processes can. The writes stay in this process, in file order, each bundle
all or nothing (new patients ready at once may share a transaction, written one by one if it
fails: `loader.together_groups`), so statuses, replace-in-place and the reports are those of
a sequential run. Workers get the reference data (and the checksums already stored) as they are once the
support bundles are loaded; a bundle that brings reference data of its own (a `collection`
bundle with organizations inline) might have been missed by the bundles prepared after it,
so the loader discards what is in flight and goes on in this process.

The workers are forked, not spawned: a spawned interpreter spent ~0.3 s of CPU importing
what a fork inherits for free (two spawned workers made the sample load slower than one
process). A forked child touches nothing it inherited but the reference data: it never uses
the parent's database connections (and exits with `os._exit`, as `multiprocessing` does, so
nothing is closed behind the parent's back). Fork exists on Linux only; elsewhere, and in a
daemonic process (which may not have children), the loader prepares bundles itself.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import sys
import tempfile
import threading
from collections import deque
from collections.abc import Collection, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import suppress
from pathlib import Path

from fhir_ingest.prepare import NotReady, Prepared, prepare
from fhir_ingest.references import ReferenceData
from fhir_ingest.source import read_file
from fhir_ingest.writer import encode_rows

# what a forked worker inherits (set in the parent just before the fork)
_refdata: ReferenceData | None = None
_stored: Collection[str] = frozenset()
_validate = False
_encode = False
# when the reference data is not ready at the fork: set once it is in `_refdata_file`
_published = None  # a multiprocessing Event
_refdata_file = ""


def default_workers(patient_files: int) -> int:
    """How many worker processes `ingest_paths` uses when not told: one per core, at most
    `MAX_WORKERS`, and none where forking is unavailable or there is too little to share."""
    if patient_files < 2 or not sys.platform.startswith("linux"):
        return 0
    if multiprocessing.current_process().daemon:
        return 0
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return 0 if cores < 2 else min(cores, MAX_WORKERS, patient_files)


MAX_WORKERS = 4
# files in flight (`WorkerPool._fill`): at least 2 a worker, at most MAX_AHEAD a worker, and
# beyond 2 a worker only while the files in flight are smaller than LOOKAHEAD_BYTES together
MAX_AHEAD = 8
LOOKAHEAD_BYTES = 16 * 1024 * 1024


def _lower_priority() -> None:
    """Workers yield the CPU to this process: its commits are the chain the run waits on (each
    bundle's COPYs and commit, in order), while workers only need to stay a bundle ahead."""
    with suppress(OSError):
        os.nice(WORKER_NICENESS)


WORKER_NICENESS = 10


def _worker_refdata() -> ReferenceData:
    """The reference data, waited for and loaded once per worker if it came after the fork."""
    global _refdata
    if _refdata is None:
        assert _published is not None
        _published.wait()
        data = Path(_refdata_file).read_bytes()
        if not data:  # the run stopped (`WorkerPool.close` before `publish`)
            raise NotReady
        _refdata = pickle.loads(data)
    return _refdata


def _prepare_in_worker(path_text: str) -> Prepared:
    path = Path(path_text)
    try:
        raw = read_file(path)
    except OSError as exc:
        return Prepared(path=path, error=f"{path}: cannot read: {exc.strerror or exc}")
    if raw.sha256 in _stored:  # unchanged: the loader reports it without a parse
        return Prepared(
            path=path,
            sha256=raw.sha256,
            size_bytes=raw.size,
            phase_seconds={"read": raw.read_seconds},
            phase_cpu_seconds={"read": raw.read_cpu_seconds},
        )
    prepared = prepare(path, _worker_refdata, validate=_validate, raw=raw)
    if prepared.result is not None:
        prepared.result.refdata_layer.parent = None  # send this bundle's own layer, not the snapshot
        if _encode:
            encode_rows(prepared.result)  # bytes for COPY: the writer only sends them
    return prepared


def was_skipped_unchanged(prepared: Prepared) -> bool:
    """A worker found the checksum among the stored ones and did not parse the file."""
    return prepared.result is None and prepared.error is None and bool(prepared.sha256)


class WorkerPool:
    """Prepares files in order with a bounded number in flight; `results()` yields them in order."""

    def __init__(
        self,
        refdata: ReferenceData | None,
        *,
        stored: Collection[str],
        validate: bool,
        workers: int,
        paths: list[Path],
        encode: bool = False,
    ) -> None:
        """Forks the workers and sets them to work on the first of `paths` at once. `encode`:
        the rows come back as COPY bytes (`writer.encode_rows`; only where the writer COPYs).

        `refdata` None: it is not ready yet (the support bundles are still being mapped); the
        workers read, checksum and parse meanwhile, and map once `publish` hands it over.
        """
        global _refdata, _stored, _validate, _encode, _published, _refdata_file
        context = multiprocessing.get_context("fork")
        self._published = None if refdata is not None else context.Event()
        self._refdata_file = ""
        if self._published is not None:
            handle, self._refdata_file = tempfile.mkstemp(prefix="chartside-refdata-")
            os.close(handle)
        _refdata, _stored, _validate, _encode = refdata, frozenset(stored), validate, encode
        _published, _refdata_file = self._published, self._refdata_file
        self.executor = ProcessPoolExecutor(
            max_workers=workers, mp_context=context, initializer=_lower_priority
        )
        self._queue: deque[tuple[Path, Future[Prepared], int]] = deque()
        self._todo = iter(paths)
        self._workers = workers
        self._bytes_ahead = 0  # the sizes of the files in `_queue`
        self._exiting: threading.Thread | None = None
        self._fill()  # the first submit forks the workers (with the globals above)

    def _fill(self) -> None:
        """Keep files in flight: `2 × workers` of them at least; more, up to `LOOKAHEAD_BYTES`
        of files and `MAX_AHEAD × workers`, so that the workers go on while this process is
        busy (committing the support bundles, a slow bundle, …): small bundles are many ahead,
        large ones few, and the memory of what waits here stays bounded."""
        while len(self._queue) < self._workers * MAX_AHEAD and (
            len(self._queue) < self._workers * 2 or self._bytes_ahead < LOOKAHEAD_BYTES
        ):
            path = next(self._todo, None)
            if path is None:
                self._let_workers_go()
                return
            try:
                size = path.stat().st_size
            except OSError:
                size = 0  # the worker reports why it cannot read it
            self._queue.append((path, self.executor.submit(_prepare_in_worker, str(path)), size))
            self._bytes_ahead += size

    def results(self) -> Iterator[tuple[Path, Prepared]]:
        """(path, prepared) in the order of `paths`, keeping the workers ahead (`_fill`)."""
        while self._queue:
            path, future, size = self._queue.popleft()
            prepared = future.result()
            self._bytes_ahead -= size
            self._fill()
            yield path, prepared

    def ready(self) -> bool:
        """Whether the next of `results()` is there already (taking it will not wait)."""
        return bool(self._queue) and self._queue[0][1].done()

    def publish(self, refdata: ReferenceData) -> None:
        """Hand the reference data to the workers (once; only when constructed without it)."""
        assert self._published is not None and not self._published.is_set()
        Path(self._refdata_file).write_bytes(pickle.dumps(refdata, protocol=pickle.HIGHEST_PROTOCOL))
        self._published.set()

    def _let_workers_go(self) -> None:
        """Every file is handed out: each worker exits once it has nothing left to prepare,
        while this process still commits the last bundles (a worker's exit — the kernel freeing
        its memory — took ~10 ms that the run otherwise waited for at `close`)."""
        if self._exiting is None:
            self._exiting = threading.Thread(
                target=self.executor.shutdown, name="ingest-workers-exit", daemon=True
            )
            self._exiting.start()

    def close(self) -> None:
        """Return once every worker has exited (files not started yet are dropped)."""
        global _refdata, _stored, _published, _refdata_file
        if self._published is not None and not self._published.is_set():
            self._published.set()  # the file is empty: waiting workers give up (`NotReady`)
        for _path, future, _size in self._queue:
            future.cancel()  # a run that stops early: what no worker has started is dropped
        if self._exiting is not None:
            self._exiting.join()
        self.executor.shutdown(wait=True, cancel_futures=True)
        if self._refdata_file:
            with suppress(OSError):
                os.unlink(self._refdata_file)
        _refdata, _stored, _published, _refdata_file = None, frozenset(), None, ""
