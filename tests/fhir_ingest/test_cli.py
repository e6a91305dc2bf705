"""`chartside ingest`: a summary table, totals, and an exit code that says whether anything failed."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from chartside.cli import build
from tests.fhir_ingest import synthetic as syn


@pytest.fixture()
def cli(clean_db, settings, monkeypatch):
    monkeypatch.setattr("fhir_ingest.cli.get_settings", lambda: settings)
    app = build()
    runner = CliRunner()

    def run(*args: str) -> tuple[int, str]:
        result = runner.invoke(app, list(args))
        return result.exit_code, " ".join(result.output.split())  # rich wraps at the terminal width

    return run


def test_ingest_prints_a_summary_and_succeeds(cli, tmp_path):
    syn.write_cohort(tmp_path, seeds=("a", "b"))
    code, output = cli("ingest", str(tmp_path))
    assert code == 0, output
    assert "Pata Marie" in output and "Patb Marie" in output
    assert "│ hospitals │" in output and "│ practitioners │" in output  # support bundles
    assert "4 files: 4 ingested" in output and "Written: 2 patients" in output
    assert "(Claim, Provenance)" in output  # counted, not stored

    code, output = cli("ingest", str(tmp_path))
    assert code == 0 and "4 files: 4 unchanged" in output


def test_a_failed_file_is_named_and_the_exit_code_is_non_zero(cli, tmp_path):
    files = syn.write_cohort(tmp_path, seeds=("a",))
    bad = tmp_path / "broken.json"
    bad.write_text(files[2].read_text()[:500])
    code, output = cli("ingest", str(tmp_path))
    assert code == 1
    assert "3 ingested" in output and "1 failed" in output
    assert "broken.json" in output and "truncated JSON" in output


def test_validate_reports_its_cost(cli, tmp_path):
    syn.write_cohort(tmp_path, seeds=("a",))
    code, output = cli("ingest", "--validate", "--quiet", str(tmp_path))
    assert code == 0, output
    assert "FHIR R4B validation took" in output


def test_nothing_to_ingest(cli, tmp_path):
    code, output = cli("ingest", str(tmp_path))
    assert code == 1 and "no .json files" in output


def test_json_report(cli, tmp_path):
    import json

    from typer.testing import CliRunner

    from chartside.cli import build

    syn.write_cohort(tmp_path, seeds=("a",))
    result = CliRunner().invoke(build(), ["ingest", "--json", str(tmp_path)])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["ok"] and report["by_status"] == {"ingested": 3} and report["patients_written"] == 1
    assert {f["kind"] for f in report["files"]} == {"hospital", "practitioner", "patient"}
