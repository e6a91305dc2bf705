"""The schema and the queries are ready to be distributed by `patient_id` (docs/scaling.md).

* From the live catalogue (what the migrations really built, not the models): every table
  with a `patient_id` has it in its primary key, every unique constraint and unique index
  (partial ones included), and every foreign key to another patient table — the rules Citus
  enforces for distributed, co-located tables.
* From the SQL actually emitted: every tool, called with a spread of arguments, only issues
  statements pinned to the bound patient (`tests.scale.sql_routing`), i.e. single-shard.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from sqlalchemy import text

from records.models import patient_tables
from records.scheduling import generate_slots
from tests.builder import RecordBuilder, reference_data
from tests.conftest import wipe
from tests.scale.sql_routing import SqlCapture, Statement, check_statement
from tests.tools.conftest import NOW, make_ctx
from tools.catalog import build_registry

PATIENT_TABLES = frozenset(patient_tables())
A, B = "dist-a", "dist-b"

# tables shared by every patient (Citus reference tables or coordinator-local tables)
NOT_DISTRIBUTED = {
    "organizations",
    "locations",
    "practitioners",
    "leaflets",
    "leaflet_chunks",
    "departments",
    "appointment_slots",
    "accounts",
    "clinician_panels",
    "audit_log",
    "source_files",
    "alembic_version",
}


def test_the_patient_tables_are_the_ones_the_scaling_plan_names(db):
    with db.admin.connect() as conn:
        names = set(
            conn.execute(
                text(
                    "SELECT table_name FROM information_schema.tables "
                    "WHERE table_schema = 'public' AND table_type = 'BASE TABLE'"  # not Citus's views
                )
            ).scalars()
        )
    assert names >= PATIENT_TABLES
    # a new table must be classified in docs/scaling.md: distributed (has patient_id) or shared
    assert names - PATIENT_TABLES == NOT_DISTRIBUTED, sorted(names - PATIENT_TABLES ^ NOT_DISTRIBUTED)


def _catalog(db) -> dict[str, list[Any]]:
    with db.admin.connect() as conn:
        indexes = conn.execute(
            text(
                """
                SELECT t.relname AS table, i.relname AS name, ix.indisprimary AS primary,
                       array_agg(a.attname) FILTER (WHERE a.attname IS NOT NULL) AS columns
                FROM pg_index ix
                JOIN pg_class t ON t.oid = ix.indrelid
                JOIN pg_class i ON i.oid = ix.indexrelid
                JOIN pg_namespace n ON n.oid = t.relnamespace AND n.nspname = 'public'
                LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = ANY(ix.indkey)
                WHERE ix.indisunique
                GROUP BY 1, 2, 3
                """
            )
        ).all()
        foreign = conn.execute(
            text(
                """
                SELECT c.conname AS name, src.relname AS table, dst.relname AS references,
                       ARRAY(SELECT attname FROM pg_attribute WHERE attrelid = c.conrelid
                             AND attnum = ANY(c.conkey)) AS columns
                FROM pg_constraint c
                JOIN pg_class src ON src.oid = c.conrelid
                JOIN pg_class dst ON dst.oid = c.confrelid
                JOIN pg_namespace n ON n.oid = src.relnamespace AND n.nspname = 'public'
                WHERE c.contype = 'f'
                """
            )
        ).all()
    return {"indexes": indexes, "foreign": foreign}


def test_every_unique_key_of_a_patient_table_includes_patient_id(db):
    catalog = _catalog(db)
    uniques = [ix for ix in catalog["indexes"] if ix.table in PATIENT_TABLES]
    assert {ix.table for ix in uniques if ix.primary} == PATIENT_TABLES, (
        "a patient table without a primary key"
    )
    offenders = [
        f"{ix.table}.{ix.name} {ix.columns}" for ix in uniques if "patient_id" not in (ix.columns or [])
    ]
    assert offenders == []


def test_foreign_keys_between_patient_tables_carry_patient_id(db):
    """Citus joins and enforces a foreign key between distributed tables only on the distribution column."""
    catalog = _catalog(db)
    offenders = [
        f"{fk.table} → {fk.references} {fk.columns}"
        for fk in catalog["foreign"]
        if fk.table in PATIENT_TABLES and fk.references in PATIENT_TABLES and "patient_id" not in fk.columns
    ]
    assert offenders == []
    # and nothing shared points into patient data (a reference table cannot reference a distributed one)
    inward = [
        f"{fk.table} → {fk.references}"
        for fk in catalog["foreign"]
        if fk.table not in PATIENT_TABLES and fk.references in PATIENT_TABLES
    ]
    assert inward == []


# --- the SQL the tools emit --------------------------------------------------------------------


REGISTRY = build_registry()

# several argument sets per tool, so that every branch that builds SQL differently is taken
CALLS: dict[str, list[dict[str, Any]]] = {
    "get_patient_profile": [{}],
    "get_conditions": [{}, {"status": "all"}, {"status": "resolved", "query": "HTN"}, {"query": "38341003"}],
    "get_medications": [{}, {"status": "all"}, {"query": "lisinopril"}, {"query": "HCTZ"}],
    "get_labs": [
        {},
        {"query": "A1C", "latest_only": True},
        {"query": "BP"},
        {"query": "systolic", "since": "2020-01-01", "until": "2025-01-01"},
        {"category": "vital", "latest_only": True},
        {"query": "4548-4", "limit": 3},
    ],
    "get_allergies": [{}],
    "get_encounters": [{}, {"query": "emergency"}, {"since": "2023-01-01", "limit": 2}],
    "get_immunizations": [{}, {"query": "influenza"}],
    "get_procedures": [{}, {"query": "screening", "since": "2020-01-01"}],
    "get_care_plans": [{}, {"status": "active"}],
    "find_slots": [{"specialty_or_department": "general practice"}, {"specialty_or_department": "check-up"}],
    "list_appointments": [{}, {"include_past": True, "include_cancelled": True}],
    "search_notes": [
        {"query": "diabetes follow-up"},
        {"query": "metformin", "since": "2020-01-01", "until": "2025-01-01"},
    ],
    "search_leaflets": [{"query": "what can I eat with diabetes"}],
    # book_appointment / cancel_appointment: driven by the booking sequence below
}


def _patient(pid: str, canary: str) -> RecordBuilder:
    rec = RecordBuilder(pid, name=f"{canary} Patient")
    enc = rec.encounter("Emergency room admission", class_code="EMER")
    rec.condition("Essential hypertension", code="38341003", encounter_id=enc)
    rec.condition("Acute bronchitis", status="resolved", abatement="2020-03-01")
    rec.medication("lisinopril 10 MG Oral Tablet")
    rec.medication("Hydrochlorothiazide 25 MG", status="stopped")
    rec.observation("Hemoglobin A1c/Hemoglobin.total in Blood", code="4548-4", value=6.1, unit="%")
    rec.blood_pressure(121, 79)
    cond = rec.condition("Prediabetes")
    rec.allergy("Penicillin", reactions=[("Hives", "mild")])
    rec.immunization("Influenza, seasonal")
    rec.immunization("Zoster", status="not-done")
    rec.procedure("Depression screening")
    rec.care_plan("Diabetes self management plan", addresses=[cond])
    rec.rows["clinical_notes"].append(
        {
            "patient_id": pid,
            "id": f"{pid}-note-1",
            "type_display": "Progress note",
            "date": NOW,
            "text": f"Chief complaint: diabetes follow-up for {canary}.\n\nPlan: continue metformin.",
            "text_sha256": canary,
        }
    )
    return rec


@pytest.fixture(scope="module")
def embedder(settings):
    from knowledge.embeddings import get_embedder

    return get_embedder(settings)


@pytest.fixture(scope="module")
def two_patients(db, embedder):
    from knowledge.note_index import index_notes

    wipe(db)
    reference_data(db)
    _patient(A, "ALPHA").write(db)
    _patient(B, "BRAVO").write(db)
    index_notes(db, embedder, [A, B])
    generate_slots(db, days=14, start=NOW.date())
    yield db
    wipe(db)


def _required_args(name: str) -> dict[str, Any]:
    """For a tool this file does not know yet (merged later): its required string fields."""
    schema = REGISTRY.get(name).schema()
    return {field: "diabetes" for field in schema.get("required", [])}


def _run_every_tool(db, patient: str, embedder) -> set[str]:
    ctx_args = {"conversation_id": f"conv-{patient}", "message_id": f"msg-{patient}"}

    def make(patient_id: str, **kw: Any) -> Any:
        return dataclasses.replace(make_ctx(db, patient_id, **kw), embedder=embedder)

    called: set[str] = set()
    for name in REGISTRY.names():
        for args in CALLS.get(name) or (
            [] if name in ("book_appointment", "cancel_appointment") else [_required_args(name)]
        ):
            result = REGISTRY.execute(make(patient, **ctx_args), name, args)
            assert result.ok, (name, args, result.text)
            called.add(name)
    offered = REGISTRY.execute(
        make(patient, **ctx_args), "find_slots", {"specialty_or_department": "general practice"}
    )
    booked = REGISTRY.execute(
        make(patient, **ctx_args), "book_appointment", {"slot_id": offered.rows[0]["slot_id"]}
    )
    assert booked.ok, booked.text
    cancelled = REGISTRY.execute(
        make(patient, **ctx_args),
        "cancel_appointment",
        {"appointment_id": booked.rows[0]["appointment_id"]},
    )
    assert cancelled.ok, cancelled.text
    return called | {"book_appointment", "cancel_appointment"}


def _check(statements: list[Statement], patient: str) -> tuple[set[str], list[str]]:
    touched: set[str] = set()
    problems: list[str] = []
    for statement in statements:
        check = check_statement(statement, PATIENT_TABLES)
        touched |= check.touched
        problems += [str(p) for p in check.problems]
        if check.touched and check.pinned_to != {patient}:
            problems.append(f"pinned to {sorted(check.pinned_to)}, not {patient}: {check.sql[:300]}")
    return touched, problems


def test_every_tool_query_is_pinned_to_the_bound_patient(two_patients, embedder):
    capture = SqlCapture()
    with capture.on(two_patients.app):
        called = _run_every_tool(two_patients, A, embedder)
    assert called == set(REGISTRY.names())
    touched, problems = _check(capture.statements, A)
    assert problems == [], "\n".join(problems)
    # the check saw the record tables and the booking tables, so it could have failed
    assert {
        "patients",
        "observations",
        "observation_components",
        "appointments",
        "offered_slots",
        "note_chunks",
    } <= touched


def test_the_checker_catches_what_citus_could_not_route():
    """The checker itself: each of these would fan out to every shard (or cross patients)."""
    bad = [
        "SELECT 1 FROM patients",  # left to row-level security
        "SELECT * FROM observations o WHERE o.patient_id = 'a' OR o.code = 'x'",  # OR around the filter
        "SELECT * FROM observations o JOIN observation_components c ON c.observation_id = o.id "
        "WHERE o.patient_id = 'a'",  # the joined table is not pinned
        "SELECT * FROM messages m WHERE m.patient_id = 'a' AND m.id IN "
        "(SELECT message_id FROM message_events e WHERE e.seq > 1)",  # subquery scope not pinned
        "UPDATE appointments SET status = 'cancelled' WHERE id = 'x'",
        "INSERT INTO conditions (id, display) VALUES ('c', 'd')",
        "SELECT * FROM conditions WHERE patient_id = 'a' UNION SELECT * FROM conditions WHERE patient_id = 'b'",
        # an outer join's ON pins only its nullable side
        "SELECT * FROM conditions c LEFT JOIN encounters e ON c.patient_id = 'a' AND e.patient_id = 'a'",
        # a join on the distribution column is co-located, but the checker wants each table pinned
        "SELECT * FROM clinical_notes n LEFT JOIN encounters e ON e.patient_id = n.patient_id "
        "WHERE n.patient_id = 'a'",
    ]
    for sql in bad:
        assert check_statement(Statement(sql, None), PATIENT_TABLES).problems, sql
    good = [
        "SELECT * FROM observations o JOIN observation_components c ON c.observation_id = o.id "
        "AND c.patient_id = 'a' WHERE o.patient_id = 'a'",
        "WITH x AS (SELECT id FROM conditions WHERE patient_id = 'a') SELECT * FROM x",
        "SELECT * FROM clinical_notes n LEFT JOIN encounters e ON e.patient_id = 'a' AND e.id = n.encounter_id "
        "WHERE n.patient_id = 'a'",
        "UPDATE appointment_slots SET booked_appointment_id = 'z' WHERE id = 's'",  # reference table
        "INSERT INTO audit_log (actor) VALUES ('x')",
    ]
    for sql in good:
        assert not check_statement(Statement(sql, None), PATIENT_TABLES).problems, sql
