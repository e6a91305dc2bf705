"""Tools that compute: lab series summaries, visit counts, medication changes in a window,
the drug–allergy check, and (internal) the record's own vocabulary.

The arithmetic is in `records.queries.summaries`; these adapters render it as cited lines
whose citations carry the computed numbers, so an answer quoting a mean or a change is
grounded in the rows it was computed from. Reference ranges come from the observation row,
else from the lexicon's typical adult table, and say which.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from pydantic import Field

from records.queries import allergies, medications, profile
from records.queries.summaries import (
    Point,
    Series,
    encounter_counts,
    lab_series,
    latest_points,
    medication_changes,
    notes_by_date,
    record_vocabulary,
)
from tools.lexicon import load_lexicon
from tools.planted import withhold_planted
from tools.record_tools import SINCE_FIELD, TEST_QUERY, UNTIL_FIELD, DateWindow
from tools.registry import ToolContext, ToolInput, Toolset
from tools.render import ResultBuilder, counted, facts_of, fmt_date, fmt_num
from tools.results import ToolResult

VOCABULARY_TOOL = "get_record_vocabulary"
CLASS_NAMES = {
    "amb": "ambulatory",
    "emer": "emergency",
    "imp": "inpatient",
    "acute": "inpatient (acute)",
    "obsenc": "observation",
    "vr": "virtual",
    "hh": "home health",
    "wellness": "wellness",
    "outpatient": "outpatient",
    "inpatient": "inpatient",
    "emergency": "emergency",
    "urgentcare": "urgent care",
    "ambulatory": "ambulatory",
}


def class_name(code: str) -> str:
    return CLASS_NAMES.get(code.lower(), code.lower())


# --- reference ranges --------------------------------------------------------------------------


ADULT_AGE = 18  # the lexicon's typical ranges are adults' (a child's BMI or BP is read by age)


def reference_of(
    point: Point, birth_date: dt.date | None = None
) -> tuple[float | None, float | None, str] | None:
    """(low, high, label): the range recorded with the result, else a typical adult range —
    never for a result taken before the patient was an adult (`birth_date` known)."""
    if point.ref_low is not None or point.ref_high is not None:
        return point.ref_low, point.ref_high, "the reference range recorded with this result"
    typical = load_lexicon().ranges.get(point.code)
    if typical is None:
        return None
    if birth_date is not None and point.effective is not None:
        age = profile.age_on(birth_date, point.effective.date())
        if age is not None and age < ADULT_AGE:
            return None
    return typical.low, typical.high, f"a typical adult range ({typical.source}), not this lab's own range"


def position(value: float, low: float | None, high: float | None) -> str:
    if high is not None and value > high:
        return "above"
    if low is not None and value < low:
        return "below"
    return "within"


def range_text(low: float | None, high: float | None) -> str:
    if low is not None and high is not None:
        return f"{fmt_num(low)}–{fmt_num(high)}"
    return f"≥ {fmt_num(low)}" if low is not None else f"≤ {fmt_num(high)}"


# --- lab series --------------------------------------------------------------------------------


class LabSummaryInput(DateWindow):
    query: str = Field(
        min_length=1,
        max_length=200,
        description=TEST_QUERY,
    )
    since: dt.date | None = SINCE_FIELD
    until: dt.date | None = UNTIL_FIELD
    above: float | None = Field(
        default=None,
        description="Also count the results above this value, with the first and latest of them "
        '("was my glucose ever over 200?", "how many A1C above 6.5").',
    )
    below: float | None = Field(
        default=None,
        description='Also count the results below this value ("any potassium under 3.5?").',
    )
    newest: int | None = Field(
        default=None,
        ge=1,
        le=100,
        description='Only the newest N results of each test ("the mean of my last 5 readings").',
    )


def _point(p: Point | None) -> dict[str, Any] | None:
    if p is None:
        return None
    return {"value": p.value, "unit": p.unit, "date": fmt_date(p.effective), "record_id": p.record_id}


TOOLS = Toolset()  # this module's tools: the one registration style (tools.registry.Toolset)


@TOOLS.tool("summarize_labs", section="labs", status_text="Summarising your results…")
def summarize_labs(ctx: ToolContext, args: LabSummaryInput) -> ToolResult:
    """One test over time, computed: count, first and latest, change since the previous
    value, lowest and highest with dates, mean, direction, and the latest against a reference
    range (the lab's, else a labelled typical adult range). For trends, extremes, averages,
    counts and "is it normal"."""
    all_series = lab_series(
        ctx.connection,
        patient_id=ctx.scope.patient_id,
        query=args.query,
        since=args.since,
        until=args.until,
        newest=args.newest,
    )
    out = ResultBuilder(ctx)
    window = ""
    if args.since or args.until:
        window = f" between {args.since or 'the start'} and {args.until or 'now'}"
    if args.newest:
        window += f", the newest {args.newest} of each test"
    window_facts = facts_of(*(d.isoformat() for d in (args.since, args.until) if d))
    birth_date = _birth_date(ctx)
    limit = ("above", args.above) if args.above is not None else ("below", args.below) if args.below is not None else None
    for s in all_series:
        _summary_lines(out, s, window_facts, birth_date, limit)
    result = out.build(
        title=f"Summary of results matching '{args.query}'{window}",
        total=len(all_series),
        empty=f"No numeric results matching '{args.query}'{window} in the record.",
    )
    return result


def _birth_date(ctx: ToolContext) -> dt.date | None:
    return profile.birth_date_of(ctx.connection, patient_id=ctx.scope.patient_id)


def beyond(s: Series, side: str, value: float) -> list[Point]:
    """The series' points strictly above (or below) the value, oldest first."""
    return [p for p in s.points if (p.value > value if side == "above" else p.value < value)]


def _summary_lines(
    out: ResultBuilder,
    s: Series,
    window_facts: list[str],
    birth_date: dt.date | None,
    limit: tuple[str, float | None] | None = None,
) -> None:
    """The series' summary line, then the other rows its numbers come from."""
    unit = f" {s.unit}" if s.unit and not s.unit.startswith("{") else ""
    change = s.change
    numbers = facts_of(
        fmt_num(s.last.value), fmt_num(s.first.value), fmt_num(s.lowest.value), fmt_num(s.highest.value),
        fmt_num(s.mean), fmt_num(change), fmt_num(abs(change)) if change is not None else None, str(s.count),
        fmt_num(s.previous.value) if s.previous else None,
        *(fmt_date(p.effective) for p in (s.first, s.last, s.lowest, s.highest, s.previous) if p),
    )  # fmt: skip
    reference = reference_of(s.last, birth_date)
    ref_fields: dict[str, Any] = {}
    ref_text = ""
    if reference is not None:
        low, high, label = reference
        where = position(s.last.value, low, high)
        outside = sum(
            position(p.value, *(reference_of(p, birth_date) or (None, None, ""))[:2]) != "within"
            for p in s.points
        )
        ref_fields = {
            "ref_low": low,
            "ref_high": high,
            "ref_label": label,
            "latest_position": where,
            "outside_count": outside,
        }
        ref_text = (
            f"; latest is {where} {range_text(low, high)}{unit} ({label}); {outside} of {s.count} outside it"
        )
        numbers += facts_of(fmt_num(low), fmt_num(high), str(outside))
    numbers += window_facts
    crossed: list[Point] = []
    limit_fields: dict[str, Any] = {}
    limit_text = ""
    if limit is not None and limit[1] is not None:
        side, value = limit[0], float(limit[1])
        crossed = beyond(s, side, value)
        limit_fields = {
            "threshold": {"side": side, "value": value},
            "beyond_count": len(crossed),
            "beyond_first": _point(crossed[0]) if crossed else None,
            "beyond_latest": _point(crossed[-1]) if crossed else None,
        }
        limit_text = f"; {len(crossed)} of {s.count} {side} {fmt_num(value)}{unit}"
        if crossed:
            limit_text += f" (first {fmt_date(crossed[0].effective)}, latest {fmt_date(crossed[-1].effective)})"
        numbers += facts_of(fmt_num(value), str(len(crossed)), *(fmt_date(p.effective) for p in crossed[:1] + crossed[-1:]))
    fields = {
        "name": s.name, "code": s.code, "unit": s.unit, "count": s.count, "first": _point(s.first),
        "latest": _point(s.last), "previous": _point(s.previous), "lowest": _point(s.lowest),
        "highest": _point(s.highest), "mean": round(s.mean, 4), "change": change, "direction": s.direction,
        **ref_fields, **limit_fields,
    }  # fmt: skip
    prev = (
        f"; previous {fmt_num(s.previous.value)} ({fmt_date(s.previous.effective)}), change {fmt_num(change)}"
        if s.previous
        else ""
    )
    line = (
        f"{s.name}: {counted(s.count, 'result')}, first {fmt_num(s.first.value)}{unit} ({fmt_date(s.first.effective)}), "
        f"latest {fmt_num(s.last.value)}{unit} ({fmt_date(s.last.effective)}){prev}; "
        f"lowest {fmt_num(s.lowest.value)} ({fmt_date(s.lowest.effective)}), "
        f"highest {fmt_num(s.highest.value)} ({fmt_date(s.highest.effective)}), mean {fmt_num(s.mean)}; "
        f"direction over the window: {s.direction}{ref_text}{limit_text}"
    )
    out.add("observation", s.last.record_id, line, label=s.name, facts=numbers, fields=fields)
    # the other rows the numbers come from, each on its own cited line
    roles: dict[str, list[str]] = {}
    points: dict[str, Point] = {}
    cited: list[tuple[str, Point | None]] = [
        ("first", s.first),
        ("previous", s.previous),
        ("lowest", s.lowest),
        ("highest", s.highest),
    ]
    if crossed and limit is not None:
        said = f"{limit[0]} {fmt_num(limit[1])}"
        cited += [(f"first {said}", crossed[0]), (f"latest {said}", crossed[-1])]
    for role, p in cited:
        if p is not None and p.record_id != s.last.record_id:
            roles.setdefault(p.record_id, []).append(role)
            points[p.record_id] = p
    for record_id, named in roles.items():
        p = points[record_id]
        out.add(
            "observation",
            record_id,
            f"{s.name} ({', '.join(named)}): {fmt_num(p.value)}{unit} ({fmt_date(p.effective)})",
            label=f"{s.name} ({', '.join(named)})",
            facts=facts_of(fmt_num(p.value), p.unit, fmt_date(p.effective), s.name, *numbers),
            fields={"name": s.name, "code": s.code, "role": named, "value": p.value, "unit": p.unit, "date": fmt_date(p.effective)},
        )  # fmt: skip


class OutOfRangeInput(DateWindow):
    since: dt.date | None = SINCE_FIELD
    until: dt.date | None = UNTIL_FIELD


@TOOLS.tool("find_out_of_range_labs", section="labs", status_text="Comparing your results with their ranges…")
def find_out_of_range_labs(ctx: ToolContext, args: OutOfRangeInput) -> ToolResult:
    """The newest result of every test (in the window) against a reference range — the lab's
    own, else a labelled typical adult range — listing those outside it and saying how many
    tests were compared and how many have no known range. For "any abnormal labs?"."""
    points = latest_points(
        ctx.connection, patient_id=ctx.scope.patient_id, since=args.since, until=args.until, now=ctx.clock()
    )
    out = ResultBuilder(ctx)
    compared = unknown = 0
    birth_date = _birth_date(ctx)
    for p in sorted(points, key=lambda p: (p.name, p.code)):
        reference = reference_of(p, birth_date)
        if reference is None:
            unknown += 1
            continue
        compared += 1
        low, high, label = reference
        where = position(p.value, low, high)
        if where == "within":
            continue
        unit = f" {p.unit}" if p.unit and not p.unit.startswith("{") else ""
        when = fmt_date(p.effective)
        out.add(
            "observation",
            p.record_id,
            f"{p.name} {fmt_num(p.value)}{unit} ({when}): {where} {range_text(low, high)}{unit} ({label})",
            label=p.name,
            facts=facts_of(p.name, fmt_num(p.value), p.unit, when, fmt_num(low), fmt_num(high), p.code),
            fields={
                "name": p.name, "code": p.code, "value": p.value, "unit": p.unit, "date": when,
                "ref_low": low, "ref_high": high, "ref_label": label, "position": where,
            },
        )  # fmt: skip
    window = (
        f" between {args.since or 'the start'} and {args.until or 'now'}" if args.since or args.until else ""
    )
    tally = (
        f"Note: compared {counted(compared, 'test')} with a range; {unknown} without a known range"
        " (or taken in childhood) not compared."
    )
    return out.build(
        title=f"Newest results outside their range{window}",
        total=len(out.citations),
        empty=f"No newest result{window} is outside its range.",
        notes=[tally],
    )


# --- encounter counts --------------------------------------------------------------------------


class EncounterCountInput(DateWindow):
    since: dt.date | None = SINCE_FIELD
    until: dt.date | None = UNTIL_FIELD
    reason: str | None = Field(
        default=None,
        max_length=100,
        description="Only visits for this reason: a condition's name (e.g. 'otitis media'), matched "
        "against the visit's reason and the diagnoses recorded at the visit. Omit to count every visit.",
    )
    visit_type: str | None = Field(
        default=None,
        max_length=100,
        description="Only visits of this type, matched against the visit type's name (e.g. 'urgent care "
        "clinic', 'general examination'). Omit to count every type.",
    )


COUNT_CITED = ("emer", "imp", "acute", "inpatient", "emergency", "obsenc")
REASON_CITED = 20


@TOOLS.tool("count_encounters", section="encounters", status_text="Counting your visits…")
def count_encounters(ctx: ToolContext, args: EncounterCountInput) -> ToolResult:
    """Visit counts in a window by class and type (cancelled and entered-in-error excluded),
    citing the emergency and inpatient visits: "how many visits", "any ER visits"."""
    counts = encounter_counts(
        ctx.connection,
        patient_id=ctx.scope.patient_id,
        since=args.since,
        until=args.until,
        reason=args.reason,
        visit_type=args.visit_type,
    )
    window = (
        f" between {args.since or 'the start'} and {args.until or 'now'}" if args.since or args.until else ""
    )
    if args.reason:  # what was counted, in the title and the empty answer
        window = f" for {args.reason!r} (the visit's reason or a diagnosis made at it){window}"
    if args.visit_type:
        window = f" of type {args.visit_type!r}{window}"
    if counts.total == 0:
        return ToolResult(text=f"No encounters{window} in the record.", total=0)
    summary = {"total": counts.total, "by_class": {class_name(k): v for k, v in counts.by_class.items()}}
    out = ResultBuilder(ctx)
    classes = ", ".join(
        f"{class_name(k)} {v}" for k, v in sorted(counts.by_class.items(), key=lambda kv: -kv[1])
    )
    types = ", ".join(f"{k} {v}" for k, v in sorted(counts.by_type.items(), key=lambda kv: -kv[1])[:8])
    out.note(f"Note: by class: {classes or 'none'}.")
    out.note(f"Note: most frequent types: {types or 'none'}.")
    newest_of: dict[str, Any] = {}
    for r in counts.rows:
        klass = (r.class_code or "unknown").lower()
        # visits for a reason: each counted one is cited (they are the answer, and few)
        if (
            klass in COUNT_CITED
            or klass not in newest_of
            or ((args.reason or args.visit_type) and len(out.citations) < REASON_CITED)
        ):
            newest_of.setdefault(klass, r)
            start = fmt_date(r.start)
            label = f"{r.type_display or 'Encounter'} {start or ''}".strip()
            line = f"{start or 'date unknown'} {r.type_display or 'Encounter'} ({class_name(klass)})"
            if r.reason_display:
                line += f"; reason: {r.reason_display}"
            if r.organization_name:
                line += f" at {r.organization_name}"
            out.add(
                "encounter",
                r.id,
                line,
                label=label,
                facts=facts_of(start, r.type_display, class_name(klass), r.reason_display, str(counts.by_class[klass]), str(counts.total)),
                fields={"start": r.start, "class": class_name(klass), "type": r.type_display,
                        "class_count": counts.by_class[klass], "summary": summary},
            )  # fmt: skip
    cited = (
        "each visit, newest first"
        if args.reason or args.visit_type
        else "every emergency/inpatient visit and the newest of each other class"
    )
    result = out.build(
        title=f"Encounters{window}: {counts.total} in all; cited: {cited}",
        total=len(out.citations),
        empty=f"No encounters{window} in the record.",
    )
    return result


# --- medication changes ------------------------------------------------------------------------


class MedicationChangesInput(DateWindow):
    since: dt.date | None = SINCE_FIELD
    until: dt.date | None = UNTIL_FIELD


@TOOLS.tool("get_medication_changes", section="medications", status_text="Looking up medication changes…")
def get_medication_changes(ctx: ToolContext, args: MedicationChangesInput) -> ToolResult:
    """Prescriptions started and stopped in a window, newest first."""
    ch = medication_changes(
        ctx.connection, patient_id=ctx.scope.patient_id, since=args.since, until=args.until
    )
    out = ResultBuilder(ctx)
    window = (
        f" between {args.since or 'the start'} and {args.until or 'now'}" if args.since or args.until else ""
    )
    if not ch.started and not ch.stopped:
        return ToolResult(
            text=f"No prescriptions were started or stopped{window} according to the record.", total=0
        )
    for verb, rows, when_of in (("started", ch.started, "authored_on"), ("stopped", ch.stopped, "ended_at")):
        out.note(f"Note: {verb}{window}: {len(rows)}")
        for m in rows:
            when = fmt_date(getattr(m, when_of))
            name = m.display or "(unnamed medication)"
            out.add(
                "medication",
                m.id,
                f"{verb} {when}: {name} (status {m.status or 'unknown'})",
                label=name,
                facts=facts_of(name, when, m.status),
                fields={"name": name, "change": verb, "date": getattr(m, when_of), "status": m.status},
            )
    return out.build(
        title=f"Medication changes{window}",
        total=len(ch.started) + len(ch.stopped),
        empty=f"No prescriptions were started or stopped{window} according to the record.",
    )


# --- drug–allergy check ------------------------------------------------------------------------


class DrugAllergyInput(ToolInput):
    medicine: str | None = Field(
        default=None,
        max_length=80,
        description="Check this one medicine (e.g. 'amoxicillin') against the recorded allergies instead "
        "of the active prescriptions: 'is amoxicillin something I can't have?'. Omit to check every "
        "active prescription.",
    )


@TOOLS.tool("check_drug_allergies", section="allergies", status_text="Checking medicines against allergies…")
def check_drug_allergies(ctx: ToolContext, args: DrugAllergyInput) -> ToolResult:
    """Active prescriptions (or one named medicine) checked against recorded allergies with a
    sourced allergen ↔ ingredient/class table (penicillin ↔ amoxicillin); each conflict cites
    both rows. No conflict means none in that table, not a clinical all-clear."""
    conn, pid, now = ctx.connection, ctx.scope.patient_id, ctx.clock()
    lexicon = load_lexicon()
    allergy_rows = [
        a for a in allergies.list_allergies(conn, patient_id=pid).items if a.clinical_status != "inactive"
    ]
    if args.medicine:
        return _medicine_against_allergies(ctx, args.medicine, allergy_rows, lexicon)
    active = medications.list_medications(conn, patient_id=pid, status="active", now=now, limit=200).items
    out = ResultBuilder(ctx)
    conflicts = 0
    for a in allergy_rows:
        ingredients, classes = lexicon.drugs_for_allergen(a.display or "")
        for m in active:
            words = (m.display or "").lower().replace("/", " ").split()
            hit = next((w for w in words if any(w.startswith(i) for i in ingredients)), None)
            if hit is None:
                continue
            conflicts += 1
            via = next((c.name for c in classes if any(hit.startswith(x) for x in c.members)), None)
            a_handle = out.add(
                "allergy", a.id, f"allergy: {a.display}", label=a.display or "allergy",
                facts=facts_of(a.display), fields={"substance": a.display, "status": a.clinical_status},
            )  # fmt: skip
            out.add(
                "medication", m.id,
                f"CONFLICT: active {m.display} contains {hit}" + (f" ({via})" if via else "") + f", against the allergy [{a_handle}]",
                label=m.display or "medication", facts=facts_of(m.display, hit, via),
                fields={"name": m.display, "ingredient": hit, "class": via, "allergy": a.display},
            )  # fmt: skip
    verdict = (
        f"Verdict: {counted(conflicts, 'conflict')} between active prescriptions and recorded allergies."
        if conflicts
        else f"Verdict: no conflict found between {counted(len(active), 'active prescription')} and "
        f"{counted(len(allergy_rows), 'recorded allergy')} in the allergen table."
    )
    if not conflicts:
        return ToolResult(
            text=f"No conflict found between {counted(len(active), 'active prescription')} and "
            f"{counted(len(allergy_rows), 'recorded allergy')} in the allergen table (not a clinical all-clear).",
            total=0,
        )
    out.note(f"Note: {verdict}")
    return out.build(
        title="Drug–allergy check (allergen ↔ ingredient/class table, tools/lexicon/allergens.yaml)",
        total=conflicts,
        empty=verdict,
    )


def _ruled_out_by(medicine: str, ingredient: str | None, drug_class: str | None) -> str:
    """How the table links a medicine to an allergy: "amoxicillin is one of the penicillins",
    "co-amoxiclav contains amoxicillin (penicillins)"."""
    if ingredient and ingredient != medicine.lower():
        return f"{medicine} contains {ingredient}" + (f" ({drug_class})" if drug_class else "")
    if drug_class:
        return f"{medicine} is one of the {drug_class}"
    return f"{medicine} is linked to it in the table"


def _medicine_against_allergies(
    ctx: ToolContext, medicine: str, allergy_rows: list[Any], lexicon: Any
) -> ToolResult:
    """One named medicine against each recorded allergy: an allergy to the medicine itself, or one
    whose allergen the table links to it (an allergy to penicillin rules out amoxicillin); each
    such allergy cited."""
    words = [w for w in re.split(r"[\s/]+", medicine.lower()) if len(w) > 2]
    out = ResultBuilder(ctx)
    for a in allergy_rows:
        substance = (a.display or "").lower()
        ingredients, classes = lexicon.drugs_for_allergen(substance)
        itself = bool(words) and all(w in substance for w in words)
        hit = next((w for w in words if any(w.startswith(i) for i in ingredients)), None)
        if not itself and hit is None:
            continue
        via = None if itself or hit is None else next((c.name for c in classes if hit.startswith(tuple(c.members))), None)
        why = "an allergy to it" if itself else _ruled_out_by(medicine, hit, via)
        out.add(
            "allergy", a.id, f"CONFLICT: {medicine} against the allergy to {a.display} ({why}); status {a.clinical_status or 'not recorded'}",
            label=a.display or "allergy", facts=facts_of(a.display, medicine, hit, via),
            fields={"substance": a.display, "status": a.clinical_status, "medicine": medicine, "ingredient": hit, "class": via, "itself": itself, "why": why},
        )  # fmt: skip
    checked = counted(len(allergy_rows), "recorded allergy")
    return out.build(
        title=f"Drug–allergy check of {medicine} (allergen ↔ ingredient/class table, tools/lexicon/allergens.yaml)",
        total=len(out.citations),
        empty=f"No conflict found between {medicine} and {checked} in the allergen table (not a clinical all-clear).",
    )


# --- notes by date ------------------------------------------------------------------------------

NOTE_CHARS = 1500


class NotesByDateInput(DateWindow):
    since: dt.date | None = SINCE_FIELD
    until: dt.date | None = UNTIL_FIELD
    limit: int = Field(default=1, ge=1, le=5)


@TOOLS.tool("get_notes_by_date", section="notes", status_text="Reading your clinical notes…")
def get_notes_by_date(ctx: ToolContext, args: NotesByDateInput) -> ToolResult:
    """The newest clinical notes by date, with their text: "what did the doctor write at my
    last visit"."""
    rows = notes_by_date(ctx.connection, patient_id=ctx.scope.patient_id, since=args.since, until=args.until, limit=args.limit)  # fmt: skip
    out = ResultBuilder(ctx)
    for n in rows:
        when = fmt_date(n.date)
        clean, withheld = withhold_planted(n.text)  # orders to an AI in a note: never passed on
        text = " ".join(clean.split())
        body = (
            text if len(text) <= NOTE_CHARS else text[:NOTE_CHARS] + " … (the rest of the note is not shown)"
        )
        out.add(
            "note",
            n.id,
            f"note of {when or 'undated'} — {n.type_display or 'clinical note'}; by {n.author_name or 'author not recorded'}: {body}",
            label=f"note {when or ''}".strip(),
            facts=facts_of(when, n.author_name, n.type_display, *re.findall(r"\d+(?:\.\d+)?", body)),
            fields={"date": n.date, "type": n.type_display, "author": n.author_name, "withheld": withheld},
        )  # fmt: skip
    window = (
        f" between {args.since or 'the first note'} and {args.until or 'today'}"
        if args.since or args.until
        else ""
    )
    return out.build(title=f"Clinical notes{window}, newest first", total=len(rows), empty=f"No clinical notes{window} in the record.")  # fmt: skip


# --- the record's vocabulary (internal: the offline planner links words against it) ---------


class VocabularyInput(ToolInput):
    pass


# internal: the offline planner's lookup of the record's own names, never offered to a model
INTERNAL_TOOLS = Toolset()


@INTERNAL_TOOLS.tool(VOCABULARY_TOOL, section="profile", status_text="Reading your record…")
def get_record_vocabulary(ctx: ToolContext, args: VocabularyInput) -> ToolResult:
    """The distinct names this record uses per section (no values, no dates)."""
    vocab = record_vocabulary(ctx.connection, patient_id=ctx.scope.patient_id)
    sizes = ", ".join(f"{k} {len(v)}" for k, v in vocab.items())
    return ToolResult(text=f"Record vocabulary: {sizes}.", rows=[{"kind": "vocabulary", **vocab}], total=1)


def register_vocabulary(registry: Toolset) -> None:
    """Add the internal vocabulary lookup (never in the model's catalogue) to `registry`."""
    if VOCABULARY_TOOL not in registry:
        registry.include(INTERNAL_TOOLS)
