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
