"""Command groups whose commands are imported only when they are run.

`chartside --help` must not import the product: a command's module (and everything it
imports) is loaded when that command is resolved. Until then the group holds a placeholder
that carries only the name and the one-line help from a table (`chartside.cli.COMMANDS`,
`chartside.groups.BENCH`, `chartside.groups.EVAL`); `tests/chartside/test_cli_lazy.py` keeps
each table equal to what the modules really register, so the placeholders cannot drift.

A package still adds its commands the usual way, with `register(app)` in its `cli.py`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import click
import typer
from typer.core import TyperCommand, TyperGroup


@dataclass(frozen=True)
class Lazy:
    """Where a command comes from: `module.register(app)` defines it; `help` is its one-liner."""

    module: str
    help: str
    hooks: tuple[str, ...] = ()  # modules whose register() plugs into this command (loaded with it)


_loaded: set[str] = set()
_root: list[typer.Typer] = []  # the root Typer that register(app) receives (set by chartside.cli)


def set_root(app: typer.Typer) -> None:
    _root[:] = [app]


def load_module(name: str) -> None:
    """Import a command module and call its `register(app)` once per process."""
    if name in _loaded:
        return
    importlib.import_module(name).register(_root[0])
    _loaded.add(name)


class Placeholder(TyperCommand):
    """Stands in for a command not imported yet: enough for the help listing, nothing more."""


class LazyGroup(TyperGroup):
    """A Typer group that imports a command's module when the command is resolved."""

    entries: ClassVar[dict[str, Lazy]] = {}
    source: ClassVar[Callable[[], typer.Typer]]  # the Typer whose registrations hold the real commands

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        for name, entry in self.entries.items():
            if name not in self.commands:
                self.commands[name] = Placeholder(name=name, help=entry.help, callback=None)
        # keep the table's order in the help listing, then anything registered beyond it
        ordered = {n: self.commands[n] for n in self.entries}
        ordered.update({n: c for n, c in self.commands.items() if n not in ordered})
        self.commands = ordered

    def real_command(self, name: str) -> click.Command | None:
        entry = self.entries.get(name)
        if entry is not None and isinstance(self.commands.get(name), Placeholder):
            for module in (entry.module, *entry.hooks):
                load_module(module)
            built = typer.main.get_group(type(self).source())
            if name in built.commands:
                self.commands[name] = built.commands[name]
        command = self.commands.get(name)
        return None if isinstance(command, Placeholder) else command

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        if args and args[0] in self.entries and self.real_command(args[0]) is None:
            entry = self.entries[args[0]]
            ctx.fail(f"command {args[0]!r} is in the CLI table but {entry.module} did not register it")
        return super().resolve_command(ctx, args)


def load_all(groups: list[type[LazyGroup]]) -> None:
    """Import every command module (what each command paid before; the start-up bench's baseline)."""
    for group in groups:
        for entry in group.entries.values():
            for module in (entry.module, *entry.hooks):
                load_module(module)
