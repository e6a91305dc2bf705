"""`chartside eval …`: one Typer group that every package adds its evaluations to.

Packages import `eval_app` and add a command (`retrieval` from knowledge; question-set
generation, runs and reports from evals); this module only registers the group.
"""

from __future__ import annotations

import typer

eval_app = typer.Typer(help="Evaluations: retrieval quality, agent answers.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(eval_app, name="eval")
