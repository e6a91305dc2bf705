"""`ingest_paths`: load Synthea bundles (files or folders) into the database.

For every file: checksum → unchanged files are skipped without parsing → parse → (optional
R4B validation) → pass 1 + pass 2 in memory (`prepare`) → one transaction (`commit`), which
a writer thread runs while the next file is prepared (`fhir_ingest.pipeline`). A
failing file is reported with its file, entry and field and leaves nothing behind; the next
file goes on. Support bundles are loaded first, one by one, and what they add becomes visible
to later bundles only after their transaction commits. Patient bundles can be prepared in
worker processes while this process writes (`fhir_ingest.parallel`); writes stay
here and in file order, so the outcome is the same as a sequential run (opt-in: `workers`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import psycopg
from sqlalchemy.exc import SQLAlchemyError

from fhir_ingest.parallel import WorkerPool, default_workers, was_skipped_unchanged
from fhir_ingest.pipeline import BackgroundCommitter
from fhir_ingest.prepare import Prepared, gc_paused, prepare
from fhir_ingest.references import ReferenceData
from fhir_ingest.report import FileOutcome, IngestReport
from fhir_ingest.source import RawFile, discover, guess_kind, read_file, support_rank
from fhir_ingest.transform import BundleResult
from fhir_ingest.writer import RecordWriter, SourceInfo, StoredFile
from records.database import Database

__all__ = ["gc_paused", "ingest_paths"]

log = logging.getLogger(__name__)


def ingest_paths(
    db: Database,
    paths: Sequence[Path],
    *,
    validate: bool = False,
    progress: Callable[[int, int], None] | None = None,
    force: bool = False,
    use_copy: bool | None = None,
    workers: int | None = None,
) -> IngestReport:
    """Ingest every bundle under `paths`. Never raises for bad input: see `report.ok`.

    `force` re-ingests files whose checksum is already stored; `use_copy` overrides the
    automatic choice between binary COPY and pipelined INSERTs; `workers` is the number of
    worker processes that read, parse and map patient bundles while this process writes
    (`fhir_ingest.parallel`; None: one per core where that is possible, 0: none — a writer
    thread then overlaps the writes instead). Tests exercise each.
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
    run = _Run(
        RecordWriter(db, use_copy=use_copy),
        validate=validate,
        force=force,
        max_bytes=db.settings.ingest_max_bundle_mb * 1024 * 1024,
    )

    if progress is not None and files:
        progress(0, len(files))  # `progress(done, total)`: files finished so far (the CLI draws it)

    def done(outcome: FileOutcome) -> None:
        report.files.append(outcome)
        if progress is not None:
            progress(len(report.files) - len(missing), len(files))

    run.load(files, done, workers)
    order = {path: i for i, path in enumerate(files)}
    report.files.sort(key=lambda f: order.get(f.path, -1))  # file order, whatever finished first
    written = report.written()
    if written:
        run.writer.make_durable(str(written[-1].path))
    report.seconds = time.perf_counter() - started
    return report


