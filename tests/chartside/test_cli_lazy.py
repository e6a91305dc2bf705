"""The CLI starts without importing the product: commands are imported when they are run.

Each check runs in a fresh interpreter: this test process has long since imported everything.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import typer
from typer.testing import CliRunner

from chartside.cli import COMMANDS, RootGroup, load_all
from chartside.groups import BENCH, EVAL
from chartside.lazy import Placeholder

HEAVY = ("anthropic", "mcp", "starlette", "server.app", "agent.llm", "fastembed", "onnxruntime")

PROBE = """
import contextlib, io, json, sys
from chartside.cli import main
sys.argv = ["chartside", *json.loads(sys.argv[1])]
with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
    main()
print(json.dumps(sorted(sys.modules)))
"""


def modules_after(*argv: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(list(argv))], capture_output=True, text=True, check=True
    )
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def heavy_in(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY))


def test_importing_the_cli_imports_no_model_sdk_mcp_or_web_app():
    done = subprocess.run(
        [sys.executable, "-c", "import json, sys, chartside.cli; print(json.dumps(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert heavy_in(set(json.loads(done.stdout))) == []


@pytest.mark.parametrize("argv", [("--help",), ("db", "--help"), ("bench", "--help"), ("eval", "--help")])
def test_help_imports_nothing_heavy(argv):
    modules = modules_after(*argv)
    assert heavy_in(modules) == []
    if argv == ("--help",):  # the root listing imports no package at all
        assert not {"records", "tools", "agent", "knowledge", "evals", "fhir_ingest"} & modules


def test_a_command_imports_its_own_module_only():
    modules = modules_after("generate", "--help")
    assert "synthea_data.cli" in modules
    assert heavy_in(modules) == [] and "records.models" not in modules


def _real_group() -> typer.core.TyperGroup:
    return typer.main.get_group(load_all())


@pytest.mark.parametrize("table, path", [(COMMANDS, ()), (BENCH, ("bench",)), (EVAL, ("eval",))])
def test_each_table_lists_exactly_what_the_modules_register(table, path):
    group = _real_group()
    for name in path:
        group = group.commands[name]
    for name in table:  # resolve every placeholder, as running the command would
        group.real_command(name)
    real = {name: cmd for name, cmd in group.commands.items()}
    missing = sorted(n for n, c in real.items() if isinstance(c, Placeholder))
    assert missing == [], f"in the table but not registered by its module: {missing}"
    assert set(real) == set(table), (
        "a module registers a command its table does not list (or the reverse): add it to "
        f"chartside.cli.COMMANDS / chartside.groups.BENCH / EVAL: {sorted(set(real) ^ set(table))}"
    )
    for name, entry in table.items():
        assert real[name].get_short_help_str(limit=1000) == entry.help, name


def test_placeholders_show_the_same_help_listing_as_the_real_commands():
    lazy = RootGroup(name="chartside")
    assert list(lazy.commands) == list(COMMANDS)
    assert all(isinstance(c, Placeholder) for c in lazy.commands.values())


def test_an_unknown_command_is_a_usage_error_with_a_suggestion():
    result = CliRunner().invoke(load_all(), ["statu"])
    assert result.exit_code == 2
    result = CliRunner().invoke(load_all(), ["dbb"])
    assert "db" in result.output
