"""Conditions (problems and diagnoses).

Active and resolved are `records.rules.condition_is_active` / `condition_is_resolved` (an
abatement date in the past means it ended, whatever the status says; one in the future has
not ended it yet). Entered-in-error rows are never returned; refuted ones only under "all".
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from sqlalchemy import ColumnElement, Connection, Row, Table, and_, or_, select

from records.models import Condition
from records.queries.common import (
    Page,
    all_terms_in,
    fold,
    not_entered_in_error,
    page_from_rows,
    total_over,
    window,
)
from records.queries.vocabulary import CONDITION_SYNONYMS, expand_terms
from records.rules import condition_is_active, condition_is_resolved

ConditionStatus = Literal["active", "resolved", "all"]


def text_match(t: Table, query: str | None) -> ColumnElement[bool] | None:
    return condition_terms_match(t.c.display, t.c.code, query)


def condition_terms_match(
    display: ColumnElement[Any], code: ColumnElement[Any], query: str | None
) -> ColumnElement[bool] | None:
    """A condition name or code matches the query (HTN, CKD, … expanded): used for the
    conditions themselves and for a visit's reason, so both read a name the same way."""
    groups = expand_terms(query, CONDITION_SYNONYMS)
    if not groups:
        return None
    haystack = fold(display)
    return and_(*(or_(*(all_terms_in(haystack, [alt]) for alt in alts), code == alts[0]) for alts in groups))


def list_conditions(
    conn: Connection,
    *,
    patient_id: str,
    status: ConditionStatus = "active",
    query: str | None = None,
    now: dt.datetime,
    onset_since: dt.date | None = None,
    onset_until: dt.date | None = None,
    limit: int = 50,
) -> Page[Row[Any]]:
    """Active first, then newest onset first. The window is the onset's ("what was I
    diagnosed with in 2020"): a condition without a recorded onset is outside every window."""
    t = Condition.__table__
    where = [
        t.c.patient_id == patient_id,
        not_entered_in_error(t.c.verification_status),
        *window(t.c.onset, onset_since, onset_until),
    ]
    if status == "active":
        where.append(condition_is_active(t, now))
    elif status == "resolved":
        where.append(condition_is_resolved(t, now))
    match = text_match(t, query)
    if match is not None:
        where.append(match)
    active = condition_is_active(t, now).label("is_active")
    stmt = (
        select(t, active, total_over())
        .where(*where)
        .order_by(active.desc(), t.c.onset.desc().nulls_last(), t.c.id)
        .limit(limit)
    )
    return page_from_rows(conn.execute(stmt).all())