class _Run:
    """The state of one ingest run: what is stored, the reference data, the writer."""

    def __init__(self, writer: RecordWriter, *, validate: bool, force: bool, max_bytes: int) -> None:
        self.writer = writer
        self.validate = validate
        self.force = force
        self.max_bytes = max_bytes
        self.stored: dict[str, StoredFile] = writer.stored_files()
        self.refdata: ReferenceData = writer.reference_data()

    def load(self, files: list[Path], done: Callable[[FileOutcome], None], workers: int | None) -> None:
        support = [p for p in files if support_rank(p) < 2]
        patients = [p for p in files if support_rank(p) >= 2]
        # no cyclic GC for the whole run, not only inside each bundle: between two bundles a
        # collection still scanned the bundle prepared next (~2 ms each, 15–18 per sample
        # load), and a full one costs ~0.2 s in this process. Ingestion makes no cyclic
        # garbage (measured: 0 objects after the sample load), so nothing waits to be freed.
        with gc_paused(), self.writer.session():
            if workers is None:
                workers = default_workers(len(patients))
            if workers > 0 and len(patients) > 1:
                self.load_with_workers(support, patients, done, workers)
            else:
                for path in support:
                    done(self.one(path))
                self.load_pipelined(patients, done)

    def load_pipelined(self, paths: list[Path], done: Callable[[FileOutcome], None]) -> None:
        """Read, parse and map each bundle here while a writer thread commits the one before.

        Each file is read and checksummed once; an unchanged one is reported without parsing.
        A bundle that brings reference data of its own (organizations inline in a collection
        bundle) is committed before the next one is mapped, so the next one can link to it.
        """
        with BackgroundCommitter(self.commit, done) as committer:
            for path in paths:
                outcome, raw = self.check_unchanged(path)
                if outcome is not None:
                    committer.report(outcome)
                    continue
                prepared = prepare(path, self.refdata, validate=self.validate, raw=raw)
                committer.submit(prepared)
                if prepared.result is not None and prepared.result.refdata_layer.own_count():
                    committer.wait_idle()

    def load_with_workers(
        self, support: list[Path], patients: list[Path], done: Callable[[FileOutcome], None], count: int
    ) -> None:
        """Support bundles prepared here; patient bundles read, checksummed, parsed and mapped in
        `count` worker processes; everything committed here, in file order.

        The workers start at once: they read, checksum and parse the first patient bundles
        while this process maps the support bundles, and map them on the reference data those
        bundles will add once committed (handed over as soon as it is known), while this
        process commits them. If one of them does not commit after all, what the workers made
        is thrown away and the rest is loaded here, against what really is in the database.
        """
        pending: list[Path] = []
        refused: list[FileOutcome] = []
        for path in patients:
            outcome = self._refuse_unread(path)
            if outcome is not None:
                refused.append(outcome)
            else:
                pending.append(path)
        pool = None
        committed = 0
        try:
            if len(pending) > 1:
                stored = () if self.force else self.stored.keys()
                pool = WorkerPool(
                    None if support else self.refdata,
                    stored=stored,
                    validate=self.validate,
                    workers=count,
                    paths=pending,
                    encode=self.writer.copies(),
                )
            staged, speculative = self._prepare_support(support)
            if pool is not None and support:
                pool.publish(speculative)
            for outcome in refused:
                done(outcome)
            if self._commit_support(staged, done) and pool is not None:
                committed = self._commit_prepared(pool, done)
        finally:
            if pool is not None:
                pool.close()
        for path in pending[committed:]:
            done(self.one(path))

    def _prepare_support(
        self, support: list[Path]
    ) -> tuple[list[tuple[Path, FileOutcome | None, Prepared | None]], ReferenceData]:
        """Each support bundle mapped against the ones before it (not committed yet)."""
        staged: list[tuple[Path, FileOutcome | None, Prepared | None]] = []
        speculative = self.refdata
        for path in support:
            outcome, raw = self.check_unchanged(path)
            if outcome is not None:
                staged.append((path, outcome, None))
                continue
            prepared = prepare(path, speculative, validate=self.validate, raw=raw)
            if prepared.result is not None:
                speculative = prepared.result.refdata_layer  # an overlay over the ones before
            staged.append((path, None, prepared))
        return staged, speculative

    def _commit_support(
        self,
        staged: list[tuple[Path, FileOutcome | None, Prepared | None]],
        done: Callable[[FileOutcome], None],
    ) -> bool:
        """Commit the staged support bundles; False if what was mapped after them cannot stand
        (a bundle bringing reference data did not commit). The rest are then prepared again."""
        held = True
        for path, outcome, prepared in staged:
            if outcome is not None:
                done(outcome)
            elif not held:
                done(self.one(path))
            else:
                assert prepared is not None
                outcome = self.commit(prepared)
                done(outcome)
                layer = prepared.result.refdata_layer if prepared.result is not None else None
                if layer is not None and layer.own_count() and outcome.status not in ("ingested", "replaced"):
                    held = False
        return held

    def _commit_prepared(self, pool: WorkerPool, done: Callable[[FileOutcome], None]) -> int:
        """Commit what the workers prepare, in order; returns how many files were done.

        The bundles already prepared when one is taken are taken with it, and new patients
        among them are written together (`commit_together`): one transaction, a few round
        trips for all of them. Nothing waits for a bundle to come to make a group bigger.
        """
        committed = 0
        try:
            results = pool.results()
            for first in results:
                window = [first]
                while len(window) < MAX_TOGETHER and pool.ready():
                    window.append(next(results))
                prepared_list = []
                for path, prepared in window:
                    if was_skipped_unchanged(prepared) and prepared.sha256 not in self.stored:
                        # its stored version was replaced by a file committed since: load it after all
                        prepared = prepare(path, self.refdata, validate=self.validate)
                    prepared_list.append(prepared)
                for group in together_groups(prepared_list, self.stored, force=self.force):
                    outcomes = self.commit_together(group) if len(group) > 1 else [self.commit(group[0])]
                    for prepared, outcome in zip(group, outcomes, strict=True):
                        done(outcome)
                        committed += 1
                        layer = prepared.result.refdata_layer if prepared.result is not None else None
                        if outcome.status in ("ingested", "replaced") and layer is not None and len(layer):
                            return (
                                committed  # later bundles were prepared without this bundle's reference data
                            )
        except BrokenProcessPool:
            log.warning("a worker process died; continuing in this process")
        return committed

    def commit_together(self, group: list[Prepared]) -> list[FileOutcome]:
        """Commit new patients' bundles in one transaction (`RecordWriter.write_new_patients`);
        one by one (`commit`) where that cannot be: one of the patients is there already, the
        database refused the transaction (each bundle then gets its own outcome, and only a
        bundle the database refuses alone fails), or the writer cannot write them together.
        The outcomes are those `commit` gives each, in order."""
        started, started_cpu = time.perf_counter(), time.thread_time()
        if (
            any(not writable_together(p, self.stored, force=self.force) for p in group)
            or not self.writer.can_write_together()
        ):
            return [self.commit(p) for p in group]
        items = [
            (p.result, SourceInfo(path=str(p.path), sha256=p.sha256, size_bytes=p.size_bytes))
            for p in group
            if p.result is not None
        ]
        try:
            with gc_paused():
                written = self.writer.write_new_patients(items)
        except (psycopg.Error, SQLAlchemyError) as exc:
            log.info(
                "%d bundles written together were refused (%s); writing them one by one", len(group), exc
            )
            written = False
        if not written:
            attempt, attempt_cpu = time.perf_counter() - started, time.thread_time() - started_cpu
            outcomes = [self.commit(p) for p in group]
            _add_write_time(outcomes, attempt, attempt_cpu)  # the attempt was writing all the same
            return outcomes
        outcomes = []
        for p in group:
            result = p.result
            assert result is not None
            outcome = _outcome_of(p)
            outcome.status = "ingested"
            _describe(outcome, result)
            self.refdata.absorb(result.refdata_layer)
            self._remember(p.path, p.sha256, result, outcome.patient_name)
            outcome.counts = result.counts()
            outcome.skipped = dict(result.skipped)
            outcome.warnings = result.warnings
            outcomes.append(outcome)
        _add_write_time(outcomes, time.perf_counter() - started, time.thread_time() - started_cpu)
        return outcomes

    def _refuse_unread(self, path: Path) -> FileOutcome | None:
        """The outcome of a file refused before reading (too large, or gone), else None."""
        try:
            size = path.stat().st_size
        except OSError as exc:
            return _cannot_read(path, exc)
        return self._too_large(path, size) if size > self.max_bytes else None

    def check_unchanged(self, path: Path) -> tuple[FileOutcome | None, RawFile | None]:
        """(outcome, None) when the file needs no parsing (unchanged or unreadable), else (None, raw)."""
        refused = self._refuse_unread(path)
        if refused is not None:
            return refused, None
        try:
            raw = read_file(path)
        except OSError as exc:
            return _cannot_read(path, exc), None
        known = self.stored.get(raw.sha256)
        if known is not None and not self.force:
            return _unchanged(path, raw, known), None
        return None, raw

    def _too_large(self, path: Path, size: int) -> FileOutcome:
        limit_mb = self.max_bytes // (1024 * 1024)
        outcome = FileOutcome(path=path, kind=guess_kind(path), status="failed", size_bytes=size)
        outcome.error = (
            f"{path}: {size / (1024 * 1024):.0f} MB is larger than the {limit_mb} MB limit for one bundle "
            f"(CHARTSIDE_INGEST_MAX_BUNDLE_MB); a bundle is held in memory while it is ingested (about 8× "
            "its size), so it was refused without being read. Raise the limit if this machine has the memory."
        )
        return outcome

    def one(self, path: Path, raw: RawFile | None = None) -> FileOutcome:
        """Sequentially: checksum, prepare here, commit."""
        if raw is None:
            outcome, raw = self.check_unchanged(path)
            if outcome is not None:
                return outcome
        return self.commit(prepare(path, self.refdata, validate=self.validate, raw=raw))

    def commit(self, prepared: Prepared) -> FileOutcome:
        """Write one prepared bundle; updates the reference data and checksums after the commit."""
        path = prepared.path
        outcome = _outcome_of(prepared)
        started, started_cpu = time.perf_counter(), time.thread_time()
        try:
            known = self.stored.get(prepared.sha256)
            if known is not None and not self.force:  # the same bytes were just loaded from another path
                return _unchanged(path, None, known, outcome)
            if prepared.error is not None or prepared.result is None:
                outcome.error = prepared.error or f"{path}: not prepared"
                return outcome
            result = prepared.result
            _describe(outcome, result)
            source = SourceInfo(path=str(path), sha256=prepared.sha256, size_bytes=prepared.size_bytes)
            with gc_paused():
                outcome.status = self.writer.write(result, source)
            self.refdata.absorb(result.refdata_layer)
            self._remember(path, prepared.sha256, result, outcome.patient_name)
            outcome.counts = result.counts()
            outcome.skipped = dict(result.skipped)
            outcome.warnings = result.warnings
        except (psycopg.Error, SQLAlchemyError) as exc:
            outcome.status = "failed"
            outcome.error = (
                f"{path}: the database refused the bundle, nothing was written: {_db_message(exc)}"
            )
        finally:
            _add_write_time([outcome], time.perf_counter() - started, time.thread_time() - started_cpu)
        return outcome

    def _remember(self, path: Path, sha: str, result: BundleResult, patient_name: str | None) -> None:
        # as in source_files: one row per path, and one version of a patient
        for old_sha, old in list(self.stored.items()):
            if old.path == str(path) or (
                result.patient_id is not None and old.patient_id == result.patient_id
            ):
                del self.stored[old_sha]
        self.stored[sha] = StoredFile(
            str(path),
            sha,
            result.kind,
            result.patient_id,
            result.counts(),
            dict(result.skipped),
            result.warnings,
            patient_name,
        )


