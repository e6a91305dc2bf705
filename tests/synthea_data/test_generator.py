"""The output folder is never left half-written, never mixed with another cohort, and never
loses files the generator did not write."""

from __future__ import annotations

from pathlib import Path

import pytest

from synthea_data import generator
from synthea_data.demo import demo_cohort_dir, ensure_demo_cohort
from synthea_data.generator import GeneratorError, generate_cohort
from synthea_data.hard_cases import MANIFEST_NAME, load_manifest


def test_returns_support_bundles_then_patients(tmp_path: Path) -> None:
    paths = generate_cohort(tmp_path / "out", patients=3, seed=2)
    assert [p.name for p in paths[:2]] == ["hospitalInformation2.json", "practitionerInformation2.json"]
    assert len(paths) == 5 and all(p.is_file() for p in paths)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(
        [p.name for p in paths] + [MANIFEST_NAME]
    )
    assert not any(p.name.startswith(".") for p in tmp_path.iterdir()), "no staging folder left behind"


def test_refuses_a_folder_that_already_holds_a_cohort(tmp_path: Path) -> None:
    generate_cohort(tmp_path / "out", patients=2, seed=2)
    before = {p.name: p.read_bytes() for p in (tmp_path / "out").iterdir()}
    with pytest.raises(GeneratorError, match="already holds 5 cohort file"):
        generate_cohort(tmp_path / "out", patients=2, seed=3)
    assert {p.name: p.read_bytes() for p in (tmp_path / "out").iterdir()} == before


def test_force_replaces_its_own_cohort_entirely(tmp_path: Path) -> None:
    generate_cohort(tmp_path / "out", patients=3, seed=2)
    generate_cohort(tmp_path / "out", patients=2, seed=9, overwrite=True)
    manifest = load_manifest(tmp_path / "out")
    assert manifest["seed"] == 9
    expected = (
        set(manifest["support_bundles"]) | {p["file"] for p in manifest["patient_files"]} | {MANIFEST_NAME}
    )
    assert {p.name for p in (tmp_path / "out").iterdir()} == expected


def test_force_never_deletes_files_it_did_not_write(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "real_synthea_patient.json").write_text("{}")
    with pytest.raises(GeneratorError, match=f"no {MANIFEST_NAME}"):
        generate_cohort(out, patients=1, seed=1, overwrite=True)
    generate_cohort(tmp_path / "ours", patients=1, seed=1)
    (tmp_path / "ours" / "someone_elses.json").write_text("{}")
    with pytest.raises(GeneratorError, match=r"someone_elses\.json was not written by the generator"):
        generate_cohort(tmp_path / "ours", patients=1, seed=2, overwrite=True)
    assert (tmp_path / "ours" / "someone_elses.json").exists()


def test_a_failure_midway_leaves_nothing_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = generator.generate_patient

    def flaky(seed, index, network, today, **options):
        if index == 2:
            raise RuntimeError("disk on fire")
        return real(seed, index, network, today, **options)

    monkeypatch.setattr(generator, "generate_patient", flaky)
    with pytest.raises(RuntimeError):
        generate_cohort(tmp_path / "out", patients=4, seed=1)
    assert list(tmp_path.iterdir()) == [], "neither a partial cohort nor a staging folder may remain"


def test_bad_arguments_are_refused_with_a_clear_message(tmp_path: Path) -> None:
    with pytest.raises(GeneratorError, match="at least 1"):
        generate_cohort(tmp_path / "out", patients=0, seed=1)
    (tmp_path / "file").write_text("x")
    with pytest.raises(GeneratorError, match="not a folder"):
        generate_cohort(tmp_path / "file", patients=1, seed=1)


def test_demo_cohort_is_generated_once_and_reused(tmp_path: Path) -> None:
    folder, created = ensure_demo_cohort(tmp_path, patients=2, seed=4)
    assert created and folder == demo_cohort_dir(tmp_path)
    stamp = {p.name: p.stat().st_mtime_ns for p in folder.iterdir()}
    again, created_again = ensure_demo_cohort(tmp_path, patients=2, seed=4)
    assert again == folder and not created_again
    assert {p.name: p.stat().st_mtime_ns for p in folder.iterdir()} == stamp
    _, regenerated = ensure_demo_cohort(tmp_path, patients=3, seed=4)
    assert regenerated and load_manifest(folder)["patients"] == 3
