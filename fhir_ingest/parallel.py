"""Parse and map patient bundles in worker processes while the main process writes.

Parsing and mapping are pure Python and hold the GIL, so threads would not help; worker
processes prepare the next bundles while the main process runs the COPYs and commits, which
stay in one process and in file order (so statuses and the replace-in-place rule are the
same as a sequential run). Workers get a snapshot of the reference data taken after the
support bundles are loaded. If a bundle brings reference data of its own (a `collection`
bundle with organizations inline), bundles prepared before it was committed might have
missed it, so the loader discards what is in flight and continues sequentially.

Opt-in (`chartside ingest --workers N`): on the 2-core development machine, under the load
of other work, two workers made the sample load slower, not faster (forked workers 2.5–3.3 s
against 2.2–2.5 s in one process; spawned ones ~8 s, most of it starting interpreters), so
one process is the default. It can pay off where cores are idle.
"""

from __future__ import annotations

import multiprocessing
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path

from fhir_ingest.prepare import Prepared, prepare
from fhir_ingest.references import ReferenceData

_refdata: ReferenceData | None = None
_validate = False


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