# at most this many bundles in one transaction (`_Run.commit_together`)
MAX_TOGETHER = 16


def writable_together(prepared: Prepared, stored: Mapping[str, object], *, force: bool) -> bool:
    """Whether a prepared bundle may be written in one transaction with others: a patient's
    bundle, mapped without error, bringing no reference data of its own, and not one whose
    bytes are stored already (`commit` reports that one unchanged)."""
    result = prepared.result
    return (
        prepared.error is None
        and result is not None
        and result.patient_id is not None
        and result.patient_row is not None
        and not result.shared
        and not result.refdata_layer.own_count()
        and (force or prepared.sha256 not in stored)
    )


def together_groups(
    prepared: Sequence[Prepared], stored: Mapping[str, object], *, force: bool, limit: int = MAX_TOGETHER
) -> list[list[Prepared]]:
    """`prepared` cut, in order, into the groups to commit: runs of bundles `writable_together`
    of different patients and different bytes (at most `limit`), and every other bundle alone."""
    groups: list[list[Prepared]] = []
    run: list[Prepared] = []
    patients: set[str] = set()
    shas: set[str] = set()
    for p in prepared:
        if not writable_together(p, stored, force=force):
            if run:
                groups.append(run)
                run, patients, shas = [], set(), set()
            groups.append([p])
            continue
        assert p.result is not None and p.result.patient_id is not None
        if len(run) >= limit or p.result.patient_id in patients or p.sha256 in shas:
            groups.append(run)
            run, patients, shas = [], set(), set()
        run.append(p)
        patients.add(p.result.patient_id)
        shas.add(p.sha256)
    if run:
        groups.append(run)
    return groups


