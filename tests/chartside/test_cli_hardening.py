"""Issue 18 items 12 and 15: commands a new user runs in the first hour.

12. `chartside mcp --print-config` wrote a literal "<your DATABASE_URL>"; started by a desktop
    client (no shell environment, another working directory) `chartside mcp` silently created
    a new, empty database.
15. `chartside serve` printed "serving at …" and then died on "address already in use".
"""

from __future__ import annotations

import json
import socket

import pytest
from typer.testing import CliRunner

from chartside.cli import app, build
from tests.conftest import PROJECT_ROOT
from tests.conftest import test_settings as make_settings

runner = CliRunner()


@pytest.fixture(autouse=True)
def _built():
    if not app.registered_groups:
        build()


def _use(monkeypatch, settings, *modules: str) -> None:
    for module in modules:
        monkeypatch.setattr(f"{module}.get_settings", lambda: settings)


def test_print_config_names_the_existing_data_folder_absolutely(monkeypatch):
    settings = make_settings(data_dir=PROJECT_ROOT / ".chartside")  # the test database lives here
    _use(monkeypatch, settings, "mcp_server.cli")
    result = runner.invoke(app, ["mcp", "--print-config", "--patient", "p-1"])
    assert result.exit_code == 0, result.output
    entry = json.loads(result.output)["mcpServers"]["chartside"]
    assert entry["env"] == {"CHARTSIDE_DATA_DIR": str((PROJECT_ROOT / ".chartside").resolve())}
    assert entry["args"] == ["mcp", "--patient", "p-1", "--role", "patient"]


def test_print_config_carries_the_real_database_url(monkeypatch):
    url = "postgresql://chartside:secret@db.internal:5432/chartside"
    _use(monkeypatch, make_settings(database_url=url), "mcp_server.cli")
    result = runner.invoke(app, ["mcp", "--print-config", "--patient", "p-1"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["mcpServers"]["chartside"]["env"] == {"DATABASE_URL": url}
    assert "<your DATABASE_URL>" not in result.output


def test_mcp_without_a_database_refuses_instead_of_creating_an_empty_one(monkeypatch, tmp_path):
    empty = tmp_path / "elsewhere" / ".chartside"
    _use(monkeypatch, make_settings(data_dir=empty, database_url=None), "mcp_server.cli")
    for args in (["mcp", "--patient", "p-1"], ["mcp", "--print-config"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, result.output
        assert "no Chartside database in" in result.output and "CHARTSIDE_DATA_DIR" in result.output
    assert not (empty / "pgdata").exists()


@pytest.fixture()
def busy_port():
    holder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    holder.bind(("127.0.0.1", 0))
    holder.listen()
    yield holder.getsockname()[1]
    holder.close()


@pytest.mark.parametrize("command", ["serve", "up"])
def test_a_busy_port_is_refused_before_anything_is_printed_or_prepared(monkeypatch, busy_port, command):
    settings = make_settings()
    _use(monkeypatch, settings, "server.cli", "chartside.up")
    opened = []
    monkeypatch.setattr("server.cli.open_database", lambda *a, **k: opened.append(1))
    monkeypatch.setattr("chartside.up.open_database", lambda *a, **k: opened.append(1))
    result = runner.invoke(app, [command, "--host", "127.0.0.1", "--port", str(busy_port)])
    assert result.exit_code == 2, result.output
    assert f"port {busy_port} on 127.0.0.1 is already in use" in result.output and "--port" in result.output
    assert "serving at" not in result.output and opened == []
