"""The read-only record tools: profile, conditions, medications, labs, allergies, encounters,
immunizations, procedures and care plans.

Each tool is a thin adapter: validate the typed input, call the patient-scoped query in
`records.queries` (which owns the clinical semantics), and render cited lines. The patient
comes from `ctx.scope`, never from the arguments.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from pydantic import Field, model_validator

from records.queries import (
    allergies,
    care_plans,
    conditions,
    encounters,
    immunizations,
    medications,
    observations,
    procedures,
    profile,
)
from records.queries.vocabulary import BP_PANEL_CODES, resolve_lab_query
from tools.registry import ToolContext, ToolInput, Toolset
from tools.render import ResultBuilder, facts_of, fmt_date, fmt_num
from tools.results import ToolResult

MAX_COMPONENTS_SHOWN = 6


def _between(since: object, until: object) -> str:
    return f" between {since or 'the start'} and {until or 'now'}" if since or until else ""


def _quoted(query: str | None) -> str:
    return f" matching '{query}'" if query else ""


TEST_QUERY = "Test name, LOINC code or abbreviation, e.g. A1C, LDL, BP, weight."
SINCE_FIELD = Field(default=None, description="On or after this day.")
UNTIL_FIELD = Field(default=None, description="On or before this day.")


class DateWindow(ToolInput):
    """Inputs with `since`/`until` (declared by each subclass, so they come after its query)."""

    @model_validator(mode="after")
    def _ordered(self) -> DateWindow:
        since, until = getattr(self, "since", None), getattr(self, "until", None)
        if since and until and since > until:
            raise ValueError(f"since ({since}) is after until ({until}); swap them")
        return self


# --- profile ---------------------------------------------------------------------------------


class ProfileInput(ToolInput):
    pass


TOOLS = Toolset()  # this module's tools: the one registration style (tools.registry.Toolset)


@TOOLS.tool("get_patient_profile", section="profile", status_text="Looking up your details…")
def get_patient_profile(ctx: ToolContext, args: ProfileInput) -> ToolResult:
    """Who the patient is: name, sex, birth date, age, living or deceased, address, language,
    GP and organisation, and how many rows each section of the record holds."""
    conn, pid, now = ctx.connection, ctx.scope.patient_id, ctx.clock()
    p = profile.get_profile(conn, patient_id=pid)
    if p is None:
        return ToolResult(text="No patient record was found for this session.", total=0)
    counts = profile.section_counts(conn, patient_id=pid, now=now)
    birth = fmt_date(p.birth_date)
    died = fmt_date(p.deceased_at)
    age = profile.age_on(p.birth_date, p.deceased_at.date() if p.deceased_at else now.date())
    age_text = "" if age is None else (f", died aged {age}" if p.deceased else f", age {age}")
    vital = f"deceased ({died})" if p.deceased and died else ("deceased" if p.deceased else "living")
    address = ", ".join(v for v in (p.address, p.city, p.state, p.postal_code) if v)
    lines = [
        f"{p.full_name} — {p.gender or 'sex not recorded'}, born {birth or 'unknown'}{age_text}; {vital}.",
        f"Address: {address or 'not recorded'}. Language: {p.language or 'not recorded'}."
        f" Marital status: {p.marital_status or 'not recorded'}.",
        f"General practitioner: {p.gp_name or 'not recorded'}"
        + (f" ({p.organization_name})" if p.organization_name else "")
        + ".",
        "The record holds: "
        f"{counts['active_conditions']} active of {counts['conditions']} conditions, "
        f"{counts['active_medications']} active of {counts['medications']} prescriptions, "
        f"{counts['observations']} results and measurements, {counts['allergies']} allergies, "
        f"{counts['encounters']} encounters, {counts['immunizations']} immunizations, "
        f"{counts['procedures']} procedures, {counts['care_plans']} care plans.",
    ]
    out = ResultBuilder(ctx)
    out.add(
        "patient",
        p.patient_id,
        " ".join(lines),
        label=p.full_name,
        facts=facts_of(p.full_name, birth, age, p.gender, died, p.gp_name, p.organization_name, p.language)
        + [str(v) for v in counts.values()],
        fields={
            "name": p.full_name,
            "gender": p.gender,
            "birth_date": p.birth_date,
            "age": age,
            "deceased": p.deceased,
            "deceased_at": p.deceased_at,
            "address": address or None,
            "language": p.language,
            "marital_status": p.marital_status,
            "general_practitioner": p.gp_name,
            "organization": p.organization_name,
            "counts": counts,
        },
    )
    return out.build(title="Patient profile", total=1, empty="")


# --- conditions ------------------------------------------------------------------------------


class ConditionsInput(DateWindow):
    status: Literal["active", "resolved", "all"] = Field(
        default="active", description="active = current, not resolved."
    )
    query: str | None = Field(
        default=None, max_length=200, description="Words or SNOMED code, e.g. 'diabetes', 'HTN'."
    )
    since: dt.date | None = Field(default=None, description="Onset on or after this day.")
    until: dt.date | None = Field(default=None, description="Onset on or before this day.")


@TOOLS.tool("get_conditions", section="conditions", status_text="Looking up your conditions…")
def get_conditions(ctx: ToolContext, args: ConditionsInput) -> ToolResult:
    """Conditions (diagnoses, problems) with onset and resolution dates; query finds one
    condition (abbreviations such as HTN, COPD, T2DM work)."""
    page = conditions.list_conditions(
        ctx.connection,
        patient_id=ctx.scope.patient_id,
        status=args.status,
        query=args.query,
        now=ctx.clock(),
        onset_since=args.since,
        onset_until=args.until,
    )
    out = ResultBuilder(ctx)
    for c in page.items:
        onset, abated = fmt_date(c.onset), fmt_date(c.abatement)
        if c.is_active:
            state = f"active since {onset}" if onset else "active"
        elif c.verification_status == "refuted":
            state = "refuted (ruled out)"
        else:
            state = f"{c.clinical_status or 'not active'}"
            state += f", {onset or '?'} → {abated}" if abated else (f", onset {onset}" if onset else "")
        name = c.display or "(unnamed condition)"
        out.add(
            "condition",
            c.id,
            f"{name} — {state}",
            label=name,
            facts=facts_of(name, onset, abated, c.clinical_status, c.code),
            fields={
                "name": name,
                "code": c.code,
                "clinical_status": c.clinical_status,
                "active": c.is_active,
                "onset": c.onset,
                "abatement": c.abatement,
            },
        )
    which = {"active": "Active conditions", "resolved": "Resolved conditions", "all": "Conditions"}[
        args.status
    ]
    onset = (
        f" with onset between {args.since or 'the start'} and {args.until or 'now'}"
        if args.since or args.until
        else ""
    )
    return out.build(
        title=f"{which}{_quoted(args.query)}{onset}",
        total=page.total,
        empty=f"No {which.lower()}{_quoted(args.query)}{onset} in the record.",
        narrow_hint="add a query",
    )


# --- medications -----------------------------------------------------------------------------


class MedicationsInput(ToolInput):
    status: Literal["active", "all"] = Field(
        default="active", description="active = prescribed and not ended; all adds stopped ones."
    )
    query: str | None = Field(
        default=None,
        max_length=200,
        description="Drug, brand, RxNorm code or what it is for, e.g. 'HCTZ'.",
    )


@TOOLS.tool("get_medications", section="medications", status_text="Looking up your medications…")
def get_medications(ctx: ToolContext, args: MedicationsInput) -> ToolResult:
    """Prescriptions with status, dates, dosage and reason; query checks for one drug
    (generic or brand name)."""
    conn, pid, now = ctx.connection, ctx.scope.patient_id, ctx.clock()
    page = medications.list_medications(conn, patient_id=pid, status=args.status, query=args.query, now=now)
    out = ResultBuilder(ctx)
    for m in page.items:
        name = m.display or "(unnamed medication)"
        start, end = fmt_date(m.authored_on), fmt_date(m.ended_at)
        if m.is_active:
            state = f"active, prescribed {start}" if start else "active"
        else:
            state = f"{m.status or 'status unknown'}, prescribed {start or '?'}" + (
                f", ended {end}" if end else ""
            )
        extras = []
        # Synthea's instruction texts end in a newline; a cited line must stay one line
        dosage = " ".join(m.dosage_text.split()) if m.dosage_text else None
        if m.reason_display:
            extras.append(f"for {m.reason_display}")
        if dosage:
            extras.append(f"dosage: {dosage}")
        if m.as_needed:
            extras.append("as needed")
        if m.requester_name:
            extras.append(f"by {m.requester_name}")
        out.add(
            "medication",
            m.id,
            f"{name} — {state}" + (f"; {'; '.join(extras)}" if extras else ""),
            label=name,
            facts=facts_of(name, start, end, m.status, m.reason_display, dosage, m.code, m.requester_name),
            fields={
                "name": name,
                "code": m.code,
                "status": m.status,
                "active": m.is_active,
                "authored_on": m.authored_on,
                "ended_at": m.ended_at,
                "reason": m.reason_display,
                "dosage": m.dosage_text,
                "requester": m.requester_name,
            },
        )
    notes = []
    p = profile.get_profile(conn, patient_id=pid)
    if p is not None and p.deceased and page.items:
        notes.append(
            f"Note: the patient is recorded as deceased ({fmt_date(p.deceased_at) or 'date unknown'}); "
            "prescriptions still marked active were not closed in the record."
        )
    which = "Active medications" if args.status == "active" else "Medications (active and past)"
    return out.build(
        title=f"{which}{_quoted(args.query)}",
        total=page.total,
        empty=f"No {which.lower()}{_quoted(args.query)} in the record.",
        narrow_hint="add a query",
        notes=notes,
    )


# --- labs, vitals, surveys -------------------------------------------------------------------


class LabsInput(DateWindow):
    query: str | None = Field(
        default=None,
        max_length=200,
        description=TEST_QUERY,
    )
    category: Literal["lab", "vital", "survey", "all"] = "all"
    latest_only: bool = Field(default=False, description="Only each test's newest result.")
    since: dt.date | None = SINCE_FIELD
    until: dt.date | None = UNTIL_FIELD
    limit: int = Field(default=20, ge=1, le=100)


def _observation_value(o: observations.ObservationRow) -> tuple[str, list[str], dict[str, Any]]:
    """The value text of one observation, the facts it states and its structured value."""
    r = o.row
    unit = r.value_unit or ""
    if r.code in BP_PANEL_CODES or (o.component("8480-6") and o.component("8462-4")):
        systolic, diastolic = o.blood_pressure
        sys_t, dia_t = fmt_num(systolic) or "?", fmt_num(diastolic) or "?"
        bp_unit = next((c.value_unit for c in o.components if c.value_unit), "mm[Hg]")
        missing = " (a component is missing)" if "?" in (sys_t, dia_t) else ""
        return (
            f"{sys_t}/{dia_t} {bp_unit}{missing}",
            facts_of(sys_t, dia_t, f"{sys_t}/{dia_t}", bp_unit),
            {"systolic": systolic, "diastolic": diastolic, "unit": bp_unit},
        )
    if r.value_num is not None:
        value = fmt_num(r.value_num)
        text = f"{value} {unit}".strip()
        if r.ref_low is not None or r.ref_high is not None:
            text += f" (reference {fmt_num(r.ref_low) or '…'}–{fmt_num(r.ref_high) or '…'})"
        if r.interpretation:
            text += f" [{r.interpretation}]"
        return text, facts_of(value, unit), {"value": r.value_num, "unit": r.value_unit}
    if r.value_text or r.value_code:
        value = r.value_text or r.value_code
        return value, facts_of(value), {"value": value}
    if o.components:
        parts, facts, structured = [], [], []
        for c in o.components:
            value = fmt_num(c.value_num) if c.value_num is not None else (c.value_text or c.value_code)
            structured.append({"code": c.code, "name": c.display, "value": value, "unit": c.value_unit})
            if len(parts) < MAX_COMPONENTS_SHOWN:
                parts.append(f"{c.display or c.code}: {value} {c.value_unit or ''}".strip())
                facts += facts_of(value, c.value_unit)
        more = len(o.components) - len(parts)
        text = "; ".join(parts) + (f"; (+{more} more parts)" if more > 0 else "")
        return text, facts, {"components": structured}
    return "no value recorded", [], {}


@TOOLS.tool("get_labs", section="labs", status_text="Looking up your lab results…")
def get_labs(ctx: ToolContext, args: LabsInput) -> ToolResult:
    """Lab results, vital signs (BP, weight, BMI, heart rate, …) and survey scores, newest
    first (by when taken)."""
    page = observations.list_observations(
        ctx.connection,
        patient_id=ctx.scope.patient_id,
        query=args.query,
        category=args.category,
        latest_only=args.latest_only,
        since=args.since,
        until=args.until,
        now=ctx.clock(),
        limit=args.limit,
    )
    out = ResultBuilder(ctx)
    for o in page.items:
        r = o.row
        name = r.display or r.code or "(unnamed result)"
        value_text, value_facts, value = _observation_value(o)
        when = fmt_date(r.effective)
        status = f" [{r.status}]" if r.status and r.status not in ("final", "amended", "corrected") else ""
        out.add(
            "observation",
            r.id,
            f"{name} {value_text} ({when or 'date unknown'}){status}",
            label=name,
            facts=facts_of(name, *value_facts, when, r.code),
            fields={
                "name": name,
                "code": r.code,
                "category": r.category,
                "effective": r.effective,
                "status": r.status,
                **value,
            },
        )
    what = {"lab": "Lab results", "vital": "Vital signs", "survey": "Survey results", "all": "Results"}[
        args.category
    ]
    window = ""
    if args.since or args.until:
        window = f" between {args.since or 'the start'} and {args.until or 'now'}"
    order = ", newest of each test" if args.latest_only else ", newest first"
    title = ("Latest " + what.lower() if args.latest_only else what) + _quoted(args.query) + window + order
    hint = "add a query, since/until, or raise limit (up to 100)"
    notes = []
    if args.query and resolve_lab_query(args.query).empty:
        notes.append("The query had no test name in it; all results are listed.")
    return out.build(
        title=title,
        total=page.total,
        empty=f"No {what.lower()}{_quoted(args.query)}{window} in the record.",
        narrow_hint=hint,
        notes=notes,
    )


# --- allergies -------------------------------------------------------------------------------


class AllergiesInput(ToolInput):
    pass


@TOOLS.tool("get_allergies", section="allergies", status_text="Looking up your allergies…")
def get_allergies(ctx: ToolContext, args: AllergiesInput) -> ToolResult:
    """Allergies and intolerances: substance, category, criticality, status, reactions. Empty
    means none recorded, not none."""
    conn, pid = ctx.connection, ctx.scope.patient_id
    page = allergies.list_allergies(conn, patient_id=pid)
    reactions = allergies.reactions_of(conn, patient_id=pid, allergy_ids=[a.id for a in page.items])
    out = ResultBuilder(ctx)
    for a in page.items:
        name = a.display or "(unnamed substance)"
        kind = a.type or "allergy"
        cats = ", ".join(a.categories or [])
        bits = [f"{kind}" + (f" ({cats})" if cats else ""), a.clinical_status or "status not recorded"]
        if a.verification_status and a.verification_status not in ("confirmed",):
            bits.append(a.verification_status)
        if a.criticality:
            bits.append(f"criticality {a.criticality}")
        reacts = [
            (r.manifestation_display or "reaction") + (f" ({r.severity})" if r.severity else "")
            for r in reactions.get(a.id, [])
        ]
        if reacts:
            bits.append("reactions: " + ", ".join(reacts))
        recorded = fmt_date(a.recorded_date)
        if recorded:
            bits.append(f"recorded {recorded}")
        out.add(
            "allergy",
            a.id,
            f"{name} — " + "; ".join(bits),
            label=name,
            facts=facts_of(name, kind, a.clinical_status, a.criticality, recorded, *reacts),
            fields={
                "substance": name,
                "code": a.code,
                "type": a.type,
                "categories": list(a.categories or []),
                "clinical_status": a.clinical_status,
                "criticality": a.criticality,
                "reactions": reacts,
                "recorded": a.recorded_date,
            },
        )
    return out.build(
        title="Allergies and intolerances",
        total=page.total,
        empty="No allergies or intolerances are recorded in the record (that is not proof there are none).",
    )


# --- encounters ------------------------------------------------------------------------------


class EncountersInput(DateWindow):
    query: str | None = Field(
        default=None,
        max_length=200,
        description="Words in the type, reason, clinician or place, e.g. 'emergency'.",
    )
    since: dt.date | None = SINCE_FIELD
    until: dt.date | None = UNTIL_FIELD
    limit: int = Field(default=10, ge=1, le=100)


@TOOLS.tool("get_encounters", section="encounters", status_text="Looking up your visits…")
def get_encounters(ctx: ToolContext, args: EncountersInput) -> ToolResult:
    """Visits (encounters), newest first: date, type, class (ambulatory, emergency,
    inpatient, …), reason, clinician, organisation."""
    page = encounters.list_encounters(
        ctx.connection,
        patient_id=ctx.scope.patient_id,
        query=args.query,
        since=args.since,
        until=args.until,
        limit=args.limit,
    )
    out = ResultBuilder(ctx)
    for e in page.items:
        start, end = fmt_date(e.start), fmt_date(e.end)
        kind = e.type_display or "Encounter"
        line = f"{start or 'date unknown'} {kind}"
        if e.class_code:
            line += f" ({e.class_code})"
        if e.reason_display:
            line += f"; reason: {e.reason_display}"
        if e.practitioner_name:
            line += f"; with {e.practitioner_name}"
        if e.organization_name:
            line += f" at {e.organization_name}"
        if end and end != start:
            line += f"; until {end}"
        if e.status and e.status != "finished":
            line += f" [{e.status}]"
        out.add(
            "encounter",
            e.id,
            line,
            label=f"{kind} {start or ''}".strip(),
            facts=facts_of(
                start, end, kind, e.class_code, e.reason_display, e.practitioner_name, e.organization_name
            ),
            fields={
                "type": kind,
                "class": e.class_code,
                "start": e.start,
                "end": e.end,
                "reason": e.reason_display,
                "practitioner": e.practitioner_name,
                "organization": e.organization_name,
                "status": e.status,
            },
        )
    return out.build(
        title=f"Encounters{_quoted(args.query)}, most recent first",
        total=page.total,
        empty=f"No encounters{_quoted(args.query)} in the record for that period.",
        narrow_hint="add a query, since/until, or raise limit (up to 100)",
    )


# --- immunizations ---------------------------------------------------------------------------


class ImmunizationsInput(DateWindow):
    query: str | None = Field(
        default=None, max_length=200, description="Vaccine name or CVX code, e.g. 'influenza'."
    )
    since: dt.date | None = SINCE_FIELD
    until: dt.date | None = UNTIL_FIELD


@TOOLS.tool("get_immunizations", section="immunizations", status_text="Looking up your immunizations…")
def get_immunizations(ctx: ToolContext, args: ImmunizationsInput) -> ToolResult:
    """Vaccines given, newest first. Those recorded as NOT given are listed apart: never
    report them as given."""
    conn, pid = ctx.connection, ctx.scope.patient_id
    window = {"since": args.since, "until": args.until}
    given = immunizations.list_given(conn, patient_id=pid, query=args.query, **window)
    not_given = immunizations.list_not_given(conn, patient_id=pid, query=args.query, **window)
    out = ResultBuilder(ctx)
    for i in given.items:
        name, when = i.display or "(unnamed vaccine)", fmt_date(i.occurrence)
        out.add(
            "immunization",
            i.id,
            f"{name} — given {when or '(date unknown)'}",
            label=name,
            facts=facts_of(name, when, i.vaccine_code),
            fields={
                "vaccine": name,
                "code": i.vaccine_code,
                "given": True,
                "date": i.occurrence,
                "status": i.status,
            },
        )
    if not_given.items:
        out.note("Recorded as NOT given (do not report these as given):")
    for i in not_given.items:
        name, when = i.display or "(unnamed vaccine)", fmt_date(i.occurrence)
        reason = f"; reason: {i.status_reason}" if i.status_reason else ""
        out.add(
            "immunization",
            i.id,
            f"NOT GIVEN: {name} (recorded {when or 'date unknown'}){reason}",
            label=f"{name} (not given)",
            facts=facts_of(name, when, "not given", i.status_reason),
            fields={
                "vaccine": name,
                "code": i.vaccine_code,
                "given": False,
                "date": i.occurrence,
                "status": i.status,
                "status_reason": i.status_reason,
            },
        )
    title = f"Immunizations{_quoted(args.query)}: {given.total} given"
    if not_given.total:
        title += f", {not_given.total} recorded as not given"
    return out.build(
        title=title + ", most recent first",
        total=given.total + not_given.total,
        # a windowed miss says its window: "none in the record" would read as none ever given
        empty=f"No immunizations{_quoted(args.query)}{_between(args.since, args.until)} in the record.",
        narrow_hint="add a query",
    )


# --- procedures ------------------------------------------------------------------------------


class ProceduresInput(DateWindow):
    query: str | None = Field(
        default=None,
        max_length=200,
        description="Words or SNOMED code in the procedure or its reason.",
    )
    since: dt.date | None = SINCE_FIELD
    until: dt.date | None = UNTIL_FIELD
    limit: int = Field(default=20, ge=1, le=100)
    oldest_first: bool = Field(
        default=False, description="Oldest first (\"my first surgery\"); newest first otherwise."
    )


@TOOLS.tool("get_procedures", section="procedures", status_text="Looking up your procedures…")
def get_procedures(ctx: ToolContext, args: ProceduresInput) -> ToolResult:
    """Procedures (operations, screenings, therapies), newest first, with reasons; those
    not done are labelled."""
    page = procedures.list_procedures(
        ctx.connection,
        patient_id=ctx.scope.patient_id,
        query=args.query,
        since=args.since,
        until=args.until,
        limit=args.limit,
        oldest_first=args.oldest_first,
    )
    out = ResultBuilder(ctx)
    for x in page.items:
        name, when = x.display or "(unnamed procedure)", fmt_date(x.performed_start)
        status = (
            ""
            if x.status in (None, "completed")
            else f" [{x.status.upper() if x.status == 'not-done' else x.status}]"
        )
        reason = f"; reason: {x.reason_display}" if x.reason_display else ""
        out.add(
            "procedure",
            x.id,
            f"{when or 'date unknown'} {name}{status}{reason}",
            label=name,
            facts=facts_of(name, when, x.reason_display, x.code),
            fields={
                "name": name,
                "code": x.code,
                "status": x.status,
                "performed": x.performed_start,
                "reason": x.reason_display,
            },
        )
    return out.build(
        title=f"Procedures{_quoted(args.query)}, {'oldest' if args.oldest_first else 'most recent'} first",
        total=page.total,
        empty=f"No procedures{_quoted(args.query)} in the record for that period.",
        narrow_hint="add a query, since/until, or raise limit (up to 100)",
    )


# --- care plans ------------------------------------------------------------------------------


class CarePlansInput(ToolInput):
    status: Literal["active", "all"] = "all"


@TOOLS.tool("get_care_plans", section="care_plans", status_text="Looking up your care plans…")
def get_care_plans(ctx: ToolContext, args: CarePlansInput) -> ToolResult:
    """Care plans: status, period, conditions addressed, planned activities."""
    conn, pid = ctx.connection, ctx.scope.patient_id
    page = care_plans.list_care_plans(conn, patient_id=pid, status=args.status)
    addressed_ids = sorted({cid for plan in page.items for cid in (plan.addresses_condition_ids or [])})
    names = care_plans.condition_names(conn, patient_id=pid, condition_ids=addressed_ids)
    out = ResultBuilder(ctx)
    for plan in page.items:
        name = plan.category_display or "Care plan"
        start, end = fmt_date(plan.period_start), fmt_date(plan.period_end)
        period = f"{start or '?'} → {end}" if end else (f"since {start}" if start else "")
        addresses = [names[c] for c in plan.addresses_condition_ids or [] if c in names]
        activities = [
            (a.get("display") or a.get("code") or "activity")
            + (f" ({a['status']})" if a.get("status") else "")
            for a in plan.activities or []
            if isinstance(a, dict)
        ]
        line = f"{name} — {plan.status or 'status unknown'}" + (f", {period}" if period else "")
        if addresses:
            line += "; addresses: " + ", ".join(addresses)
        if activities:
            line += "; activities: " + ", ".join(activities)
        out.add(
            "care_plan",
            plan.id,
            line,
            label=name,
            facts=facts_of(name, plan.status, start, end, *addresses, *activities),
            fields={
                "name": name,
                "status": plan.status,
                "start": plan.period_start,
                "end": plan.period_end,
                "addresses": addresses,
                "activities": activities,
            },
        )
    which = "Active care plans" if args.status == "active" else "Care plans"
    return out.build(title=which, total=page.total, empty=f"No {which.lower()} in the record.")
