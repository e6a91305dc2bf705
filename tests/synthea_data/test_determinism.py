"""Same seed, same bytes; a different seed, a different cohort; no hidden inputs."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from synthea_data.generator import generate_cohort, generate_patient
from synthea_data.providers import Network

from .conftest import COHORT_PATIENTS, COHORT_SEED


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _patient_files(files: dict[str, bytes]) -> set[str]:
    return {n for n in files if n.endswith(".json") and not n.startswith(("hospital", "practitioner"))}


def test_same_seed_gives_byte_identical_files(cohort_dir: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    generate_cohort(again, patients=COHORT_PATIENTS, seed=COHORT_SEED)
    first, second = _files(cohort_dir), _files(again)
    assert list(first) == list(second)
    for name in first:
        assert first[name] == second[name], f"{name} differs between two runs with seed {COHORT_SEED}"


def test_a_fresh_interpreter_with_another_hash_seed_writes_the_same_bytes(
    cohort_dir: Path, tmp_path: Path
) -> None:
    """No dependence on hash() ordering, the process, or anything but the arguments."""
    out = tmp_path / "subprocess"
    code = (
        "from pathlib import Path; from synthea_data.generator import generate_cohort; "
        f"generate_cohort(Path({str(out)!r}), patients={COHORT_PATIENTS}, seed={COHORT_SEED})"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=Path(__file__).resolve().parents[2])
    assert _files(out) == _files(cohort_dir)


def test_different_seed_gives_a_different_cohort(cohort_dir: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    generate_cohort(other, patients=COHORT_PATIENTS, seed=COHORT_SEED + 1)
    ours, theirs = _files(cohort_dir), _files(other)
    assert _patient_files(ours).isdisjoint(_patient_files(theirs)), "patient ids must change with the seed"
    assert sorted(ours.values()) != sorted(theirs.values())


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(min_value=0, max_value=2**31), index=st.integers(min_value=0, max_value=40))
def test_a_patient_depends_only_on_seed_and_position(seed: int, index: int) -> None:
    """Patient k is the same whether generated alone or as part of a bigger cohort run."""
    network = Network(seed)
    first, _ = generate_patient(seed, index, network)
    second, _ = generate_patient(seed, index, Network(seed))
    assert first.bundle == second.bundle
    assert first.file_name == second.file_name


def test_the_reference_day_is_a_parameter_not_the_clock(tmp_path: Path) -> None:
    early = tmp_path / "early"
    generate_cohort(early, patients=2, seed=5, today=dt.date(2020, 1, 1))
    manifest = (early / "cohort.manifest").read_text(encoding="utf-8")
    assert '"today": "2020-01-01"' in manifest
    for path in early.glob("*_*_*.json"):
        text = path.read_text(encoding="utf-8")
        years = {int(chunk[:4]) for chunk in text.split('"effectiveDateTime": "')[1:]}
        assert years and max(years) <= 2020, f"{path.name} has observations after the reference day"


# The cohort's bytes for seed 7 × 12 patients, recorded before the simulator's dispatch by
# method-name strings was replaced by explicit tables (issue 20): a refactor of the simulator
# must not change one byte of its output. A deliberate change of the output updates it here.
GOLDEN_SEED, GOLDEN_PATIENTS = 7, 12
GOLDEN_SHA256 = "ccd1cbcd83985835aad6c6a6374fc47836203d4186c8db1b19d9913157368ead"


def test_a_refactor_of_the_simulator_keeps_the_output_byte_identical(tmp_path: Path) -> None:
    import hashlib

    out = tmp_path / "golden"
    generate_cohort(out, patients=GOLDEN_PATIENTS, seed=GOLDEN_SEED)
    digest = hashlib.sha256()
    for path in sorted(p for p in out.rglob("*") if p.is_file()):
        digest.update(path.relative_to(out).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
    assert digest.hexdigest() == GOLDEN_SHA256


def test_every_visit_and_diagnosis_method_is_in_a_dispatch_table() -> None:
    from synthea_data.simulate import DIAGNOSES, VISITS, PatientSimulator

    methods = {name for name in vars(PatientSimulator) if name.startswith(("_visit_", "_dx_"))}
    tabled = {fn.__name__ for fn in (*VISITS.values(), *DIAGNOSES.values())}
    assert methods == tabled
