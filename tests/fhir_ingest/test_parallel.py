"""Worker processes that start before the reference data exists (`fhir_ingest.parallel`).

The loader forks its workers at once, so they read and parse patient bundles while the
support bundles are still being mapped here, and hands them the reference data afterwards.
A worker must map only on that data, and a run that stops before handing it over must not
leave workers waiting forever.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from fhir_ingest.parallel import LOOKAHEAD_BYTES, MAX_AHEAD, WorkerPool
from fhir_ingest.prepare import prepare
from fhir_ingest.references import ReferenceData
from tests.fhir_ingest import synthetic as syn

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="workers fork (Linux only)")


def _support_refdata(files: list[Path]) -> ReferenceData:
    refdata = ReferenceData()
    for path in files[:2]:  # hospital, then practitioners: as the loader maps them
        prepared = prepare(path, refdata)
        assert prepared.result is not None, prepared.error
        refdata = prepared.result.refdata_layer
    return refdata


def test_workers_map_on_reference_data_published_after_the_fork(tmp_path):
    files = syn.write_cohort(tmp_path, seeds=("a", "b", "c"))
    pool = WorkerPool(None, stored=(), validate=False, workers=2, paths=files[2:])
    try:
        refdata = _support_refdata(files)  # made after the fork, as the loader does
        pool.publish(refdata)
        results = list(pool.results())
    finally:
        pool.close()
    assert [path for path, _ in results] == files[2:]
    for path, prepared in results:
        here = prepare(path, refdata)
        assert prepared.error is None and prepared.result is not None
        # the practitioner and organization links need the published data: without it they are empty
        assert prepared.result.rows["encounters"] == here.result.rows["encounters"]
        assert any(row["practitioner_id"] for row in here.result.rows["encounters"])
        assert prepared.result.patient_row == here.result.patient_row


def test_a_run_stopped_before_the_reference_data_releases_its_workers(tmp_path):
    files = syn.write_cohort(tmp_path, seeds=("a", "b", "c", "d"))
    pool = WorkerPool(None, stored=(), validate=False, workers=2, paths=files[2:])
    handover = pool._refdata_file
    assert os.path.exists(handover)
    pool.close()  # returns: the workers were told no data will come (else this test would hang)
    assert not os.path.exists(handover)


def test_workers_are_kept_ahead_by_files_and_bytes_and_exit_once_all_are_handed_out(tmp_path):
    """Many small files ahead (the workers go on while this process commits), few large ones
    (what waits here stays bounded); once every file is handed out, the workers are let go."""
    small = [syn.write_json(tmp_path / f"small{n:02}.json", {"resourceType": "Bundle"}) for n in range(40)]
    pool = WorkerPool(ReferenceData(), stored=(), validate=False, workers=2, paths=small)
    try:
        assert len(pool._queue) == 2 * MAX_AHEAD and pool._exiting is None
        results = list(pool.results())
        assert pool._exiting is not None  # the last file was handed out
    finally:
        pool.close()
    assert [path for path, _ in results] == small
    assert all(prepared.error is not None and "small" in prepared.error for _, prepared in results)
    assert not pool._exiting.is_alive()

    large = []
    for n in range(6):
        path = tmp_path / f"large{n}.json"
        with path.open("wb") as f:
            f.truncate(LOOKAHEAD_BYTES // 3)
        large.append(path)
    pool = WorkerPool(ReferenceData(), stored=(), validate=False, workers=2, paths=large)
    try:
        assert len(pool._queue) == 4  # two a worker: the bytes are reached already
        assert [path for path, _ in pool.results()] == large
    finally:
        pool.close()


def test_a_run_stopped_early_drops_what_no_worker_started(tmp_path):
    files = syn.write_cohort(tmp_path, seeds=tuple("abcdefghijkl"))
    pool = WorkerPool(None, stored=(), validate=False, workers=2, paths=files[2:])
    assert len(pool._queue) == 12  # all handed out: the workers will be let go when done
    pool.close()  # before the reference data came
    futures = [future for _, future, _ in pool._queue]
    # the workers hold one file each, and the executor queues three more for them: the rest is dropped
    assert sum(future.cancelled() for future in futures) >= 12 - 5
    assert all(future.done() for future in futures)
