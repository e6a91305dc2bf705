"""Appointment tools: find_slots, book_appointment, list_appointments, cancel_appointment.

The model can only book what it was shown: `find_slots` records every slot it shows in
`offered_slots` for this conversation, and `book_appointment` refuses any other. The
idempotency key comes from the scope's triggering message, so a retried or replayed turn
returns the booking it already made.
"""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

from pydantic import Field, model_validator

from records.queries import appointments
from records.queries.appointments import BookingRefused
from tools.registry import ToolContext, ToolError, ToolInput, Toolset
from tools.render import ResultBuilder, facts_of, fmt_date
from tools.results import ToolResult

DEFAULT_WINDOW_DAYS = 14
MAX_WINDOW_DAYS = 90


def _when(starts: dt.datetime, ends: dt.datetime) -> tuple[str, list[str]]:
    s, e = starts.astimezone(dt.UTC), ends.astimezone(dt.UTC)
    day, t0, t1 = s.date().isoformat(), s.strftime("%H:%M"), e.strftime("%H:%M")
    return f"{s.strftime('%a')} {day} {t0}–{t1} UTC", [day, t0, t1]


def _place(row: Any) -> tuple[str, list[str]]:
    parts = [row.department_name]
    if row.organization_name:
        parts.append(row.organization_name)
    text = ", ".join(parts)
    if row.practitioner_name:
        text += f", with {row.practitioner_name}"
    where = ", ".join(v for v in (row.location_address, row.location_city) if v)
    if where:
        text += f" ({where})"
    return text, facts_of(row.department_name, row.organization_name, row.practitioner_name)


def _resolve(ctx: ToolContext, value: str, kind: str) -> str:
    """Accept a record id or a handle this question already handed out (e.g. S2)."""
    citation = ctx.handles.get(value)
    if citation is not None and citation.kind == kind:
        return citation.record_id
    return value


# --- find_slots ------------------------------------------------------------------------------


class FindSlotsInput(ToolInput):
    specialty_or_department: str = Field(
        min_length=2,
        max_length=100,
        description="What kind of appointment: a specialty or department ('general practice', "
        "'cardiology', 'blood test', 'check-up'), optionally with a clinic's name.",
    )
    from_date: dt.date | None = Field(default=None, description="Earliest day; default today.")
    to_date: dt.date | None = Field(
        default=None, description="Latest day, inclusive; default from_date + 14 days."
    )
    limit: int = Field(default=8, ge=1, le=20)
    clinician: str | None = Field(
        default=None,
        min_length=2,
        max_length=100,
        description="Only this clinician's slots, by the name a visit gave (e.g. 'the same doctor as last time').",
    )

    @model_validator(mode="after")
    def _window(self) -> FindSlotsInput:
        if self.from_date and self.to_date:
            if self.to_date < self.from_date:
                raise ValueError(f"to_date ({self.to_date}) is before from_date ({self.from_date})")
            if (self.to_date - self.from_date).days > MAX_WINDOW_DAYS:
                raise ValueError(f"the date range may span at most {MAX_WINDOW_DAYS} days")
        return self


TOOLS = Toolset()  # this module's tools: the one registration style (tools.registry.Toolset)


