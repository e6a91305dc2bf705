"""A command run against a database without Chartside's schema says how to fix it.

Found by the lead in round five: `chartside ask` on a data folder whose database had never been
migrated printed a 40-line SQLAlchemy traceback ending in `relation "patients" does not exist`.
"""

from __future__ import annotations

import os
import sys

import psycopg
import pytest
from sqlalchemy.exc import ProgrammingError

from chartside import cli
from records.database import open_database
from records.embedded import drop_database
from records.schema_state import missing_schema_hint
from tests.conftest import test_settings as make_settings


@pytest.fixture()
def unmigrated(monkeypatch):
    settings = make_settings(database_name=f"chartside_test_noschema_{os.getpid()}")
    if settings.database_url:
        pytest.skip("needs the embedded server to create an empty database")
    database = open_database(settings)  # created empty: no migrations run
    for module in ("agent.cli", "tools.cli"):
        monkeypatch.setattr(f"{module}.get_settings", lambda: settings)
    yield settings
    database.dispose()
    drop_database(database.embedded, settings.database_name)


@pytest.mark.parametrize(
    "argv",
    [
        ["ask", "--offline", "-p", "8033de97", "how tall am i"],
        ["tools", "call", "get_conditions", "--patient", "8033de97"],
    ],
)
def test_commands_on_an_unmigrated_database_name_the_fix_not_a_traceback(
    unmigrated, monkeypatch, capsys, argv
):
    if not cli.app.registered_groups:
        cli.build()
    monkeypatch.setattr(sys, "argv", ["chartside", *argv])
    with pytest.raises(SystemExit) as stopped:
        cli.main()
    assert stopped.value.code not in (0, None)
    err = capsys.readouterr().err
    assert "chartside db upgrade" in err and "does not exist" in err
    assert "Traceback" not in err


def _programming_error(sqlstate: str) -> ProgrammingError:
    class Orig(psycopg.Error):
        pass

    orig = Orig('relation "patients" does not exist\nLINE 1: SELECT …')
    orig.sqlstate = sqlstate  # what psycopg sets from the server's error
    return ProgrammingError("SELECT …", {}, orig)


def test_only_missing_objects_get_the_schema_hint():
    assert "chartside db upgrade" in missing_schema_hint(_programming_error("42P01"))
    wrapped = RuntimeError("while answering")
    wrapped.__cause__ = _programming_error("42703")
    assert "missing a column" in missing_schema_hint(wrapped)
    assert missing_schema_hint(_programming_error("42601")) is None  # a syntax error is our bug: traceback
    assert missing_schema_hint(ValueError("no")) is None
