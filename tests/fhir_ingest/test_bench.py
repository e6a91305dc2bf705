"""`chartside bench ingest` runs end to end in its own scratch database (no timing asserted)."""

from __future__ import annotations

from typer.testing import CliRunner

from chartside.cli import build
from fhir_ingest.bench import run_benchmark
from tests.fhir_ingest import synthetic as syn
from tests.fhir_ingest.dbutil import table_counts


def test_benchmark_counts_the_work_and_leaves_the_real_database_alone(clean_db, settings, tmp_path):
    syn.write_cohort(tmp_path, seeds=("a", "b", "c"))
    before = table_counts(clean_db)
    result = run_benchmark(settings, [tmp_path], rounds=1, validate=True)
    assert (result.files, result.patients, result.failures) == (5, 3, [])
    assert result.resources == 3 * 19 + 4
    assert result.parse_seconds > 0 and result.ingest_seconds > 0 and result.ratio > 0
    assert result.validation_seconds and (result.one_process_seconds is None) == (result.workers == 0)
    assert set(result.phases) >= {"read", "parse", "map", "write"}
    # CPU time per phase beside the wall time (a thread's CPU never exceeds its wall time)
    assert set(result.phase_cpu) == set(result.phases)
    assert all(0 <= result.phase_cpu[k] <= result.phases[k] + 0.01 for k in result.phases)
    assert table_counts(clean_db) == before  # measured in a scratch database


def test_bench_command_prints_the_ratio(clean_db, settings, tmp_path, monkeypatch):
    monkeypatch.setattr("fhir_ingest.cli.get_settings", lambda: settings)
    syn.write_cohort(tmp_path, seeds=("a",))
    result = CliRunner().invoke(build(), ["bench", "ingest", str(tmp_path), "--rounds", "1"])
    output = " ".join(result.output.split())
    assert result.exit_code == 0, output
    assert "JSON parse only (orjson)" in output and "ingest / parse-only ratio:" in output
    assert "the same phases in CPU time: read" in output
