"""Ground truth: one patient's record read with our own SQL, under explicit clinical semantics.

This module deliberately does not call the tools: an evaluation that computed its expected
answers with the code under test would grade that code against itself. The semantics are
the product's (DESIGN.md, "Clinical semantics are explicit"), written down again here:

* entered-in-error rows are excluded everywhere (any status/verification field saying so);
* active medication = status `active`, not ended before "now" (ingestion ends a deceased
  patient's requests at death: `ended_reason = 'patient-deceased'`, even without a date),
  authored by "now";
* active condition = clinical status active/recurrence/relapse, not abated by "now", not
  refuted or entered-in-error;
* current allergy = clinical status active (or unstated), not refuted or entered-in-error;
* a measurement's "latest" = newest by effective time per code (ties broken by id, and the
  generator skips codes whose two newest rows share an instant with different values);
* blood-pressure parts are found by their LOINC component codes, never by position;
* an immunization counts as given only when its status is `completed` (or unstated).

All reads run inside one patient-scoped transaction, so row-level security applies even when
the owner connection is not a superuser.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy import Connection, text

from records.database import Database, patient_transaction

EIE = "entered-in-error"


@dataclass(frozen=True)
class PatientRow:
    patient_id: str
    full_name: str
    given: str
    family: str
    birth_date: dt.date | None
    gender: str | None
    deceased: bool


@dataclass(frozen=True)
class Medication:
    id: str
    display: str
    normalized: str
    code: str | None
    status: str
    authored_on: dt.datetime | None
    ended_at: dt.datetime | None
    reason_code: str | None = None
    reason_condition_id: str | None = None
    ended_reason: str | None = None  # 'patient-deceased': ended at death, even without a date
    dosage_text: str | None = None
    as_needed: bool | None = None
    requester_name: str | None = None


@dataclass(frozen=True)
class ConditionRow:
    id: str
    code: str | None
    display: str
    clinical_status: str | None
    verification_status: str | None
    onset: dt.datetime | None
    abatement: dt.datetime | None


@dataclass(frozen=True)
class AllergyRow:
    id: str
    code: str | None
    display: str
    clinical_status: str | None
    verification_status: str | None
    categories: tuple[str, ...]


@dataclass(frozen=True)
class Measurement:
    """A numeric value: an observation's own value or one component of a panel."""

    record_id: str  # the observation (panel) id the tools cite
    code: str
    display: str
    value: float
    unit: str | None
    effective: dt.datetime
    ref_low: float | None
    ref_high: float | None
    status: str | None


@dataclass(frozen=True)
class ImmunizationRow:
    id: str
    code: str | None
    display: str
    status: str | None
    occurrence: dt.datetime | None


@dataclass(frozen=True)
class EncounterRow:
    id: str
    status: str | None
    class_code: str | None
    type_display: str | None
    start: dt.datetime | None


@dataclass(frozen=True)
class ProcedureRow:
    id: str
    code: str | None
    display: str
    status: str | None
    performed_start: dt.datetime | None


@dataclass(frozen=True)
class AppointmentRow:
    """An appointment booked through the product (the only appointments the record has)."""

    id: str
    status: str
    slot_id: str
    starts_at: dt.datetime | None
    specialty: str | None
    department: str | None


@dataclass(frozen=True)
class NoteRow:
    id: str
    doc_status: str | None
    date: dt.datetime | None
    text: str


