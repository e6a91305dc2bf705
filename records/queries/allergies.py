"""Allergies and intolerances, with their reactions. Entered-in-error never returned.

Current = `records.rules.allergy_is_current` (active or unstated, not refuted): listed first,
and the only ones with `current_only` (the record panel).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from sqlalchemy import Connection, Row, case, select

from records.models import Allergy, AllergyReaction
from records.queries.common import Page, not_entered_in_error, page_from_rows, total_over
from records.rules import allergy_is_current


def list_allergies(
    conn: Connection, *, patient_id: str, current_only: bool = False, limit: int = 50
) -> Page[Row[Any]]:
    """Current first, then most recently recorded."""
    t = Allergy.__table__
    current = allergy_is_current(t)
    active_first = case((current, 0), else_=1)
    where = [t.c.patient_id == patient_id, not_entered_in_error(t.c.verification_status)]
    if current_only:
        where.append(current)
    stmt = (
        select(t, total_over())
        .where(*where)
        .order_by(active_first, t.c.recorded_date.desc().nulls_last(), t.c.id)
        .limit(limit)
    )
    return page_from_rows(conn.execute(stmt).all())


def reactions_of(conn: Connection, *, patient_id: str, allergy_ids: list[str]) -> dict[str, list[Row[Any]]]:
    if not allergy_ids:
        return {}
    r = AllergyReaction.__table__
    rows = conn.execute(
        select(r)
        .where(r.c.patient_id == patient_id, r.c.allergy_id.in_(allergy_ids))
        .order_by(r.c.allergy_id, r.c.seq)
    ).all()
    out: dict[str, list[Row[Any]]] = defaultdict(list)
    for row in rows:
        out[row.allergy_id].append(row)
    return out
