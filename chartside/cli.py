"""The one CLI. Each package contributes its commands through a `register(app)` function.

Commands register lazily: `chartside --help` imports only this module, `chartside db status`
imports `records.cli` and what it needs, never the model SDK, MCP or the web app. Adding a
command = `register(app)` in the package's `cli.py` + one line in `COMMANDS` (name → module,
one-line help); `tests/chartside/test_cli_lazy.py` fails when the table and the modules differ.
A package's `cli.py` imports its heavy modules inside the command functions.
"""

from __future__ import annotations

import logging
import os

import typer

from chartside.groups import BenchGroup, EvalGroup
from chartside.lazy import Lazy, LazyGroup, set_root
from chartside.lazy import load_all as _load_all

COMMANDS: dict[str, Lazy] = {
    "up": Lazy("chartside.up", "Start the database, load the demo data if absent, and serve the web app."),
    "serve": Lazy(
        "server.cli", "Serve the web app (login, chat, SSE answers) and print the URL and demo accounts."
    ),
    "ask": Lazy(
        "agent.cli", "Ask a question about one patient's record; the answer is cited to rows of the record."
    ),
    "ingest": Lazy(
        "fhir_ingest.cli",
        "Load Synthea FHIR bundles: support bundles first, one transaction per bundle.",
        hooks=("chartside.wiring",),
    ),
    "generate": Lazy(
        "synthea_data.cli",
        "Generate a deterministic cohort in real Synthea's bundle format (patients + support bundles).",
    ),
    "mcp": Lazy(
        "mcp_server.cli",
        "Serve one patient's record to a local MCP client over stdio (the client starts this).",
    ),
    "bench": Lazy("chartside.groups", "Benchmarks: ratios measured side by side in one run."),
    "eval": Lazy("chartside.groups", "Evaluations: question sets, runs, reports."),
    "db": Lazy("records.cli", "The database: schema upgrades and status."),
    "tools": Lazy("tools.cli", "The patient-scoped tools: list them, call one."),
    "slots": Lazy("tools.cli", "Appointment schedules derived from organisations and practitioners."),
    "users": Lazy("server.cli", "Accounts: patients, clinicians, evaluators."),
    "leaflets": Lazy("knowledge.cli", "Patient-information leaflets: ingest and search."),
    "notes": Lazy("knowledge.cli", "Clinical notes: index for search, search one patient's notes."),
    "knowledge": Lazy("knowledge.cli", "The search indexes as a whole."),
    "cluster": Lazy(
        "records.cluster_cli",
        "A local Citus cluster (coordinator + workers on loopback) built by `make citus`.",
    ),
}


class RootGroup(LazyGroup):
    entries = COMMANDS
    source = staticmethod(lambda: app)


app = typer.Typer(
    name="chartside",
    help="Grounded, cited answers about one patient's record.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=RootGroup,
)
set_root(app)


@app.callback()
def _root(verbose: bool = typer.Option(False, "--verbose", "-v", help="Log debug output.")) -> None:
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s"
    )


def load_all() -> typer.Typer:
    """Import and register every command module (tests; the start-up bench's eager baseline)."""
    _load_all([RootGroup, BenchGroup, EvalGroup])
    return app


def build() -> typer.Typer:
    """The app with every command registered (kept for callers that want the whole CLI)."""
    return load_all()


def main() -> None:
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        app()
    except Exception as exc:
        # only when something failed: start stays lazy
        from chartside.console import fail
        from knowledge.embeddings import EmbeddingSetupError
        from records.schema_state import missing_schema_hint

        if isinstance(exc, EmbeddingSetupError):
            # the one embedder loader's one failure policy: stop, with the fix named
            raise SystemExit(fail(f"the embedding model cannot be used: {exc}").exit_code) from None
        hint = missing_schema_hint(exc)
        if hint is None:
            raise
        raise SystemExit(fail(hint).exit_code) from None
