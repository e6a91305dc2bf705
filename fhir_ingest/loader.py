"""`ingest_paths`: load Synthea bundles (files or folders) into the database.

For every file: checksum → unchanged files are skipped without parsing → parse → (optional
R4B validation) → pass 1 + pass 2 in memory → one transaction. A failing file is reported
with its file, entry and field and leaves nothing behind; the next file goes on. Support
bundles are loaded before patients, and what they add becomes visible to the patients of
the same run only after their transaction commits.
"""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext
from pathlib import Path

import psycopg
from sqlalchemy.exc import SQLAlchemyError

from fhir_ingest.errors import BundleError
from fhir_ingest.references import ReferenceData
from fhir_ingest.report import FileOutcome, IngestReport
from fhir_ingest.source import discover, guess_kind, parse_json, read_file
from fhir_ingest.transform import transform_bundle
from fhir_ingest.writer import RecordWriter, SourceInfo, StoredFile
from records.database import Database


def ingest_paths(
    db: Database,
    paths: Sequence[Path],
    *,
    validate: bool = False,
    show_progress: bool = False,
    force: bool = False,
    use_copy: bool | None = None,
) -> IngestReport:
    """Ingest every bundle under `paths`. Never raises for bad input: see `report.ok`.

    `force` re-ingests files whose checksum is already stored; `use_copy` overrides the
    automatic choice between binary COPY and pipelined INSERTs (tests exercise both).
    """
    started = time.perf_counter()
    files, missing = discover(paths)
    report = IngestReport(validated=validate)
    for path in missing:
        report.files.append(
            FileOutcome(
                path=path, kind=guess_kind(path), status="failed", error=f"{path}: no such file or folder"
            )
        )
    writer = RecordWriter(db, use_copy=use_copy)
    stored = writer.stored_files()
    refdata = writer.reference_data()

    bar_cm = _progress_bar() if show_progress and files else nullcontext(None)
    with bar_cm as bar:
        task = bar.add_task("ingesting", total=len(files)) if bar is not None else None
        for path in files:
            if bar is not None:
                bar.update(task, description=f"ingesting {path.name[:40]}")
            with gc_paused():
                outcome = ingest_file(writer, path, refdata, stored, validate=validate, force=force)
            report.files.append(outcome)
            if bar is not None:
                bar.advance(task)
    written = report.written()
    if written:
        writer.make_durable(str(written[-1].path))
    report.seconds = time.perf_counter() - started
    return report


@contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic GC while one bundle is parsed and mapped.

    A parsed bundle is a tree of ~100k dicts and lists without cycles (reference counting
    frees it); letting the cyclic collector rescan it on every allocation burst cost about a
    third of the parse time here.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def ingest_file(
    writer: RecordWriter,
    path: Path,
    refdata: ReferenceData,
    stored: dict[str, StoredFile],
    *,
    validate: bool = False,
    force: bool = False,
) -> FileOutcome:
    """One file, start to finish. Updates `refdata` and `stored` after a successful commit."""
    started = time.perf_counter()
    outcome = FileOutcome(path=path, kind=guess_kind(path), status="failed")
    try:
        clock = _Phases(outcome)
        raw = read_file(path)
        clock.lap("read")
        outcome.size_bytes = raw.size
        known = stored.get(raw.sha256)
        if known is not None and not force:
            _fill_unchanged(outcome, known)
            return outcome
        data = parse_json(raw)
        clock.lap("parse")
        if validate:
            from fhir_ingest.validation import validate_bundle

            v_started = time.perf_counter()
            try:
                validate_bundle(data)
            finally:
                outcome.validation_seconds = time.perf_counter() - v_started
                clock.lap("validate")
        result = transform_bundle(data, refdata, source_path=str(path), source_dir=os.path.dirname(path))
        clock.lap("map")
        outcome.kind = result.kind
        outcome.patient_id = result.patient_id
        outcome.resources = result.resources
        if result.patient_row is not None:
            outcome.patient_name = result.patient_row["full_name"]
        outcome.status = writer.write(
            result, SourceInfo(path=str(path), sha256=raw.sha256, size_bytes=raw.size)
        )
        clock.lap("write")
        refdata.absorb(result.refdata_layer)
        stored.pop(raw.sha256, None)
        stored[raw.sha256] = StoredFile(
            str(path),
            raw.sha256,
            result.kind,
            result.patient_id,
            result.counts(),
            dict(result.skipped),
            result.warnings,
            outcome.patient_name,
        )
        # as in source_files: one row per path, and one version of a patient
        for sha, old in list(stored.items()):
            if sha != raw.sha256 and (
                old.path == str(path)
                or (result.patient_id is not None and old.patient_id == result.patient_id)
            ):
                del stored[sha]
        outcome.counts = result.counts()
        outcome.skipped = dict(result.skipped)
        outcome.warnings = result.warnings
    except BundleError as exc:
        outcome.status = "failed"
        outcome.error = str(exc.with_file(str(path)))
    except OSError as exc:
        outcome.status = "failed"
        outcome.error = f"{path}: cannot read: {exc.strerror or exc}"
    except (psycopg.Error, SQLAlchemyError) as exc:
        outcome.status = "failed"
        outcome.error = f"{path}: the database refused the bundle, nothing was written: {_db_message(exc)}"
    finally:
        outcome.seconds = time.perf_counter() - started
    return outcome


class _Phases:
    """Wall time per phase of one file (for `chartside bench ingest`)."""

    def __init__(self, outcome: FileOutcome) -> None:
        self.outcome = outcome
        self.last = time.perf_counter()

    def lap(self, phase: str) -> None:
        now = time.perf_counter()
        self.outcome.phase_seconds[phase] = self.outcome.phase_seconds.get(phase, 0.0) + now - self.last
        self.last = now


def _fill_unchanged(outcome: FileOutcome, known: StoredFile) -> None:
    outcome.status = "unchanged"
    outcome.kind = known.kind
    outcome.patient_id = known.patient_id
    outcome.counts = dict(known.counts)
    outcome.skipped = dict(known.skipped)
    outcome.warnings = list(known.warnings)
    outcome.patient_name = known.patient_name


def _db_message(exc: Exception) -> str:
    orig = getattr(exc, "orig", None) or exc
    diag = getattr(orig, "diag", None)
    primary = getattr(diag, "message_primary", None) if diag is not None else None
    detail = getattr(diag, "message_detail", None) if diag is not None else None
    text = primary or str(orig).splitlines()[0]
    return f"{text} ({detail})" if detail else text


def _progress_bar():
    from chartside.console import progress

    return progress()
