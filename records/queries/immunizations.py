"""Immunizations. Only `completed` ones (or ones without a status) count as given;
`not-done` ones are returned separately, labelled, and never as given; entered-in-error
ones are never returned."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import Connection, Row, or_, select

from records.models import Immunization
from records.queries.common import Page, all_terms_in, fold, page_from_rows, search_terms, total_over, window

GIVEN_STATUSES = ("completed",)
NOT_GIVEN_STATUS = "not-done"


def _base(
    patient_id: str, query: str | None, since: dt.date | None = None, until: dt.date | None = None
) -> list[Any]:
    t = Immunization.__table__
    where: list[Any] = [t.c.patient_id == patient_id, *window(t.c.occurrence, since, until)]
    terms = search_terms(query)
    if terms:
        where.append(or_(all_terms_in(fold(t.c.display), terms), t.c.vaccine_code == terms[0]))
    return where


def list_given(
    conn: Connection,
    *,
    patient_id: str,
    query: str | None = None,
    since: dt.date | None = None,
    until: dt.date | None = None,
    limit: int = 50,
) -> Page[Row[Any]]:
    """Immunizations given, most recent first."""
    t = Immunization.__table__
    stmt = (
        select(t, total_over())
        .where(
            *_base(patient_id, query, since, until), or_(t.c.status.is_(None), t.c.status.in_(GIVEN_STATUSES))
        )
        .order_by(t.c.occurrence.desc().nulls_last(), t.c.id)
        .limit(limit)
    )
    return page_from_rows(conn.execute(stmt).all())


def list_not_given(
    conn: Connection,
    *,
    patient_id: str,
    query: str | None = None,
    since: dt.date | None = None,
    until: dt.date | None = None,
    limit: int = 20,
) -> Page[Row[Any]]:
    """Immunizations recorded as not done (declined, contraindicated, …)."""
    t = Immunization.__table__
    stmt = (
        select(t, total_over())
        .where(*_base(patient_id, query, since, until), t.c.status == NOT_GIVEN_STATUS)
        .order_by(t.c.occurrence.desc().nulls_last(), t.c.id)
        .limit(limit)
    )
    return page_from_rows(conn.execute(stmt).all())
