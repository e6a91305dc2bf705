"""Which tools a question is offered, and the cheap way for the model to ask for the rest.

Every tool definition is input on every model call, and with 20 tools they were most of
each request (`chartside bench agent`). So the model is offered the tools of the record
sections the question is about — read by the shared intent reader (`agent.offline.parse`,
the same patterns the offline planner uses) — plus `more_tools`: one small definition whose
enum names every section, so when the question needs another part of the record the model
asks for it and gets those tools on its next turn. What is offered only grows within a
question, so no `tool_use` in the conversation ever names a tool missing from `tools`.

* no section recognised (and none in the previous question a follow-up leans on) → every
  tool, as before: an unusual question is never answered with too few tools;
* a section or record scope → exactly the scope's tools (the executor refuses others);
* writing tools only when the user's own words asked to book or cancel (`agent.intent`;
  the executor would refuse them otherwise), in the order the registry lists them.

Offering is presentation, not permission: the executor still decides what runs.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent.offline.parse import INTENT_BY_NAME, keyword_scores
from agent.offline.request import operation_of
from agent.offline.windows import read_window
from agent.scoping import SECTIONS as PANEL_SECTIONS
from agent.text import normalise
from tools.registry import Registry

MORE_TOOLS = "more_tools"

# intent reader names → the tools' `section` names (they differ only for appointments)
SECTION_OF_INTENT: dict[str, str] = {"find_slots": "appointments"}
# the record panel's sections (`agent.scoping`) and the hospital's leaflets
SECTIONS: tuple[str, ...] = (*PANEL_SECTIONS, "leaflets")

# Tools that compute (agent.offline's operations name when they are needed): offered with
# their section only when the question asks for that computation or names a time window.
# Otherwise they stay one `more_tools` call away (it adds a whole section).
COMPUTED_FOR: dict[str, frozenset[str]] = {
    "summarize_labs": frozenset(
        {"trend", "change", "max", "min", "mean", "count", "range", "older_than_year", "earliest"}
    ),
    "count_encounters": frozenset({"count", "exists"}),
    "compare_lab": frozenset({"change", "trend"}),
    "compare_active_medications": frozenset({"change", "count"}),
    "get_medication_changes": frozenset({"change", "trend", "earliest", "when", "count"}),
    "check_drug_allergies": frozenset({"conflict"}),
    "find_out_of_range_labs": frozenset({"abnormal"}),  # asked as "range" (any abnormal results?)
}

MORE_TOOLS_DEFINITION: dict[str, Any] = {
    "name": MORE_TOOLS,
    "description": (
        "Adds other record sections' tools from your next turn (leaflets: hospital information)."
    ),
    "input_schema": {
        "type": "object",
        "properties": {"sections": {"type": "array", "items": {"enum": list(SECTIONS)}}},
        "required": ["sections"],
    },
}


def question_sections(question: str, previous_questions: Sequence[str] = ()) -> list[str]:
    """The record sections a question is about, by the shared intent reader.

    A question with no section of its own ("and last year?", "S2, please") leans on the
    previous one, as the user meant it to.
    """
    sections = _sections_of(question)
    if not sections and previous_questions:
        sections = _sections_of(previous_questions[-1])
    return sections


def asked_computations(question: str) -> set[str]:
    """The operation the question asks for (the offline reader's names), plus "window" for
    a time window ("since 2020", "last year") — every computed tool takes one."""
    found = {operation_of(normalise(question))}
    if "range" in found:
        found.add("abnormal")
    if read_window(question, dt.date.today()) is not None:
        found |= {op for ops in COMPUTED_FOR.values() for op in ops} - {"conflict", "abnormal"}
    return found


def _sections_of(text: str) -> list[str]:
    names = [n for n in keyword_scores(text) if n in INTENT_BY_NAME]
    return list(dict.fromkeys(SECTION_OF_INTENT.get(n, n) for n in names))


@dataclass
class ToolOffer:
    """The tools one question offers the model, growing when it asks for more."""

    registry: Registry
    catalogue: list[str]  # what may ever be offered, in registry order
    names: list[str]  # offered now
    write_allowed: frozenset[str] = frozenset()
    scoped: bool = False  # a scope fixes the tools: no `more_tools`
    added: list[str] = field(default_factory=list)  # what `more_tools` brought in

    @classmethod
    def for_question(
        cls,
        registry: Registry,
        question: str,
        previous_questions: Sequence[str] = (),
        *,
        write_allowed: Iterable[str] = (),
        scope_tools: Iterable[str] | None = None,
        only: Iterable[str] | None = None,
    ) -> ToolOffer:
        """`only` = a fixed catalogue (the agent's `tool_names`); `scope_tools` = a scope's tools."""
        writes = frozenset(write_allowed)
        fixed = None if only is None else set(only)
        catalogue = [n for n in registry.names() if fixed is None or n in fixed]
        if scope_tools is not None:
            allowed = set(scope_tools)
            scoped = [n for n in catalogue if n in allowed]
            return cls(registry, scoped, scoped, writes, scoped=True)
        wanted = set(question_sections(question, previous_questions))
        if wanted and writes:
            wanted.add("appointments")  # "book it" / "cancel B1": the booking tools come with it
        offer = cls(registry, catalogue, [], writes)
        if not wanted:
            offer.names = [n for n in catalogue if offer.may_offer(n)]
            return offer
        computations = asked_computations(question)
        offer.names = [
            n
            for n in catalogue
            if offer.may_offer(n)
            and _section(registry, n) in wanted
            and (n not in COMPUTED_FOR or bool(COMPUTED_FOR[n] & computations))
        ]
        return offer

    def may_offer(self, name: str) -> bool:
        """A read tool, or a writing tool the user's own words asked for."""
        tool = self.registry.get(name)
        return tool is not None and (not tool.writes or name in self.write_allowed)

    def missing(self) -> list[str]:
        """Catalogue tools not offered yet that may be offered."""
        return [n for n in self.catalogue if n not in self.names and self.may_offer(n)]

    def definitions(self) -> list[dict[str, Any]]:
        """The request's `tools`: offered definitions, then `more_tools` while anything is left."""
        definitions = self.registry.definitions(self.names)
        if not self.scoped and self.missing():
            definitions.append(dict(MORE_TOOLS_DEFINITION))
        return definitions

    def add(self, raw: Any) -> tuple[bool, str]:
        """Run a `more_tools` call: offer the sections' tools from the next turn → (ok, result text)."""
        sections = raw.get("sections") if isinstance(raw, dict) else None
        if not isinstance(sections, list) or not sections or not all(s in SECTIONS for s in sections):
            return False, (
                f"Invalid arguments for {MORE_TOOLS}: 'sections' must list some of {', '.join(SECTIONS)}. "
                "Fix them and call again."
            )
        asked = set(sections)
        new = [n for n in self.missing() if _section(self.registry, n) in asked]
        self.names = [n for n in self.catalogue if n in self.names or n in new]
        self.added.extend(new)
        held = [n for n in self.catalogue if _section(self.registry, n) in asked and not self.may_offer(n)]
        text = f"Now available: {', '.join(new)}." if new else "Those tools are already available."
        if held:
            text += f" {', '.join(held)}: only when the person asks to book or cancel."
        return True, text


def _section(registry: Registry, name: str) -> str:
    tool = registry.get(name)
    return tool.section if tool is not None else ""
