"""Questions asked from somewhere: a section of the record panel, or one row of it (issue 11).

People rarely ask from a blank page. A question asked with "ask about these" on a panel
section is limited to that section: intent detection is skipped and only the section's
tools run. A question asked with "ask about this" on a row hands the agent that one record
(fetched by the agent, by id, under the session's patient binding — never chosen by the
model) and limits the tools to those that help explain it.

Both agents (Claude loop, offline planner) use this module, so the rules are one set:
which tools a scope allows, what the model is told, and the line every scoped answer
starts with to say which scope it used.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent.execution import ToolCall
from tools.registry import Registry
from tools.scoped_record import KIND_WORDS
from tools.scoped_record import TOOL_NAME as RECORD_TOOL
from tools.scoped_record import TOOLS as RECORD_TOOLS

# record-panel sections (the tools' `section` names) and how they are called on screen
SECTION_LABELS: dict[str, str] = {
    "profile": "profile",
    "conditions": "conditions",
    "medications": "medications",
    "labs": "lab results and vitals",
    "allergies": "allergies",
    "encounters": "visits",
    "immunizations": "immunizations",
    "procedures": "procedures",
    "care_plans": "care plans",
    "notes": "clinical notes",
    "appointments": "appointments",
}
SECTIONS: tuple[str, ...] = tuple(SECTION_LABELS)
RECORD_KINDS: tuple[str, ...] = tuple(KIND_WORDS)

# what the model may use to explain one record of each kind (besides the record itself)
EXPLAIN_TOOLS: dict[str, tuple[str, ...]] = {
    "observation": ("get_labs", "search_leaflets"),  # the same test over time; what the test is
    "condition": ("get_conditions", "get_care_plans", "search_leaflets"),
    "medication": ("get_medications", "get_conditions", "search_leaflets"),  # why it was started
    "allergy": ("get_allergies", "search_leaflets"),
    "encounter": ("get_encounters", "search_notes"),  # what was written at that visit
    "immunization": ("get_immunizations", "search_leaflets"),
    "procedure": ("get_procedures", "search_leaflets"),
    "care_plan": ("get_care_plans", "get_conditions"),
    "note": ("search_notes",),
}
MAX_RECORD_ID = 200


class ScopeError(ValueError):
    """A scope that cannot be used; the message names the field and what is allowed."""


@dataclass(frozen=True)
class AskScope:
    section: str | None = None
    record_kind: str | None = None
    record_id: str | None = None

    @property
    def kind(self) -> str:
        return "section" if self.section else "record"

    @classmethod
    def parse(cls, raw: Any) -> AskScope | None:
        """`{"section": name}` or `{"record": {"kind": k, "id": id}}`; None for no scope."""
        if raw is None:
            return None
        if isinstance(raw, dict) and set(raw) == {"section"}:
            if raw["section"] in SECTION_LABELS:
                return cls(section=raw["section"])
            raise ScopeError(f"scope.section: must be one of {', '.join(SECTIONS)}")
        if isinstance(raw, dict) and set(raw) == {"record"} and isinstance(raw["record"], dict):
            record = raw["record"]
            if set(record) != {"kind", "id"}:
                raise ScopeError('scope.record: must be {"kind": …, "id": …}')
            kind, rid = record["kind"], record["id"]
            if kind not in KIND_WORDS:
                raise ScopeError(f"scope.record.kind: must be one of {', '.join(RECORD_KINDS)}")
            if not isinstance(rid, str) or not 0 < len(rid) <= MAX_RECORD_ID or "\x00" in rid:
                raise ScopeError(f"scope.record.id: must be a record id of 1 to {MAX_RECORD_ID} characters")
            return cls(record_kind=kind, record_id=rid)
        raise ScopeError(
            f'scope: must be {{"section": one of {", ".join(SECTIONS)}}} or {{"record": {{"kind": …, "id": …}}}}'
        )

    @classmethod
    def parse_cli(cls, text: str) -> AskScope:
        """`section:labs` or `record:observation:<id>` (the id may itself contain colons)."""
        head, _, rest = text.partition(":")
        if head == "section":
            return cls.parse({"section": rest})  # type: ignore[return-value]
        if head == "record":
            kind, _, rid = rest.partition(":")
            return cls.parse({"record": {"kind": kind, "id": rid}})  # type: ignore[return-value]
        raise ScopeError("--scope: must be section:<section> or record:<kind>:<id>")

    def as_json(self) -> dict[str, Any]:
        if self.section:
            return {"section": self.section}
        return {"record": {"kind": self.record_kind, "id": self.record_id}}

    def tools(self, registry: Registry) -> frozenset[str]:
        """The tools the model may call for a question in this scope."""
        if self.section:
            return frozenset(
                n
                for n in registry.names()
                if (t := registry.get(n)) is not None and t.section == self.section
            )
        wanted = EXPLAIN_TOOLS.get(self.record_kind or "", ())
        return frozenset(n for n in wanted if n in registry)

    def record_call(self) -> ToolCall:
        """The agent's own lookup of the selected record (before any model call)."""
        return ToolCall("scope_record", RECORD_TOOL, {"kind": self.record_kind, "record_id": self.record_id})


