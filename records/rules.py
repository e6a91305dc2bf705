"""The clinical rules, each defined once (DESIGN invariant 6: "explicit, not accidental").

Every reader of the record — the query layer behind the tools, the record panel, the profile
counts — builds its WHERE and ORDER BY from these, so a rule cannot drift between what the
model is told and what the page shows. `evals/truth.py` restates them in plain Python on
purpose (an independent oracle); `tests/records/test_rules.py` compares the two on a
generated cohort.

"Now" is always a parameter: the caller's clock (wall clock, or the instant an evaluation
pinned), never the database's `now()`.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import ColumnElement, FromClause, Table, and_, or_
from sqlalchemy.sql.elements import UnaryExpression

ENTERED_IN_ERROR = "entered-in-error"
ACTIVE_CONDITION_STATUSES = ("active", "recurrence", "relapse")
RESOLVED_CONDITION_STATUSES = ("resolved", "remission", "inactive")
HIDDEN_OBSERVATION_STATUSES = (ENTERED_IN_ERROR, "cancelled")


def not_entered_in_error(column: ColumnElement[Any]) -> ColumnElement[bool]:
    """Entered-in-error rows are excluded everywhere (a missing status is not an error)."""
    return or_(column.is_(None), column != ENTERED_IN_ERROR)


def not_refuted(t: Table) -> ColumnElement[bool]:
    return or_(t.c.verification_status.is_(None), t.c.verification_status != "refuted")


def medication_is_active(t: Table, now: dt.datetime) -> ColumnElement[bool]:
    """Active medication = status active, prescribed by `now` and not ended by `now`.

    Ingestion records why a request ended (`ended_reason`, e.g. the patient's death with no
    date given), so an end without a date still ends it. A prescription written after `now`
    (a clock pinned in the past) is not active yet.
    """
    not_ended = or_(and_(t.c.ended_at.is_(None), t.c.ended_reason.is_(None)), t.c.ended_at > now)
    started = or_(t.c.authored_on.is_(None), t.c.authored_on <= now)
    return and_(t.c.status == "active", not_ended, started)


def condition_is_active(t: Table, now: dt.datetime) -> ColumnElement[bool]:
    """Active condition = clinical status active/recurrence/relapse, begun and not abated by
    `now`, not refuted (an abatement date still in the future has not ended it yet)."""
    return and_(
        t.c.clinical_status.in_(ACTIVE_CONDITION_STATUSES),
        or_(t.c.onset.is_(None), t.c.onset <= now),
        or_(t.c.abatement.is_(None), t.c.abatement > now),
        not_refuted(t),
    )


def condition_is_resolved(t: Table, now: dt.datetime) -> ColumnElement[bool]:
    """Resolved = resolved/remission/inactive, or abated by `now`; refuted ones are neither."""
    return and_(
        or_(t.c.clinical_status.in_(RESOLVED_CONDITION_STATUSES), t.c.abatement <= now),
        not_refuted(t),
    )


def allergy_is_current(t: Table) -> ColumnElement[bool]:
    """Current allergy = clinical status active (or not stated), not refuted or entered in error."""
    return and_(
        or_(t.c.clinical_status.is_(None), t.c.clinical_status == "active"),
        not_refuted(t),
        not_entered_in_error(t.c.verification_status),
    )


def observation_is_shown(t: Table) -> ColumnElement[bool]:
    """Entered-in-error and cancelled results are never reported."""
    return or_(t.c.status.is_(None), t.c.status.not_in(HIDDEN_OBSERVATION_STATUSES))


def observed_by(t: FromClause, now: dt.datetime) -> ColumnElement[bool]:
    """A result taken after `now` (a clock pinned in the past) is not reported yet."""
    return or_(t.c.effective.is_(None), t.c.effective <= now)


def latest_observation_first(t: FromClause) -> tuple[UnaryExpression[Any], ...]:
    """ "Latest" = newest by effective time (then issued), never last-written: the first row of
    this order, per code, is the latest result."""
    return (t.c.effective.desc().nulls_last(), t.c.issued.desc().nulls_last(), t.c.id.desc())
