"""`chartside bench ingest` runs end to end in its own scratch database (no timing asserted)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from chartside.cli import build
from fhir_ingest.bench import BenchResult, Round, run_benchmark
from fhir_ingest.report import IngestReport
from tests.fhir_ingest import synthetic as syn
from tests.fhir_ingest.dbutil import table_counts


def test_benchmark_counts_the_work_and_leaves_the_real_database_alone(clean_db, settings, tmp_path):
    syn.write_cohort(tmp_path, seeds=("a", "b", "c"))
    before = table_counts(clean_db)
    result = run_benchmark(settings, [tmp_path], rounds=2, validate=True)
    assert (result.files, result.patients, result.failures) == (5, 3, [])
    assert len(result.all_rounds) == 2  # the warm-up round is not among them
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


def _round(parse: float, ingest: float, parse_cpu: float = 1.0, ingest_cpu: float = 1.0) -> Round:
    return Round(parse, parse_cpu, ingest, ingest_cpu, None, IngestReport())


def _result(rounds: list[Round]) -> BenchResult:
    return BenchResult(
        files=1,
        patients=1,
        resources=1,
        bytes=1,
        rounds=len(rounds),
        parse_seconds=0.0,
        ingest_seconds=0.0,
        unchanged_seconds=0.0,
        all_rounds=rounds,
    )


def test_the_ratio_pairs_each_ingest_with_its_own_rounds_parse():
    # the machine slows down 2× in the middle round: both sides of that round are slow, so its
    # paired ratio is as steady as the others, where best-of-each mixes moments
    rounds = [_round(0.10, 0.30), _round(0.20, 0.60), _round(0.10, 0.32)]
    result = _result(rounds)
    assert result.ratio == pytest.approx(3.0)  # the median paired ratio (3.0, 3.0, 3.2)
    assert result.spread() == pytest.approx((3.0, 3.2))
    assert result.best_ratio == pytest.approx(3.0)  # 0.30 / 0.10
    # a lucky parse in one round and a lucky ingest in another: best-of-each flatters or
    # punishes by chance; the paired median does not move
    skewed = _result([_round(0.05, 0.30), _round(0.10, 0.30), _round(0.10, 0.31), _round(0.10, 0.20)])
    assert skewed.best_ratio == pytest.approx(4.0)  # 0.20 / 0.05: two different rounds
    assert skewed.ratio == pytest.approx(3.0)  # median_low of (6.0, 3.0, 3.1, 2.0): a measured round's own


def test_the_cpu_ratio_is_paired_the_same_way():
    result = _result(
        [_round(1, 1, parse_cpu=0.1, ingest_cpu=0.4), _round(1, 1, parse_cpu=0.2, ingest_cpu=0.7)]
    )
    assert result.cpu_ratio == pytest.approx(3.5)  # median_low of (4.0, 3.5)
