"""Run the paraphrase suite against an agent and summarise it (accuracy, consistency, CFN)."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agent.base import AgentRequest
from agent.events import DoneEvent, ErrorEvent, ToolCallEvent
from evals.paraphrase.grade import Grade, grade
from evals.paraphrase.suite import Question, Suite
from tools.scope import PatientScope


@dataclass
class Outcome:
    question: Question
    answer: str
    grade: Grade
    latency_ms: float
    # the look-ups the answer made, as (tool, input) pairs: the typed request the words became
    lookups: tuple[tuple[str, str], ...] = ()
    # the safety gate's verdict kind when the gate answered instead of the planner (refused as
    # advice, alarmed as an emergency, …); None when the planner answered
    gate: str | None = None

    @property
    def cause(self) -> str | None:
        """Whose miss a wrong answer is: "gate" (the safety gate refused or alarmed before the
        planner saw the question) or "planner"; None for a right answer."""
        if self.grade.correct:
            return None
        return "gate" if self.gate is not None else "planner"


def _answer_kind(o: Outcome) -> str:
    """What an answer was, for consistency: right, or the wrong verdict (the gate's kind when the
    gate answered instead of the planner)."""
    if o.grade.correct:
        return "correct"
    return f"gate:{o.gate}" if o.gate is not None else o.grade.verdict


@dataclass
class Split:
    """One template in the minority of the facts whose wordings split the verdict."""

    kind: str
    template: str
    part: str
    family: str
    majority: str  # what most wordings of those facts got
    facts: int = 0
    answers: dict[str, int] = field(default_factory=dict)
    example: str = ""  # one of its questions (shown for tuning parts only)


@dataclass
class Summary:
    outcomes: list[Outcome] = field(default_factory=list)

    def _rate(self, items: list[Outcome]) -> float:
        return sum(o.grade.correct for o in items) / len(items) if items else 0.0

    @property
    def accuracy(self) -> float:
        return self._rate(self.outcomes)

    @property
    def false_negatives(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.grade.false_negative]

    def consistency(self, outcomes: list[Outcome] | None = None) -> float:
        """Share of facts whose every phrasing got the same verdict (all right or all wrong alike)."""
        by_fact: dict[str, set[str]] = defaultdict(set)
        for o in outcomes if outcomes is not None else self.outcomes:
            by_fact[o.question.fact.fact_id].add(o.grade.verdict if not o.grade.correct else "correct")
        return sum(len(v) == 1 for v in by_fact.values()) / len(by_fact) if by_fact else 0.0

    def request_splits(self, outcomes: list[Outcome] | None = None) -> tuple[int, int, int]:
        """(facts, facts whose phrasings made different look-ups, facts whose phrasings made the
        SAME look-ups yet got different verdicts). The last must be 0: one typed request, one
        answer, whichever words asked it."""
        lookups: dict[str, set[tuple]] = defaultdict(set)
        verdicts: dict[tuple[str, tuple], set[str]] = defaultdict(set)
        for o in outcomes if outcomes is not None else self.outcomes:
            fact = o.question.fact.fact_id
            lookups[fact].add(o.lookups)
            verdicts[(fact, o.lookups)].add("correct" if o.grade.correct else o.grade.verdict)
        differ = sum(len(v) > 1 for v in lookups.values())
        same_split = len({fact for (fact, _), v in verdicts.items() if len(v) > 1})
        return len(lookups), differ, same_split

    def splits(self, outcomes: list[Outcome] | None = None) -> list[Split]:
        """Per fact kind and template: the facts whose phrasings split the verdict in which this
        template was in the minority (answered unlike most of the fact's wordings), and the kinds
        of answer it gave there ("unclear", "no", "gate:advice", …). The cause of a consistency
        miss is then visible: one wording read differently, or the gate answering one wording."""
        by_fact: dict[str, list[Outcome]] = defaultdict(list)
        for o in outcomes if outcomes is not None else self.outcomes:
            by_fact[o.question.fact.fact_id].append(o)
        found: dict[tuple[str, str], Split] = {}
        for items in by_fact.values():
            verdicts = [_answer_kind(o) for o in items]
            if len(set(verdicts)) < 2:
                continue
            majority = max(sorted(set(verdicts)), key=verdicts.count)
            for o, verdict in zip(items, verdicts, strict=True):
                if verdict == majority:
                    continue
                q = o.question
                split = found.setdefault(
                    (q.fact.kind, q.template), Split(q.fact.kind, q.template, q.part, q.family, majority)
                )
                split.facts += 1
                split.answers[verdict] = split.answers.get(verdict, 0) + 1
                split.example = split.example or q.text
        return sorted(found.values(), key=lambda s: (s.kind, -s.facts, s.template))

    @staticmethod
    def misses(items: list[Outcome]) -> tuple[int, int]:
        """(misses the safety gate made, misses the planner made)."""
        causes = [o.cause for o in items]
        return causes.count("gate"), causes.count("planner")

    def table(self, key: str) -> list[tuple[str, int, float, float, int, int, int]]:
        """(group, n, accuracy, consistency, false negatives, gate misses, planner misses)
        per family / kind / part."""
        groups: dict[str, list[Outcome]] = defaultdict(list)
        for o in self.outcomes:
            name = {"family": o.question.family, "kind": o.question.fact.kind, "part": o.question.part}[key]
            groups[name].append(o)
        return [
            (
                name,
                len(items),
                self._rate(items),
                self.consistency(items),
                sum(o.grade.false_negative for o in items),
                *self.misses(items),
            )
            for name, items in sorted(groups.items())
        ]


async def _ask(agent: Any, q: Question, now: dt.datetime) -> Outcome:
    scope = PatientScope(
        patient_id=q.fact.patient_id,
        role=q.fact.role,
        actor="eval:paraphrase",
        conversation_id=f"paraphrase-{q.fact.fact_id}",
        message_id=f"paraphrase-{q.fact.fact_id}-{q.family}",
    )
    started = time.perf_counter()
    answer = ""
    calls: list[tuple[str, str]] = []
    gate: str | None = None
    async for event in agent.run(AgentRequest(scope=scope, question=q.text, now=now)):
        if isinstance(event, ToolCallEvent) and not event.background:
            calls.append((event.name, json.dumps(event.input, sort_keys=True)))
        elif isinstance(event, DoneEvent):
            answer = event.answer
            if event.mode == "guardrail":
                calls.append(("safety_gate", ""))
                gate = str(event.metrics.get("guardrail") or "gate")
        elif isinstance(event, ErrorEvent):
            answer = ""
    elapsed = (time.perf_counter() - started) * 1000
    return Outcome(q, answer, grade(q.fact, answer), elapsed, tuple(sorted(calls)), gate)


def run_suite(
    agent: Any, suite: Suite, now: dt.datetime, *, progress: Callable[[int, int], None] | None = None
) -> Summary:
    async def main() -> Summary:
        summary = Summary()
        for q in suite.questions:
            summary.outcomes.append(await _ask(agent, q, now))
            if progress is not None:
                progress(len(summary.outcomes), len(suite.questions))
        return summary

    return asyncio.run(main())
