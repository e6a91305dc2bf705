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

from fhir_ingest.parallel import WorkerPool
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
