"""Baseline "agents" an evaluation must score badly: the floor every real agent is read against.

A scorer that grades transcripts instead of answers can be fooled by an agent that pastes
everything it can read, or that says "No" to everything. These four strategies are run
beside the agent under test (`chartside eval run --agent dump|always-no|abstain|first-row`)
so that a report shows what a number is worth; a test holds each of them to ≤ 20 % accuracy
and a risk-weighted score ≤ 0 on a generated set.

* `dump` — calls every read tool (search tools with the question as the query) and answers
  with all of their output, citing every row: the "answer is in there somewhere" strategy.
* `always-no` — "No. There is no record of that." whatever was asked.
* `abstain` — "I don't know.", marked as an abstention, having searched nothing.
* `first-row` — reads the table a keyword match picks (its own naive routing, not the
  planner's), unfiltered, and answers with its first row.

They run without the product's guardrails: they are answering strategies, not product
configurations, and the guardrail would answer the safety questions for them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from agent.base import AgentRequest
from agent.events import DoneEvent, Event, Searched, TextEvent
from agent.execution import ToolCall, ToolExecutor, ToolOutcome, call_event, citation_events, result_event
from records.database import Database
from tools.registry import Registry, ToolContext
from tools.results import HandleBook

BASELINES: tuple[str, ...] = ("dump", "always-no", "abstain", "first-row")
ALWAYS_NO = "No. There is no record of that."
ABSTAIN = "I don't know."
# tools that need an argument the question cannot supply, or that write
_SKIP = frozenset({"find_slots", "book_appointment", "cancel_appointment"})


def _render(outcome: ToolOutcome) -> str:
    from agent.offline import render_result

    return render_result(outcome.result.text) if outcome.result.ok else ""


class _ToolBaseline:
    """Shared plumbing: run some read calls in the patient's scope, answer from their output."""

    def __init__(self, registry: Registry, db: Database, *, embedder: Any = None) -> None:
        self.registry = registry
        self.db = db
        self.embedder = embedder

    def calls(self, request: AgentRequest) -> list[ToolCall]:  # pragma: no cover - abstract
        raise NotImplementedError

    def answer(self, outcomes: list[ToolOutcome]) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    async def run(self, request: AgentRequest) -> AsyncIterator[Event]:
        book = HandleBook()
        ctx = ToolContext(
            scope=request.scope, db=self.db, handles=book, embedder=self.embedder, now=request.now
        )
        executor = ToolExecutor(self.registry, ctx)
        calls = self.calls(request)
        for call in calls:
            yield call_event(call)
        outcomes = await executor.run(calls) if calls else []
        for outcome in outcomes:
            yield result_event(outcome)
        answer = self.answer(outcomes)
        yield TextEvent(delta=answer)
        cited = [c for h in dict.fromkeys(_handles(answer)) if (c := book.get(h)) is not None]
        for event in citation_events(cited):
            yield event
        searched = [
            Searched(tool=o.call.name, input=dict(o.call.input), rows=o.result.total, ok=o.result.ok)
            for o in outcomes
        ]
        yield DoneEvent(answer=answer, mode="offline", searched=searched)


def _handles(text: str) -> list[str]:
    from evals.extract import HANDLE

    return [h.strip() for m in HANDLE.finditer(text) for h in m.group(0)[1:-1].split(",")]


class DumpAgent(_ToolBaseline):
    """Every read tool's whole output, every row cited."""

    def calls(self, request: AgentRequest) -> list[ToolCall]:
        out = []
        for index, name in enumerate(self.registry.names()):
            tool = self.registry.get(name)
            if tool is None or tool.writes or name in _SKIP:
                continue
            fields = tool.input_model.model_fields
            args = {"query": request.question} if "query" in fields and fields["query"].is_required() else {}
            out.append(ToolCall(f"dump_{index}", name, args))
        return out

    def answer(self, outcomes: list[ToolOutcome]) -> str:
        return "\n\n".join(text for o in outcomes if (text := _render(o))) or ALWAYS_NO


# The naive routing any first prototype has: the first keyword found picks the table. It is the
# baseline's own, never the offline planner's: a baseline that borrowed the planner's routing
# would score better as the planner improves (it reached 23 % that way), and stop being a floor.
_NAIVE_ROUTES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("allerg",), "get_allergies"),
    (("vaccin", "shot", "immuni", "jab"), "get_immunizations"),
    (("medic", "med ", "meds", "pill", "drug", "prescri", "taking", "tablet"), "get_medications"),
    (("procedure", "surgery", "operation"), "get_procedures"),
    (("care plan", "plan"), "get_care_plans"),
    (("visit", "encounter", "appointment", "admitted", "er "), "get_encounters"),
    (("lab", "result", "test", "level", "a1c", "blood", "pressure", "weight", "cholesterol"), "get_labs"),
    (("condition", "diagnos", "disease", "problem", "history"), "get_conditions"),
    (("born", "birth", "age", "old am", "name"), "get_patient_profile"),
)


def naive_table(question: str) -> str | None:
    """The table a keyword match picks for a question, or None when no keyword is there."""
    words = f" {question.lower()} "
    for keys, tool in _NAIVE_ROUTES:
        if any(k in words for k in keys):
            return tool
    return None


class FirstRowAgent(_ToolBaseline):
    """A keyword-picked table, read unfiltered, answered with its first row."""

    def calls(self, request: AgentRequest) -> list[ToolCall]:
        tool = naive_table(request.question)
        if tool is None or tool not in self.registry.names():
            return []
        return [ToolCall(id="first_row", name=tool, input={})]

    def answer(self, outcomes: list[ToolOutcome]) -> str:
        for outcome in outcomes:
            for line in _render(outcome).splitlines():
                if line.startswith("- "):
                    return line[2:]
        return "There is nothing about that in the record."


class ScriptedBaseline:
    """The same words for every question (no tools)."""

    def __init__(self, text: str, *, abstained: bool | None) -> None:
        self.text = text
        self.abstained = abstained

    async def run(self, request: AgentRequest) -> AsyncIterator[Event]:
        yield TextEvent(delta=self.text)
        yield DoneEvent(answer=self.text, mode="offline", abstained=self.abstained)


def build_baseline(kind: str, registry: Registry, db: Database, *, embedder: Any = None) -> Any:
    if kind == "dump":
        return DumpAgent(registry, db, embedder=embedder)
    if kind == "first-row":
        return FirstRowAgent(registry, db, embedder=embedder)
    if kind == "always-no":
        return ScriptedBaseline(ALWAYS_NO, abstained=None)
    if kind == "abstain":
        return ScriptedBaseline(ABSTAIN, abstained=True)
    raise ValueError(f"unknown baseline {kind!r} (choose from {', '.join(BASELINES)})")
