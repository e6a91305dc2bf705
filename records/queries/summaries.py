"""Computed answers over one patient's rows: lab series summaries, encounter counts by class
and type, medication starts/stops in a window, and the record's own vocabulary.

The arithmetic lives here (not in the agent) so the Claude loop and the offline planner get
the same numbers, each tied to the rows it came from. Clinical semantics are the query
layer's: entered-in-error rows never count, cancelled visits never happened, "latest" is by
effective time, blood pressure parts are read by LOINC code.
"""

from __future__ import annotations

import datetime as dt
import statistics
from dataclasses import dataclass, field
from typing import Any, Literal

from sqlalchemy import Connection, func, or_, select

from records.models import (
    Allergy,
    ClinicalNote,
    Condition,
    Encounter,
    Immunization,
    MedicationRequest,
    Observation,
    Procedure,
)
from records.queries.common import did_not_happen_excluded, not_entered_in_error, window
from records.queries.conditions import condition_terms_match
from records.queries.observations import ObservationRow, list_observations
from records.queries.vocabulary import BP_PANEL_CODES, DIASTOLIC_CODE, SYSTOLIC_CODE

SERIES_LIMIT = 1000  # one patient's values of one test; far above any real series
STABLE_SHARE = 0.02  # first → last within 2 % of the first value reads as "about the same"
Direction = Literal["up", "down", "about the same", "single value"]


@dataclass(frozen=True)
class Point:
    record_id: str  # the observation (panel) row the value was read from
    code: str
    name: str
    value: float
    unit: str | None
    effective: dt.datetime | None
    ref_low: float | None = None
    ref_high: float | None = None


@dataclass
class Series:
    """One test's values in a window, oldest first, and what they add up to."""

    code: str
    name: str
    unit: str | None
    points: list[Point] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.points)

    @property
    def first(self) -> Point:
        return self.points[0]

    @property
    def last(self) -> Point:
        return self.points[-1]

    @property
    def previous(self) -> Point | None:
        return self.points[-2] if len(self.points) > 1 else None

    @property
    def lowest(self) -> Point:
        return min(self.points, key=lambda p: (p.value, -_ts(p)))  # ties: the most recent

    @property
    def highest(self) -> Point:
        return max(self.points, key=lambda p: (p.value, _ts(p)))

    @property
    def mean(self) -> float:
        return statistics.fmean(p.value for p in self.points)

    @property
    def change(self) -> float | None:
        """Latest minus the value before it."""
        return None if self.previous is None else self.last.value - self.previous.value

    @property
    def direction(self) -> Direction:
        if len(self.points) == 1:
            return "single value"
        first, last = self.first.value, self.last.value
        if abs(last - first) <= STABLE_SHARE * max(abs(first), 1e-9):
            return "about the same"
        return "up" if last > first else "down"


def _ts(p: Point) -> float:
    return p.effective.timestamp() if p.effective else 0.0


def points_of(o: ObservationRow) -> list[Point]:
    """The numeric values one observation row holds: its own, or a blood-pressure panel's
    systolic and diastolic parts (by LOINC code). Text and coded values are not numbers."""
    r = o.row
    parts: list[tuple[str, str, float | None, str | None]] = []
    if r.code in BP_PANEL_CODES or (o.component(SYSTOLIC_CODE) and o.component(DIASTOLIC_CODE)):
        for code, name in (
            (SYSTOLIC_CODE, "Systolic blood pressure"),
            (DIASTOLIC_CODE, "Diastolic blood pressure"),
        ):
            c = o.component(code)
            if c is not None:
                parts.append((code, name, c.value_num, c.value_unit))
    elif r.value_num is not None:
        parts.append(
            (r.code or r.display or r.id, r.display or r.code or "result", r.value_num, r.value_unit)
        )
    return [
        Point(r.id, code, name, float(value), unit, r.effective, r.ref_low, r.ref_high)
        for code, name, value, unit in parts
        if value is not None
    ]


def latest_points(
    conn: Connection,
    *,
    patient_id: str,
    since: dt.date | None = None,
    until: dt.date | None = None,
    now: dt.datetime | None = None,
) -> list[Point]:
    """The newest numeric value of every test in the window (blood pressure: both parts), for
    "any abnormal results?": one row per test, as `list_observations(latest_only=True)` reads it."""
    page = list_observations(
        conn, patient_id=patient_id, latest_only=True, since=since, until=until, now=now, limit=SERIES_LIMIT
    )
    return [p for o in page.items for p in points_of(o)]


def lab_series(
    conn: Connection,
    *,
    patient_id: str,
    query: str,
    since: dt.date | None = None,
    until: dt.date | None = None,
    newest: int | None = None,
) -> list[Series]:
    """Numeric values of the tests `query` names, one series per LOINC code (blood pressure:
    systolic and diastolic, from the panel's components). With `newest`, each series keeps only
    its newest N values ("the mean of the last 5 readings")."""
    page = list_observations(
        conn, patient_id=patient_id, query=query, since=since, until=until, limit=SERIES_LIMIT
    )
    by_code: dict[str, Series] = {}
    for o in reversed(page.items):  # oldest first
        for p in points_of(o):
            by_code.setdefault(p.code, Series(p.code, p.name, p.unit)).points.append(p)
    words = set(query.lower().split())
    if {"systolic", "sbp"} & words and not {"diastolic", "dbp"} & words:  # one part of the panel asked
        by_code.pop(DIASTOLIC_CODE, None)
    elif {"diastolic", "dbp"} & words and not {"systolic", "sbp"} & words:
        by_code.pop(SYSTOLIC_CODE, None)
    if newest:
        for series in by_code.values():
            series.points = series.points[-newest:]
    return sorted(by_code.values(), key=lambda s: (-s.count, s.name))