def _outcome_of(prepared: Prepared) -> FileOutcome:
    """A failed outcome carrying what preparing the file measured (`commit` fills in the rest)."""
    return FileOutcome(
        path=prepared.path,
        kind=guess_kind(prepared.path),
        status="failed",
        size_bytes=prepared.size_bytes,
        validation_seconds=prepared.validation_seconds,
        phase_seconds=dict(prepared.phase_seconds),
        phase_cpu_seconds=dict(prepared.phase_cpu_seconds),
    )


def _add_write_time(outcomes: list[FileOutcome], seconds: float, cpu_seconds: float) -> None:
    """Count a write's wall and CPU time (the writing thread's own; the server's is apart),
    shared evenly by the bundles written together."""
    share, cpu_share = seconds / len(outcomes), cpu_seconds / len(outcomes)
    for outcome in outcomes:
        outcome.phase_seconds["write"] = outcome.phase_seconds.get("write", 0.0) + share
        outcome.phase_cpu_seconds["write"] = outcome.phase_cpu_seconds.get("write", 0.0) + cpu_share
        outcome.seconds = sum(outcome.phase_seconds.values())


def _cannot_read(path: Path, exc: OSError) -> FileOutcome:
    outcome = FileOutcome(path=path, kind=guess_kind(path), status="failed")
    outcome.error = f"{path}: cannot read: {exc.strerror or exc}"
    return outcome


