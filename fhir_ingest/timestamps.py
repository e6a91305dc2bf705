"""FHIR `instant` / `dateTime` / `date` strings → Python values, every instant in UTC.

Synthea writes the offset of the machine that generated the data (-07:00, +00:00, ...), so
two bundles from different machines only compare correctly once both are in UTC. The
parser is strict about shape (the FHIR regular expressions) because `fromisoformat` alone
accepts things FHIR does not (a time without an offset, a space instead of `T`), and a
time without an offset cannot be placed on the UTC timeline at all.

Partial dateTimes (`2019`, `2019-07`, `2019-07-14`) become the first instant of that period
at UTC midnight; `precision` tells the caller what was really known.
"""

from __future__ import annotations

import datetime as dt
import re
from functools import lru_cache

UTC = dt.UTC

_DATETIME = re.compile(
    r"(?P<year>\d{4})"
    r"(?:-(?P<month>0[1-9]|1[0-2])"
    r"(?:-(?P<day>0[1-9]|[12]\d|3[01])"
    r"(?:T(?P<time>(?:[01]\d|2[0-3]):[0-5]\d:(?:[0-5]\d|60)(?:\.\d{1,9})?)"
    r"(?P<tz>Z|[+-](?:0\d|1[0-3]):[0-5]\d|[+-]14:00)?"
    r")?)?)?"
)
_DATE = re.compile(r"(?P<year>\d{4})(?:-(?P<month>0[1-9]|1[0-2])(?:-(?P<day>0[1-9]|[12]\d|3[01]))?)?")


class TimestampError(ValueError):
    """A string that is not a FHIR date/dateTime/instant (the message says why)."""


def parse_instant(value: str) -> dt.datetime:
    """Parse a FHIR dateTime/instant and return an aware datetime in UTC."""
    return parse_datetime_with_precision(value)[0]


def parse_datetime_with_precision(value: str) -> tuple[dt.datetime, str]:
    """(UTC datetime, precision) where precision is year | month | day | time."""
    if not isinstance(value, str):
        raise TimestampError(f"expected a date/time string, got {type(value).__name__}")
    return _parse_datetime(value)


# A Synthea bundle repeats its timestamps (every observation of an encounter shares its
# effective and issued times), so parsing each distinct string once saves most of the work.
# The results are immutable (aware datetimes, strings); errors are raised, never cached.
@lru_cache(maxsize=1 << 16)
def _parse_datetime(value: str) -> tuple[dt.datetime, str]:
    m = _DATETIME.fullmatch(value)
    if m is None:
        raise TimestampError(
            f"{value!r} is not a FHIR dateTime (YYYY, YYYY-MM, YYYY-MM-DD or YYYY-MM-DDThh:mm:ss+zz:zz)"
        )
    year, month, day, time, tz = m.group("year", "month", "day", "time", "tz")
    if time is None:
        if tz is not None:  # pragma: no cover - the pattern only allows tz after a time
            raise TimestampError(f"{value!r}: offset without a time")
        try:
            start = dt.datetime(int(year), int(month or 1), int(day or 1), tzinfo=UTC)
        except ValueError as exc:
            raise TimestampError(f"{value!r}: {exc}") from None
        return start, "day" if day else "month" if month else "year"
    if tz is None:
        raise TimestampError(f"{value!r} has a time but no timezone offset, so it cannot be placed in UTC")
    leap = time[6:8] == "60"
    if leap:  # a leap second: keep it inside its minute
        time = time[:6] + "59" + time[8:]
    text = f"{year}-{month}-{day}T{time}{'+00:00' if tz == 'Z' else tz}"
    try:
        parsed = dt.datetime.fromisoformat(text)
    except ValueError as exc:
        raise TimestampError(f"{value!r}: {exc}") from None
    if leap:
        parsed = parsed.replace(microsecond=999_999)
    return parsed.astimezone(UTC), "time"


parse_datetime_string = _parse_datetime  # for a value known to be a str (`fhir_ingest.typed`)


def clear_cache() -> None:
    """Forget the parsed strings (called once per bundle)."""
    _parse_datetime.cache_clear()


def parse_date(value: str) -> dt.date:
    """Parse a FHIR `date` (partial dates become the first day of the period)."""
    if not isinstance(value, str):
        raise TimestampError(f"expected a date string, got {type(value).__name__}")
    m = _DATE.fullmatch(value)
    if m is None:
        raise TimestampError(f"{value!r} is not a FHIR date (YYYY, YYYY-MM or YYYY-MM-DD)")
    year, month, day = m.group("year", "month", "day")
    try:
        return dt.date(int(year), int(month or 1), int(day or 1))
    except ValueError as exc:
        raise TimestampError(f"{value!r}: {exc}") from None