@dataclass(frozen=True)
class EncounterCounts:
    total: int
    by_class: dict[str, int]
    by_type: dict[str, int]
    rows: list[Any]  # every counted visit, newest first (the tool cites the ones it names)


def encounter_counts(
    conn: Connection,
    *,
    patient_id: str,
    since: dt.date | None = None,
    until: dt.date | None = None,
    reason: str | None = None,
    visit_type: str | None = None,
) -> EncounterCounts:
    """Visits that took place (not cancelled, not entered in error) in the window, counted.
    With `reason`, only the visits for it: the visit's own reason names it, or a diagnosis
    of it was recorded at the visit ("how many times was I seen for my ear infection").
    With `visit_type`, only the visits whose type names it, case-folded ("urgent care clinic"
    counts the "Urgent care clinic (environment)" visits: "how many times have I been to
    urgent care")."""
    t = Encounter.__table__
    by_reason = []
    if visit_type:
        pattern = visit_type.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        by_reason.append(t.c.type_display.ilike(f"%{pattern}%", escape="\\"))
    if reason and (named := condition_terms_match(t.c.reason_display, t.c.reason_code, reason)) is not None:
        c = Condition.__table__
        diagnosed = (
            select(c.c.id)
            .where(
                c.c.patient_id == t.c.patient_id,
                c.c.encounter_id == t.c.id,
                not_entered_in_error(c.c.verification_status),
                condition_terms_match(c.c.display, c.c.code, reason),
            )
            .exists()
        )
        by_reason.append(or_(named, diagnosed))
    rows = conn.execute(
        select(
            t.c.id,
            t.c.start,
            t.c.end,
            t.c.class_code,
            t.c.type_display,
            t.c.reason_display,
            t.c.organization_name,
        )
        .where(
            t.c.patient_id == patient_id,
            did_not_happen_excluded(t.c.status, "cancelled"),
            *window(t.c.start, since, until),
            *by_reason,
        )
        .order_by(t.c.start.desc().nulls_last(), t.c.id)
    ).all()
    by_class: dict[str, int] = {}
    by_type: dict[str, int] = {}
    for r in rows:
        klass = (r.class_code or "unknown").lower()
        by_class[klass] = by_class.get(klass, 0) + 1
        kind = r.type_display or "Encounter"
        by_type[kind] = by_type.get(kind, 0) + 1
    return EncounterCounts(len(rows), by_class, by_type, list(rows))


@dataclass(frozen=True)
class MedicationChanges:
    started: list[Any]
    stopped: list[Any]


def medication_changes(
    conn: Connection,
    *,
    patient_id: str,
    since: dt.date | None = None,
    until: dt.date | None = None,
) -> MedicationChanges:
    """Prescriptions written in the window, and prescriptions that ended in it."""
    t = MedicationRequest.__table__
    base = [t.c.patient_id == patient_id, not_entered_in_error(t.c.status)]
    started = conn.execute(
        select(t)
        .where(*base, t.c.authored_on.is_not(None), *window(t.c.authored_on, since, until))
        .order_by(t.c.authored_on.desc(), t.c.id)
    ).all()
    stopped = conn.execute(
        select(t)
        .where(*base, t.c.ended_at.is_not(None), *window(t.c.ended_at, since, until))
        .order_by(t.c.ended_at.desc(), t.c.id)
    ).all()
    return MedicationChanges(list(started), list(stopped))


def record_vocabulary(conn: Connection, *, patient_id: str) -> dict[str, list[str]]:
    """The names this record uses, per section (distinct, entered-in-error excluded): what a
    question's words are linked against before anything is searched."""

    def names(column: Any, table: Any, *where: Any) -> list[str]:
        stmt = select(column).distinct().where(table.c.patient_id == patient_id, column.is_not(None), *where)
        return sorted(r[0] for r in conn.execute(stmt))

    c, m, o = Condition.__table__, MedicationRequest.__table__, Observation.__table__
    i, p, a, e = Immunization.__table__, Procedure.__table__, Allergy.__table__, Encounter.__table__
    return {
        "conditions": names(c.c.display, c, not_entered_in_error(c.c.verification_status)),
        "medications": names(m.c.display, m, not_entered_in_error(m.c.status)),
        "labs": names(
            func.concat(o.c.code, "|", o.c.display),
            o,
            or_(o.c.status.is_(None), o.c.status != "entered-in-error"),
        ),
        "immunizations": names(i.c.display, i, not_entered_in_error(i.c.status)),
        "procedures": names(p.c.display, p, not_entered_in_error(p.c.status)),
        "allergies": names(a.c.display, a, not_entered_in_error(a.c.verification_status)),
        "encounters": names(e.c.type_display, e, not_entered_in_error(e.c.status)),
    }


def notes_by_date(
    conn: Connection,
    *,
    patient_id: str,
    since: dt.date | None = None,
    until: dt.date | None = None,
    limit: int = 3,
) -> list[Any]:
    """Clinical notes newest first by their date (not by similarity to any words): what
    "the note from my last visit" means. Entered-in-error notes are never returned."""
    t = ClinicalNote.__table__
    stmt = (
        select(t.c.id, t.c.date, t.c.type_display, t.c.author_name, t.c.text, t.c.doc_status)
        .where(
            t.c.patient_id == patient_id,
            not_entered_in_error(t.c.doc_status),
            *window(t.c.date, since, until),
        )
        .order_by(t.c.date.desc().nulls_last(), t.c.id)
        .limit(limit)
    )
    return list(conn.execute(stmt).all())