@dataclass
class Record:
    """Everything the generator needs about one patient, loaded once."""

    patient: PatientRow
    now: dt.datetime
    medications: list[Medication] = field(default_factory=list)  # entered-in-error kept: distractors
    conditions: list[ConditionRow] = field(default_factory=list)
    allergies: list[AllergyRow] = field(default_factory=list)
    measurements: list[Measurement] = field(default_factory=list)
    immunizations: list[ImmunizationRow] = field(default_factory=list)
    encounters: list[EncounterRow] = field(default_factory=list)
    procedures: list[ProcedureRow] = field(default_factory=list)
    notes: list[NoteRow] = field(default_factory=list)
    appointments: list[AppointmentRow] = field(default_factory=list)

    def after_now(self) -> int:
        """Rows dated after the pinned "now": the tools would still show them, the truth does not."""
        stamps = [m.effective for m in self.measurements]
        stamps += [m.authored_on for m in self.medications if m.authored_on]
        stamps += [e.start for e in self.encounters if e.start]
        return sum(1 for t in stamps if t > self.now)

    # ---- the semantics, one function each ---------------------------------------------------

    def active_medications(self) -> list[Medication]:
        return [
            m
            for m in self.medications
            if m.status == "active"
            # an end date ends it then (a death dated after a pinned "now" has not ended it
            # yet); without a date, the patient's death still ends it
            and (m.ended_at > self.now if m.ended_at is not None else m.ended_reason != "patient-deceased")
            and (m.authored_on is None or m.authored_on <= self.now)
        ]

    def valid_medications(self) -> list[Medication]:
        """Every prescription that really happened (any status but entered-in-error)."""
        return [m for m in self.medications if m.status != EIE]

    def active_conditions(self) -> list[ConditionRow]:
        return [
            c
            for c in self.conditions
            if c.clinical_status in ("active", "recurrence", "relapse")
            and c.verification_status not in (EIE, "refuted")
            and (c.abatement is None or c.abatement > self.now)
            and (c.onset is None or c.onset <= self.now)
        ]

    def valid_conditions(self) -> list[ConditionRow]:
        return [
            c
            for c in self.conditions
            if c.verification_status not in (EIE, "refuted") and c.clinical_status != EIE
        ]

    def current_allergies(self) -> list[AllergyRow]:
        return [
            a
            for a in self.allergies
            if (a.clinical_status in (None, "active")) and a.verification_status not in (EIE, "refuted")
        ]

    def valid_measurements(self) -> list[Measurement]:
        return [
            m for m in self.measurements if m.status not in (EIE, "cancelled") and m.effective <= self.now
        ]

    def series(self, code: str) -> list[Measurement]:
        """One code's values, oldest first (ties by record id so the order is stable)."""
        rows = [m for m in self.valid_measurements() if m.code == code]
        return sorted(rows, key=lambda m: (m.effective, m.record_id))

    def given_immunizations(self) -> list[ImmunizationRow]:
        return [
            i
            for i in self.immunizations
            if i.status in (None, "completed") and i.occurrence is not None and i.occurrence <= self.now
        ]

    def valid_encounters(self) -> list[EncounterRow]:
        return [
            e
            for e in self.encounters
            if e.status not in (EIE, "cancelled") and e.start is not None and e.start <= self.now
        ]

    def valid_procedures(self) -> list[ProcedureRow]:
        return [
            p
            for p in self.procedures
            if p.status not in (EIE, "not-done")
            and p.performed_start is not None
            and p.performed_start <= self.now
        ]

    def upcoming_appointments(self) -> list[AppointmentRow]:
        """Booked (not cancelled) appointments starting after now, soonest first."""
        rows = [
            a
            for a in self.appointments
            if a.status == "booked" and a.starts_at is not None and a.starts_at > self.now
        ]
        return sorted(rows, key=lambda a: (a.starts_at, a.id))

    def valid_notes(self) -> list[NoteRow]:
        """Newest first."""
        rows = [n for n in self.notes if n.doc_status != EIE and n.date is not None and n.date <= self.now]
        return sorted(rows, key=lambda n: (n.date, n.id), reverse=True)


# --------------------------------------------------------------------------------------------
# SQL
# --------------------------------------------------------------------------------------------

