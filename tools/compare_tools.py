"""Tools that compare now with a past day, and the patient's care team (round fourteen, issue 16).

- `compare_active_medications`: how many prescriptions are active now against how many were
  running on a past day ("am I on more meds now than 2 years ago");
- `compare_lab`: a test's latest value against the value nearest a past day ("is my LDL better
  than last year"), with the direction and, as DATA with its source (`lexicon/lab_aims.yaml`),
  which way care usually aims for that test — never a judgement of the patient;
- `get_care_team`: the registered general practitioner (FHIR Patient.generalPractitioner) and the
  clinicians of the patient's visits, most seen first ("who is my main doctor").

The date arithmetic is here (small pure functions, tested without a database), so Claude and
the offline planner get the same computed, cited answer.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from dateutil.relativedelta import relativedelta
from pydantic import Field
from sqlalchemy import text

from records.queries import medications, profile
from records.queries.summaries import Point, lab_series
from tools.lexicon import LexiconError, _read
from tools.record_tools import TEST_QUERY
from tools.registry import ToolContext, ToolInput, Toolset
from tools.render import ResultBuilder, counted, facts_of, fmt_date, fmt_num
from tools.results import ToolResult

TOOLS = Toolset()  # this module's tools: the one registration style (tools.registry.Toolset)
NOT_TAKEN = ("entered-in-error", "cancelled", "draft")


# --- pure functions ------------------------------------------------------------------------------


def active_on(
    status: str | None,
    authored_on: dt.date | None,
    ended_at: dt.date | None,
    ended_reason: str | None,
    day: dt.date,
) -> bool | None:
    """Whether a prescription was running on `day`: written by then and not ended by then.
    None when it has ended on a date the record does not give (completed or stopped, no end
    date) and so may or may not have been running then; such rows are counted apart, not guessed."""
    if status in NOT_TAKEN or authored_on is None or authored_on > day:
        return False
    if ended_at is not None:
        return ended_at > day
    if status == "active" and ended_reason is None:
        return True
    return None


def earlier_point(days: list[dt.date], target: dt.date) -> dt.date | None:
    """Of the days before the newest one, the one nearest `target` (the older of two equally
    near); None when there is no earlier day."""
    if not days:
        return None
    newest = max(days)
    older = [d for d in days if d < newest]
    if not older:
        return None
    return min(older, key=lambda d: (abs((d - target).days), d))


def direction(change: float) -> str:
    return "down" if change < 0 else "up" if change > 0 else "unchanged"


@dataclass(frozen=True)
class LabAim:
    code: str
    name: str
    aim: str  # lower | higher
    typical: str
    source: str


@lru_cache(maxsize=1)
def lab_aims() -> dict[str, LabAim]:
    data = _read("lab_aims.yaml")
    out: dict[str, LabAim] = {}
    for code, body in (data.get("aims") or {}).items():
        entry = str(code)
        if not isinstance(body, dict) or body.get("aim") not in ("lower", "higher") or not body.get("source"):
            raise LexiconError(f"lab_aims.yaml: entry '{entry}': 'aim' (lower|higher) and 'source' are required")
        out[entry] = LabAim(entry, str(body.get("name", entry)), str(body["aim"]), str(body.get("typical", "")), str(body["source"]))
    return out


def aim_sentence(aim: LabAim) -> str:
    """The table's row in words: data, not a judgement of one patient."""
    return (
        f"For {aim.name} a {aim.aim} value is usually the aim ({aim.typical}; source: {aim.source}); "
        "whether a change is right for one person is for their clinician."
    )


# --- medicines now against a past day ------------------------------------------------------------


ON_FIELD = Field(default=None, description="The past day to compare with, e.g. two years ago; default a year before today.")


def _past(on: dt.date | None, today: dt.date) -> dt.date:
    return on if on is not None else today - relativedelta(years=1)


class CompareMedicationsInput(ToolInput):
    on: dt.date | None = ON_FIELD


