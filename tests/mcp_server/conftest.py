"""A small demo record (two patients, a clinic with free slots, accounts with API tokens)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import pytest
from sqlalchemy import text

from mcp_server.access import hash_api_token
from records.database import Database, patient_transaction
from tests.mcp_server.fake_tools import build_registry
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
    tokens = {
        "alice": "cs_tok-alice-0123456789",
        "dr-jones": "cs_tok-jones-0123456789",
        "dr-other": "cs_tok-other-0123456789",
        "evaluator": "cs_tok-eval-0123456789",
    }
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
        accounts = [
            ("alice", "patient", ALICE),
            ("dr-jones", "clinician", None),
            ("dr-other", "clinician", None),
            ("evaluator", "evaluator", None),
        ]
        for username, role, bound in accounts:
            conn.execute(
                text(
                    "INSERT INTO accounts (username, role, bound_patient_id, api_token_hash) "
                    "VALUES (:u, :r, :b, :h)"
                ),
                {"u": username, "r": role, "b": bound, "h": hash_api_token(tokens[username])},
            )
        # dr-jones looks after Alice and Bob; dr-other after Bob only; the evaluator's panel has Alice
        panels = (("dr-jones", ALICE), ("dr-jones", BOB), ("dr-other", BOB), ("evaluator", ALICE))
        for username, patient_id in panels:
            conn.execute(
                text(
                    "INSERT INTO clinician_panels (account_id, panel_patient_id) "
                    "SELECT id, :p FROM accounts WHERE username = :u"
                ),
                {"p": patient_id, "u": username},
            )
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