@TOOLS.tool("find_slots", section="appointments", status_text="Looking for free appointment slots…")
def find_slots(ctx: ToolContext, args: FindSlotsInput) -> ToolResult:
    """Free appointment slots for a specialty or department (typos and words like 'heart
    doctor' work), earliest first, the patient's own clinics first. Only slots returned here
    can be booked: pass slot_id to book_appointment once the user has chosen."""
    conn, pid, now = ctx.connection, ctx.scope.patient_id, ctx.clock()
    first_day = args.from_date or now.date()
    last_day = args.to_date or first_day + dt.timedelta(days=DEFAULT_WINDOW_DAYS)
    starts_from = max(now, dt.datetime.combine(first_day, dt.time.min, tzinfo=dt.UTC))
    starts_before = dt.datetime.combine(last_day + dt.timedelta(days=1), dt.time.min, tzinfo=dt.UTC)
    departments, affinity = appointments.departments_with_affinity(conn, patient_id=pid)
    specialties = sorted({d.specialty for d in departments})
    if not specialties:
        return ToolResult.failure(
            "not_found",
            "No appointment schedule is loaded, so nothing can be booked. Tell the user to call the clinic.",
        )
    targets, leftover = appointments.resolve_specialties(args.specialty_or_department, specialties)
    if targets:
        departments = [d for d in departments if d.specialty in targets]
    matches = appointments.match_departments(departments, targets, leftover, affinity)
    if not matches:
        return ToolResult.failure(
            "not_found",
            f"No department matches '{args.specialty_or_department}'. Departments: {', '.join(specialties)}. "
            "Call find_slots again with one of these.",
        )
    # one clinician's slots are searched in every matching department at once (their own, wherever
    # it is); otherwise the patient's own clinics first, if they have room
    groups = [matches] if args.clinician else appointments.choose_departments(matches)
    for chosen in groups:
        page = appointments.free_slots(
            conn,
            patient_id=pid,
            departments=chosen,
            starts_from=starts_from,
            starts_before=starts_before,
            limit=args.limit,
            offer_in_conversation=ctx.scope.conversation_id,  # recorded in the same statement
            clinician=args.clinician,
        )
        if page.items:
            break
    out = ResultBuilder(ctx)
    for r in page.items:
        when, when_facts = _when(r.starts_at, r.ends_at)
        place, place_facts = _place(r)
        out.add(
            "slot",
            r.id,
            f"{when} — {place} · slot_id {r.id}",
            label=f"{r.department_name} {when}",
            facts=when_facts + place_facts,
            fields={
                "slot_id": r.id,
                "starts_at": r.starts_at,
                "ends_at": r.ends_at,
                "department": r.department_name,
                "organization": r.organization_name,
                "practitioner": r.practitioner_name,
                "location": r.location_name,
                "address": ", ".join(v for v in (r.location_address, r.location_city) if v) or None,
            },
        )
    names = ", ".join(sorted({f"{m.name} ({m.organization_name})" for m in chosen}))
    if args.clinician:  # the departments their slots are in (else every one searched), and who
        found = sorted({f"{r.department_name} ({r.organization_name})" for r in page.items})
        names = f"{', '.join(found) or names} with {args.clinician}"
    window = f"{first_day.isoformat()} to {last_day.isoformat()}"
    return out.build(
        title=f"Free slots in {names}, {window}, earliest first",
        total=page.total,
        empty=f"No free slots in {names} from {window}. Call find_slots with a later date range"
        + (" or without the clinician." if args.clinician else "."),
        narrow_hint="choose a later from_date",
        notes=["Ask the user which one they want before calling book_appointment with its slot_id."]
        if page.items
        else [],
    )


# --- book_appointment ------------------------------------------------------------------------


class BookInput(ToolInput):
    slot_id: str = Field(
        min_length=1,
        max_length=80,
        description="The slot_id of a slot find_slots returned in this conversation.",
    )
    reason: str | None = Field(
        default=None, max_length=300, description="Why the appointment is needed, in brief."
    )


def _describe_appointment(ctx: ToolContext, row: Any, verb: str) -> ToolResult:
    when, when_facts = _when(row.starts_at, row.ends_at)
    place, place_facts = _place(row)
    out = ResultBuilder(ctx)
    out.add(
        "appointment",
        row.id,
        f"{verb}: {when} — {place} · appointment_id {row.id}"
        + (f"; reason: {row.reason}" if row.reason else "")
        + ("" if row.status == "booked" else f" [{row.status}]"),
        label=f"{row.department_name} {when}",
        facts=when_facts + place_facts + facts_of(row.reason, row.status),
        fields={
            "appointment_id": row.id,
            "slot_id": row.slot_id,
            "status": row.status,
            "starts_at": row.starts_at,
            "ends_at": row.ends_at,
            "department": row.department_name,
            "organization": row.organization_name,
            "practitioner": row.practitioner_name,
            "reason": row.reason,
        },
    )
    return out.build(title="Appointment", total=1, empty="")


