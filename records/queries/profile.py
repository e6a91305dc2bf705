"""The patient's demographics, their GP and organisation, and what the record holds."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import Connection, Row, and_, func, select

from records.models import (
    Allergy,
    CarePlan,
    Condition,
    Encounter,
    Immunization,
    MedicationRequest,
    Observation,
    Organization,
    Patient,
    Practitioner,
    Procedure,
)
from records.queries.common import not_entered_in_error
from records.rules import condition_is_active, medication_is_active


def birth_date_of(conn: Connection, *, patient_id: str) -> dt.date | None:
    """The birth date alone (a range check needs the age at a result, not the whole profile)."""
    p = Patient.__table__
    return conn.execute(select(p.c.birth_date).where(p.c.patient_id == patient_id)).scalar_one_or_none()


def get_profile(conn: Connection, *, patient_id: str) -> Row[Any] | None:
    p = Patient.__table__
    gp = Practitioner.__table__
    org = Organization.__table__
    stmt = (
        select(
            p,
            gp.c.full_name.label("gp_name"),
            org.c.name.label("organization_name"),
        )
        .select_from(
            p.outerjoin(gp, gp.c.id == p.c.general_practitioner_id).outerjoin(
                org, org.c.id == p.c.managing_organization_id
            )
        )
        .where(p.c.patient_id == patient_id)
    )
    return conn.execute(stmt).first()


def section_counts(conn: Connection, *, patient_id: str, now: dt.datetime) -> dict[str, int]:
    """How many rows each section holds (entered-in-error excluded), in one round trip."""

    def count(table: Any, *where: Any) -> Any:
        return (
            select(func.count())
            .select_from(table)
            .where(table.c.patient_id == patient_id, *where)
            .scalar_subquery()
        )

    c, m, o = Condition.__table__, MedicationRequest.__table__, Observation.__table__
    a, e, i, x, cp = (
        Allergy.__table__,
        Encounter.__table__,
        Immunization.__table__,
        Procedure.__table__,
        CarePlan.__table__,
    )
    stmt = select(
        count(c, not_entered_in_error(c.c.verification_status), condition_is_active(c, now)).label(
            "active_conditions"
        ),
        count(c, not_entered_in_error(c.c.verification_status)).label("conditions"),
        count(m, medication_is_active(m, now)).label("active_medications"),
        count(m, not_entered_in_error(m.c.status)).label("medications"),
        count(o, not_entered_in_error(o.c.status)).label("observations"),
        count(a, not_entered_in_error(a.c.verification_status)).label("allergies"),
        count(e, not_entered_in_error(e.c.status)).label("encounters"),
        count(i, i.c.status == "completed").label("immunizations"),
        count(x, not_entered_in_error(x.c.status)).label("procedures"),
        count(cp, and_(not_entered_in_error(cp.c.status))).label("care_plans"),
    )
    return dict(conn.execute(stmt).one()._mapping)


def age_on(birth_date: dt.date | None, day: dt.date) -> int | None:
    if birth_date is None:
        return None
    return day.year - birth_date.year - ((day.month, day.day) < (birth_date.month, birth_date.day))
