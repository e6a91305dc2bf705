"""FHIR date/time strings become UTC instants; malformed or ambiguous ones are refused."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fhir_ingest.timestamps import TimestampError, parse_date, parse_datetime_with_precision, parse_instant

UTC = dt.UTC

offsets = st.integers(min_value=-14 * 60 + 1, max_value=14 * 60 - 1).map(lambda m: dt.timedelta(minutes=m))
instants = st.datetimes(
    min_value=dt.datetime(1000, 1, 2), max_value=dt.datetime(9998, 12, 30), timezones=st.just(UTC)
)


def fhir_text(moment: dt.datetime, offset: dt.timedelta, digits: int) -> str:
    """Render an instant the way FHIR producers do: local time with an explicit offset."""
    local = moment.astimezone(dt.timezone(offset))
    text = local.strftime("%Y-%m-%dT%H:%M:%S")
    if digits:
        text += "." + f"{local.microsecond:06d}"[:digits]
    minutes = int(offset.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    return text + f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


@given(instants, offsets, st.sampled_from([0, 3, 6]))
def test_any_offset_gives_the_same_utc_instant(moment, offset, digits):
    text = fhir_text(moment, offset, digits)
    parsed = parse_instant(text)
    assert parsed.tzinfo == UTC
    truncated = moment.replace(
        microsecond=int(f"{moment.microsecond:06d}"[:digits] or 0) * 10 ** (6 - digits)
    )
    assert parsed == truncated


@given(instants)
def test_z_and_plus_zero_are_the_same(moment):
    base = moment.strftime("%Y-%m-%dT%H:%M:%S")
    assert parse_instant(base + "Z") == parse_instant(base + "+00:00") == moment.replace(microsecond=0)


@given(instants, offsets)
def test_parsing_is_idempotent_over_isoformat(moment, offset):
    once = parse_instant(fhir_text(moment, offset, 6))
    assert parse_instant(once.isoformat()) == once


@given(st.dates(min_value=dt.date(1000, 1, 1), max_value=dt.date(9999, 12, 31)))
def test_partial_datetimes_start_their_period_at_utc_midnight(day):
    full, precision = parse_datetime_with_precision(day.isoformat())
    assert precision == "day" and full == dt.datetime(day.year, day.month, day.day, tzinfo=UTC)
    month, precision = parse_datetime_with_precision(day.strftime("%Y-%m"))
    assert precision == "month" and month == dt.datetime(day.year, day.month, 1, tzinfo=UTC)
    year, precision = parse_datetime_with_precision(f"{day.year:04d}")
    assert precision == "year" and year == dt.datetime(day.year, 1, 1, tzinfo=UTC)


def test_synthea_examples():
    assert parse_instant("2013-06-07T02:09:58-07:00") == dt.datetime(2013, 6, 7, 9, 9, 58, tzinfo=UTC)
    assert parse_instant("1953-02-23T23:08:10.238+00:00") == dt.datetime(
        1953, 2, 23, 23, 8, 10, 238000, tzinfo=UTC
    )
    # seven fractional digits (FHIR allows more than Python keeps): truncated, not refused
    assert parse_instant("2020-01-01T00:00:00.1234567Z").microsecond == 123456


def test_leap_second_stays_in_its_minute():
    assert parse_instant("2016-12-31T23:59:60Z") == dt.datetime(2016, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)


@pytest.mark.parametrize(
    "text",
    [
        "2020-01-01T10:00:00",  # a time without an offset cannot be placed in UTC
        "2020-01-01 10:00:00Z",  # a space is not FHIR
        "2020-01-01T10:00Z",  # seconds are required
        "2020-13-01",
        "2020-02-30",
        "20200101",
        "",
        "yesterday",
    ],
)
def test_malformed_datetimes_are_refused(text):
    with pytest.raises(TimestampError):
        parse_instant(text)


def test_non_strings_are_refused_with_their_type():
    with pytest.raises(TimestampError, match="got int"):
        parse_instant(20200101)  # type: ignore[arg-type]


def test_dates():
    assert parse_date("2011-08-05") == dt.date(2011, 8, 5)
    assert parse_date("2011-08") == dt.date(2011, 8, 1)
    assert parse_date("2011") == dt.date(2011, 1, 1)
    for bad in ("2011-08-05T00:00:00Z", "2011-02-29", "05/08/2011"):
        with pytest.raises(TimestampError):
            parse_date(bad)
