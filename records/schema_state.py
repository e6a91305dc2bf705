"""Telling "the schema is not there" apart from every other database error.

A command run before `make run` (or against a database an older release migrated) used to die
with a SQLAlchemy traceback about a missing relation. That is the one database failure a new
user can fix in one step, so it gets one message, the same for every command: the CLI's
`main()` asks `missing_schema_hint` about any exception that escapes a command.
"""

from __future__ import annotations

# SQLSTATE classes PostgreSQL raises for a table, column or function the schema should have
_MISSING_OBJECT = {"42P01": "table", "42703": "column", "42883": "function"}


def missing_schema_hint(exc: BaseException) -> str | None:
    """A one-line fix when `exc` (or what caused it) is a missing schema object, else None."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        sqlstate = getattr(getattr(current, "orig", None), "sqlstate", None) or getattr(
            current, "sqlstate", None
        )
        if sqlstate in _MISSING_OBJECT:
            detail = str(getattr(current, "orig", current)).splitlines()[0]
            return (
                f"the database is missing a {_MISSING_OBJECT[sqlstate]} Chartside needs ({detail}): its schema "
                "is absent or older than this code. Run `chartside db upgrade` (or `make run`, which also "
                "loads the demo data); `chartside db status` shows which database and revision"
            )
        current = current.__cause__ or current.__context__
    return None
