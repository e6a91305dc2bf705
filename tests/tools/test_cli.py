"""`chartside tools list|call` and `chartside slots generate` against the test database."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from chartside.cli import app, build
from tests.builder import RecordBuilder, reference_data

runner = CliRunner()


@pytest.fixture()
def cli(clean_db, settings, monkeypatch):
    monkeypatch.setattr("tools.cli.get_settings", lambda: settings)
    if not app.registered_groups:
        build()
    return clean_db


def test_tools_list_json_names_every_tool(cli, registry):
    result = runner.invoke(app, ["tools", "list", "--json"])
    assert result.exit_code == 0, result.output
    names = [tool["name"] for tool in json.loads(result.output)]
    assert names == registry.names()


def test_tools_call_runs_as_an_audited_clinician(cli):
    rec = RecordBuilder("p-cli", name="Cli Patient")
    rec.observation(
        "Hemoglobin A1c/Hemoglobin.total in Blood", code="4548-4", value=7.2, unit="%", at="2024-02-02"
    )
    rec.write(cli)
    result = runner.invoke(
        app, ["tools", "call", "get_labs", "--patient", "p-cli", "--args", '{"query": "A1C"}']
    )
    assert result.exit_code == 0, result.output
    assert "[L1] Hemoglobin A1c/Hemoglobin.total in Blood 7.2 % (2024-02-02)" in result.output
    from sqlalchemy import text

    with cli.admin.connect() as conn:
        actor, role = conn.execute(text("SELECT actor, role FROM audit_log")).one()
    assert actor.startswith("cli:") and role == "clinician"


def test_tools_call_reports_bad_json_and_bad_arguments(cli):
    RecordBuilder("p", name="P Patient").write(cli)
    bad_json = runner.invoke(app, ["tools", "call", "get_labs", "--patient", "p", "--args", "{query"])
    assert bad_json.exit_code == 1 and "not valid JSON" in bad_json.output
    bad_arg = runner.invoke(
        app, ["tools", "call", "get_labs", "--patient", "p", "--args", '{"patient_id": "x"}']
    )
    assert bad_arg.exit_code == 1 and "'patient_id' is not an argument" in bad_arg.output
    unknown = runner.invoke(app, ["tools", "call", "nope", "--patient", "p"])
    assert unknown.exit_code == 1 and "no tool named" in unknown.output


def test_slots_generate(cli):
    reference_data(cli)
    result = runner.invoke(app, ["slots", "generate", "--days", "7", "--start", "2030-01-07", "--seed", "5"])
    assert result.exit_code == 0, result.output
    assert "14 departments" in result.output and "new slots" in result.output
    again = runner.invoke(app, ["slots", "generate", "--days", "7", "--start", "2030-01-07", "--seed", "5"])
    assert "; 0 new slots" in again.output
    bad = runner.invoke(app, ["slots", "generate", "--start", "next week"])
    assert bad.exit_code == 1 and "--start must be a date" in bad.output
