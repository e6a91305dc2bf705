"""Shared terminal output: one rich Console, progress bars, and clean fatal errors."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

console = Console()
err_console = Console(stderr=True)


def progress() -> Progress:
    """A progress bar on stderr so stdout stays clean for tables and --json."""
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err_console,
        transient=False,
    )


@contextmanager
def reporting(description: str) -> Iterator[Callable[[int, int], None]]:
    """The one progress shape of library code: a `progress(done, total)` callback (libraries
    never print; tests/test_progress_shape.py keeps every `progress=` parameter to it). This
    renders it: a bar on stderr appears on the first report and is closed at the end."""
    bar = progress()
    task = None

    def report(done: int, total: int) -> None:
        nonlocal task
        if task is None:
            bar.start()
            task = bar.add_task(description, total=total)
        bar.update(task, completed=done, total=total)

    try:
        yield report
    finally:
        if task is not None:
            bar.stop()


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print a one-line error (no traceback) and return the Exit to raise.

    Never hard-wrapped at the terminal's width: a long path or id in the message stays whole,
    so it can be copied (and searched for) as printed.
    """
    err_console.print(f"[bold red]error:[/] {message}", soft_wrap=True)
    return typer.Exit(code)
