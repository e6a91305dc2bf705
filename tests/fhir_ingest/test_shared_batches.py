"""Shared rows (organizations, locations, practitioners, roles) are written in multi-row
statements (fhir_ingest.writer: a statement per row cost seconds per support bundle on Citus,
where each one runs on every node). The batched writes must leave exactly what one statement
per row left, in whatever order and however many batches: checked against a model of the
row-at-a-time semantics for random sequences of bundles."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from fhir_ingest import writer as writer_module
from fhir_ingest.support import SharedRows
from fhir_ingest.writer import RecordWriter
from tests.conftest import wipe

ROLE = ("specialty_code", "specialty_display", "organization_id", "location_id")
ORGS, LOCS, PRACTS = ("o1", "o2"), ("l1", "l2"), ("pr1", "pr2", "pr3", "pr4")
maybe = lambda values: st.none() | st.sampled_from(values)  # noqa: E731

practitioner = st.fixed_dictionaries(
    {
        "id": st.sampled_from(PRACTS),
        "npi": maybe(("111", "222")),
        "full_name": maybe(("Dr A", "Dr B", "Dr O'Brien")),
        "specialty_code": maybe(("207RC0000X", "208D00000X")),
        "specialty_display": maybe(("Cardiology", "General Practice")),
        "organization_id": maybe(ORGS),
        "location_id": maybe(LOCS),
    }
)
role = st.fixed_dictionaries(
    {
        "specialty_code": maybe(("207RC0000X", "208D00000X")),
        "specialty_display": maybe(("Cardiology", "General Practice")),
        "organization_id": maybe(ORGS),
        "location_id": maybe(LOCS),
    }
)
bundle = st.tuples(
    st.lists(practitioner, max_size=4, unique_by=lambda r: r["id"]),
    st.lists(st.tuples(st.sampled_from(PRACTS), role), max_size=6),  # repeats: two roles, one person
)


def model(bundles) -> dict[str, dict]:
    """What one INSERT … ON CONFLICT per practitioner and one UPDATE per role leave."""
    state: dict[str, dict] = {}
    for practitioners, roles in bundles:
        for row in practitioners:
            old = state.get(row["id"])
            new = dict(row)
            if old is not None:  # a bundle without a role must not erase what a role said
                new.update({c: row[c] if row[c] is not None else old[c] for c in ROLE})
            state[row["id"]] = new
        for pid, values in roles:
            if pid in state:
                state[pid].update({c: v for c, v in values.items() if v is not None})
    return state


@pytest.fixture(scope="module")
def shared_db(db):
    wipe(db)
    with db.admin.begin() as conn:
        for org in ORGS:
            conn.execute(text("INSERT INTO organizations (id, name) VALUES (:i, :i)"), {"i": org})
        for loc in LOCS:
            conn.execute(text("INSERT INTO locations (id, name) VALUES (:i, :i)"), {"i": loc})
    yield db
    wipe(db)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(bundles=st.lists(bundle, min_size=1, max_size=4), batch=st.sampled_from((1, 7, 20_000)))
def test_batched_shared_writes_equal_one_statement_per_row(shared_db, monkeypatch, bundles, batch):
    # a batch of 1 value per statement = one row each; 7 splits a bundle; 20,000 = one statement
    monkeypatch.setattr(writer_module, "_BATCH_PARAMETERS", batch)
    writer = RecordWriter(shared_db)
    with shared_db.admin.begin() as conn:
        conn.execute(text("DELETE FROM practitioners"))
        cur = conn.connection.driver_connection.cursor()
        for practitioners, roles in bundles:
            shared = SharedRows(practitioners={r["id"]: r for r in practitioners}, role_updates=list(roles))
            writer._write_shared(cur, type("Result", (), {"shared": shared})())
        stored = {
            row["id"]: dict(row)
            for row in conn.execute(
                text(
                    "SELECT id, npi, full_name, specialty_code, specialty_display, organization_id, "
                    "location_id FROM practitioners"
                )
            ).mappings()
        }
    assert stored == model(bundles)


# any text a bundle can hold (no NUL: the parse refuses it; no lone surrogates: not UTF-8)
record_text = st.none() | st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    names=st.lists(record_text, min_size=1, max_size=5),
    coordinates=st.floats(allow_nan=False, allow_infinity=False) | st.none(),
)
def test_shared_rows_reach_the_database_unchanged(shared_db, names, coordinates):
    """The rows travel as one JSON document (`json_to_recordset`): every string and float
    must come out exactly as it went in (quotes, backslashes, escapes, any script)."""
    rows = {
        f"loc-{i}": {"id": f"loc-{i}", "name": name, "city": name, "latitude": coordinates, "longitude": -1.5}
        for i, name in enumerate(names)
    }
    writer = RecordWriter(shared_db)
    with shared_db.admin.begin() as conn:
        cur = conn.connection.driver_connection.cursor()
        writer._write_shared(cur, type("Result", (), {"shared": SharedRows(locations=rows)})())
        stored = {
            row["id"]: dict(row)
            for row in conn.execute(
                text("SELECT id, name, city, latitude, longitude FROM locations WHERE id LIKE 'loc-%'")
            ).mappings()
        }
        conn.execute(text("DELETE FROM locations WHERE id LIKE 'loc-%'"))
    assert stored == rows
