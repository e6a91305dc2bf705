"""Everything before the database: read, checksum, parse, (validate), pass 1 + pass 2.

Kept apart from the loader so the same function runs in the main process or in a worker
process (`fhir_ingest.parallel`): its input is a path and a snapshot of the reference data,
its output a picklable `Prepared`, and bad input comes back as a message, not an exception.
"""

from __future__ import annotations

import gc
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from fhir_ingest.errors import BundleError
from fhir_ingest.references import ReferenceData
from fhir_ingest.skim import skim_bundle
from fhir_ingest.source import RawFile, parse_json, read_file
from fhir_ingest.transform import READ_TYPES, BundleResult, transform_bundle


@dataclass
class Prepared:
    """One file made ready to write (`result`), or why it cannot be (`error`)."""

    path: Path
    sha256: str = ""
    size_bytes: int = 0
    result: BundleResult | None = None
    error: str | None = None
    validation_seconds: float = 0.0
    phase_seconds: dict[str, float] = field(default_factory=dict)
    # CPU time of the same phases (this thread's): wall time in a worker process also counts
    # the time the worker waited for a core, which on a busy machine is most of it
    phase_cpu_seconds: dict[str, float] = field(default_factory=dict)


_gc_lock = threading.Lock()
_gc_pauses = 0
_gc_was_enabled = False


@contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic GC while one bundle is parsed and mapped (or written).

    A parsed bundle is a tree of ~100k dicts and lists without cycles (reference counting
    frees it); letting the cyclic collector rescan it on every allocation burst cost about a
    third of the parse time here. Counted, because the loader prepares one bundle while a
    writer thread commits the previous one: the collector comes back when the last pause ends.
    """
    global _gc_pauses, _gc_was_enabled
    with _gc_lock:
        if _gc_pauses == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_pauses += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_pauses -= 1
            if _gc_pauses == 0 and _gc_was_enabled:
                gc.enable()


class _Clock:
    def __init__(self, prepared: Prepared) -> None:
        self.prepared = prepared
        self.restart()

    def restart(self) -> None:
        self.last, self.last_cpu = time.perf_counter(), time.thread_time()

    def lap(self, phase: str) -> float:
        now, cpu = time.perf_counter(), time.thread_time()
        elapsed = now - self.last
        self.prepared.phase_seconds[phase] = self.prepared.phase_seconds.get(phase, 0.0) + elapsed
        spent = self.prepared.phase_cpu_seconds
        spent[phase] = spent.get(phase, 0.0) + cpu - self.last_cpu
        self.last, self.last_cpu = now, cpu
        return elapsed


class NotReady(Exception):
    """The reference data a bundle is mapped against will not come (the run stopped)."""


def prepare(
    path: Path,
    refdata: ReferenceData | Callable[[], ReferenceData],
    *,
    validate: bool = False,
    raw: RawFile | None = None,
) -> Prepared:
    """Read (unless `raw` is given), parse, optionally validate, and transform one file.

    `refdata` may be a function giving it, called only once the file is parsed: a worker
    process reads and parses while this process is still mapping the support bundles that
    make the reference data (`fhir_ingest.parallel`). It raises `NotReady` if none will come.
    """
    prepared = Prepared(path=path)
    clock = _Clock(prepared)
    try:
        with gc_paused():
            if raw is None:
                raw = read_file(path)
            clock.restart()
            prepared.phase_seconds["read"] = raw.read_seconds
            prepared.phase_cpu_seconds["read"] = raw.read_cpu_seconds
            prepared.sha256, prepared.size_bytes = raw.sha256, raw.size
            # validation reads every resource; ingestion alone only those a mapper reads
            data = parse_json(raw) if validate else skim_bundle(raw, READ_TYPES)
            clock.lap("parse")
            if validate:
                from fhir_ingest.validation import validate_bundle

                try:
                    validate_bundle(data)
                finally:
                    prepared.validation_seconds = clock.lap("validate")
            if callable(refdata):
                refdata = refdata()  # waiting for it is no phase of this file's
                clock.restart()
            prepared.result = transform_bundle(
                data, refdata, source_path=str(path), source_dir=os.path.dirname(path)
            )
            clock.lap("map")
    except BundleError as exc:
        prepared.error = str(exc.with_file(str(path)))
    except OSError as exc:
        prepared.error = f"{path}: cannot read: {exc.strerror or exc}"
    except NotReady:
        prepared.error = f"{path}: not prepared: the run stopped before the reference data was ready"
    return prepared
