"""Medication requests (prescriptions).

Active = `records.rules.medication_is_active` (status active and not ended; an end reason
without a date, such as the patient's death, still ends it). Stopped, completed,
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
from records.rules import medication_is_active

MedicationStatus = Literal["active", "all"]


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
