"""`chartside generate` and `chartside bench generate` as a user runs them."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from chartside.cli import build
from synthea_data.hard_cases import MANIFEST_NAME

runner = CliRunner()


def test_generate_writes_a_cohort_and_says_where(tmp_path: Path) -> None:
    out = tmp_path / "cohort"
    result = runner.invoke(build(), ["generate", "--patients", "3", "--seed", "5", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "wrote 3 patient bundles + 2 support bundles" in result.output
    assert (out / "hospitalInformation5.json").is_file() and (out / MANIFEST_NAME).is_file()
    assert len(list(out.glob("*.json"))) == 5
    assert "penicillin_allergy_with_amoxicillin" in result.output  # patient 0's hard case is listed
    assert "unusual_name" not in result.output  # patient 5 is not in a 3-patient cohort


def test_generate_refuses_an_occupied_folder_without_a_traceback(tmp_path: Path) -> None:
    out = tmp_path / "cohort"
    runner.invoke(build(), ["generate", "--patients", "1", "--out", str(out)])
    result = runner.invoke(build(), ["generate", "--patients", "1", "--out", str(out)])
    assert result.exit_code == 1
    assert "already holds" in result.output and "--force" in result.output
    assert "Traceback" not in result.output
    forced = runner.invoke(
        build(), ["generate", "--patients", "1", "--seed", "2", "--out", str(out), "--force"]
    )
    assert forced.exit_code == 0, forced.output


def test_bench_generate_reports_rates_and_resource_counts(tmp_path: Path) -> None:
    sample = tmp_path / "cohort"
    runner.invoke(build(), ["generate", "--patients", "1", "--out", str(sample)])
    bundle = next(p for p in sample.glob("*_*_*.json"))
    result = runner.invoke(build(), ["bench", "generate", "--patients", "2", "--sample", str(bundle)])
    assert result.exit_code == 0, result.output
    assert "patients/s" in result.output and "MB/s" in result.output
    assert "Resources per patient bundle" in result.output and "Observation" in result.output


def test_generate_takes_the_reference_day_and_rejects_a_bad_one(tmp_path: Path) -> None:
    ok = runner.invoke(
        build(), ["generate", "-n", "1", "--today", "2019-06-30", "--out", str(tmp_path / "a")]
    )
    assert ok.exit_code == 0, ok.output
    assert '"today": "2019-06-30"' in (tmp_path / "a" / MANIFEST_NAME).read_text(encoding="utf-8")
    bad = runner.invoke(
        build(), ["generate", "-n", "1", "--today", "next tuesday", "--out", str(tmp_path / "b")]
    )
    assert bad.exit_code == 1 and "not a date" in bad.output
    assert not (tmp_path / "b").exists()
