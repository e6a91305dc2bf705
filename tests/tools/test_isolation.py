"""Isolation as a property: whatever tool and arguments run under patient A's scope, nothing
of patient B comes back — not a row, an id, or a word. B's data is full of canary strings;
A's arguments include B's ids, B's canaries and SQL-injection attempts."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from records.models import patient_tables
from records.scheduling import generate_slots
from tests.builder import RecordBuilder, reference_data
from tests.conftest import wipe
from tests.tools.conftest import NOW, make_ctx
from tools.catalog import build_registry

A, B = "iso-a", "CANARYB-patient"
CANARY = "CANARYB"
INJECTIONS = [
    "'; DROP TABLE conditions; --",
    "' OR '1'='1",
    "%' OR patient_id <> '' --",
    "\\'; SELECT set_config('app.patient_id', 'CANARYB-patient', false); --",
    "A1C') UNION SELECT * FROM patients --",
    "%",
    "_",
    "\x00",
    "💉 A1C",
    "a" * 200,
]
EXPECTED_FAILURES = {"bad_argument", "not_found", "not_allowed", "conflict"}
REGISTRY = build_registry()


def build_population(db) -> dict[str, str]:
    wipe(db)
    reference_data(db)
    a = RecordBuilder(A, name="Alice Isolated")
    a.condition("Hypertension")
    a.medication("lisinopril 10 MG Oral Tablet")
    a.observation("Hemoglobin A1c/Hemoglobin.total in Blood", code="4548-4", value=6.1, unit="%")
    a.blood_pressure(118, 76)
    a.encounter("General examination")
    a.write(db)
    b = RecordBuilder(B, name=f"{CANARY} Patient", address=f"{CANARY} street", city=f"{CANARY} town")
    ids = {
        "encounter": b.encounter(f"{CANARY} emergency visit", id=f"{CANARY}-enc", class_code="EMER"),
        "condition": b.condition(f"Hypertension {CANARY}", id=f"{CANARY}-cond"),
        "medication": b.medication(f"lisinopril {CANARY}", id=f"{CANARY}-med"),
        "lab": b.observation(
            f"Hemoglobin A1c {CANARY}", code="4548-4", value=9.9, unit="%", id=f"{CANARY}-obs"
        ),
        "bp": b.blood_pressure(199, 111),
        "allergy": b.allergy(
            f"Penicillin {CANARY}", id=f"{CANARY}-alg", reactions=[(f"{CANARY} hives", "severe")]
        ),
        "immunization": b.immunization(f"Influenza {CANARY}", id=f"{CANARY}-imm"),
        "not_given": b.immunization(f"Zoster {CANARY}", status="not-done", id=f"{CANARY}-imm2"),
        "procedure": b.procedure(f"Screening {CANARY}", id=f"{CANARY}-proc"),
        "care_plan": b.care_plan(f"{CANARY} plan", id=f"{CANARY}-cp"),
    }
    b.write(db)
    generate_slots(db, days=14, start=NOW.date())
    # B books an appointment in its own conversation
    ctx = make_ctx(db, B, conversation_id=f"{CANARY}-conv", message_id=f"{CANARY}-msg")
    slot = REGISTRY.execute(ctx, "find_slots", {"specialty_or_department": "general practice"}).rows[0][
        "slot_id"
    ]
    booked = REGISTRY.execute(ctx, "book_appointment", {"slot_id": slot, "reason": f"{CANARY} reason"})
    assert booked.ok, booked.text
    ids["appointment"] = booked.rows[0]["appointment_id"]
    ids["slot"] = slot
    return ids


@pytest.fixture(scope="module")
def population(db):
    ids = build_population(db)
    yield ids
    wipe(db)


def b_strings(ids: dict[str, str]) -> list[str]:
    return [B, CANARY, *ids.values()]


def value_for(schema: dict, ids: dict[str, str]) -> st.SearchStrategy:
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "anyOf" in schema:
        return st.one_of(*(value_for(s, ids) for s in schema["anyOf"]))
    kind = schema.get("type")
    if kind == "null":
        return st.none()
    if kind == "boolean":
        return st.booleans()
    if kind == "integer":
        return st.integers(min_value=-3, max_value=150)
    if kind == "string" and schema.get("format") == "date":
        return st.dates(min_value=dt.date(1900, 1, 1), max_value=dt.date(2100, 1, 1)).map(
            dt.date.isoformat
        ) | st.text(max_size=12)
    return st.one_of(st.sampled_from(INJECTIONS + b_strings(ids)), st.text(max_size=40))


@st.composite
def tool_calls(draw, ids: dict[str, str]):
    name = draw(st.sampled_from(REGISTRY.names()))
    props = REGISTRY.get(name).schema()["properties"]
    args = {}
    for prop, schema in props.items():
        if draw(st.booleans()):
            args[prop] = draw(value_for(schema, ids))
    return name, args


def test_isolation_property(db, population):
    @settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(call=tool_calls(population))
    def check(call):
        name, args = call
        result = REGISTRY.execute(
            make_ctx(db, A, conversation_id="iso-conv", message_id="iso-msg"), name, args
        )
        structured = json.dumps([result.rows, [c.model_dump() for c in result.citations]], default=str)
        said = result.text
        for value in args.values():  # the model's own words may be echoed ("No … matching 'x'")
            if isinstance(value, str) and value:
                said = said.replace(value, "")
        for secret in b_strings(population):
            assert secret not in structured, (name, args, secret)
            assert secret not in said, (name, args, secret, result.text)
        assert result.ok or result.error_kind in EXPECTED_FAILURES, (name, args, result.text)

    check()


def test_b_ids_and_tools_aimed_at_b_find_nothing(db, population):
    ctx = make_ctx(db, A, conversation_id="iso-conv")
    cancel = REGISTRY.execute(ctx, "cancel_appointment", {"appointment_id": population["appointment"]})
    assert cancel.error_kind == "not_found"
    book = REGISTRY.execute(ctx, "book_appointment", {"slot_id": population["slot"]})
    assert book.error_kind == "not_allowed"
    for name in REGISTRY.names():
        result = REGISTRY.execute(ctx, name, {"patient_id": B})
        assert result.error_kind == "bad_argument" and "'patient_id' is not an argument" in result.text


def test_injection_strings_leave_the_data_intact(db, population):
    def counts():
        with db.admin.connect() as conn:
            return {
                t: conn.execute(
                    text(f'SELECT count(*) FROM "{t}" WHERE patient_id = :b'), {"b": B}
                ).scalar_one()
                for t in patient_tables()
            }

    before = counts()
    ctx = make_ctx(db, A)
    for query in INJECTIONS:
        for name in (
            "get_conditions",
            "get_medications",
            "get_labs",
            "get_encounters",
            "get_immunizations",
            "get_procedures",
        ):
            result = REGISTRY.execute(ctx, name, {"query": query})
            assert result.ok or result.error_kind == "bad_argument", (name, query, result.text)
            assert CANARY not in result.model_dump_json() or CANARY in query
        found = REGISTRY.execute(ctx, "find_slots", {"specialty_or_department": query[:100] or "x"})
        assert found.ok or found.error_kind in EXPECTED_FAILURES
    assert counts() == before
    with db.admin.connect() as conn:
        assert conn.execute(text("SELECT current_setting('app.patient_id', true)")).scalar() in (None, "")


@pytest.mark.parametrize("tool", ["search_leaflets", "search_notes"])
@pytest.mark.parametrize("query", ["0\x00", "metformin\x00 dose", "\x00\x00"])
def test_a_nul_in_a_search_query_is_a_bad_argument_not_an_internal_error(call, tool: str, query: str) -> None:
    """The property above found `search_leaflets("0\\x00")` failing inside PostgreSQL (an internal
    error, "could not be looked up right now"): the search inputs now refuse NUL as every other
    tool's input does, naming the field."""
    result = call("pat-a", tool, query=query)
    assert not result.ok and result.error_kind == "bad_argument", result.text
    assert "query" in result.text
