"""`chartside db …`: schema upgrades and the state of the database."""

from __future__ import annotations

import typer
from rich.table import Table
from sqlalchemy import text

from chartside.console import console
from records import migrate
from records.database import Database, open_database
from records.models import Base
from records.settings import get_settings

db_app = typer.Typer(help="The database: schema upgrades and status.", no_args_is_help=True)


def open_cli_database() -> Database:
    """Open the configured database for a CLI command (starting the embedded one if needed)."""
    return open_database(get_settings())


@db_app.command("upgrade")
def upgrade_command() -> None:
    """Create or upgrade the schema to the newest revision (safe to run again)."""
    db = open_cli_database()
    try:
        before, after = migrate.upgrade(db)
    finally:
        db.dispose()
    if before == after:
        console.print(f"schema already at revision [bold]{after}[/]")
    else:
        console.print(f"schema upgraded {before or '(empty)'} → [bold]{after}[/]")


@db_app.command("status")
def status_command() -> None:
    """Where the database is, whether it runs, its schema revision and row counts."""
    db = open_cli_database()
    try:
        console.print(f"database: {db.describe()}")
        current, head = migrate.current_revision(db), migrate.head_revision()
        state = "up to date" if current == head else f"behind (head is {head}; run `chartside db upgrade`)"
        console.print(f"schema revision: {current or '(none)'} — {state}")
        if current is None:
            return
        table = Table("table", "rows", title="Row counts")
        with db.admin.connect() as conn:
            for t in Base.metadata.sorted_tables:
                count = conn.execute(text(f'SELECT count(*) FROM "{t.name}"')).scalar_one()
                table.add_row(t.name, f"{count:,}")
        console.print(table)
    finally:
        db.dispose()


def register(app: typer.Typer) -> None:
    app.add_typer(db_app, name="db")
