"""The built-in baselines score badly on a generated set: an evaluation that rewards pasting
every tool's output, saying "no" to everything, abstaining, or reading the first row is one
an agent can fool."""

from __future__ import annotations

import datetime as dt

import pytest

from evals.agents import build_eval_agent, load_embedder
from evals.baselines import BASELINES
from evals.generate import GenerateOptions
from evals.pipeline import generate_set_file, report_runs, run_set


@pytest.fixture()
def generated(cohort_db, tmp_path):
    now = dt.datetime(2025, 6, 1, 12, tzinfo=dt.UTC)
    set_path = tmp_path / "set.jsonl"
    question_set = generate_set_file(cohort_db, GenerateOptions(seed=7, now=now), set_path)
    assert len(question_set.questions) >= 60
    return set_path, question_set


@pytest.mark.parametrize("kind", BASELINES)
def test_every_baseline_scores_at_most_20_percent_and_at_most_zero(
    kind, generated, cohort_db, settings, tmp_path
):
    set_path, question_set = generated
    agent = build_eval_agent(kind, settings, cohort_db, embedder=load_embedder(settings))
    run_dir = tmp_path / kind
    run_set(agent, cohort_db, set_path, question_set, run_dir, agent_name=kind, run_id=f"base-{kind}")
    _, report, _ = report_runs([run_dir])
    overall = report["overall"]
    assert overall["accuracy"] <= 0.20, (kind, overall)
    assert overall["score"] <= 0.0, (kind, overall)
    assert report["answered"] == len(question_set.questions)
