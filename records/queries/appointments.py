"""Appointments: finding free slots, booking one, listing and cancelling the patient's own.

Booking is the one write a model can cause, so it is narrow and exact:

* only a slot that `find_slots` offered in the same conversation (`offered_slots`) can be
  booked;
* the slot row is locked (`SELECT … FOR UPDATE`) before anything is decided, so concurrent
  attempts on one slot queue up and all but the first see it taken; the unique constraint on
  `appointment_slots.booked_appointment_id` and the partial unique index on appointments are
  the backstop;
* an idempotency key (from the triggering message) makes a replay return the booking it
  already made instead of a second one;
* row-level security on `appointment_slots` lets the application role claim a free slot only
  for its own patient's appointment, and free only a slot its own patient holds.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import re
from dataclasses import dataclass
from typing import Any, NamedTuple

from rapidfuzz import fuzz
from sqlalchemy import Connection, Row, and_, func, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.exc import IntegrityError

from records.models import (
    Appointment,
    AppointmentSlot,
    Department,
    Location,
    OfferedSlot,
    Organization,
    Practitioner,
)
from records.queries.common import Page, normalise_text, page_from_rows, total_over

MATCH_THRESHOLD = 86  # rapidfuzz ratio (0-100) between a word asked and a word of a specialty
PLACE_THRESHOLD = 85  # token-set ratio between the other words and a clinic's name
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "at",
        "in",
        "with",
        "for",
        "to",
        "of",
        "my",
        "me",
        "see",
        "book",
        "need",
        "appointment",
        "appointments",
        "clinic",
        "department",
        "dept",
        "centre",
        "center",
        "hospital",
        "medical",
        "health",
        "care",
        "next",
        "week",
        "soon",
        "please",
        "slot",
        "slots",
    ]
)
MAX_DEPARTMENTS = 3  # slots are offered from at most this many best-matching departments


def choose_departments(matches: list[DepartmentMatch]) -> list[list[DepartmentMatch]]:
    """Groups to try in order: the patient's own organisations first, then everyone else."""
    own = [m for m in matches if m.affinity > 0][:MAX_DEPARTMENTS]
    others = [m for m in matches if m.affinity == 0][:MAX_DEPARTMENTS]
    return [group for group in (own, others) if group]


# what patients say → department specialty names (see records.scheduling)
SPECIALTY_SYNONYMS: dict[str, str] = {
    "gp": "General Practice",
    "family doctor": "General Practice",
    "family medicine": "General Practice",
    "primary care": "General Practice",
    "doctor": "General Practice",
    "check-up": "General Practice",
    "checkup": "General Practice",
    "check up": "General Practice",
    "physical": "General Practice",
    "annual exam": "General Practice",
    # a blood pressure check is a GP's (the "blood" of "blood pressure" is no blood test)
    "blood pressure": "General Practice",
    "high blood pressure": "General Practice",
    "bp": "General Practice",
    "hypertension": "General Practice",
    "heart": "Cardiology",
    "cardiologist": "Cardiology",
    "diabetes": "Endocrinology and Diabetes",
    "endocrinologist": "Endocrinology and Diabetes",
    "thyroid": "Endocrinology and Diabetes",
    "kidney": "Nephrology",
    "renal": "Nephrology",
    "skin": "Dermatology",
    "dermatologist": "Dermatology",
    "eye": "Ophthalmology",
    "eyes": "Ophthalmology",
    "bone": "Orthopaedics",
    "orthopedics": "Orthopaedics",
    "orthopedic": "Orthopaedics",
    "joint": "Orthopaedics",
    "physical therapy": "Physiotherapy",
    "physio": "Physiotherapy",
    "mental health": "Mental Health",
    "psychiatry": "Mental Health",
    "psychology": "Mental Health",
    "counselling": "Mental Health",
    "counseling": "Mental Health",
    "depression": "Mental Health",
    "pregnancy": "Obstetrics and Gynaecology",
    "gynecology": "Obstetrics and Gynaecology",
    "obstetrics": "Obstetrics and Gynaecology",
    "pediatrics": "Paediatrics",
    "children": "Paediatrics",
    "child": "Paediatrics",
    "vaccine": "Vaccination Clinic",
    "vaccination": "Vaccination Clinic",
    "flu shot": "Vaccination Clinic",
    "immunization": "Vaccination Clinic",
    "blood test": "Phlebotomy (Blood Tests)",
    "blood draw": "Phlebotomy (Blood Tests)",
    "lab": "Phlebotomy (Blood Tests)",
}


