"""The one CLI. Each package contributes its commands through a `register(app)` function.

Adding a command group = one line in COMMAND_MODULES; the packages stay independent of
each other and of this file.
"""

from __future__ import annotations

import importlib
import logging
import os

import typer

COMMAND_MODULES = (
    "chartside.groups",
    "records.cli",
    "tools.cli",
    "chartside.up",
    "evals.cli",
    "evals.paraphrase.cli",
    "server.cli",
    "agent.cli",
    "fhir_ingest.cli",
    "synthea_data.cli",
    "mcp_server.cli",
    "knowledge.cli",
    "chartside.wiring",
    "server.loadtest",
)

app = typer.Typer(
    name="chartside",
    help="Grounded, cited answers about one patient's record.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root(verbose: bool = typer.Option(False, "--verbose", "-v", help="Log debug output.")) -> None:
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s"
    )


def build() -> typer.Typer:
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(app)
    return app


def main() -> None:
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    build()()
