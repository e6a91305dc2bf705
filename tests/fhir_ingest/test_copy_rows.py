"""Rows encoded for COPY in a worker (`fhir_ingest.copy_rows`) land as the writer's own COPY
lands them: for values of every column type the loader writes — text of any script, NULLs,
extreme floats, times with offsets, arrays, JSON — the database holds the same rows."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fhir_ingest import copy_rows
from fhir_ingest.copy_rows import EncodedRows, concat_encoded, encode, encoder_available, row_values
from fhir_ingest.writer import table_columns

pytestmark = pytest.mark.skipif(
    not encoder_available(), reason="this psycopg has no standalone COPY formatter"
)

text_value = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=12)
json_value = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**12), 10**12) | text_value,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text_value, inner, max_size=3),
    max_leaves=6,
)
VALUES = {
    "text": text_value,
    "float8": st.floats(allow_nan=False),
    "timestamptz": st.datetimes(timezones=st.sampled_from([dt.UTC, dt.timezone(dt.timedelta(hours=-5))])),
    "text[]": st.lists(st.none() | text_value, max_size=4),
    "jsonb": st.lists(st.dictionaries(text_value, json_value, max_size=3), max_size=3),
}


def rows_of(table: str):
    typed = table_columns(table)
    return st.lists(
        st.fixed_dictionaries({c: st.none() | VALUES[t] for c, t in typed}), min_size=1, max_size=5
    ).map(lambda rows: [dict(r, patient_id="p", id=str(i)) for i, r in enumerate(rows)])


def _copied(cur, table: str, typed, rows, *, encoded: bool) -> list[tuple]:
    scratch = f"scratch_{table}_{'encoded' if encoded else 'rows'}"
    # no constraints (a NOT NULL column may get NULL here): only the values matter
    cur.execute(f"CREATE TEMP TABLE {scratch} ON COMMIT DROP AS SELECT * FROM {table} WITH NO DATA")
    columns = ", ".join(c for c, _ in typed)
    with cur.copy(f"COPY {scratch} ({columns}) FROM STDIN (FORMAT BINARY)") as copy:
        if encoded:
            copy.write(encode(typed, rows).data)
        else:
            copy.set_types([t for _, t in typed])
            values = row_values([c for c, _ in typed])
            for row in rows:
                copy.write_row(values(row))
    cur.execute(f"SELECT {columns} FROM {scratch} ORDER BY id")
    return cur.fetchall()


@pytest.mark.parametrize("table", ["care_plans", "observations", "allergies"])
def test_encoded_rows_land_as_the_writers_rows(db, table):
    typed = table_columns(table)

    @settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(rows=rows_of(table))
    def run(rows):
        with db.admin.begin() as conn:
            cur = conn.connection.driver_connection.cursor()
            assert _copied(cur, table, typed, rows, encoded=True) == _copied(
                cur, table, typed, rows, encoded=False
            )

    run()


def test_the_encoding_counts_its_rows_and_closes_the_stream():
    typed = [("id", "text"), ("n", "float8")]
    encoded = encode(typed, [{"id": "a", "n": 1.0}, {"id": "b", "n": None}])
    assert encoded.count == 2 and encoded.columns == ("id", "n")
    assert encoded.data.startswith(b"PGCOPY\n\xff\r\n\x00") and encoded.data.endswith(b"\xff\xff")


@pytest.mark.parametrize("table", ["care_plans", "observations"])
def test_streams_joined_are_the_stream_of_all_their_rows(table):
    """Several bundles' rows of a table, encoded bundle by bundle in the workers and joined for
    one COPY (`RecordWriter.write_new_patients`): byte for byte the encoding of all the rows."""
    typed = table_columns(table)

    @settings(max_examples=40, deadline=None)
    @given(parts=st.lists(rows_of(table), min_size=1, max_size=4))
    def run(parts):
        joined = concat_encoded([encode(typed, rows) for rows in parts])
        every_row = [row for rows in parts for row in rows]
        assert joined == encode(typed, every_row)
        assert joined.count == len(every_row)

    run()


def test_only_streams_of_the_same_columns_made_by_the_encoder_are_joined():
    typed = [("id", "text"), ("n", "float8")]
    first = encode(typed, [{"id": "a", "n": 1.0}])
    assert concat_encoded([first]) is first
    other = encode([("id", "text")], [{"id": "b"}])
    with pytest.raises(ValueError, match="same columns"):
        concat_encoded([first, other])
    truncated = EncodedRows(first.columns, first.data[:-2], 1)
    with pytest.raises(ValueError, match="same columns"):
        concat_encoded([first, truncated])


@pytest.mark.parametrize("table", ["care_plans", "observations", "allergies"])
def test_rows_formatted_straight_are_the_formatters_bytes(table, monkeypatch):
    """`encode` calls psycopg's row function itself (no `write_row` per row): the same bytes as
    the formatter gives, which `test_encoded_rows_land_as_the_writers_rows` holds to the
    database; where that function is missing the formatter is used."""
    typed = table_columns(table)

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(rows=rows_of(table))
    def run(rows):
        straight = encode(typed, rows)
        with monkeypatch.context() as patched:
            patched.setattr(copy_rows, "format_row_binary", None)
            assert encode(typed, rows) == straight

    run()
