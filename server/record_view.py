"""The record at a glance (the side panel): upcoming appointments, active problems, medicines,
allergies, key labs, recent visits, immunizations given and recent notes — each section and row can be asked about.

Read in one patient transaction under row-level security, through the same query layer and
clinical rules (`records.rules`) as the tools: active medication, active condition, current
allergy, "latest" lab = newest by effective time per code; blood pressure by component LOINC
code; entered-in-error rows never shown.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, and_, null, select, text, union_all

from records.database import Database, patient_transaction, set_patient
from records.models import Observation, ObservationComponent
from records.queries.allergies import list_allergies
from records.queries.appointments import list_appointments
from records.queries.conditions import list_conditions
from records.queries.medications import list_medications
from records.rules import latest_observation_first, observation_is_shown, observed_by

# (LOINC, short label) in display order: what patients and clinicians look for first
KEY_LABS: tuple[tuple[str, str], ...] = (
    ("4548-4", "HbA1c"),
    ("2339-0", "Glucose"),
    ("18262-6", "LDL cholesterol"),
    ("2093-3", "Total cholesterol"),
    ("2085-9", "HDL cholesterol"),
    ("2571-8", "Triglycerides"),
    ("38483-4", "Creatinine"),
    ("33914-3", "eGFR"),
    ("718-7", "Haemoglobin"),
    ("8480-6", "Systolic BP"),
    ("8462-4", "Diastolic BP"),
    ("39156-5", "BMI"),
    ("29463-7", "Body weight"),
)
BP_PANEL = "85354-9"
TREND_POINTS = 12
PANEL_ROWS = 500  # every active problem / medicine / allergy (a record has far fewer)
FINDING_SUFFIXES = ("(finding)", "(situation)", "(person)", "(observable entity)")
EPOCH = dt.datetime(1900, 1, 1, tzinfo=dt.UTC)
RECENT_ROWS = 5  # visits and notes shown in the panel (the agent reads the rest)
UPCOMING_APPOINTMENTS = 10


@dataclass
class LabSeries:
    code: str
    label: str
    unit: str | None
    latest_value: float
    latest_at: dt.datetime | None
    latest_id: str
    ref_low: float | None = None
    ref_high: float | None = None
    points: list[tuple[dt.datetime, float]] = field(default_factory=list)  # oldest first

    @property
    def flag(self) -> str | None:
        if self.ref_high is not None and self.latest_value > self.ref_high:
            return "high"
        if self.ref_low is not None and self.latest_value < self.ref_low:
            return "low"
        return None


@dataclass
class Glance:
    patient: dict[str, Any]
    conditions: list[dict[str, Any]]
    findings: list[dict[str, Any]]
    medications: list[dict[str, Any]]
    allergies: list[dict[str, Any]]
    labs: list[LabSeries]
    encounters: list[dict[str, Any]] = field(default_factory=list)
    immunizations: list[dict[str, Any]] = field(default_factory=list)
    notes: list[dict[str, Any]] = field(default_factory=list)
    appointments: list[dict[str, Any]] = field(default_factory=list)  # upcoming, booked, soonest first

    def as_json(self) -> dict[str, Any]:
        def iso(v: Any) -> Any:
            return v.isoformat() if isinstance(v, dt.date | dt.datetime) else v

        def clean(row: dict[str, Any]) -> dict[str, Any]:
            return {k: iso(v) for k, v in row.items()}

        return {
            "patient": clean(self.patient),
            "conditions": [clean(r) for r in self.conditions],
            "findings": [clean(r) for r in self.findings],
            "medications": [clean(r) for r in self.medications],
            "allergies": [clean(r) for r in self.allergies],
            "encounters": [clean(r) for r in self.encounters],
            "immunizations": [clean(r) for r in self.immunizations],
            "notes": [clean(r) for r in self.notes],
            "appointments": [clean(r) for r in self.appointments],
            "labs": [
                {
                    "code": s.code,
                    "label": s.label,
                    "unit": s.unit,
                    "latest": {"value": s.latest_value, "at": iso(s.latest_at), "id": s.latest_id},
                    "ref_low": s.ref_low,
                    "ref_high": s.ref_high,
                    "flag": s.flag,
                    "trend": [{"at": iso(t), "value": v} for t, v in s.points],
                }
                for s in self.labs
            ],
        }


def at_a_glance(db: Database, patient_id: str, *, now: dt.datetime) -> Glance:
    """The panel, with the tools' own rules (`records.rules`) at the caller's clock `now`
    (the wall clock, or the instant an evaluation pinned) — never the database's `now()`."""
    with patient_transaction(db.app, patient_id) as conn:
        patient = conn.execute(
            text(
                "SELECT patient_id, full_name, birth_date, gender, deceased, deceased_at FROM patients "
                "WHERE patient_id = :p"
            ),
            {"p": patient_id},
        ).one()
        conditions = [
            _pick(r, "id", "display", "code", "onset", "clinical_status")
            for r in list_conditions(
                conn, patient_id=patient_id, status="active", now=now, limit=PANEL_ROWS
            ).items
        ]
        conditions.sort(key=lambda r: (r["onset"] is not None, r["onset"] or EPOCH), reverse=True)
        medications = [
            _pick(r, "id", "display", "dosage_text", "authored_on", "reason_display")
            for r in list_medications(
                conn, patient_id=patient_id, status="active", now=now, limit=PANEL_ROWS
            ).items
        ]
        allergies = sorted(
            (
                _pick(r, "id", "display", "criticality", "categories", "onset")
                for r in list_allergies(
                    conn, patient_id=patient_id, current_only=True, limit=PANEL_ROWS
                ).items
            ),
            key=lambda r: str(r["display"] or ""),
        )
        labs = _key_labs(conn, patient_id, now)
        encounters = _rows(
            conn,
            "SELECT id, type_display, start, reason_display, class_code FROM encounters "
            "WHERE patient_id = :p AND COALESCE(status, '') NOT IN ('entered-in-error', 'cancelled') "
            "ORDER BY start DESC NULLS LAST, id LIMIT :n",
            p=patient_id,
            n=RECENT_ROWS,
        )
        # the newest dose of each vaccine given (not-done and entered-in-error are not "given")
        immunizations = _rows(
            conn,
            "SELECT DISTINCT ON (COALESCE(vaccine_code, display)) id, display, occurrence FROM immunizations "
            "WHERE patient_id = :p AND COALESCE(status, 'completed') = 'completed' "
            "ORDER BY COALESCE(vaccine_code, display), occurrence DESC NULLS LAST, id",
            p=patient_id,
        )
        immunizations.sort(
            key=lambda r: (r["occurrence"] is not None, r["occurrence"] or EPOCH), reverse=True
        )
        notes = _rows(
            conn,
            "SELECT id, type_display, date, author_name FROM clinical_notes "
            "WHERE patient_id = :p AND COALESCE(doc_status, '') <> 'entered-in-error' "
            "ORDER BY date DESC NULLS LAST, id LIMIT :n",
            p=patient_id,
            n=RECENT_ROWS,
        )
        upcoming = list_appointments(
            conn,
            patient_id=patient_id,
            now=now,
            include_past=False,
            include_cancelled=False,
            limit=UPCOMING_APPOINTMENTS,
        ).items
        appointments = [
            {
                "id": a.id,
                "starts_at": a.starts_at,
                "ends_at": a.ends_at,
                "department": a.department_name,
                "organization": a.organization_name,
                "practitioner": a.practitioner_name,
            }
            for a in upcoming
        ]
    disorders = [c for c in conditions if not str(c["display"] or "").endswith(FINDING_SUFFIXES)]
    findings = [c for c in conditions if str(c["display"] or "").endswith(FINDING_SUFFIXES)]
    return Glance(
        patient=dict(patient._mapping),
        conditions=disorders,
        findings=findings,
        medications=medications,
        allergies=allergies,
        labs=labs,
        encounters=encounters,
        immunizations=immunizations,
        notes=notes,
        appointments=appointments,
    )


