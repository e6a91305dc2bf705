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
* `first-row` — reads the table the offline planner would read, and answers with its first row.

They run without the product's guardrails: they are answering strategies, not product
configurations, and the guardrail would answer the safety questions for them.
"""

from __future__ import annotations

import datetime as dt
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


# tools whose first line is the computed answer (a summary, a count, a verdict): a first-row
# baseline that read them would be the planner's arithmetic, not a naive table read
_COMPUTED = frozenset(
    {"summarize_labs", "count_encounters", "get_medication_changes", "check_drug_allergies"}
    # ranked retrieval: its top passage measures search quality, not a naive table read
    | {"search_leaflets", "search_notes"}
)


class FirstRowAgent(_ToolBaseline):
    """The offline planner's choice of table, read unfiltered, answered with its first row."""

    def __init__(self, registry: Registry, db: Database, *, embedder: Any = None) -> None:
        super().__init__(registry, db, embedder=embedder)
        from agent.offline import Planner

        self.planner = Planner(registry.names())

    def calls(self, request: AgentRequest) -> list[ToolCall]:
        today = (request.now or dt.datetime.now(dt.UTC)).date()
        plan = self.planner.plan(request.question, request.history, today)
        chosen = [c for c in plan.calls if c.name not in _SKIP and c.name not in _COMPUTED][:1]
        # the section's table as it stands (no filter the planner linked): a naive read
        return [ToolCall(id=c.id, name=c.name, input={}) for c in chosen]

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
