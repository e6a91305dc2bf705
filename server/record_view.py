"""The record at a glance (the side panel): upcoming appointments, active problems, medicines,
allergies, key labs, recent visits, immunizations given and recent notes — each section and row can be asked about.

Presentation queries, read in one patient transaction under row-level security. The clinical
rules are the product's everywhere: active medication = status active and not ended;
"latest" lab = newest by effective time per code; blood pressure by component LOINC code;
entered-in-error rows never shown.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, text

from records.database import Database, patient_transaction, set_patient
from records.queries.appointments import list_appointments

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
EXCLUDED_STATUSES = ("entered-in-error", "cancelled")
ACTIVE_CONDITION = ("active", "recurrence", "relapse")
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


def at_a_glance(db: Database, patient_id: str) -> Glance:
    with patient_transaction(db.app, patient_id) as conn:
        patient = conn.execute(
            text(
                "SELECT patient_id, full_name, birth_date, gender, deceased, deceased_at FROM patients "
                "WHERE patient_id = :p"
            ),
            {"p": patient_id},
        ).one()
        conditions = _rows(
            conn,
            "SELECT id, display, code, onset, clinical_status FROM conditions "
            "WHERE patient_id = :p AND clinical_status = ANY(:active) AND abatement IS NULL "
            "AND COALESCE(verification_status, '') NOT IN ('entered-in-error', 'refuted') "
            "ORDER BY onset DESC NULLS LAST, display",
            p=patient_id,
            active=list(ACTIVE_CONDITION),
        )
        medications = _rows(
            conn,
            "SELECT id, display, dosage_text, authored_on, reason_display FROM medication_requests "
            "WHERE patient_id = :p AND status = 'active' AND (ended_at IS NULL OR ended_at > now()) "
            "ORDER BY authored_on DESC NULLS LAST, display",
            p=patient_id,
        )
        allergies = _rows(
            conn,
            "SELECT id, display, criticality, categories, onset FROM allergies "
            "WHERE patient_id = :p AND COALESCE(clinical_status, 'active') = 'active' "
            "AND COALESCE(verification_status, '') NOT IN ('entered-in-error', 'refuted') "
            "ORDER BY display",
            p=patient_id,
        )
        labs = _key_labs(conn, patient_id)
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
            now=dt.datetime.now(dt.UTC),
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


def _rows(conn: Connection, sql: str, **params: Any) -> list[dict[str, Any]]:
    return [dict(r._mapping) for r in conn.execute(text(sql), params)]


def _key_labs(conn: Connection, patient_id: str) -> list[LabSeries]:
    codes = [code for code, _ in KEY_LABS]
    rows = conn.execute(
        text(
            "SELECT id, code, value_num AS value, value_unit AS unit, effective, ref_low, ref_high "
            "FROM observations WHERE patient_id = :p AND code = ANY(:codes) AND value_num IS NOT NULL "
            "AND COALESCE(status, '') <> ALL(:excluded) "
            "UNION ALL "
            "SELECT o.id, c.code, c.value_num, c.value_unit, o.effective, NULL, NULL "
            "FROM observations o JOIN observation_components c "
            "  ON c.patient_id = o.patient_id AND c.observation_id = o.id "
            "WHERE o.patient_id = :p AND c.patient_id = :p AND o.code = :bp AND c.code = ANY(:codes) AND c.value_num IS NOT NULL "
            "AND COALESCE(o.status, '') <> ALL(:excluded) "
            "ORDER BY effective DESC NULLS LAST, id"
        ),
        {"p": patient_id, "codes": codes, "excluded": list(EXCLUDED_STATUSES), "bp": BP_PANEL},
    ).all()
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