_PATIENT = text(
    "SELECT patient_id, full_name, given_names, family, birth_date, gender, deceased "
    "FROM patients WHERE patient_id = :pid"
)
_MEDS = text(
    "SELECT id, coalesce(display, code, id) AS display, coalesce(display_normalized, lower(display), '') AS norm, "
    "code, coalesce(status, 'unknown') AS status, authored_on, ended_at, reason_code, reason_condition_id, ended_reason, "
    "dosage_text, as_needed, requester_name "
    "FROM medication_requests WHERE patient_id = :pid ORDER BY authored_on NULLS FIRST, id"
)
_CONDITIONS = text(
    "SELECT id, code, coalesce(display, code, id) AS display, clinical_status, verification_status, onset, abatement "
    "FROM conditions WHERE patient_id = :pid ORDER BY onset NULLS FIRST, id"
)
_ALLERGIES = text(
    "SELECT id, code, coalesce(display, code, id) AS display, clinical_status, verification_status, categories "
    "FROM allergies WHERE patient_id = :pid ORDER BY id"
)
# Values of plain observations and of panel components, each under the code it carries.
_MEASUREMENTS = text(
    """
    SELECT o.id AS record_id, o.code, coalesce(o.display, o.code) AS display, o.value_num AS value,
           o.value_unit AS unit, o.effective, o.ref_low, o.ref_high, o.status
      FROM observations o
     WHERE o.patient_id = :pid AND o.value_num IS NOT NULL AND o.effective IS NOT NULL AND o.code IS NOT NULL
    UNION ALL
    SELECT o.id, c.code, coalesce(c.display, c.code), c.value_num, c.value_unit, o.effective,
           NULL, NULL, o.status
      FROM observation_components c
      JOIN observations o ON o.patient_id = c.patient_id AND o.id = c.observation_id
     WHERE c.patient_id = :pid AND c.value_num IS NOT NULL AND o.effective IS NOT NULL AND c.code IS NOT NULL
    """
)
_IMMUNIZATIONS = text(
    "SELECT id, vaccine_code, coalesce(display, vaccine_code, id) AS display, status, occurrence "
    "FROM immunizations WHERE patient_id = :pid ORDER BY occurrence NULLS FIRST, id"
)
_ENCOUNTERS = text(
    "SELECT id, status, class_code, type_display, start FROM encounters WHERE patient_id = :pid ORDER BY start, id"
)
_PROCEDURES = text(
    "SELECT id, code, coalesce(display, code, id) AS display, status, performed_start "
    "FROM procedures WHERE patient_id = :pid ORDER BY performed_start NULLS FIRST, id"
)
_APPOINTMENTS = text(
    "SELECT a.id, a.status, a.slot_id, s.starts_at, d.specialty, d.name AS department FROM appointments a "
    "LEFT JOIN appointment_slots s ON s.id = a.slot_id LEFT JOIN departments d ON d.id = s.department_id "
    "WHERE a.patient_id = :pid ORDER BY s.starts_at NULLS LAST, a.id"
)
_NOTES = text(
    "SELECT id, doc_status, date, text FROM clinical_notes WHERE patient_id = :pid ORDER BY date, id"
)


def _given(names: Sequence[str] | None, full_name: str) -> str:
    if names:
        return names[0]
    return full_name.split()[0] if full_name else ""


def read_record(conn: Connection, patient_id: str, now: dt.datetime) -> Record | None:
    """Load one patient (None when the id is unknown). `conn` must be scoped to that patient."""
    row = conn.execute(_PATIENT, {"pid": patient_id}).mappings().first()
    if row is None:
        return None
    p = {"pid": patient_id}
    patient = PatientRow(
        patient_id=row["patient_id"],
        full_name=row["full_name"],
        given=_given(row["given_names"], row["full_name"]),
        family=row["family"] or "",
        birth_date=row["birth_date"],
        gender=row["gender"],
        deceased=bool(row["deceased"]),
    )
    record = Record(patient=patient, now=now)
    record.medications = [
        Medication(
            r.id,
            r.display,
            r.norm,
            r.code,
            r.status,
            r.authored_on,
            r.ended_at,
            r.reason_code,
            r.reason_condition_id,
            r.ended_reason,
            r.dosage_text,
            r.as_needed,
            r.requester_name,
        )
        for r in conn.execute(_MEDS, p)
    ]
    record.conditions = [
        ConditionRow(r.id, r.code, r.display, r.clinical_status, r.verification_status, r.onset, r.abatement)
        for r in conn.execute(_CONDITIONS, p)
    ]
    record.allergies = [
        AllergyRow(
            r.id, r.code, r.display, r.clinical_status, r.verification_status, tuple(r.categories or ())
        )
        for r in conn.execute(_ALLERGIES, p)
    ]
    record.measurements = [
        Measurement(
            r.record_id,
            r.code,
            r.display,
            float(r.value),
            r.unit,
            r.effective,
            r.ref_low,
            r.ref_high,
            r.status,
        )
        for r in conn.execute(_MEASUREMENTS, p)
    ]
    record.immunizations = [
        ImmunizationRow(r.id, r.vaccine_code, r.display, r.status, r.occurrence)
        for r in conn.execute(_IMMUNIZATIONS, p)
    ]
    record.encounters = [
        EncounterRow(r.id, r.status, r.class_code, r.type_display, r.start)
        for r in conn.execute(_ENCOUNTERS, p)
    ]
    record.procedures = [
        ProcedureRow(r.id, r.code, r.display, r.status, r.performed_start)
        for r in conn.execute(_PROCEDURES, p)
    ]
    record.notes = [NoteRow(r.id, r.doc_status, r.date, r.text) for r in conn.execute(_NOTES, p)]
    record.appointments = [
        AppointmentRow(r.id, r.status, r.slot_id, r.starts_at, r.specialty, r.department)
        for r in conn.execute(_APPOINTMENTS, p)
    ]
    return record


