"""`chartside ask` end to end (offline planner, fake tools in the real registry)."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import text
from typer.testing import CliRunner

from chartside.cli import app, build
from tests.agent.conftest import fake_registry

runner = CliRunner()
_built: list[bool] = []


def build_once() -> None:
    if not _built:
        build()
        _built.append(True)


@pytest.fixture()
def cli_env(clean_db, settings, monkeypatch, tool_log):
    with clean_db.admin.begin() as conn:
        conn.execute(text("INSERT INTO patients (patient_id, full_name) VALUES ('pat-cli-0001', 'Ada Test')"))
    monkeypatch.setattr("agent.cli.get_settings", lambda: settings)
    monkeypatch.setattr("agent.runner.default_registry", lambda: fake_registry(tool_log))
    monkeypatch.setattr("tools.embedder.load_embedder", lambda settings: None)
    build_once()
    return tool_log


def test_ask_streams_the_answer_trace_and_citations(cli_env):
    result = runner.invoke(app, ["ask", "--patient", "pat-cli", "What medications am I taking?"])
    assert result.exit_code == 0, result.output
    assert "Offline mode" in result.stdout
    assert "Lisinopril 10 MG Oral Tablet since 2019-05-01 [M1]" in result.stdout
    assert "Citations" in result.stdout
    assert "→ get_medications(status='active')" in result.stderr


def test_ask_json_is_one_event_per_line_ending_in_done(cli_env):
    result = runner.invoke(app, ["ask", "--patient", "pat-cli-0001", "--json", "What am I allergic to?"])
    assert result.exit_code == 0, result.output
    events = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    assert [e["type"] for e in events][-1] == "done"
    assert events[-1]["grounding"]["cited_handles"] == ["A1"]
    assert sum(e["type"] in ("done", "error") for e in events) == 1


def test_unknown_patient_is_a_clear_error(cli_env):
    result = runner.invoke(app, ["ask", "--patient", "nobody", "hello"])
    assert result.exit_code == 2  # records.patients: every "which patient?" error exits 2
    assert "no patient with that id" in result.stderr


def test_bad_role_is_refused(cli_env):
    result = runner.invoke(app, ["ask", "--patient", "pat-cli-0001", "--role", "admin", "hello"])
    assert result.exit_code == 1 and "--role" in result.stderr


def test_ask_with_a_section_scope_limits_the_tools_and_says_so(cli_env):
    result = runner.invoke(
        app, ["ask", "--patient", "pat-cli-0001", "--scope", "section:allergies", "What do I have?"]
    )
    assert result.exit_code == 0, result.output
    assert "Scope: the allergies section of the record only." in result.stdout
    assert [name for name, _ in cli_env.calls] == ["get_allergies"]
    assert "scope section: allergies" in result.stderr


def test_ask_with_a_record_scope_of_a_missing_record_is_refused(cli_env):
    result = runner.invoke(
        app, ["ask", "--patient", "pat-cli-0001", "--scope", "record:observation:obs-nope", "What is this?"]
    )
    assert result.exit_code == 0, result.output
    assert "That result is not in this patient's record." in result.stdout and cli_env.calls == []


@pytest.mark.parametrize("bad", ["labs", "section:everything", "record:slot:slot-1", "record:observation:"])
def test_bad_scope_is_a_clear_error(cli_env, bad):
    result = runner.invoke(app, ["ask", "--patient", "pat-cli-0001", "--scope", bad, "hello"])
    assert result.exit_code == 1 and "--scope" in result.stderr


def test_ask_save_transcript_writes_every_model_call_as_sent_and_answered(cli_env, monkeypatch, tmp_path):
    from agent import scripted_model
    from agent.fake_api import FakeMessagesAPI
    from agent.transcript import Transcript
    from tests.conftest import test_settings

    with FakeMessagesAPI() as api:
        api.responder = scripted_model.respond
        keyed = test_settings(anthropic_api_key="sk-ant-test-fake", anthropic_base_url=api.base_url)
        monkeypatch.setattr("agent.cli.get_settings", lambda: keyed)
        out = tmp_path / "t.json"
        result = runner.invoke(
            app,
            [
                "ask",
                "--patient",
                "pat-cli-0001",
                "--save-transcript",
                str(out),
                "What medications am I taking?",
            ],
        )
        assert result.exit_code == 0, result.output
        assert not api.violations
        sent = [r.body for r in api.message_requests]
    transcript = Transcript.read(out)
    assert transcript.patient_id == "pat-cli-0001" and transcript.model == "claude-sonnet-5-5"
    (question,) = transcript.questions
    assert [e["request"]["messages"] for e in question["exchanges"]] == [b["messages"] for b in sent]
    assert question["exchanges"][0]["response"]["stop_reason"] == "tool_use"
    assert question["exchanges"][-1]["response"]["stop_reason"] == "end_turn"
    assert "transcript: 2 model calls" in result.stderr


def test_save_transcript_in_offline_mode_is_a_clear_error(cli_env, tmp_path):
    result = runner.invoke(
        app, ["ask", "--patient", "pat-cli-0001", "--save-transcript", str(tmp_path / "t.json"), "hi"]
    )
    assert result.exit_code == 1 and "offline mode" in result.stderr
