"""`chartside bench offline`: how long the offline planner takes per answer, embedding excluded.

Every question of the paraphrase suite's tuning part (and the issue's quoted questions) is
answered on the loaded cohort by the real offline agent (guardrails, vocabulary lookup,
linking, tools in patient-scoped transactions, grounding). The embedder is wrapped so the
time spent embedding (the leaflet/intent similarity, the search tools' query vectors) is
measured and subtracted per answer; both figures are printed side by side.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from typing import Any

from rich.table import Table

from agent.base import AgentRequest
from agent.events import DoneEvent
from chartside.console import console
from tools.scope import PatientScope

QUOTED = (
    "Is she taking metformin?",
    "What inhalers is she on?",
    "Is he taking simvastatin?",
    "What medications am I taking right now?",
    "Summarise the last encounter",
    "Any ED visits in recent years?",
    "Show me the HbA1c trend since 2020",
    "What was my highest weight ever?",
    "What did the doctor write at my last visit?",
    "What is the capital of France?",
)


class TimedEmbedder:
    """The real embedder, with the time of every call added up (to subtract it)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.seconds = 0.0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def _timed(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            self.seconds += time.perf_counter() - started

    def embed_query(self, text: str) -> Any:
        return self._timed(self.inner.embed_query, text)

    def embed_passages(self, texts: list[str]) -> Any:
        return self._timed(self.inner.embed_passages, texts)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def measure(
    agent: Any, embedder: TimedEmbedder | None, asks: list[tuple[str, str, str]], now: Any
) -> tuple[list[float], list[float], list[float]]:
    """(total ms, ms without embedding, ms inside tool calls) per question."""

    async def main() -> tuple[list[float], list[float], list[float]]:
        totals, planner, tools = [], [], []
        for n, (patient_id, role, question) in enumerate(asks):
            scope = PatientScope(patient_id=patient_id, role=role, actor="bench:offline", conversation_id=f"bench-offline-{n}")  # fmt: skip
            before = embedder.seconds if embedder else 0.0
            started = time.perf_counter()
            tool_ms = 0.0
            async for event in agent.run(AgentRequest(scope=scope, question=question, now=now)):
                if isinstance(event, DoneEvent):
                    tool_ms = float(event.metrics.get("tool_ms") or 0.0)
                    break
            wall = time.perf_counter() - started
            embedding = (embedder.seconds - before) if embedder else 0.0
            totals.append(wall * 1000)
            planner.append((wall - embedding) * 1000)
            tools.append(tool_ms)
        return totals, planner, tools

    return asyncio.run(main())


def report(totals: list[float], planner: list[float], tools: list[float]) -> Table:
    table = Table("measure", "n", "p50 ms", "p95 ms", "max ms", title="Offline answer latency")
    rest = [p - t for p, t in zip(planner, tools, strict=True)]
    for name, values in (
        ("whole answer", totals),
        ("excluding embedding", planner),
        ("of which inside tool calls", tools),
        ("planner, grounding, events (no tools, no embedding)", rest),
    ):
        table.add_row(
            name,
            str(len(values)),
            f"{statistics.median(values):.1f}",
            f"{percentile(values, 95):.1f}",
            f"{max(values):.1f}",
        )
    share = 1 - sum(planner) / sum(totals) if sum(totals) else 0.0
    table.caption = f"embedding share of the whole: {share * 100:.0f}%"
    return table


def print_report(totals: list[float], planner: list[float], tools: list[float]) -> None:
    console.print(report(totals, planner, tools))