def _pick(row: Any, *columns: str) -> dict[str, Any]:
    return {c: getattr(row, c) for c in columns}


def _rows(conn: Connection, sql: str, **params: Any) -> list[dict[str, Any]]:
    return [dict(r._mapping) for r in conn.execute(text(sql), params)]


def _key_labs(conn: Connection, patient_id: str, now: dt.datetime) -> list[LabSeries]:
    codes = [code for code, _ in KEY_LABS]
    o, c = Observation.__table__, ObservationComponent.__table__
    single = select(
        o.c.id,
        o.c.code,
        o.c.value_num.label("value"),
        o.c.value_unit.label("unit"),
        o.c.effective,
        o.c.issued,
        o.c.ref_low,
        o.c.ref_high,
    ).where(
        o.c.patient_id == patient_id,
        o.c.code.in_(codes),
        o.c.value_num.is_not(None),
        observation_is_shown(o),
        observed_by(o, now),
    )
    components = (
        select(
            o.c.id,
            c.c.code,
            c.c.value_num,
            c.c.value_unit,
            o.c.effective,
            o.c.issued,
            null().label("ref_low"),
            null().label("ref_high"),
        )
        .select_from(o.join(c, and_(c.c.patient_id == o.c.patient_id, c.c.observation_id == o.c.id)))
        .where(
            o.c.patient_id == patient_id,
            c.c.patient_id == patient_id,
            o.c.code == BP_PANEL,
            c.c.code.in_(codes),
            c.c.value_num.is_not(None),
            observation_is_shown(o),
            observed_by(o, now),
        )
    )
    both = union_all(single, components).subquery()
    rows = conn.execute(select(both).order_by(*latest_observation_first(both))).all()
    by_code: dict[str, list[Any]] = {}
    for row in rows:
        by_code.setdefault(row.code, []).append(row)
    series = []
    for code, label in KEY_LABS:
        found = by_code.get(code)
        if not found:
            continue
        latest = found[0]
        recent = [r for r in found[:TREND_POINTS] if r.effective is not None]
        series.append(
            LabSeries(
                code=code,
                label=label,
                unit=latest.unit,
                latest_value=latest.value,
                latest_at=latest.effective,
                latest_id=latest.id,
                ref_low=latest.ref_low,
                ref_high=latest.ref_high,
                points=[(r.effective, r.value) for r in reversed(recent)],
            )
        )
    return series


def patient_cards(db: Database, patient_ids: list[str]) -> list[dict[str, Any]]:
    """Name, birth date and sex of each listed patient (the panel picker), in the given order.

    One transaction; the patient setting is switched before each read, so every SELECT still
    sees exactly one patient under row-level security. Ids with no patient are skipped.
    """
    cards: list[dict[str, Any]] = []
    if not patient_ids:
        return cards
    with db.app.begin() as conn:
        for pid in patient_ids:
            set_patient(conn, pid)  # SET LOCAL: reaches Citus workers too
            row = conn.execute(
                text(
                    "SELECT patient_id, full_name, birth_date, gender, deceased FROM patients "
                    "WHERE patient_id = :p"
                ),
                {"p": pid},
            ).one_or_none()
            if row is not None:
                cards.append(dict(row._mapping))
    return cards
