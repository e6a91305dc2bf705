"""Time for the generator: a pinned "today" and the wall-clock offsets real Synthea output carries.

No wall clock is read anywhere: the same seed must give byte-identical files next year. Times
are kept as naive local datetimes of the simulated region (Massachusetts, US Eastern time) and
written with the UTC offset that applied on that day, -05:00 in winter and -04:00 in summer,
because real Synthea files carry the generating machine's local offsets (see SOURCES.md) and
ingestion has to normalise them to UTC.
"""

from __future__ import annotations

import datetime as dt
from functools import lru_cache

#: The simulated present. Records end here; "active" means active on this day.
REFERENCE_TODAY = dt.date(2026, 11, 1)

_STANDARD = dt.timedelta(hours=-5)
_DAYLIGHT = dt.timedelta(hours=-4)


def _nth_sunday(year: int, month: int, n: int) -> dt.date:
    first = dt.date(year, month, 1)
    first_sunday = first + dt.timedelta(days=(6 - first.weekday()) % 7)
    return first_sunday + dt.timedelta(weeks=n - 1)


def eastern_offset(local: dt.datetime) -> dt.timedelta:
    """UTC offset of US Eastern time at a local wall-clock time (US rules since 2007).

    Daylight time runs from the second Sunday of March, 02:00, to the first Sunday of November,
    02:00. Earlier years are simulated with the same rule: the generator only needs plausible,
    consistent offsets, not a historical tz database.
    """
    start, end = _daylight_period(local.year)
    return _DAYLIGHT if start <= local < end else _STANDARD


@lru_cache(maxsize=256)
def _daylight_period(year: int) -> tuple[dt.datetime, dt.datetime]:
    return (
        dt.datetime.combine(_nth_sunday(year, 3, 2), dt.time(2)),
        dt.datetime.combine(_nth_sunday(year, 11, 1), dt.time(2)),
    )


@lru_cache(maxsize=8)
def _offset_text(offset: dt.timedelta) -> str:
    minutes = int(offset.total_seconds()) // 60
    sign = "-" if minutes < 0 else "+"
    minutes = abs(minutes)
    return f"{sign}{minutes // 60:02d}:{minutes % 60:02d}"


def fhir_datetime(local: dt.datetime) -> str:
    """`2011-08-05T02:09:58-04:00`: how Synthea writes effective/onset/period times."""
    return local.isoformat(timespec="seconds") + _offset_text(eastern_offset(local))


def fhir_instant(local: dt.datetime, millis: int) -> str:
    """`2011-08-05T02:09:58.554-04:00`: Synthea's `issued` / note `date` (with milliseconds)."""
    return local.isoformat(timespec="seconds") + f".{millis:03d}" + _offset_text(eastern_offset(local))


def age_on(birth: dt.date, day: dt.date) -> int:
    return day.year - birth.year - ((day.month, day.day) < (birth.month, birth.day))


def add_years(day: dt.date, years: int) -> dt.date:
    try:
        return day.replace(year=day.year + years)
    except ValueError:  # 29 February
        return day.replace(year=day.year + years, day=28)
