"""Turning query rows into a `ToolResult`: one cited line per row, rows for the UI, facts.

Each line starts with its citation handle (`[L3] Hemoglobin A1c 6.8 % (2024-03-02)`); the
citation carries the strings that line states (`facts`) so the grounding check can tell
whether a number or date in the answer came from the cited row. Results are bounded: the
text says how many rows matched in all and how to narrow the question when some were cut.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass, field
from typing import Any

from tools.registry import ToolContext
from tools.results import Citation, ToolResult


def fmt_date(value: dt.date | dt.datetime | None) -> str | None:
    """Dates are shown as ISO days in UTC (instants are stored in UTC)."""
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        value = value.astimezone(dt.UTC).date() if value.tzinfo else value.date()
    return value.isoformat()


def fmt_num(value: float | int | None) -> str | None:
    """At most two decimals, no trailing zeros: 6.80 → 6.8, 120.0 → 120."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return None
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def counted(n: int, word: str, plural: str | None = None) -> str:
    """ "1 visit", "3 visits", "2 allergies": a count with its word in the right number (never
    "visit(s)" in text people read). `plural` for a word the table does not know."""
    if n == 1:
        return f"{n} {word}"
    if plural is None:
        consonant_y = word.endswith("y") and word[-2:-1] not in ("a", "e", "i", "o", "u")
        plural = word[:-1] + "ies" if consonant_y else word + "s"
    return f"{n} {plural}"


def jsonable(value: Any) -> Any:
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    return value


def facts_of(*values: Any) -> list[str]:
    """The distinct non-empty strings a line states, in order."""
    out: list[str] = []
    for value in values:
        if value is None or value == "":
            continue
        text = str(value)
        if text not in out:
            out.append(text)
    return out


@dataclass
class ResultBuilder:
    """Collects cited lines for one tool call and renders the bounded result."""

    ctx: ToolContext
    lines: list[str] = field(default_factory=list)
    rows: list[dict[str, Any]] = field(default_factory=list)
    citations: list[Citation] = field(default_factory=list)

    def add(
        self,
        kind: str,
        record_id: str,
        line: str,
        *,
        label: str,
        facts: list[str],
        fields: dict[str, Any],
    ) -> str:
        data = jsonable(fields)
        citation = self.ctx.handles.cite(kind, record_id, label=label, facts=facts, data=data)
        self.citations.append(citation)
        self.lines.append(f"[{citation.handle}] {line}")
        self.rows.append({"handle": citation.handle, "record_id": record_id, "kind": kind, **data})
        return citation.handle

    def note(self, line: str) -> None:
        """An uncited line (a section heading or a caveat)."""
        self.lines.append(line)

    def build(
        self,
        *,
        title: str,
        total: int,
        empty: str,
        narrow_hint: str = "narrow the query",
        notes: list[str] | None = None,
    ) -> ToolResult:
        shown = len(self.citations)
        if shown == 0 and not self.lines:
            return ToolResult(text=empty + "".join(f"\n{n}" for n in notes or []), total=0)
        header = f"{title} ({shown} of {total} shown):" if total > shown else f"{title} ({total}):"
        parts = [header, *self.lines]
        truncated = total > shown
        if truncated:
            parts.append(f"… {total - shown} more not shown; {narrow_hint} to see them.")
        parts.extend(notes or [])
        return ToolResult(
            text="\n".join(parts),
            rows=self.rows,
            citations=self.citations,
            total=total,
            truncated=truncated,
        )
