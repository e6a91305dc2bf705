"""`chartside eval …` as an evaluator uses it: clear errors, tables, exit codes."""

from __future__ import annotations

import orjson
import pytest
from typer.testing import CliRunner

from chartside.cli import app, build
from evals.model import QuestionSet, read_set
from evals.pipeline import run_set
from tests.evals.agents import OracleAgent

build()


@pytest.fixture()
def cli(cohort_db, settings, monkeypatch):
    monkeypatch.setattr("evals.cli.get_settings", lambda: settings)
    runner = CliRunner()

    def invoke(*args: str):
        result = runner.invoke(app, ["eval", *args])
        result.text = result.output  # error lines are never wrapped (chartside.console.fail)
        return result

    return invoke


def test_generate_writes_a_set_and_prints_counts(cli, tmp_path):
    out = tmp_path / "set.jsonl"
    result = cli("generate", "--out", str(out), "--patients", "all", "--seed", "3", "--now", "2025-06-01")
    assert result.exit_code == 0, result.output
    question_set = read_set(out)
    assert question_set.header.now.isoformat() == "2025-06-01T12:00:00+00:00"
    assert "booking" in result.output and str(len(question_set.questions)) in result.output


def test_generate_rejects_bad_arguments_in_one_line(cli, tmp_path):
    out = tmp_path / "x.jsonl"
    for args, message in (
        (("--patients", "many"), "--patients 'many'"),
        (("--now", "yesterday"), "--now 'yesterday'"),
        (("--category", "gossip"), "unknown category gossip"),
    ):
        result = cli("generate", "--out", str(out), *args)
        assert result.exit_code == 1 and message in result.text, result.output
        assert "Traceback" not in result.output
    assert not out.exists()


def test_run_refuses_a_broken_set_file(cli, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"format": "chartside-eval-set/1"}\n')
    result = cli("run", "--set", str(bad))
    assert result.exit_code == 1 and "bad.jsonl:1: bad header" in result.text


def test_report_and_min_score_exit_status(cli, cohort_db, tmp_path):
    out = tmp_path / "set.jsonl"
    assert (
        cli("generate", "--out", str(out), "--now", "2025-06-01", "-c", "lookup", "-c", "negation").exit_code
        == 0
    )
    question_set = read_set(out)
    planted = {q.id for q in question_set.questions[:3]}
    agent = OracleAgent(
        question_set.questions, cohort_db, override=lambda q: "Nope, 1901-01-01." if q.id in planted else None
    )
    run_dir = tmp_path / "run"
    run_set(
        agent,
        cohort_db,
        out,
        QuestionSet(header=question_set.header, questions=question_set.questions),
        run_dir,
        agent_name="scripted",
        run_id="cli",
    )
    ok = cli("report", str(run_dir), "--min-score", "0.5")
    assert ok.exit_code == 0, ok.output
    assert "questions/s" in ok.output and "safety failures: 0" in ok.output
    report = orjson.loads((run_dir / "report.json").read_bytes())
    assert report["overall"]["verdicts"]["correct"] == len(question_set.questions) - 3
    too_high = cli("report", str(run_dir), "--min-score", "0.99")
    assert too_high.exit_code == 2 and "below --min-score" in too_high.text
    missing = cli("report", str(tmp_path / "nowhere"))
    assert missing.exit_code == 1 and "not a run folder" in missing.text


def test_run_builds_the_safety_gate_before_the_first_timed_question(cli, tmp_path, monkeypatch):
    """A gate built lazily by the first question spends that question's timeout on its exemplar
    vectors: on a loaded fresh clone the first four answers of a demo run timed out at 180 s and
    scored as safety failures. The run warms the gate first, with a bar, then asks."""
    out = tmp_path / "set.jsonl"
    assert cli("generate", "--out", str(out), "--now", "2025-06-01", "-c", "safety").exit_code == 0
    events: list[str] = []

    class Gate:
        def warm_up(self, progress=None):
            events.append("warm")
            if progress is not None:
                progress(1, 1)
            return True

    class Agent:
        gate = Gate()

    def asked(agent, *args, **kwargs):
        events.append("ask")
        raise RuntimeError("stop after the first question would be asked")

    monkeypatch.setattr("evals.cli.load_embedder", lambda settings: None)
    monkeypatch.setattr("evals.cli.build_eval_agent", lambda *args, **kwargs: Agent())
    monkeypatch.setattr("evals.cli.run_set", asked)
    cli("run", "--set", str(out), "--limit", "1", "--out", str(tmp_path / "run"))
    assert events == ["warm", "ask"]
