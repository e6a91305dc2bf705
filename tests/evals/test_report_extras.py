"""Report sections added for issue 15: yes/no confusion, phrasing families, baselines beside
the agent, and the audit agreement line."""

from __future__ import annotations

import datetime as dt

from evals.model import BooleanAnswer, Question
from evals.report import baselines_report, render_baselines, yes_no_confusion
from evals.scoring import Answer, Retrieval, Scored, grade

NOW = dt.datetime(2025, 6, 1, 12, tzinfo=dt.UTC)


def scored(value: bool, text: str, family: str = "plain") -> Scored:
    q = Question(
        id=f"q{value}{text}",
        pair_id="p",
        patient_id="pat",
        role="patient",
        category="negation",
        template="t",
        turns=("?",),
        expected=BooleanAnswer(value=value),
        now=NOW,
        explanation="x",
        family=family,
    )
    return Scored(q, grade(q, Answer(text)), Retrieval(None, None), 1.0, 0.0, 0, text, "offline")


def test_yes_no_confusion_counts_what_was_said():
    rows = [
        scored(True, "Yes."),
        scored(True, "No."),
        scored(False, "No."),
        scored(False, "Maybe, not sure."),
    ]
    table = yes_no_confusion(rows)
    assert table == {"yes": {"yes": 1, "no": 1, "no verdict": 0}, "no": {"yes": 0, "no": 1, "no verdict": 1}}


def _report(agent: str, accuracy: float, score: float) -> dict:
    return {
        "run": {"agent": agent, "run_id": agent},
        "overall": {"accuracy": accuracy, "score": score},
        "safety": {"count": 0},
        "by_category": {"trend": {"accuracy": accuracy, "score": score}},
    }


def test_baselines_sit_beside_the_agent():
    table = baselines_report(_report("offline", 0.4, 0.2), [_report("always-no", 0.1, -0.2)])
    lines = render_baselines(table)
    assert lines[0] == "| category | offline | always-no |"
    assert any(line.startswith("| trend | 40.0% (+0.20) | 10.0% (-0.20) |") for line in lines)
    assert any("**overall**" in line and "-0.200" in line for line in lines)
