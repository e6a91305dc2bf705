"""Procedures, most recent first. Entered-in-error never returned; not-done ones labelled."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import Connection, Row, func, or_, select

from records.models import Procedure
from records.queries.common import (
    Page,
    all_terms_in,
    did_not_happen_excluded,
    fold,
    page_from_rows,
    search_terms,
    total_over,
    window,
)


def list_procedures(
    conn: Connection,
    *,
    patient_id: str,
    query: str | None = None,
    since: dt.date | None = None,
    until: dt.date | None = None,
    limit: int = 30,
    oldest_first: bool = False,
) -> Page[Row[Any]]:
    t = Procedure.__table__
    where = [
        t.c.patient_id == patient_id,
        did_not_happen_excluded(t.c.status, "not-done"),  # a procedure not done is not one the patient had
        *window(t.c.performed_start, since, until),
    ]
    terms = search_terms(query)
    if terms:
        haystack = fold(func.concat_ws(" ", t.c.display, t.c.reason_display))
        where.append(or_(all_terms_in(haystack, terms), t.c.code == terms[0]))
    stmt = (
        select(t, total_over())
        .where(*where)
        .order_by(
            t.c.performed_start.asc().nulls_last() if oldest_first else t.c.performed_start.desc().nulls_last(),
            t.c.id,
        )
        .limit(limit)
    )
    return page_from_rows(conn.execute(stmt).all())
