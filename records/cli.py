"""`chartside db …`: schema upgrades and the state of the database."""

from __future__ import annotations

import typer
from rich.table import Table
from sqlalchemy import Connection, text

from chartside.console import console
from records import migrate
from records.database import Database, open_database
from records.settings import get_settings

db_app = typer.Typer(help="The database: schema upgrades and status.", no_args_is_help=True)


def schema_tables(conn: Connection) -> list[str]:
    """The schema's tables (not Alembic's bookkeeping), by name."""
    rows = conn.execute(
        text(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() "
            "AND tablename <> 'alembic_version' ORDER BY tablename"
        )
    )
    return [r[0] for r in rows]


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
            # the tables the migrations made, from the catalogue (importing the models would
            # cost more than the whole command; tests/records/test_cli.py checks they agree)
            for name in schema_tables(conn):
                count = conn.execute(text(f'SELECT count(*) FROM "{name}"')).scalar_one()
                table.add_row(name, f"{count:,}")
        console.print(table)
    finally:
        db.dispose()


def register(app: typer.Typer) -> None:
    app.add_typer(db_app, name="db")
