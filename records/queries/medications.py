"""Medication requests (prescriptions).

Active = status active AND not ended (no end date and no end reason, or an end date after
now). Ingestion records why a request ended (`ended_reason`, e.g. the patient's death with no
date given), so an end without a date still ends it. Stopped, completed,
cancelled, on-hold and entered-in-error requests are not active; entered-in-error ones are
never returned at all. Names are matched case-folded, which folds tall-man lettering.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from sqlalchemy import ColumnElement, Connection, Row, Table, and_, func, or_, select

from records.models import MedicationRequest
from records.queries.common import Page, all_terms_in, fold, not_entered_in_error, page_from_rows, total_over
from records.queries.vocabulary import DRUG_SYNONYMS, expand_terms

MedicationStatus = Literal["active", "all"]


def medication_is_active(t: Table, now: dt.datetime) -> ColumnElement[bool]:
    not_ended = or_(and_(t.c.ended_at.is_(None), t.c.ended_reason.is_(None)), t.c.ended_at > now)
    return and_(t.c.status == "active", not_ended)


def text_match(t: Table, query: str | None) -> ColumnElement[bool] | None:
    groups = expand_terms(query, DRUG_SYNONYMS)
    if not groups:
        return None
    haystack = fold(func.coalesce(t.c.display_normalized, t.c.display))
    reason = fold(t.c.reason_display)
    return and_(
        *(
            or_(
                *(all_terms_in(haystack, [alt]) for alt in alts),
                *(all_terms_in(reason, [alt]) for alt in alts),
                t.c.code == alts[0],
            )
            for alts in groups
        )
    )


def list_medications(
    conn: Connection,
    *,
    patient_id: str,
    status: MedicationStatus = "active",
    query: str | None = None,
    now: dt.datetime,
    limit: int = 50,
) -> Page[Row[Any]]:
    """Active first, then most recently prescribed first."""
    t = MedicationRequest.__table__
    where = [t.c.patient_id == patient_id, not_entered_in_error(t.c.status)]
    if status == "active":
        where.append(medication_is_active(t, now))
    match = text_match(t, query)
    if match is not None:
        where.append(match)
    active = medication_is_active(t, now).label("is_active")
    stmt = (
        select(t, active, total_over())
        .where(*where)
        .order_by(active.desc(), t.c.authored_on.desc().nulls_last(), t.c.id)
        .limit(limit)
    )
    return page_from_rows(conn.execute(stmt).all())