def _unchanged(
    path: Path, raw: RawFile | None, known: StoredFile, outcome: FileOutcome | None = None
) -> FileOutcome:
    outcome = outcome or FileOutcome(path=path, kind=known.kind, status="unchanged")
    outcome.status = "unchanged"
    outcome.kind = known.kind
    outcome.patient_id = known.patient_id
    outcome.patient_name = known.patient_name
    outcome.counts = dict(known.counts)
    outcome.skipped = dict(known.skipped)
    outcome.warnings = list(known.warnings)
    if raw is not None:
        outcome.size_bytes = raw.size
    return outcome


def _db_message(exc: Exception) -> str:
    orig = getattr(exc, "orig", None) or exc
    diag = getattr(orig, "diag", None)
    primary = getattr(diag, "message_primary", None) if diag is not None else None
    detail = getattr(diag, "message_detail", None) if diag is not None else None
    text = primary or str(orig).splitlines()[0]
    return f"{text} ({detail})" if detail else text


def _describe(outcome: FileOutcome, result: BundleResult) -> None:
    """What a file's outcome says of the bundle it held, whether written alone or together."""
    outcome.kind, outcome.patient_id, outcome.resources = result.kind, result.patient_id, result.resources
    if result.patient_row is not None:
        outcome.patient_name = result.patient_row["full_name"]
