"""Two small patients on the real record tools, for the scoping/background/metrics tests.

Patient ONE has a diabetes record (two HbA1c results, conditions, medicines, an allergy, a
care plan); patient TWO has one HbA1c carrying a canary string that must never reach ONE's
answers. Built with `tests.builder`, so the real tools read real rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent.base import AgentRequest
from records.database import Database
from tests.builder import RecordBuilder
from tools.scope import PatientScope

ONE, TWO = "pat-scope-one", "pat-scope-two"
CANARY = "CANARY-TWO-91c4"
A1C = "4548-4"


@dataclass
class ScopedWorld:
    db: Database
    a1c_latest: str  # ONE's newest HbA1c (7.1 %, 2024-03-30)
    a1c_older: str
    metformin: str
    care_plan: str
    other_patients_a1c: str  # TWO's


def build(db: Database, *, with_allergy: bool = True) -> ScopedWorld:
    one = RecordBuilder(ONE, name="Olive One")
    diabetes = one.condition("Diabetes mellitus type 2 (disorder)", onset="2015-03-01")
    one.condition("Essential hypertension (disorder)", onset="2016-05-01")
    one.condition(
        "Acute bronchitis (disorder)", status="resolved", onset="2020-02-01", abatement="2020-03-01"
    )
    metformin = one.medication(
        "Metformin hydrochloride 500 MG Oral Tablet", authored="2015-03-10", reason_display="Diabetes"
    )
    one.medication("Lisinopril 10 MG Oral Tablet", authored="2016-05-10")
    latest = one.observation(
        "Hemoglobin A1c/Hemoglobin.total in Blood",
        code=A1C,
        value=7.1,
        unit="%",
        at="2024-03-30",
        ref_high=5.7,
    )
    older = one.observation(
        "Hemoglobin A1c/Hemoglobin.total in Blood",
        code=A1C,
        value=6.8,
        unit="%",
        at="2023-03-01",
        ref_high=5.7,
    )
    if with_allergy:
        one.allergy("Penicillin V", reactions=[("Hives", "moderate")])
    plan = one.care_plan(
        "Diabetes self management plan",
        start="2015-03-10",
        addresses=[diabetes],
        activities=[{"display": "Diabetic diet", "status": "in-progress"}],
    )
    one.write(db)
    two = RecordBuilder(TWO, name="Tom Two")
    theirs = two.observation(f"{CANARY} Hemoglobin A1c", code=A1C, value=9.9, unit="%", at="2024-01-01")
    two.write(db)
    return ScopedWorld(db, latest, older, metformin, plan, theirs)


def request(
    question: str, *, ask_scope: dict[str, Any] | None = None, patient: str = ONE, role: str = "patient"
) -> AgentRequest:
    scope = PatientScope(
        patient_id=patient, role=role, actor=f"test:{role}", conversation_id="conv-scoped", message_id="m-1"
    )
    return AgentRequest(scope=scope, question=question, ask_scope=ask_scope)


def record_scope(kind: str, record_id: str) -> dict[str, Any]:
    return {"record": {"kind": kind, "id": record_id}}
