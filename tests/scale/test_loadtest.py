"""`chartside bench load` runs, stops by itself and reports what it measured (nothing timed here)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from chartside.cli import app, build
from server.loadtest import run_load_test

AGENTS = ["scripted", "fake-model"]


@pytest.mark.parametrize("agent", AGENTS)
def test_every_question_of_every_level_is_answered_and_stored(settings, agent):
    report = run_load_test(
        settings, levels=[1, 3], questions=2, max_seconds=120, patients=2, agent=agent, show_progress=False
    )
    assert report.agent == agent
    assert [(lvl.users, lvl.answered, lvl.errors) for lvl in report.levels] == [(1, 2, 0), (3, 6, 0)]
    for level in report.levels:
        assert len(level.latencies_ms) == level.answered and level.throughput > 0
        assert 0 < level.p(0.5) <= level.p(0.95) <= max(level.latencies_ms)
    # every answer the client saw is stored as done: measured + one warm-up question per user
    assert report.stored_done == 2 + 6 + 1 + 3


def test_a_level_stops_at_its_deadline(settings):
    report = run_load_test(
        settings,
        levels=[2],
        questions=10_000,
        max_seconds=1.5,
        patients=1,
        agent="scripted",
        show_progress=False,
    )
    (level,) = report.levels
    assert 0 < level.answered < 2 * 10_000 and level.errors == 0


def test_the_command_prints_one_row_per_level(settings, monkeypatch):
    monkeypatch.setattr("server.loadtest.get_settings", lambda: settings)
    if not app.registered_groups:
        build()
    result = CliRunner().invoke(
        app, ["bench", "load", "--users", "1,2", "--questions", "1", "--patients", "1", "--agent", "scripted"]
    )
    assert result.exit_code == 0, result.output
    rows = [line for line in result.output.splitlines() if line.startswith("│")]
    assert [r.split("│")[1].strip() for r in rows] == ["1", "2"]
    assert "q/s" in result.output and "p95 ms" in result.output
    bad = CliRunner().invoke(app, ["bench", "load", "--users", "one"])
    assert bad.exit_code == 1 and "--users" in bad.output
