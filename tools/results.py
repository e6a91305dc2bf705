"""What a tool returns: compact cited text for the model, structured rows for the UI.

Every row a tool shows carries a short citation handle (`L3`, `M1`, …). Handles are handed
out by a `HandleBook` that lives for one question, so the same record keeps the same handle
across tool calls and two records never share one; grounding checks the answer's handles
against this book.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

# Handle prefixes by record kind (also used by the UI to open the cited row).
PREFIXES = {
    "patient": "P",
    "condition": "C",
    "medication": "M",
    "observation": "L",
    "allergy": "A",
    "encounter": "E",
    "immunization": "I",
    "procedure": "X",
    "care_plan": "CP",
    "note": "N",
    "leaflet": "K",
    "slot": "S",
    "appointment": "B",
}


class Citation(BaseModel):
    handle: str
    kind: str
    record_id: str
    label: str = ""
    # the values that row states (numbers, dates, names): grounding checks answers against these
    facts: list[str] = Field(default_factory=list)
    data: dict[str, Any] = Field(default_factory=dict)


@dataclass
class HandleBook:
    """Handles for one question (or one MCP session): stable per record, unique per book."""

    by_record: dict[tuple[str, str], Citation] = field(default_factory=dict)
    by_handle: dict[str, Citation] = field(default_factory=dict)
    _counters: dict[str, int] = field(default_factory=dict)
    # tool calls of one turn may run in parallel threads and cite into the same book
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def cite(
        self,
        kind: str,
        record_id: str,
        label: str = "",
        facts: list[str] | None = None,
        data: dict[str, Any] | None = None,
    ) -> Citation:
        key = (kind, record_id)
        with self._lock:
            if key in self.by_record:
                # one record cited twice (a blood-pressure panel's systolic and diastolic rows
                # share their observation): the handle states both rows' values and names
                known = self.by_record[key]
                known.facts.extend(f for f in facts or [] if f not in known.facts)
                if label and label not in known.label.split(" · "):
                    known.label = f"{known.label} · {label}" if known.label else label
                return known
            prefix = PREFIXES[kind]
            self._counters[prefix] = self._counters.get(prefix, 0) + 1
            citation = Citation(
                handle=f"{prefix}{self._counters[prefix]}",
                kind=kind,
                record_id=record_id,
                label=label,
                facts=facts or [],
                data=data or {},
            )
            self.by_record[key] = citation
            self.by_handle[citation.handle] = citation
            return citation

    def get(self, handle: str) -> Citation | None:
        return self.by_handle.get(handle.strip("[]"))


class ToolResult(BaseModel):
    """`ok=False` results carry an explanation the model can act on, never a traceback."""

    ok: bool = True
    text: str
    rows: list[dict[str, Any]] = Field(default_factory=list)
    citations: list[Citation] = Field(default_factory=list)
    total: int = 0
    truncated: bool = False
    error_kind: str | None = None  # bad_argument | not_allowed | conflict | not_found | internal

    @classmethod
    def failure(cls, kind: str, explanation: str) -> ToolResult:
        return cls(ok=False, text=explanation, error_kind=kind)

    @property
    def handles(self) -> list[str]:
        return [c.handle for c in self.citations]