@dataclass(frozen=True)
class ScopeUse:
    """A scope as it was used for one answer: what the done event and the answer report."""

    scope: AskScope
    tools: frozenset[str]
    label: str = ""  # the record's label (record scope), once it was found
    handle: str | None = None  # the record's citation handle

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.scope.kind, **self.scope.as_json(), "tools": sorted(self.tools)}
        if self.scope.section:
            out["label"] = SECTION_LABELS[self.scope.section]
        else:
            out["label"] = self.label
            out["handle"] = self.handle
        return out

    def answer_line(self) -> str:
        """The first line of a scoped answer: which scope it used, in words."""
        if self.scope.section:
            return f"Scope: the {SECTION_LABELS[self.scope.section]} section of the record only."
        word = KIND_WORDS[self.scope.record_kind or ""]
        cite = f" [{self.handle}]" if self.handle else ""
        return f"Scope: this one {word} — {self.label}{cite}."

    def prompt_note(self, record_text: str | None = None) -> str:
        """What the model is told about the scope (beside the question, not in the cached prefix)."""
        usable = ", ".join(sorted(self.tools)) or "none"
        if self.scope.section:
            body = (
                f'The person asked this from the "{SECTION_LABELS[self.scope.section]}" section of their '
                f"record panel. Answer about that section of the record only. Only these tools will run "
                f"for this question: {usable}; any other tool is refused."
            )
        else:
            word = KIND_WORDS[self.scope.record_kind or ""]
            body = (
                f'The person asked this about one {word} they selected in their record panel; "this" '
                f"means that record. It is shown below with its citation handle: answer about it and "
                f"cite it. To explain it you may use only: {usable}; any other tool is refused.\n"
                f"{record_text or ''}".rstrip()
            )
        return f"<question_scope>\n{body}\n</question_scope>"


def scope_use(request_scope: dict[str, Any] | None, registry: Registry) -> ScopeUse | None:
    """The request's scope, parsed and bound to the tools that serve it (None = no scope)."""
    scope = AskScope.parse(request_scope)
    return None if scope is None else ScopeUse(scope, scope.tools(registry))


def with_internal_tools(registry: Registry) -> Registry:
    """The registry the agent executes with: every model tool plus the scoped-record lookup.

    The model's tool list is built from the original registry, so it never sees the lookup;
    the executor's `internal` set keeps the model from calling it by name.
    """
    combined = Registry(t for n in registry.names() if (t := registry.get(n)) is not None)
    if RECORD_TOOL not in combined:
        combined.include(RECORD_TOOLS)
    return combined


INTERNAL_TOOLS = frozenset({RECORD_TOOL})


def declared_summary(raw: dict[str, Any] | None) -> dict[str, Any] | None:
    """The scope as asked, for answers that looked nothing up (guardrail replies)."""
    try:
        scope = AskScope.parse(raw)
    except ScopeError:
        return None
    if scope is None:
        return None
    label = SECTION_LABELS[scope.section] if scope.section else ""
    return {"kind": scope.kind, **scope.as_json(), "tools": [], "label": label}