@TOOLS.tool("compare_active_medications", section="medications", status_text="Comparing your medicines…")
def compare_active_medications(ctx: ToolContext, args: CompareMedicationsInput) -> ToolResult:
    """How many prescriptions are active now against how many were running on a past day
    ("am I on more meds now than 2 years ago?"), each counted one cited."""
    conn, pid, now = ctx.connection, ctx.scope.patient_id, ctx.clock()
    day = _past(args.on, now.date())
    if day >= now.date():
        return ToolResult.failure("bad_argument", f"on ({day}) must be a day before today ({now.date()}).")
    page = medications.list_medications(conn, patient_id=pid, status="all", now=now, limit=500)
    rows = []
    for m in page.items:
        start = m.authored_on.date() if m.authored_on else None
        end = m.ended_at.date() if m.ended_at else None
        then = active_on(m.status, start, end, m.ended_reason, day)
        rows.append((m, bool(m.is_active), then))
    now_n = sum(1 for _, a, _ in rows if a)
    then_n = sum(1 for _, _, t in rows if t is True)
    unknown = [m for m, _, t in rows if t is None]
    summary = {"now": now_n, "then": then_n, "on": day.isoformat(), "today": now.date().isoformat(),
               "unknown_end": len(unknown)}  # fmt: skip
    out = ResultBuilder(ctx)
    for m, a, t in rows:
        if not a and t is not True:
            continue
        name = m.display or "(unnamed medication)"
        when = "active now and on " + day.isoformat() if a and t else ("active now" if a else f"active on {day.isoformat()}")
        start, end = fmt_date(m.authored_on), fmt_date(m.ended_at)
        line = f"{name} — {when}; prescribed {start or '?'}" + (f", ended {end}" if end else "")
        out.add(
            "medication",
            m.id,
            line,
            label=name,
            facts=facts_of(name, start, end, day.isoformat(), str(now_n), str(then_n)),
            fields={"name": name, "active_now": a, "active_then": t is True, "authored_on": m.authored_on,
                    "ended_at": m.ended_at, "status": m.status, "summary": summary},
        )  # fmt: skip
    notes = []
    if unknown:
        notes.append(
            f"Note: {counted(len(unknown), 'more prescription')} written by {day.isoformat()} "
            "ended on a date the record does not give, so they are not counted as running then."
        )
    return out.build(
        title=f"Active medications: {now_n} now against {then_n} on {day.isoformat()}",
        total=len(out.citations),
        empty=f"No medication was active now or on {day.isoformat()} in the record.",
        notes=notes,
    )


# --- a lab now against a past day ----------------------------------------------------------------


class CompareLabInput(ToolInput):
    query: str = Field(min_length=1, max_length=200, description=TEST_QUERY)
    on: dt.date | None = ON_FIELD


def _at(p: Point) -> str:
    unit = p.unit if p.unit and not p.unit.startswith("{") else ""
    return f"{fmt_num(p.value)} {unit}".strip() + f" on {fmt_date(p.effective)}"


@TOOLS.tool("compare_lab", section="labs", status_text="Comparing your results…")
def compare_lab(ctx: ToolContext, args: CompareLabInput) -> ToolResult:
    """A test's latest value against its value nearest a past day ("is my LDL better than last
    year?"): both values cited, the change and its direction, and which way care usually aims
    for that test (a sourced table, not a judgement)."""
    conn, pid, now = ctx.connection, ctx.scope.patient_id, ctx.clock()
    on = _past(args.on, now.date())
    all_series = lab_series(conn, patient_id=pid, query=args.query, until=now.date())
    out = ResultBuilder(ctx)
    notes: list[str] = []
    aims = lab_aims()
    for s in all_series:
        points = [p for p in s.points if p.effective is not None]
        if not points:
            continue
        latest = max(points, key=lambda p: p.effective)
        day = earlier_point([p.effective.date() for p in points], on)
        earlier = None
        if day is not None:
            same = [p for p in points if p.effective.date() == day and p.effective < latest.effective]
            earlier = max(same, key=lambda p: p.effective) if same else None
        aim = aims.get(s.code)
        fields: dict[str, Any] = {"code": s.code, "test": s.name, "unit": s.unit, "on": on.isoformat(),
                                  "latest": {"value": latest.value, "date": fmt_date(latest.effective)}}  # fmt: skip
        if earlier is None:
            fields["earlier"] = None
            line = f"{s.name}: only one result, {_at(latest)}; no earlier result to compare with"
            facts = facts_of(s.name, fmt_num(latest.value), fmt_date(latest.effective))
        else:
            change = round(latest.value, 2) - round(earlier.value, 2)
            fields.update(
                earlier={"value": earlier.value, "date": fmt_date(earlier.effective)},
                change=round(change, 2),
                direction=direction(change),
            )
            shown_unit = f" {s.unit}" if s.unit and not s.unit.startswith("{") else ""
            moved = direction(change) if change == 0 else f"{direction(change)} {fmt_num(abs(change))}{shown_unit}"
            line = f"{s.name}: {_at(latest)} against {_at(earlier)} (the result nearest {on.isoformat()}): {moved}"
            facts = facts_of(s.name, fmt_num(latest.value), fmt_date(latest.effective), fmt_num(earlier.value),
                             fmt_date(earlier.effective), fmt_num(abs(change)), on.isoformat())  # fmt: skip
        if aim is not None:
            fields.update(aim=aim.aim, typical=aim.typical, aim_source=aim.source, aim_name=aim.name)
            notes.append(f"Note: {aim_sentence(aim)}")
        out.add("observation", latest.record_id, line, label=f"{s.name} {fmt_date(latest.effective)}", facts=facts, fields=fields)
        if earlier is not None and earlier.record_id != latest.record_id:
            out.add(
                "observation",
                earlier.record_id,
                f"{s.name}: {_at(earlier)} (the earlier result compared)",
                label=f"{s.name} {fmt_date(earlier.effective)}",
                facts=facts_of(s.name, fmt_num(earlier.value), fmt_date(earlier.effective)),
                fields={"code": s.code, "test": s.name, "value": earlier.value, "date": fmt_date(earlier.effective), "earlier_of": s.code},
            )  # fmt: skip
    return out.build(
        title=f"Results matching '{args.query}': the latest against the one nearest {on.isoformat()}",
        total=len(out.citations),
        empty=f"No numeric results matching '{args.query}' in the record.",
        notes=list(dict.fromkeys(notes)),
    )


