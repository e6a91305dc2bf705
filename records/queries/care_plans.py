"""Care plans with the conditions they address. Entered-in-error never returned."""

from __future__ import annotations

from typing import Any, Literal

from sqlalchemy import Connection, Row, case, select

from records.models import CarePlan, Condition
from records.queries.common import Page, not_entered_in_error, page_from_rows, total_over

CarePlanStatus = Literal["active", "all"]


def list_care_plans(
    conn: Connection, *, patient_id: str, status: CarePlanStatus = "all", limit: int = 30
) -> Page[Row[Any]]:
    """Active first, then newest first."""
    t = CarePlan.__table__
    where = [t.c.patient_id == patient_id, not_entered_in_error(t.c.status)]
    if status == "active":
        where.append(t.c.status == "active")
    active_first = case((t.c.status == "active", 0), else_=1)
    stmt = (
        select(t, total_over())
        .where(*where)
        .order_by(active_first, t.c.period_start.desc().nulls_last(), t.c.id)
        .limit(limit)
    )
    return page_from_rows(conn.execute(stmt).all())


def condition_names(conn: Connection, *, patient_id: str, condition_ids: list[str]) -> dict[str, str]:
    """Display names of the conditions care plans address (entered-in-error left out)."""
    if not condition_ids:
        return {}
    c = Condition.__table__
    rows = conn.execute(
        select(c.c.id, c.c.display).where(
            c.c.patient_id == patient_id,
            c.c.id.in_(condition_ids),
            not_entered_in_error(c.c.verification_status),
        )
    ).all()
    return {r.id: r.display or "(unnamed condition)" for r in rows}