GENERIC_PHRASES = frozenset({"doctor", "physical", "lab"})


class BookingRefused(Exception):
    """An expected refusal: `kind` is not_allowed | not_found | conflict | bad_argument."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


# --- finding slots ---------------------------------------------------------------------------


class DepartmentMatch(NamedTuple):
    """A department a request matched, and how well. (Named tuples: `find_slots` builds one per
    department of a specialty on every call, and a frozen dataclass costs ten times as much.)"""

    id: str
    name: str
    organization_id: str | None
    organization_name: str | None
    score: float
    affinity: int


class DepartmentRow(NamedTuple):
    """A department with its organisation's name and the patient's affinity to it."""

    id: str
    name: str
    specialty: str
    organization_id: str | None
    organization_name: str | None
    affinity: int


# The patient's organisations and how much they count (visits capped at 50; their own GP's
# and managing organisation +100 each), computed in SQL so that `departments_with_affinity`
# is one round trip. Every part filters on the bound patient first.
_AFFINITY_SQL = """
    SELECT org_id, sum(weight) AS weight FROM (
        SELECT e.organization_id AS org_id, least(count(*), 50) AS weight
          FROM encounters e
         WHERE e.patient_id = :p AND e.organization_id IS NOT NULL
         GROUP BY e.organization_id
        UNION ALL
        SELECT unnest(ARRAY[p.managing_organization_id, pr.organization_id]) AS org_id, 100 AS weight
          FROM patients p LEFT JOIN practitioners pr ON pr.id = p.general_practitioner_id
         WHERE p.patient_id = :p
    ) parts
    WHERE org_id IS NOT NULL
    GROUP BY org_id
