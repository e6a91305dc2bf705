"""`chartside bench scoped`: what scoping and background context cost per answer.

The offline planner (no model time, so what is measured is the agent's own work: tool calls
through the registry with their patient-scoped transactions and audit rows, grounding,
events) answers the same lab question three ways for random patients of the benchmark
population (`tools.bench_population`, shared with `chartside bench tools`), interleaved so all
three see the same machine state:

* **whole record** — "What is my latest A1C?" (intent detection, then labs + background);
* **section: labs** — the same question limited to the labs section (no intent detection);
* **record: one result** — "Is this normal?" about the patient's newest HbA1c row (the
  record lookup, the same test's history, background).

Printed per way: p50/p95 of the total time, the background lookups' share of it, tool calls
per answer, and the total as a ratio to the whole-record answer.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import uuid
from typing import Any

import typer
from rich.table import Table
from sqlalchemy import text

from agent.base import AgentRequest
from agent.events import DoneEvent
from agent.offline import OfflineAgent
from agent.runner import GuardedAgent
from chartside.console import console, fail, progress
from tools.catalog import build_registry
from tools.scope import PatientScope

A1C = "4548-4"
WAYS = ("whole record", "section: labs", "record: one result")


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _newest_a1c(db: Any) -> dict[str, str]:
    """patient → id of their newest HbA1c row (read as the owner, once, for the scopes)."""
    with db.admin.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT DISTINCT ON (patient_id) patient_id, id FROM observations WHERE code = :c "
                "AND COALESCE(status, '') NOT IN ('entered-in-error', 'cancelled') "
                "ORDER BY patient_id, effective DESC NULLS LAST"
            ),
            {"c": A1C},
        ).all()
    return {r.patient_id: r.id for r in rows}


def _request(patient: str, way: str, record_id: str) -> AgentRequest:
    scope = PatientScope(
        patient_id=patient, role="patient", actor="bench", conversation_id=f"bench-{uuid.uuid4().hex[:8]}"
    )
    if way == "whole record":
        return AgentRequest(scope=scope, question="What is my latest A1C?")
    if way == "section: labs":
        return AgentRequest(scope=scope, question="What is my latest A1C?", ask_scope={"section": "labs"})
    return AgentRequest(
        scope=scope,
        question="Is this normal?",
        ask_scope={"record": {"kind": "observation", "id": record_id}},
    )


async def _answer(agent: GuardedAgent, request: AgentRequest) -> DoneEvent:
    done = None
    async for event in agent.run(request):
        if isinstance(event, DoneEvent):
            done = event
    if done is None:
        raise fail(f"the agent did not answer for {request.scope.patient_id}")
    return done


def bench_scoped(
    patients: int = typer.Option(
        100, "--patients", help="Benchmark population size (shared with bench tools)."
    ),
    questions: int = typer.Option(150, "--questions", "-n", min=10, help="Timed answers per way."),
    warmup: int = typer.Option(10, "--warmup", min=0, help="Untimed rounds first."),
    seed: int = typer.Option(11, "--seed", help="Population and sampling seed."),
) -> None:
    """Scoped vs whole-record answers, and the background context's share of the time."""
    from tools.bench import _prepare

    pop = _prepare(f"chartside_bench_{patients}", patients, seed)
    try:
        a1c = _newest_a1c(pop.db)
        candidates = [p for p in pop.patients if p in a1c]
        if not candidates:
            raise fail("the benchmark population has no HbA1c results; drop its database and run again")
        agent = GuardedAgent(OfflineAgent(build_registry(), pop.db))
        rng = random.Random(seed)
        results: dict[str, list[dict[str, Any]]] = {w: [] for w in WAYS}

        async def run_all() -> None:
            with progress() as bar:
                task = bar.add_task("answering", total=(questions + warmup) * len(WAYS))
                for round_ in range(questions + warmup):
                    patient = rng.choice(candidates)
                    for way in WAYS:
                        done = await _answer(agent, _request(patient, way, a1c[patient]))
                        if round_ >= warmup:
                            results[way].append(done.metrics)
                        bar.advance(task)

        asyncio.run(run_all())
    finally:
        pop.db.dispose()

    base = statistics.median(m["latency_ms"] for m in results["whole record"])
    table = Table(
        "asked",
        "p50 ms",
        "p95 ms",
        "background ms p50",
        "background share p50",
        "tool calls",
        "p50 / whole record",
        title=f"chartside bench scoped — offline planner, {questions} answers per way, {patients} patients",
    )
    for way in WAYS:
        metrics = results[way]
        totals = [m["latency_ms"] for m in metrics]
        background = [sum(t["ms"] for t in m["tools"] if t["background"]) for m in metrics]
        shares = [b / m["latency_ms"] for b, m in zip(background, metrics, strict=True) if m["latency_ms"]]
        table.add_row(
            way,
            f"{statistics.median(totals):.1f}",
            f"{_percentile(totals, 0.95):.1f}",
            f"{statistics.median(background):.1f}",
            f"{statistics.median(shares):.0%}",
            f"{statistics.mean(m['tool_calls'] for m in metrics):.1f}",
            f"{statistics.median(totals) / base:.2f}×",
        )
    console.print(table)
    console.print(
        "Background lookups run after the primary lookup (they depend on it finding data), so their time "
        "adds to the answer; each goes through the registry with its own transaction and audit row."
    )
