"""Background context: the rest of the record a careful reader would glance at (issue 11).

A lab value reads differently beside the active conditions; a medicine beside the allergies;
a care plan beside the conditions and medicines it is about. When the primary lookup of a
question found data, the agent itself (never the model) runs those lookups and adds them,
clearly labelled as background: the model may use them for context but must not present
them as the answer, and the offline planner shows them in a separate block. When the
primary lookup found nothing, nothing is added — background must never stand in for an
answer the record does not give.

Each background lookup runs at most once per question, and not at all when the model
already made the very same lookup itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent.execution import ToolCall, ToolOutcome
from tools.registry import Registry
from tools.scoped_record import TOOL_NAME as RECORD_TOOL

BACKGROUND_HEADING = "Background (not the answer)"


@dataclass(frozen=True)
class BackgroundLookup:
    tool: str
    args: dict[str, Any]
    label: str  # what it adds, in words: "active conditions"


ACTIVE_CONDITIONS = BackgroundLookup("get_conditions", {"status": "active"}, "active conditions")
ALLERGIES = BackgroundLookup("get_allergies", {}, "allergies")
ACTIVE_MEDICATIONS = BackgroundLookup("get_medications", {"status": "active"}, "active medications")

# primary lookup → the background that helps read it
BACKGROUND_FOR: dict[str, tuple[BackgroundLookup, ...]] = {
    "get_labs": (ACTIVE_CONDITIONS,),
    "get_medications": (ALLERGIES,),
    "get_care_plans": (ACTIVE_CONDITIONS, ACTIVE_MEDICATIONS),
}
# a record-scoped question's record counts as the primary lookup of its kind
PRIMARY_FOR_RECORD: dict[str, str] = {
    "observation": "get_labs",
    "medication": "get_medications",
    "care_plan": "get_care_plans",
}


def primary_topic(outcome: ToolOutcome) -> str | None:
    """Which primary lookup an outcome was (None for background and other lookups)."""
    if outcome.call.background:
        return None
    if outcome.call.name == RECORD_TOOL:
        return PRIMARY_FOR_RECORD.get(str(outcome.call.input.get("kind")))
    return outcome.call.name if outcome.call.name in BACKGROUND_FOR else None


def found_data(outcome: ToolOutcome) -> bool:
    return outcome.result.ok and outcome.result.total > 0


@dataclass
class Background:
    """Decides, batch after batch, which background lookups a question gets."""

    registry: Registry
    planned: list[BackgroundLookup] = field(default_factory=list)
    _count: int = 0

    def _normal(self, name: str, args: dict[str, Any]) -> dict[str, Any] | None:
        tool = self.registry.get(name)
        if tool is None:
            return None
        try:
            return tool.input_model.model_validate(args).model_dump()
        except Exception:
            return None

    def calls_after(self, batch: Sequence[ToolOutcome], seen: Iterable[ToolOutcome]) -> list[ToolCall]:
        """Background calls earned by this batch (primary lookups that found data)."""
        seen = list(seen)
        calls: list[ToolCall] = []
        for outcome in batch:
            topic = primary_topic(outcome)
            if topic is None or not found_data(outcome):
                continue
            for lookup in BACKGROUND_FOR[topic]:
                if lookup in self.planned or lookup.tool not in self.registry:
                    continue
                wanted = self._normal(lookup.tool, lookup.args)
                if any(
                    s.call.name == lookup.tool
                    and s.result.ok
                    and self._normal(s.call.name, s.call.input) == wanted
                    for s in seen
                ):
                    continue  # the model already looked exactly this up: it is primary data then
                self.planned.append(lookup)
                self._count += 1
                calls.append(
                    ToolCall(f"background_{self._count}", lookup.tool, dict(lookup.args), background=True)
                )
        return calls

    @property
    def labels(self) -> list[str]:
        return [lookup.label for lookup in self.planned]


def label_of(call: ToolCall) -> str:
    return next(
        (
            lookup.label
            for lookups in BACKGROUND_FOR.values()
            for lookup in lookups
            if lookup.tool == call.name
        ),
        call.name,
    )


def prompt_block(outcomes: Sequence[ToolOutcome]) -> str:
    """The background for the model, labelled as such (sent beside the tool results)."""
    parts = [
        "Background the system added ("
        + ", ".join(label_of(o.call) for o in outcomes)
        + "), NOT the answer: use it only for context (e.g. which allergies matter for a "
        "medicine), never present it as what was asked for, and cite any row you mention."
    ]
    for outcome in outcomes:
        text = outcome.result.text if outcome.result.ok else "(this background lookup failed)"
        parts.append(text)
    return "<background>\n" + "\n".join(parts) + "\n</background>"
