"""Parse and map patient bundles in worker processes while the main process writes.

Parsing and mapping are pure Python and hold the GIL, so threads would not help; worker
processes prepare the next bundles while the main process runs the COPYs and commits, which
stay in one process and in file order (so statuses and the replace-in-place rule are the
same as a sequential run). Workers get a snapshot of the reference data taken after the
support bundles are loaded. If a bundle brings reference data of its own (a `collection`
bundle with organizations inline), bundles prepared before it was committed might have
missed it, so the loader discards what is in flight and continues sequentially.
"""

from __future__ import annotations

import multiprocessing
import os
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path

from fhir_ingest.prepare import Prepared, prepare
from fhir_ingest.references import ReferenceData

# Below this many bundles to parse, starting workers costs more than it saves.
MIN_FILES_FOR_WORKERS = 12

_refdata: ReferenceData | None = None
_validate = False


def default_workers(pending: int) -> int:
    """Worker processes for `pending` bundles: 0 (prepare in the main process) or up to 2."""
    if pending < MIN_FILES_FOR_WORKERS:
        return 0
    return max(0, min(2, (os.cpu_count() or 1)))


def _init_worker(refdata: ReferenceData, validate: bool) -> None:
    global _refdata, _validate
    _refdata, _validate = refdata, validate


def _prepare_in_worker(path: str) -> Prepared:
    assert _refdata is not None
    prepared = prepare(Path(path), _refdata, validate=_validate)
    if prepared.result is not None:
        prepared.result.refdata_layer.parent = None  # send this bundle's own layer, not the snapshot
    return prepared


class WorkerPool:
    """Prepares files in order with a bounded number in flight; `results()` yields them in order."""

    def __init__(self, refdata: ReferenceData, *, validate: bool, workers: int) -> None:
        snapshot = ReferenceData()
        snapshot.absorb(refdata)
        self.executor = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=multiprocessing.get_context("spawn"),  # no fork of a process holding DB connections
            initializer=_init_worker,
            initargs=(snapshot, validate),
        )
        self.ahead = workers * 2

    def results(self, paths: list[Path]) -> Iterator[tuple[Path, Prepared]]:
        queue: deque[tuple[Path, Future[Prepared]]] = deque()
        todo = iter(paths)
        for path in todo:
            queue.append((path, self.executor.submit(_prepare_in_worker, str(path))))
            if len(queue) >= self.ahead:
                break
        while queue:
            path, future = queue.popleft()
            prepared = future.result()
            nxt = next(todo, None)
            if nxt is not None:
                queue.append((nxt, self.executor.submit(_prepare_in_worker, str(nxt))))
            yield path, prepared

    def close(self) -> None:
        self.executor.shutdown(wait=True, cancel_futures=True)