def load_record(db: Database, patient_id: str, now: dt.datetime) -> Record | None:
    with patient_transaction(db.admin, patient_id) as conn:
        return read_record(conn, patient_id, now)


def list_patients(db: Database) -> list[str]:
    """Every patient id, sorted. `source_files` is not row-level secured, so an owner that is not
    a superuser still sees the ingested patients; the `patients` table adds rows made otherwise."""
    with db.admin.connect() as conn:
        ids = {
            r[0]
            for r in conn.execute(
                text("SELECT bundle_patient_id FROM source_files WHERE bundle_patient_id IS NOT NULL")
            )
        }
        ids |= {r[0] for r in conn.execute(text("SELECT patient_id FROM patients"))}
    return sorted(ids)


def fingerprint(db: Database, patient_ids: Sequence[str]) -> str:
    """A short digest of what the truth was computed from: per-table row counts per patient.

    Cheap, and changes whenever a patient is re-ingested with different content, so a set can
    say when it no longer matches the database it is run against.
    """
    tables = ("medication_requests", "conditions", "observations", "allergies", "immunizations", "encounters")
    digest = hashlib.sha256()
    for pid in patient_ids:
        with patient_transaction(db.admin, pid) as conn:
            counts = [
                conn.execute(
                    text(f"SELECT count(*) FROM {t} WHERE patient_id = :pid"), {"pid": pid}
                ).scalar_one()
                for t in tables
            ]
        digest.update(f"{pid}:{counts}".encode())
    return digest.hexdigest()[:16]


# --------------------------------------------------------------------------------------------
# Reference data the generator needs (not patient-scoped)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LeafletRow:
    id: int
    slug: str
    title: str
    contact: str | None
    reviewed: dt.date | None


@dataclass(frozen=True)
class SlotRow:
    id: str
    department_id: str
    department_name: str
    specialty: str
    starts_at: dt.datetime


def read_leaflets(db: Database) -> list[LeafletRow]:
    with db.admin.connect() as conn:
        return [
            LeafletRow(r.id, r.slug, r.title, r.contact, r.reviewed)
            for r in conn.execute(
                text("SELECT id, slug, title, contact, reviewed FROM leaflets ORDER BY slug")
            )
        ]


def read_free_slots(db: Database, start: dt.datetime, end: dt.datetime) -> list[SlotRow]:
    """Unbooked slots starting in [start, end), earliest first."""
    with db.admin.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT s.id, s.department_id, d.name, d.specialty, s.starts_at FROM appointment_slots s "
                "JOIN departments d ON d.id = s.department_id "
                "WHERE s.booked_appointment_id IS NULL AND s.starts_at >= :start AND s.starts_at < :end "
                "ORDER BY s.starts_at, s.id"
            ),
            {"start": start, "end": end},
        )
        return [SlotRow(r.id, r.department_id, r[2], r.specialty, r.starts_at) for r in rows]
