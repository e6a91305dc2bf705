"""Encounters (visits), most recent first. Entered-in-error never returned."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import Connection, Row, func, or_, select

from records.models import Encounter
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

# words people use → the FHIR v3 ActCode class of the encounter
CLASS_WORDS = {
    "emergency": "emer",
    "er": "emer",
    "ed": "emer",
    "a&e": "emer",
    "inpatient": "imp",
    "admission": "imp",
    "admitted": "imp",
    "hospitalization": "imp",
    "hospitalisation": "imp",
    "outpatient": "amb",
    "ambulatory": "amb",
    "urgent": "amb",
    "virtual": "vr",
    "telehealth": "vr",
    "home": "hh",
}
STOPWORDS = frozenset(
    [
        "my",
        "the",
        "a",
        "an",
        "last",
        "recent",
        "latest",
        "visit",
        "visits",
        "encounter",
        "encounters",
        "to",
        "of",
        "at",
    ]
)


def list_encounters(
    conn: Connection,
    *,
    patient_id: str,
    query: str | None = None,
    since: dt.date | None = None,
    until: dt.date | None = None,
    limit: int = 20,
) -> Page[Row[Any]]:
    t = Encounter.__table__
    # a cancelled visit never took place: it is not part of the patient's history
    where = [
        t.c.patient_id == patient_id,
        did_not_happen_excluded(t.c.status, "cancelled"),
        *window(t.c.start, since, until),
    ]
    haystack = fold(
        func.concat_ws(
            " ", t.c.type_display, t.c.reason_display, t.c.practitioner_name, t.c.organization_name
        )
    )
    for term in search_terms(query):
        if term in STOPWORDS:
            continue
        klass = CLASS_WORDS.get(term)
        word = all_terms_in(haystack, [term])
        where.append(or_(word, func.lower(t.c.class_code) == klass) if klass else word)
    stmt = select(t, total_over()).where(*where).order_by(t.c.start.desc().nulls_last(), t.c.id).limit(limit)
    return page_from_rows(conn.execute(stmt).all())
