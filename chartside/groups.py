"""Command groups that several packages add to (`chartside bench …`, `chartside eval …`).

A package adds a subcommand with `bench_app.command("ingest")(fn)` inside its own
`register(app)`; this module only owns the groups themselves.
"""

from __future__ import annotations

import typer

bench_app = typer.Typer(help="Benchmarks: ratios measured side by side in one run.", no_args_is_help=True)
eval_app = typer.Typer(help="Evaluations: question sets, runs, reports.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(bench_app, name="bench")
    app.add_typer(eval_app, name="eval")