# --- the care team -------------------------------------------------------------------------------

_SEEN_SQL = text(
    """
    SELECT practitioner_name, count(*) AS visits, max(start) AS last_seen,
           (array_agg(id ORDER BY start DESC, id))[1] AS last_id,
           (array_agg(type_display ORDER BY start DESC, id))[1] AS last_type
      FROM encounters
     WHERE patient_id = :p AND practitioner_name IS NOT NULL
       AND coalesce(status, '') NOT IN ('cancelled', 'entered-in-error')
       AND start <= :now
     GROUP BY practitioner_name
     ORDER BY visits DESC, last_seen DESC
     LIMIT 5
    """
)


class CareTeamInput(ToolInput):
    pass


@TOOLS.tool("get_care_team", section="profile", status_text="Looking up your care team…")
def get_care_team(ctx: ToolContext, args: CareTeamInput) -> ToolResult:
    """Who looks after the patient: the registered general practitioner (from the patient's
    own record) and the clinicians of their visits, most seen first, each with the visit count
    and the newest of their visits cited ("who is my main doctor / GP?")."""
    conn, pid, now = ctx.connection, ctx.scope.patient_id, ctx.clock()
    p = profile.get_profile(conn, patient_id=pid)
    if p is None:
        return ToolResult(text="No patient record was found for this session.", total=0)
    out = ResultBuilder(ctx)
    gp = p.gp_name
    out.add(
        "patient",
        p.patient_id,
        f"Registered general practitioner: {gp or 'not recorded'}" + (f" ({p.organization_name})" if gp and p.organization_name else ""),
        label=f"{p.full_name}: general practitioner",
        facts=facts_of(gp, p.organization_name),
        fields={"role": "registered_gp", "general_practitioner": gp, "organization": p.organization_name},
    )  # fmt: skip
    seen = conn.execute(_SEEN_SQL, {"p": pid, "now": now}).all()
    for rank, r in enumerate(seen):
        last = fmt_date(r.last_seen)
        out.add(
            "encounter",
            r.last_id,
            f"{r.practitioner_name}: {counted(r.visits, 'visit')}, the newest {last} ({r.last_type or 'visit'})",
            label=f"{r.last_type or 'Visit'} {last}",
            facts=facts_of(r.practitioner_name, str(r.visits), last, r.last_type),
            fields={"role": "most_seen" if rank == 0 else "seen", "practitioner": r.practitioner_name,
                    "visits": r.visits, "start": r.last_seen, "type": r.last_type},
        )  # fmt: skip
    return out.build(title="Care team: the registered GP, then the clinicians seen, most visits first", total=len(out.citations), empty="")