@TOOLS.tool("book_appointment", section="appointments", writes=True, status_text="Booking your appointment…")
def book_appointment(ctx: ToolContext, args: BookInput) -> ToolResult:
    """Book one slot that find_slots offered in this conversation, after the user chose it.
    If the slot was just taken, call find_slots again and let the user choose another."""
    scope = ctx.scope
    slot_id = _resolve(ctx, args.slot_id, "slot")
    key = (
        f"msg:{scope.message_id}:slot:{slot_id}"
        if scope.message_id
        else f"once:{scope.conversation_id}:{uuid.uuid4().hex}"
    )
    try:
        booking = appointments.book_slot(
            ctx.connection,
            patient_id=scope.patient_id,
            conversation_id=scope.conversation_id,
            slot_id=slot_id,
            reason=args.reason,
            idempotency_key=key,
            booked_by=scope.actor,
            now=ctx.write_clock(),
        )
    except BookingRefused as exc:
        raise ToolError(exc.kind, exc.message) from exc
    row = appointments.get_appointment(
        ctx.connection, patient_id=scope.patient_id, appointment_id=booking.appointment_id
    )
    verb = (
        "Already booked by this same request"
        if booking.replayed
        else "Already booked (this patient holds the slot; nothing new was booked)"
        if booking.already_held
        else "Booked"
    )
    return _describe_appointment(ctx, row, verb)


# --- list_appointments -----------------------------------------------------------------------


class ListAppointmentsInput(ToolInput):
    include_past: bool = False
    include_cancelled: bool = False


@TOOLS.tool("list_appointments", section="appointments", status_text="Looking up your appointments…")
def list_appointments(ctx: ToolContext, args: ListAppointmentsInput) -> ToolResult:
    """Appointments booked here, upcoming first (soonest first), with department, clinic,
    clinician and appointment_id (needed to cancel)."""
    now = ctx.clock()
    page = appointments.list_appointments(
        ctx.connection,
        patient_id=ctx.scope.patient_id,
        now=now,
        include_past=args.include_past,
        include_cancelled=args.include_cancelled,
        limit=20,
    )
    out = ResultBuilder(ctx)
    for row in page.items:
        when, when_facts = _when(row.starts_at, row.ends_at)
        place, place_facts = _place(row)
        state = row.status if row.starts_at >= now else f"{row.status}, past"
        out.add(
            "appointment",
            row.id,
            f"{when} — {place} [{state}] · appointment_id {row.id}"
            + (f"; reason: {row.reason}" if row.reason else ""),
            label=f"{row.department_name} {when}",
            facts=when_facts + place_facts + facts_of(row.reason, row.status),
            fields={
                "appointment_id": row.id,
                "status": row.status,
                "starts_at": row.starts_at,
                "ends_at": row.ends_at,
                "department": row.department_name,
                "organization": row.organization_name,
                "practitioner": row.practitioner_name,
                "reason": row.reason,
                "cancelled_at": fmt_date(row.cancelled_at),
            },
        )
    which = "upcoming appointments" if not args.include_past else "appointments"
    return out.build(
        title=which.capitalize(),
        total=page.total,
        empty=f"No {which} are booked for this patient.",
    )


# --- cancel_appointment ----------------------------------------------------------------------


class CancelInput(ToolInput):
    appointment_id: str = Field(
        min_length=1,
        max_length=80,
        description="The appointment_id from list_appointments or book_appointment.",
    )


@TOOLS.tool(
    "cancel_appointment", section="appointments", writes=True, status_text="Cancelling your appointment…"
)
def cancel_appointment(ctx: ToolContext, args: CancelInput) -> ToolResult:
    """Cancel one of the patient's own upcoming appointments (after the user confirmed) and
    free its slot for others."""
    pid = ctx.scope.patient_id
    appointment_id = _resolve(ctx, args.appointment_id, "appointment")
    try:
        done = appointments.cancel_appointment(
            ctx.connection, patient_id=pid, appointment_id=appointment_id, now=ctx.write_clock()
        )
    except BookingRefused as exc:
        raise ToolError(exc.kind, exc.message) from exc
    row = appointments.get_appointment(ctx.connection, patient_id=pid, appointment_id=done.appointment_id)
    return _describe_appointment(ctx, row, "Was already cancelled" if done.already_cancelled else "Cancelled")
