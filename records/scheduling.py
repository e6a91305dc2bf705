"""Departments, clinicians and bookable slots, derived from the ingested reference data.

Synthea gives organisations and practitioners (nearly all of them general practice) but no
schedules, so schedules are generated — deterministically for a seed and a start date:

* every organisation that has practitioners gets one department per practitioner
  specialty, staffed by up to `MAX_CLINICIANS` of them (home care, hospice, pharmacies and
  nursing homes take no appointments and are skipped);
* organisations that look like hospitals (by name), or the best-staffed organisation when
  none does, also get the outpatient clinics of `CLINIC_CATALOGUE`; their slots name no
  clinician (a clinician of the department sees the patient);
* each clinician (or clinic) works weekday sessions 09:00–12:00 and 13:30–17:00 in
  30-minute slots, of which a seeded share is left free for booking.

Re-running adds what is missing and never touches existing slots, so bookings survive.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import random
from collections import defaultdict
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from sqlalchemy import Connection, func, select, text
from sqlalchemy.dialects.postgresql import insert

from records.database import Database
from records.models import AppointmentSlot, Department, Location, Organization, Practitioner

DEFAULT_SEED = 7
MAX_CLINICIANS = 4
SLOT_MINUTES = 30
FREE_SHARE = 0.4
SESSIONS = ((dt.time(9, 0), dt.time(12, 0)), (dt.time(13, 30), dt.time(17, 0)))
NOT_BOOKABLE_WORDS = ("HOSPICE", "HOME CARE", "HOME HEALTH", "HOMECARE", "PHARMACY", "NURSING", "SKILLED")
HOSPITAL_WORDS = ("HOSPITAL", "MEDICAL CENTER", "MEDICAL CTR", "MEDICAL CENTRE", "HEALTH SYSTEM")
CLINIC_CATALOGUE = (
    "Cardiology",
    "Endocrinology and Diabetes",
    "Nephrology",
    "Dermatology",
    "Ophthalmology",
    "Orthopaedics",
    "Physiotherapy",
    "Mental Health",
    "Obstetrics and Gynaecology",
    "Paediatrics",
    "Vaccination Clinic",
    "Phlebotomy (Blood Tests)",
)
SPECIALTY_NAMES = {  # NUCC taxonomy displays → the department a patient would ask for
    "general practice physician": "General Practice",
    "general practice": "General Practice",
    "family medicine physician": "General Practice",
    "internal medicine physician": "Internal Medicine",
}


@dataclass(frozen=True)
class PlannedDepartment:
    id: str
    organization_id: str
    name: str
    specialty: str
    phone: str | None
    location_id: str | None
    clinicians: tuple[str, ...]  # practitioner ids; empty = clinic slots without a named clinician


@dataclass(frozen=True)
class SlotStats:
    departments: int
    slots_planned: int
    slots_added: int
    start: dt.date
    days: int


def _digest(*parts: str) -> str:
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


def specialty_name(display: str | None) -> str:
    if not display:
        return "General Practice"
    return SPECIALTY_NAMES.get(display.strip().lower(), display.strip().removesuffix(" Physician"))


def plan_departments(conn: Connection) -> list[PlannedDepartment]:
    """Departments from organisations × practitioner specialties, plus hospital clinics."""
    org, pr, loc = Organization.__table__, Practitioner.__table__, Location.__table__
    orgs = {r.id: r for r in conn.execute(select(org.c.id, org.c.name, org.c.phone)).all()}
    first_location = dict(
        conn.execute(select(loc.c.organization_id, func.min(loc.c.id)).group_by(loc.c.organization_id)).all()
    )
    staff: dict[tuple[str, str], list[str]] = defaultdict(list)
    for row in conn.execute(
        select(pr.c.id, pr.c.organization_id, pr.c.specialty_display)
        .where(pr.c.organization_id.is_not(None))
        .order_by(pr.c.id)
    ):
        staff[(row.organization_id, specialty_name(row.specialty_display))].append(row.id)

    def bookable(org_id: str) -> bool:
        name = (orgs[org_id].name or "").upper() if org_id in orgs else ""
        return org_id in orgs and not any(word in name for word in NOT_BOOKABLE_WORDS)

    planned: list[PlannedDepartment] = []
    staffed_orgs: dict[str, int] = defaultdict(int)
    for (org_id, specialty), clinicians in sorted(staff.items()):
        if not bookable(org_id):
            continue
        staffed_orgs[org_id] += len(clinicians)
        planned.append(
            PlannedDepartment(
                id=f"dept-{_digest(org_id, specialty)}",
                organization_id=org_id,
                name=specialty,
                specialty=specialty,
                phone=orgs[org_id].phone,
                location_id=first_location.get(org_id),
                clinicians=tuple(clinicians[:MAX_CLINICIANS]),
            )
        )
    hospitals = sorted(
        o for o in orgs if bookable(o) and any(w in (orgs[o].name or "").upper() for w in HOSPITAL_WORDS)
    )
    if not hospitals and staffed_orgs:
        hospitals = [min(staffed_orgs, key=lambda o: (-staffed_orgs[o], orgs[o].name or "", o))]
    for org_id in hospitals:
        for clinic in CLINIC_CATALOGUE:
            planned.append(
                PlannedDepartment(
                    id=f"dept-{_digest(org_id, clinic)}",
                    organization_id=org_id,
                    name=clinic,
                    specialty=clinic,
                    phone=orgs[org_id].phone,
                    location_id=first_location.get(org_id),
                    clinicians=(),
                )
            )
    return planned


def plan_slots(
    departments: list[PlannedDepartment],
    start: dt.date,
    days: int,
    seed: int,
    tz: ZoneInfo,
    planned: set[tuple[str, dt.date]] | None = None,
) -> list[dict]:
    """Free slots for each department's clinicians on weekdays in [start, start + days),
    leaving out the (department, day) pairs in `planned` (their slots exist already)."""
    slots: list[dict] = []
    for dept in departments:
        streams: tuple[str | None, ...] = dept.clinicians or (None,)
        for offset in range(days):
            day = start + dt.timedelta(days=offset)
            if day.weekday() >= 5 or (planned is not None and (dept.id, day) in planned):
                continue
            for clinician in streams:
                rng = random.Random(f"{seed}|{dept.id}|{clinician or ''}|{day.isoformat()}")
                for session_start, session_end in SESSIONS:
                    at = dt.datetime.combine(day, session_start, tzinfo=tz)
                    end_of_session = dt.datetime.combine(day, session_end, tzinfo=tz)
                    while at + dt.timedelta(minutes=SLOT_MINUTES) <= end_of_session:
                        ends = at + dt.timedelta(minutes=SLOT_MINUTES)
                        if rng.random() < FREE_SHARE:
                            starts_utc = at.astimezone(dt.UTC)
                            slots.append(
                                {
                                    "id": f"slot-{_digest(dept.id, clinician or '', starts_utc.isoformat())}",
                                    "department_id": dept.id,
                                    "practitioner_id": clinician,
                                    "location_id": dept.location_id,
                                    "starts_at": starts_utc,
                                    "ends_at": ends.astimezone(dt.UTC),
                                }
                            )
                        at = ends
    return slots


def generate_slots(
    db: Database,
    days: int,
    start: dt.date | None = None,
    seed: int = DEFAULT_SEED,
    timezone: str = "UTC",
) -> SlotStats:
    """Create departments and free slots (as the owner). Idempotent; bookings are kept."""
    if days < 1:
        raise ValueError("days must be at least 1")
    tz = ZoneInfo(timezone)
    start = start or dt.datetime.now(tz).date()
    with db.admin.begin() as conn:
        departments = plan_departments(conn)
        if departments:
            conn.execute(
                insert(Department.__table__)
                .values(
                    [
                        {
                            "id": d.id,
                            "organization_id": d.organization_id,
                            "name": d.name,
                            "specialty": d.specialty,
                            "phone": d.phone,
                        }
                        for d in departments
                    ]
                )
                .on_conflict_do_nothing(index_elements=["id"])
            )
        # a (department, day) already scheduled is written in one transaction with its day, so
        # it is complete: the second `make run` plans and inserts only the days that are new
        planned = {
            (row[0], row[1])
            for row in conn.execute(
                text(
                    "SELECT DISTINCT department_id, (starts_at AT TIME ZONE :tz)::date FROM appointment_slots "
                    "WHERE starts_at >= :since"
                ),
                {"tz": timezone, "since": dt.datetime.combine(start, dt.time.min, tzinfo=tz)},
            )
        }
        slots = plan_slots(departments, start, days, seed, tz, planned)
        added = 0
        table = AppointmentSlot.__table__
        for i in range(0, len(slots), 5000):
            batch = slots[i : i + 5000]
            result = conn.execute(
                insert(table)
                .values(batch)
                .on_conflict_do_nothing(index_elements=["id"])
                .returning(table.c.id)
            )
            added += len(result.all())
    return SlotStats(
        departments=len(departments), slots_planned=len(slots), slots_added=added, start=start, days=days
    )
