"""Shared fixtures: one throwaway database per test session on the embedded PostgreSQL.

The database is created fresh (named after the process, so parallel runs do not collide),
migrated with the real migrations, and dropped at the end. Tests that need an empty record
call `clean_db`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from records import migrate
from records.database import Database, open_database
from records.embedded import drop_database
from records.models import Base
from records.settings import Settings

PROJECT_ROOT = Path(__file__).resolve().parents[1]
SAMPLES_DIR = PROJECT_ROOT.parent / "shared" / "synthea-samples"


def test_settings(**overrides) -> Settings:
    """Settings for tests: never read the developer's .env, never a real API key."""
    values = {
        "data_dir": PROJECT_ROOT / ".chartside",
        "anthropic_api_key": None,
        "database_name": f"chartside_test_{os.getpid()}",
    }
    if os.environ.get("CHARTSIDE_TEST_DATABASE_URL"):
        values["database_url"] = os.environ["CHARTSIDE_TEST_DATABASE_URL"]
    values.update(overrides)
    return Settings(_env_file=None, **values)


@pytest.fixture(scope="session")
def settings() -> Settings:
    return test_settings()


@pytest.fixture(scope="session")
def safety_gate_ready(settings: Settings) -> bool:
    """The safety gate's semantic side built once per session, before any live server answers.

    On a fresh checkout its exemplar vectors take ~30 s to embed (then cached in
    `.chartside/safety/`); without this the first test to ask a live server a question pays
    for it inside its answer timeout (a browser test timed out that way in CI)."""
    from agent.safety.gate import SafetyGate

    return SafetyGate(None, settings).warm_up()


@pytest.fixture(scope="session")
def db(settings: Settings) -> Iterator[Database]:
    database = open_database(settings)
    migrate.upgrade(database)
    yield database
    database.dispose()
    if database.embedded is not None:
        drop_database(database.embedded, settings.database_name)


def wipe(database: Database) -> None:
    """Empty every table (keeps the schema)."""
    names = ", ".join(f'"{t.name}"' for t in Base.metadata.sorted_tables)
    with database.admin.begin() as conn:
        conn.execute(text(f"TRUNCATE {names} RESTART IDENTITY CASCADE"))


@pytest.fixture()
def clean_db(db: Database) -> Database:
    wipe(db)
    return db


@pytest.fixture(scope="session")
def samples_dir() -> Path:
    if not SAMPLES_DIR.is_dir():
        pytest.skip("../shared/synthea-samples is not present")
    return SAMPLES_DIR
