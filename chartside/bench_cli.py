"""`chartside bench …`: one Typer group for benchmarks (never run by `make test`).

Packages import `bench_app` and add their benchmark (`search` from knowledge, …).
"""

from __future__ import annotations

import typer

bench_app = typer.Typer(help="Benchmarks: measured side by side in one run.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(bench_app, name="bench")
