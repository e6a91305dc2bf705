"""Ingestion memory: a 50 MB bundle is processed with memory proportional to it (peak RSS reported),
a larger-than-allowed bundle is refused clearly without being read, and memory does not grow
with the number of files in a folder.

Memory is measured in a fresh subprocess per case: the peak resident set of that process
(`VmHWM` from /proc/self/status — Linux's `ru_maxrss` would include the pytest parent's peak,
as it survives fork and exec — or `getrusage` where /proc is absent).
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from fhir_ingest.loader import ingest_paths
from tests.conftest import PROJECT_ROOT
from tests.faults.ingest_support import bundle_patient_id, cohort, database_digest

MEASURE = """
import json, resource, sys
from pathlib import Path

def peak_kb():
    try:
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

from records.settings import Settings
from records.database import open_database
from fhir_ingest.loader import ingest_paths
settings = Settings(_env_file=None, **json.loads(sys.argv[1]))
db = open_database(settings)
baseline = peak_kb()
report = ingest_paths(db, [Path(p) for p in sys.argv[2:]], force=True)
peak = peak_kb()
print(json.dumps({
    "baseline_kb": baseline, "peak_kb": peak,
    "files": [[f.status, f.error, f.counts.get("observations", 0), f.size_bytes] for f in report.files],
}))
"""


def measure(settings, paths: list[Path]) -> dict:
    result = subprocess.run(
        [sys.executable, "-c", MEASURE, json.dumps(settings.model_dump(mode="json")), *map(str, paths)],
        capture_output=True,
        text=True,
        cwd=PROJECT_ROOT,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def inflate(source: Path, target: Path, megabytes: int) -> int:
    """The same patient with its observations repeated (fresh ids) until the file is that large."""
    bundle = json.loads(source.read_text())
    observations = [e for e in bundle["entry"] if e["resource"]["resourceType"] == "Observation"]
    size, i = len(json.dumps(bundle)), 0
    while size < megabytes * 1024 * 1024:
        entry = copy.deepcopy(observations[i % len(observations)])
        i += 1
        new_id = str(uuid.UUID(int=i))
        entry["fullUrl"], entry["resource"]["id"] = f"urn:uuid:{new_id}", new_id
        bundle["entry"].append(entry)
        size += len(json.dumps(entry)) + 2
    target.write_text(json.dumps(bundle))
    return sum(1 for e in bundle["entry"] if e["resource"]["resourceType"] == "Observation")


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    return cohort(tmp_path_factory.mktemp("memory-cohort"), patients=60, seed=21)


@pytest.mark.slow
def test_a_50_mb_bundle_is_ingested_with_memory_proportional_to_it(
    clean_db, settings, generated, tmp_path, capsys
):
    support, patients = generated
    assert ingest_paths(clean_db, support).ok
    big = tmp_path / patients[0].name
    observations = inflate(patients[0], big, 50)
    size = big.stat().st_size
    small = measure(settings, [patients[1]])
    large = measure(settings, [big])
    status, error, stored, _ = large["files"][0]
    assert (status, error) == ("ingested", None)
    assert stored == observations  # every entry of it
    growth_mb = (large["peak_kb"] - large["baseline_kb"]) / 1024
    small_growth_mb = (small["peak_kb"] - small["baseline_kb"]) / 1024
    with capsys.disabled():
        print(
            f"\n50 MB bundle ({size / 1e6:.1f} MB, {observations} observations): peak RSS "
            f"{large['peak_kb'] / 1024:.0f} MB (+{growth_mb:.0f} MB over the process at start); "
            f"a {patients[1].stat().st_size / 1e6:.1f} MB bundle: +{small_growth_mb:.0f} MB"
        )
    # documented in the limit's message: about 8× the bundle; a regression to worse fails here
    assert growth_mb <= 12 * size / (1024 * 1024)


def test_a_bundle_over_the_limit_is_refused_clearly_without_being_read(
    clean_db, settings, generated, tmp_path
):
    support, patients = generated
    assert ingest_paths(clean_db, support).ok
    big = tmp_path / patients[0].name
    inflate(patients[0], big, 3)
    pid = bundle_patient_id(json.loads(big.read_text()))
    before = database_digest(clean_db, (pid,))
    limited = settings.model_copy(update={"ingest_max_bundle_mb": 2})
    result = measure(limited, [big, patients[1]])
    (status, error, _, size), (other_status, _, _, _) = result["files"]
    assert status == "failed" and big.name in error and "larger than the 2 MB limit" in error
    assert "CHARTSIDE_INGEST_MAX_BUNDLE_MB" in error and size == big.stat().st_size
    assert other_status == "ingested"  # the rest of the run goes on
    after = database_digest(clean_db, (pid,))
    assert after[pid] == before[pid]


def test_memory_does_not_grow_with_the_number_of_files(clean_db, settings, generated, capsys):
    support, patients = generated
    assert ingest_paths(clean_db, support).ok
    few = measure(settings, patients[:6])
    many = measure(settings, patients)
    assert all(f[0] in ("ingested", "replaced") for f in many["files"])
    with capsys.disabled():
        total = sum(p.stat().st_size for p in patients) / 1e6
        print(
            f"\nfolder of 6 bundles: peak RSS {few['peak_kb'] / 1024:.0f} MB; "
            f"of {len(patients)} bundles ({total:.0f} MB): {many['peak_kb'] / 1024:.0f} MB"
        )
    assert many["peak_kb"] <= few["peak_kb"] * 1.25