"""
# a psycopg statement (`%(p)s`), run on the driver's cursor: see `departments_with_affinity`
_DEPARTMENTS_SQL = f"""
    WITH affinity AS ({_AFFINITY_SQL.replace(":p", "%(p)s")})
    SELECT d.id, d.name, d.specialty, d.organization_id, o.name AS organization_name,
           COALESCE(a.weight, 0)::int AS affinity
      FROM departments d
      LEFT JOIN organizations o ON o.id = d.organization_id
      LEFT JOIN affinity a ON a.org_id = d.organization_id
     ORDER BY d.id
    """


def departments_with_affinity(
    conn: Connection, *, patient_id: str
) -> tuple[list[DepartmentRow], dict[str, int]]:
    """Every department (with its organisation's name) and the patient's organisation affinity,
    in one round trip: what `find_slots` needs before it can choose where to look.

    Read on the psycopg cursor under `conn` (same transaction), as plain tuples: every call
    reads every department (~130 rows), and SQLAlchemy's result, fetching and wrapping them
    row by row, cost about twice the client CPU of the rest of the read."""
    with conn.connection.driver_connection.cursor() as cur:
        rows = list(map(DepartmentRow._make, cur.execute(_DEPARTMENTS_SQL, {"p": patient_id}).fetchall()))
    affinity = {r.organization_id: r.affinity for r in rows if r.organization_id and r.affinity}
    return rows, affinity


def _tokens(text: str) -> list[str]:
    return [t for t in re.split(r"[^\w]+", normalise_text(text)) if t]


@functools.lru_cache(maxsize=512)
def _specialty_parts(specialty: str) -> tuple[str, ...]:
    """The words of a specialty's name a request's word may match (few names, asked every call)."""
    return tuple(part for part in _tokens(specialty) if len(part) >= 4 and part not in STOPWORDS)


def resolve_specialties(query: str, specialties: list[str]) -> tuple[set[str], list[str]]:
    """The specialties a request names (everyday words and typos allowed) and its other words.

    Words are compared one by one (`cardiolgy` ≈ `cardiology`), never by substring over the
    whole name, so `cardiology` does not drift to `endocrinology`."""
    wanted = " ".join(_tokens(query))
    known = set(specialties)
    targets: set[str] = set()
    generic: set[str] = set()
    consumed: set[str] = set()
    for phrase, specialty in SPECIALTY_SYNONYMS.items():
        if f" {phrase} " in f" {wanted} " and specialty in known:
            (generic if phrase in GENERIC_PHRASES else targets).add(specialty)
            consumed.update(_tokens(phrase))
    if not targets:  # "heart doctor" is cardiology; "a doctor" alone is general practice
        targets = generic
    leftover: list[str] = []
    for word in _tokens(query):
        if word in consumed or word in STOPWORDS:
            continue
        hit = False
        for specialty in specialties if len(word) >= 4 else ():
            for part in _specialty_parts(specialty):
                if fuzz.ratio(word, part) >= MATCH_THRESHOLD or (len(word) >= 5 and part.startswith(word)):
                    targets.add(specialty)
                    hit = True
        if not hit:
            leftover.append(word)
    return targets, leftover


def match_departments(
    departments: list[DepartmentRow], targets: set[str], leftover: list[str], affinity: dict[str, int]
) -> list[DepartmentMatch]:
    """Departments of the target specialties, narrowed to the clinics the other words name
    ("GP in Sebastopol") when any matches; without a specialty, clinic names alone decide.
    Ties go to the patient's own organisations."""
    words = " ".join(leftover)
    scored: list[tuple[DepartmentRow, float]] = []
    for r in departments:
        place = (
            fuzz.token_set_ratio(words, normalise_text(f"{r.name} {r.organization_name or ''}"))
            if words
            else 0.0
        )
        if r.specialty in targets:
            scored.append((r, 100.0 + place))
        elif words and place >= PLACE_THRESHOLD:
            scored.append((r, place))
    if targets and words and any(score >= 100.0 + PLACE_THRESHOLD for _, score in scored):
        scored = [(r, score) for r, score in scored if score >= 100.0 + PLACE_THRESHOLD]
    matches = [
        DepartmentMatch(
            id=r.id,
            name=r.name,
            organization_id=r.organization_id,
            organization_name=r.organization_name,
            score=score,
            affinity=affinity.get(r.organization_id or "", 0),
        )
        for r, score in scored
    ]
    matches.sort(key=lambda m: (-m.score, -m.affinity, m.organization_name or "", m.id))
    return matches


# The free slots and who/where (the department and organisation names come from the
# `departments_with_affinity` rows the caller chose them from, read earlier in the same
# transaction). Every relation in it costs planning time, and the statement is planned afresh on
# most calls (psycopg prepares a statement only on its fifth use on a connection, and forgets all
# of them at every ROLLBACK on it), so it joins only what the departments' rows do not already
# say. A psycopg statement (`%(name)s`), run on the driver's cursor (`free_slots` says why).
_FREE_SLOTS_SQL = """
    WITH free AS (
        SELECT s.id, s.department_id, s.practitioner_id, s.location_id, s.starts_at, s.ends_at,
               count(*) OVER () AS total_count
          FROM appointment_slots s
         WHERE s.department_id = ANY(CAST(%(departments)s AS text[]))
           AND s.booked_appointment_id IS NULL
           AND s.starts_at >= %(starts_from)s AND s.starts_at < %(starts_before)s
           AND (CAST(%(clinician)s AS text) IS NULL OR s.practitioner_id IN (
               SELECT pr.id FROM practitioners pr
                WHERE regexp_replace(lower(pr.full_name), '^dr[.]? ', '') = regexp_replace(lower(CAST(%(clinician)s AS text)), '^dr[.]? ', '')))
           AND NOT EXISTS (
               SELECT 1 FROM appointments a JOIN appointment_slots mine ON mine.id = a.slot_id
                WHERE a.patient_id = %(p)s AND a.status = 'booked'
                  AND mine.starts_at < s.ends_at AND mine.ends_at > s.starts_at)
         ORDER BY s.starts_at, s.id
         LIMIT %(limit)s
    ), offered AS (
        INSERT INTO offered_slots (patient_id, conversation_id, slot_id)
        SELECT %(p)s, CAST(%(conversation)s AS text), free.id FROM free WHERE CAST(%(conversation)s AS text) IS NOT NULL
        ON CONFLICT DO NOTHING
    )
    SELECT free.id, free.department_id, free.practitioner_id, free.location_id, free.starts_at,
           free.ends_at, free.total_count, pr.full_name AS practitioner_name,
           l.name AS location_name, l.address AS location_address, l.city AS location_city
      FROM free
      LEFT JOIN practitioners pr ON pr.id = free.practitioner_id
      LEFT JOIN locations l ON l.id = free.location_id
     ORDER BY free.starts_at, free.id
    """


class FreeSlot(NamedTuple):
    """A free slot as `find_slots` shows it: when, and who and where."""

    id: str
    department_id: str
    practitioner_id: str | None
    location_id: str | None
    starts_at: dt.datetime
    ends_at: dt.datetime
    department_name: str
    organization_name: str | None
    practitioner_name: str | None
    location_name: str | None
    location_address: str | None
    location_city: str | None


def free_slots(
    conn: Connection,
    *,
    patient_id: str,
    departments: list[DepartmentMatch],
    starts_from: dt.datetime,
    starts_before: dt.datetime,
    limit: int,
    offer_in_conversation: str | None = None,
    clinician: str | None = None,
) -> Page[FreeSlot]:
    """Free future slots of the given departments, earliest first, with who and where (only
    `clinician`'s, by their full name, when given).

    `patient_id` is not a filter on the slots (they are shared reference data) but leaves
    out times at which this patient already has a booked appointment. With
    `offer_in_conversation`, the slots returned are recorded as offered in that conversation
    in the same statement (what `book_appointment` later accepts), so showing and recording
    cannot disagree. One fixed statement text (a list of `IN` parameters made a new plan on
    every call), read on the psycopg cursor under `conn` (same transaction) as plain tuples:
    SQLAlchemy's result machinery cost as much client CPU as the rest of the read.
    """
    by_id = {d.id: d for d in departments}
    params = {
        "p": patient_id,
        "departments": list(by_id),
        "starts_from": starts_from,
        "starts_before": starts_before,
        "limit": limit,
        "conversation": offer_in_conversation,
        "clinician": clinician,
    }
    with conn.connection.driver_connection.cursor() as cur:
        rows = cur.execute(_FREE_SLOTS_SQL, params).fetchall()
    # each row: the slot's six columns, total_count, then who and where (FreeSlot's order
    # around the department's two names)
    items = [FreeSlot(*r[:6], by_id[r[1]].name, by_id[r[1]].organization_name, *r[7:]) for r in rows]
    return Page(items=items, total=int(rows[0][6]) if rows else 0)  # total_count


def was_offered(conn: Connection, *, patient_id: str, conversation_id: str, slot_id: str) -> bool:
    o = OfferedSlot.__table__
    return (
        conn.execute(
            select(o.c.slot_id).where(
                o.c.patient_id == patient_id, o.c.conversation_id == conversation_id, o.c.slot_id == slot_id
            )
        ).first()
        is not None
    )


# --- booking ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Booking:
    appointment_id: str
    replayed: bool  # this same request made the booking before
    already_held: bool = False  # another request of this patient holds the slot already


def appointment_id_for(patient_id: str, idempotency_key: str) -> str:
    """Deterministic: a replay computes the same id."""
    return "appt-" + hashlib.sha256(f"{patient_id}|{idempotency_key}".encode()).hexdigest()[:20]


def book_slot(
    conn: Connection,
    *,
    patient_id: str,
    conversation_id: str,
    slot_id: str,
    reason: str | None,
    idempotency_key: str,
    booked_by: str,
    now: dt.datetime,
) -> Booking:
    """Book `slot_id` for the patient or raise `BookingRefused` (the caller rolls back)."""
    s, a = AppointmentSlot.__table__, Appointment.__table__
    # 1. queue behind anyone else deciding about this slot (RLS hides slots other patients hold)
    locked = conn.execute(select(s).where(s.c.id == slot_id).with_for_update()).first()
    # 2. a replay of a booking already made returns it
    existing = conn.execute(
        select(a.c.id, a.c.status).where(a.c.patient_id == patient_id, a.c.idempotency_key == idempotency_key)
    ).first()
    if existing is not None:
        if existing.status != "booked":  # a replay must not report a booking that no longer stands
            raise BookingRefused(
                "conflict",
                f"This same request already booked appointment {existing.id}, and it has been "
                f"{existing.status} since; nothing was booked now. To book again, call find_slots "
                "and book in a new request.",
            )
        return Booking(appointment_id=existing.id, replayed=True)
    # 3. only slots offered in this conversation
    if not was_offered(conn, patient_id=patient_id, conversation_id=conversation_id, slot_id=slot_id):
        raise BookingRefused(
            "not_allowed",
            f"Slot {slot_id} was not offered in this conversation. Call find_slots and book one of "
            "the slots it returns.",
        )
    slot = locked or conn.execute(select(s).where(s.c.id == slot_id)).first()
    if slot is None:
        raise BookingRefused("not_found", f"There is no slot {slot_id}. Call find_slots for current slots.")
    if slot.starts_at <= now:
        raise BookingRefused(
            "not_allowed", f"Slot {slot_id} is in the past. Call find_slots for a future time."
        )
    if slot.booked_appointment_id is not None and locked is not None:
        # row-level security shows a booked slot only to its holder: this patient has it
        # already, and booking it again is the same state (the tool is idempotent)
        return Booking(appointment_id=slot.booked_appointment_id, replayed=False, already_held=True)
    if locked is None or slot.booked_appointment_id is not None:
        raise BookingRefused(
            "conflict",
            f"Slot {slot_id} was just taken by someone else. Call find_slots again for free slots.",
        )
    clash = conn.execute(
        select(a.c.id)
        .select_from(a.join(s, s.c.id == a.c.slot_id))
        .where(
            a.c.patient_id == patient_id,
            a.c.status == "booked",
            s.c.starts_at < slot.ends_at,
            s.c.ends_at > slot.starts_at,
        )
    ).first()
    if clash is not None:
        raise BookingRefused(
            "conflict",
            f"The patient already has appointment {clash.id} at that time. Offer another slot or "
            "cancel that appointment first.",
        )
    appointment_id = appointment_id_for(patient_id, idempotency_key)
    try:
        conn.execute(
            insert(a).values(
                patient_id=patient_id,
                id=appointment_id,
                slot_id=slot_id,
                status="booked",
                reason=reason,
                idempotency_key=idempotency_key,
                conversation_id=conversation_id,
                booked_by=booked_by,
            )
        )
        claimed = conn.execute(
            update(s)
            .where(s.c.id == slot_id, s.c.booked_appointment_id.is_(None))
            # the slot names its patient too: the slot guard policy compares it (migration 0009)
            .values(booked_appointment_id=appointment_id, booked_patient_id=patient_id)
        ).rowcount
    except IntegrityError as exc:  # the constraints caught a race the lock did not
        raise BookingRefused(
            "conflict", f"Slot {slot_id} was just taken. Call find_slots again for free slots."
        ) from exc
    if claimed != 1:
        raise BookingRefused(
            "conflict", f"Slot {slot_id} was just taken. Call find_slots again for free slots."
        )
    return Booking(appointment_id=appointment_id, replayed=False)


# --- the patient's appointments --------------------------------------------------------------


def _appointments_select(patient_id: str) -> Any:
    a, s, d, org, pr, loc = (
        Appointment.__table__,
        AppointmentSlot.__table__,
        Department.__table__,
        Organization.__table__,
        Practitioner.__table__,
        Location.__table__,
    )
    return (
        select(
            a,
            s.c.starts_at,
            s.c.ends_at,
            d.c.name.label("department_name"),
            org.c.name.label("organization_name"),
            pr.c.full_name.label("practitioner_name"),
            loc.c.name.label("location_name"),
            loc.c.address.label("location_address"),
            loc.c.city.label("location_city"),
        )
        .select_from(
            a.join(s, s.c.id == a.c.slot_id)
            .join(d, d.c.id == s.c.department_id)
            .outerjoin(org, org.c.id == d.c.organization_id)
            .outerjoin(pr, pr.c.id == s.c.practitioner_id)
            .outerjoin(loc, loc.c.id == s.c.location_id)
        )
        .where(a.c.patient_id == patient_id)
    )


def get_appointment(conn: Connection, *, patient_id: str, appointment_id: str) -> Row[Any] | None:
    a = Appointment.__table__
    return conn.execute(_appointments_select(patient_id).where(a.c.id == appointment_id)).first()


def list_appointments(
    conn: Connection,
    *,
    patient_id: str,
    now: dt.datetime,
    include_past: bool,
    include_cancelled: bool,
    limit: int,
) -> Page[Row[Any]]:
    """Upcoming first (soonest first), then past ones (most recent first)."""
    a, s = Appointment.__table__, AppointmentSlot.__table__
    stmt = _appointments_select(patient_id).add_columns(total_over())
    if not include_past:
        stmt = stmt.where(s.c.starts_at >= now)
    if not include_cancelled:
        stmt = stmt.where(a.c.status == "booked")
    upcoming = s.c.starts_at >= now
    stmt = stmt.order_by(
        upcoming.desc(),
        func.abs(func.extract("epoch", s.c.starts_at) - func.extract("epoch", now)),
        a.c.id,
    ).limit(limit)
    return page_from_rows(conn.execute(stmt).all())


@dataclass(frozen=True)
class Cancellation:
    appointment_id: str
    already_cancelled: bool


def cancel_appointment(
    conn: Connection, *, patient_id: str, appointment_id: str, now: dt.datetime
) -> Cancellation:
    """Cancel the patient's own future appointment and free its slot."""
    a, s = Appointment.__table__, AppointmentSlot.__table__
    row = conn.execute(
        select(a.c.id, a.c.status, a.c.slot_id, s.c.starts_at)
        .select_from(a.join(s, s.c.id == a.c.slot_id))
        .where(a.c.patient_id == patient_id, a.c.id == appointment_id)
        .with_for_update(of=a)
    ).first()
    if row is None:
        raise BookingRefused(
            "not_found",
            f"There is no appointment {appointment_id} in this patient's record. Call list_appointments "
            "to see their appointments.",
        )
    if row.status == "cancelled":
        return Cancellation(appointment_id=appointment_id, already_cancelled=True)
    if row.starts_at <= now:
        raise BookingRefused("not_allowed", f"Appointment {appointment_id} has already taken place.")
    conn.execute(
        update(a)
        .where(a.c.patient_id == patient_id, a.c.id == appointment_id)
        .values(status="cancelled", cancelled_at=now)
    )
    conn.execute(
        update(s)
        .where(and_(s.c.id == row.slot_id, s.c.booked_appointment_id == appointment_id))
        .values(booked_appointment_id=None, booked_patient_id=None)
    )
    return Cancellation(appointment_id=appointment_id, already_cancelled=False)
