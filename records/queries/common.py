"""Shared pieces of the query layer: paging with a total, date windows, text matching."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from sqlalchemy import ColumnElement, Row, and_, func, literal, or_

from records.rules import ENTERED_IN_ERROR, not_entered_in_error  # noqa: F401 (re-exported)

T = TypeVar("T")

MAX_TERMS = 8
_WORD = re.compile(r"[\w.\-/%]+", re.UNICODE)


@dataclass(frozen=True)
class Page(Generic[T]):
    """Rows shown plus how many matched in all, so a tool can say what it left out."""

    items: list[T]
    total: int

    @property
    def truncated(self) -> bool:
        return self.total > len(self.items)


def page_from_rows(rows: Sequence[Row[Any]], total_column: str = "total_count") -> Page[Row[Any]]:
    """Rows selected with `count(*) OVER ()` carry the total in every row."""
    total = int(getattr(rows[0], total_column)) if rows else 0
    return Page(items=list(rows), total=total)


def total_over() -> ColumnElement[int]:
    """The number of matching rows before LIMIT, in the same round trip."""
    return func.count().over().label("total_count")


def normalise_text(value: str) -> str:
    """Case-fold and collapse whitespace. Folds tall-man lettering (hydrOXYzine → hydroxyzine)."""
    return " ".join(value.casefold().split())


def search_terms(query: str | None) -> list[str]:
    """Words of a free-text query, case-folded; punctuation other than . - / % dropped."""
    if not query:
        return []
    return _WORD.findall(normalise_text(query))[:MAX_TERMS]


def fold(column: ColumnElement[Any]) -> ColumnElement[str]:
    """SQL side of `normalise_text`: lower case with whitespace runs collapsed."""
    return func.lower(func.regexp_replace(func.coalesce(column, ""), r"\s+", " ", "g"))


def all_terms_in(haystack: ColumnElement[str], terms: Sequence[str]) -> ColumnElement[bool]:
    """Every term occurs in the (already folded) text; LIKE wildcards in terms are escaped.
    A one-character term must be a whole word: the "a" of "hep a" is not the "a" of "adult"
    (PostgreSQL's \\m and \\M mark the start and end of a word)."""
    if not terms:
        return literal(True)
    return and_(
        *(
            haystack.regexp_match(rf"\m{re.escape(term)}\M")
            if len(term) == 1
            else haystack.contains(term, autoescape=True)
            for term in terms
        )
    )


def day_start(day: dt.date) -> dt.datetime:
    return dt.datetime.combine(day, dt.time.min, tzinfo=dt.UTC)


def window(
    column: ColumnElement[Any], since: dt.date | None, until: dt.date | None
) -> list[ColumnElement[bool]]:
    """`since` and `until` are whole days, both inclusive (UTC)."""
    out: list[ColumnElement[bool]] = []
    if since is not None:
        out.append(column >= day_start(since))
    if until is not None:
        out.append(column < day_start(until + dt.timedelta(days=1)))
    return out


def did_not_happen_excluded(column: ColumnElement[Any], *did_not_happen: str) -> ColumnElement[bool]:
    """Rows whose status says they happened: not entered-in-error, nor e.g. cancelled / not-done."""
    return or_(column.is_(None), column.notin_((ENTERED_IN_ERROR, *did_not_happen)))
