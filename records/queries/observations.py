"""Observations: laboratory results, vital signs, surveys.

* "Latest" is per code and by effective time (then issued time), never by insertion order.
* Panels keep their parts as components; blood pressure is read by component code
  (8480-6 systolic, 8462-4 diastolic), never by position.
* Entered-in-error and cancelled observations are never returned.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Literal

from sqlalchemy import ColumnElement, Connection, Row, and_, exists, func, or_, select

from records.models import Observation, ObservationComponent
from records.queries.common import Page, all_terms_in, fold, page_from_rows, total_over, window
from records.queries.vocabulary import DIASTOLIC_CODE, SYSTOLIC_CODE, LabMatch, resolve_lab_query
from records.rules import (
    HIDDEN_OBSERVATION_STATUSES,
    latest_observation_first,
    observation_is_shown,
    observed_by,
)

LabCategory = Literal["lab", "vital", "survey", "all"]
CATEGORY_VALUES: dict[str, str] = {"lab": "laboratory", "vital": "vital-signs", "survey": "survey"}
HIDDEN_STATUSES = HIDDEN_OBSERVATION_STATUSES


@dataclass
class ObservationRow:
    row: Row[Any]
    components: list[Row[Any]] = field(default_factory=list)

    def component(self, code: str) -> Row[Any] | None:
        return next((c for c in self.components if c.code == code), None)

    @property
    def blood_pressure(self) -> tuple[float | None, float | None]:
        """(systolic, diastolic) picked by LOINC code; None where the part is missing."""
        sys_c, dia_c = self.component(SYSTOLIC_CODE), self.component(DIASTOLIC_CODE)
        return (sys_c.value_num if sys_c else None, dia_c.value_num if dia_c else None)


def _match(match: LabMatch, patient_id: str) -> ColumnElement[bool] | None:
    if match.empty:
        return None
    o, oc = Observation.__table__, ObservationComponent.__table__
    parts: list[ColumnElement[bool]] = []
    if match.codes:
        codes = sorted(match.codes)
        parts.append(o.c.code.in_(codes))
        parts.append(
            exists().where(
                oc.c.patient_id == patient_id,
                oc.c.observation_id == o.c.id,
                oc.c.code.in_(codes),
            )
        )
    if match.name_terms:
        terms = list(match.name_terms)
        parts.append(all_terms_in(fold(o.c.display), terms))
        parts.append(
            exists().where(
                oc.c.patient_id == patient_id,
                oc.c.observation_id == o.c.id,
                all_terms_in(fold(oc.c.display), terms),
            )
        )
    return or_(*parts)


def list_observations(
    conn: Connection,
    *,
    patient_id: str,
    query: str | None = None,
    category: LabCategory = "all",
    latest_only: bool = False,
    since: dt.date | None = None,
    until: dt.date | None = None,
    now: dt.datetime | None = None,
    limit: int = 20,
) -> Page[ObservationRow]:
    """Newest first; with `latest_only`, one row per code (the newest by effective time).

    With `now`, results taken after it are left out (`records.rules.observed_by`)."""
    o = Observation.__table__
    where = [
        o.c.patient_id == patient_id,
        observation_is_shown(o),
        *window(o.c.effective, since, until),
    ]
    if now is not None:
        where.append(observed_by(o, now))
    if category != "all":
        where.append(o.c.category == CATEGORY_VALUES[category])
    match = _match(resolve_lab_query(query), patient_id)
    if match is not None:
        where.append(match)
    if latest_only:
        rank = (
            func.row_number()
            .over(
                partition_by=func.coalesce(o.c.code, o.c.display, o.c.id),
                order_by=latest_observation_first(o),
            )
            .label("rank")
        )
        ranked = select(o, rank).where(*where).subquery()
        stmt = (
            select(ranked, total_over())
            .where(ranked.c.rank == 1)
            .order_by(ranked.c.effective.desc().nulls_last(), ranked.c.display, ranked.c.id)
            .limit(limit)
        )
    else:
        stmt = (
            select(o, total_over())
            .where(*where)
            .order_by(o.c.effective.desc().nulls_last(), o.c.issued.desc().nulls_last(), o.c.display, o.c.id)
            .limit(limit)
        )
    page = page_from_rows(conn.execute(stmt).all())
    with_components = [r.id for r in page.items if r.value_type == "components"]
    components = components_of(conn, patient_id=patient_id, observation_ids=with_components)
    return Page(items=[ObservationRow(r, components.get(r.id, [])) for r in page.items], total=page.total)


def components_of(
    conn: Connection, *, patient_id: str, observation_ids: list[str]
) -> dict[str, list[Row[Any]]]:
    if not observation_ids:
        return {}
    oc = ObservationComponent.__table__
    rows = conn.execute(
        select(oc)
        .where(and_(oc.c.patient_id == patient_id, oc.c.observation_id.in_(observation_ids)))
        .order_by(oc.c.observation_id, oc.c.seq)
    ).all()
    out: dict[str, list[Row[Any]]] = defaultdict(list)
    for row in rows:
        out[row.observation_id].append(row)
    return out
