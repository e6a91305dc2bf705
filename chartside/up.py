"""`chartside up` — what `make run` calls: everything a fresh clone needs, then serve.

Each step is idempotent and cheap when its work is already done, so `make run` is the same
command the first time and every time after.
"""

from __future__ import annotations

import typer

from chartside.console import console
from records import migrate
from records.database import Database, open_database
from records.settings import get_settings


def prepare(db: Database) -> None:
    """Schema, then demo data. Later steps (cohort, leaflets, slots, accounts) hook in here."""
    before, after = migrate.upgrade(db)
    console.print(f"schema: {after}" + (" (upgraded)" if before != after else ""))


def up_command() -> None:
    """Start the database, load the demo data if absent, and serve the web app."""
    from server.cli import print_demo_credentials, serve
    from server.demo import create_demo_accounts

    settings = get_settings()
    db = open_database(settings)
    try:
        prepare(db)
        # after the cohort is loaded: demo accounts are bound to ingested patients
        print_demo_credentials(create_demo_accounts(db))
        serve(settings, db)
    finally:
        db.dispose()


def register(app: typer.Typer) -> None:
    app.command("up")(up_command)
