"""Issue 18 item 14: an error line is never hard-wrapped at the terminal's width.

Under load the temporary paths in `tests/evals/test_cli.py` got long enough for rich to wrap
the message at 80 columns, splitting the words the test (and a user's grep) looks for.
"""

from __future__ import annotations

import typer
from typer.testing import CliRunner

from chartside.console import fail

app = typer.Typer()
LONG_PATH = "/tmp/" + "/".join(f"pytest-of-someone-{i}" for i in range(8)) + "/set.jsonl"


@app.command()
def broken() -> None:
    raise fail(f"{LONG_PATH}:1: bad header (expected chartside-eval-set/1)")


def test_a_long_error_stays_on_one_line_at_80_columns():
    result = CliRunner().invoke(app, [], env={"COLUMNS": "80"})
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert lines == [f"error: {LONG_PATH}:1: bad header (expected chartside-eval-set/1)"]
