"""A small demo record (two patients, a clinic with free slots, accounts with API tokens)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import pytest
from sqlalchemy import text

from mcp_server.catalog import load_registry
from records.accounts import create_account
from records.database import Database, patient_transaction
from records.scheduling import generate_slots
from tests.builder import RecordBuilder, reference_data
from tests.mcp_server.catalog_calls import needs_embedder
from tests.mcp_server.fake_tools import build_registry
from tools.embedder import load_embedder
from tools.registry import Registry

ALICE, BOB = "pat-alice", "pat-bob"


@dataclass(frozen=True)
class Demo:
    db: Database
    patient: str  # the demo patient
    other: str  # a patient nobody in these tests may read through the demo patient's session
    slot_ids: tuple[str, ...]
    tokens: dict[str, str]  # account username -> raw API token


PATIENT_ROWS = {
    ALICE: {
        "name": "Alice Example",
        "conditions": [
            ("c-a1", "Hypertension", "active", "2019-03-01"),
            ("c-a2", "Sprain of ankle", "resolved", "2021-06-10"),
        ],
        "labs": [
            ("o-a1", "4548-4", "Hemoglobin A1c", 6.1, "%", "2023-01-05"),
            ("o-a2", "4548-4", "Hemoglobin A1c", 5.8, "%", "2024-02-07"),
            ("o-a3", "2093-3", "Cholesterol total", 190.0, "mg/dL", "2024-02-07"),
        ],
    },
    BOB: {
        "name": "Bob Other",
        "conditions": [("c-b1", "Asthma", "active", "2010-01-01")],
        "labs": [("o-b1", "4548-4", "Hemoglobin A1c", 9.9, "%", "2024-03-01")],
    },
}


def add_accounts(db: Database, patient: str, other: str) -> dict[str, str]:
    """Accounts made the way the web app makes them, each with an API token:
    alice (a patient account bound to `patient`), dr-jones (clinician, both patients on the
    panel), dr-other (clinician, only `other`), evaluator (panel: `patient`)."""
    tokens = {}
    for username, role, patients in (
        ("alice", "patient", [patient]),
        ("dr-jones", "clinician", [patient, other]),
        ("dr-other", "clinician", [other]),
        ("evaluator", "evaluator", [patient]),
    ):
        _, tokens[username] = create_account(
            db, username=username, role=role, patients=patients, with_token=True
        )
    return tokens


def insert_demo(db: Database) -> Demo:
    for pid, data in PATIENT_ROWS.items():
        with patient_transaction(db.admin, pid) as conn:
            conn.execute(
                text(
                    "INSERT INTO patients (patient_id, full_name, birth_date, gender) "
                    "VALUES (:p, :n, DATE '1970-05-04', 'female')"
                ),
                {"p": pid, "n": data["name"]},
            )
            for cid, display, status, onset in data["conditions"]:
                conn.execute(
                    text(
                        "INSERT INTO conditions (patient_id, id, display, clinical_status, onset) "
                        "VALUES (:p, :id, :d, :s, CAST(:o AS timestamptz))"
                    ),
                    {"p": pid, "id": cid, "d": display, "s": status, "o": onset},
                )
            for oid, code, display, value, unit, when in data["labs"]:
                conn.execute(
                    text(
                        "INSERT INTO observations (patient_id, id, code, display, value_type, value_num, "
                        "value_unit, effective, category) VALUES (:p, :id, :c, :d, 'quantity', :v, :u, "
                        "CAST(:e AS timestamptz), 'laboratory')"
                    ),
                    {"p": pid, "id": oid, "c": code, "d": display, "v": value, "u": unit, "e": when},
                )
    start = dt.datetime.now(dt.UTC).replace(microsecond=0) + dt.timedelta(days=2)
    slot_ids = tuple(f"slot-{i}" for i in range(3))
    with db.admin.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO departments (id, name, specialty) VALUES ('dep-gp', 'General Practice', 'general practice')"
            )
        )
        for i, slot_id in enumerate(slot_ids):
            conn.execute(
                text(
                    "INSERT INTO appointment_slots (id, department_id, starts_at, ends_at) "
                    "VALUES (:id, 'dep-gp', :s, :e)"
                ),
                {
                    "id": slot_id,
                    "s": start + dt.timedelta(hours=i),
                    "e": start + dt.timedelta(hours=i, minutes=20),
                },
            )
    tokens = add_accounts(db, ALICE, BOB)
    return Demo(db=db, patient=ALICE, other=BOB, slot_ids=slot_ids, tokens=tokens)


@pytest.fixture()
def demo(clean_db: Database) -> Demo:
    return insert_demo(clean_db)


@pytest.fixture(scope="session")
def registry() -> Registry:
    return build_registry()


@pytest.fixture()
def anyio_backend() -> str:
    return "asyncio"


def audit_rows(db: Database, **where: str) -> list[dict]:
    """Audit rows matching column=value filters (read as the owner: the app role cannot read them)."""
    clauses = " AND ".join(f"{column} = :{column}" for column in where) or "true"
    with db.admin.connect() as conn:
        return [
            dict(r)
            for r in conn.execute(
                text(f"SELECT * FROM audit_log WHERE {clauses} ORDER BY id"), where
            ).mappings()
        ]


def appointments(db: Database, patient_id: str) -> list[dict]:
    with patient_transaction(db.admin, patient_id) as conn:
        return [dict(r) for r in conn.execute(text("SELECT * FROM appointments")).mappings()]


CATALOG_PATIENT, CATALOG_OTHER = "p-mcp-demo", "p-mcp-other"


@dataclass(frozen=True)
class CatalogDemo:
    db: Database
    patient: str
    other: str
    tokens: dict[str, str]


@pytest.fixture()
def catalog_demo(clean_db: Database) -> CatalogDemo:
    """A demo patient with a row in every record section (built with the tools' test builder),
    another patient with canary rows, clinics with free slots for the next two weeks, and the
    accounts of `add_accounts`."""
    reference_data(clean_db)
    rec = RecordBuilder(CATALOG_PATIENT, name="Maria Demo", birth_date=dt.date(1961, 4, 2))
    encounter = rec.encounter("General examination", at="2024-03-02")
    rec.condition("Essential hypertension", onset="2012-05-01")
    rec.condition("Acute bronchitis", status="resolved", onset="2023-01-10", abatement="2023-02-01")
    rec.medication("lisinopril 10 MG Oral Tablet", authored="2012-05-02")
    rec.observation(
        "Hemoglobin A1c", code="4548-4", value=6.4, unit="%", at="2024-03-02", encounter_id=encounter
    )
    rec.blood_pressure(138, 86, at="2024-03-02")
    rec.allergy("Penicillin V")
    rec.immunization("Influenza, seasonal, injectable", at="2023-10-01")
    rec.procedure("Colonoscopy", at="2022-02-02")
    rec.care_plan("Hypertension care plan")
    rec.write(clean_db)
    other = RecordBuilder(CATALOG_OTHER, name="Otto CANARY")
    other.condition("CANARY asthma")
    other.observation("Hemoglobin A1c", code="4548-4", value=9.9, unit="%", at="2024-03-05")
    other.write(clean_db)
    generate_slots(clean_db, days=14)
    tokens = add_accounts(clean_db, CATALOG_PATIENT, CATALOG_OTHER)
    return CatalogDemo(db=clean_db, patient=CATALOG_PATIENT, other=CATALOG_OTHER, tokens=tokens)


@pytest.fixture(scope="session")
def catalog() -> Registry:
    """The agent's own tool catalog: what `chartside mcp` and `/mcp` publish by default."""
    return load_registry()


@pytest.fixture(scope="session")
def catalog_embedder(catalog: Registry, settings):
    """The embedding model when the catalog has search tools (loaded as `chartside mcp` does)."""
    return load_embedder(settings) if needs_embedder(catalog) else None
