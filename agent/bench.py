"""`chartside bench agent`: what the agent itself costs per question, with model time removed.

A zero-latency fake model (the local fake Messages API, answering instantly) plays a typical
question: one turn asking for two tools in parallel, then a cited answer. For each question
we measure, in the same run:

* **agent overhead** = wall time of the whole question − time inside the SDK's model calls
  (guardrails, prompt building, tool execution through the registry with its patient-scoped
  transactions and audit rows, event building, grounding); also split into tools vs the rest;
* **SDK request handling** = a bare `messages.stream` call of the same size, no agent, timed
  alternately with the agent questions so both see the same machine state.

Printed: p50/p95 of each and the overhead as a share of the SDK's own request handling.
Tools are small stand-ins that cite rows (they run a real `SELECT` in the real registry) so
the figure does not depend on a loaded cohort.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from typing import Any

import typer
from pydantic import BaseModel, ConfigDict
from rich.table import Table
from sqlalchemy import text

from agent.base import AgentRequest
from agent.events import DoneEvent
from agent.fake_api import FakeMessagesAPI, MessageReply, RecordedRequest, text_message, tool_use_message
from agent.llm import ModelClient, ModelConfig
from agent.loop import ClaudeAgent
from agent.runner import GuardedAgent
from chartside.console import console, fail, progress
from records import migrate
from records.database import open_database
from records.settings import get_settings
from tools.registry import Registry, ToolContext
from tools.results import ToolResult
from tools.scope import PatientScope

ANSWER = "Your HbA1c was 7.2 % on 2024-03-05 [L1]; you take Lisinopril 10 MG [M1]."


class _Query(BaseModel):
    model_config = ConfigDict(extra="forbid")
    query: str | None = None


def bench_registry() -> Registry:
    registry = Registry()

    @registry.tool("get_labs", section="labs")
    def get_labs(ctx: ToolContext, args: _Query) -> ToolResult:
        """Lab results (benchmark stand-in)."""
        ctx.connection.execute(text("SELECT 1")).scalar_one()
        c = ctx.handles.cite(
            "observation", "o1", label="Hemoglobin A1c 7.2 % (2024-03-05)", facts=["7.2", "2024-03-05"]
        )
        return ToolResult(
            text=f"Results (1):\n[{c.handle}] Hemoglobin A1c 7.2 % (2024-03-05)", citations=[c], total=1
        )

    @registry.tool("get_medications", section="medications")
    def get_medications(ctx: ToolContext, args: _Query) -> ToolResult:
        """Medications (benchmark stand-in)."""
        ctx.connection.execute(text("SELECT 1")).scalar_one()
        c = ctx.handles.cite("medication", "m1", label="Lisinopril 10 MG", facts=["Lisinopril 10 MG"])
        return ToolResult(
            text=f"Active medications (1):\n[{c.handle}] Lisinopril 10 MG", citations=[c], total=1
        )

    return registry


def _responder(request: RecordedRequest) -> MessageReply:
    """Turn 1 → two parallel tool calls; after tool results → the cited answer."""
    messages = request.body.get("messages", []) if isinstance(request.body, dict) else []
    last = messages[-1]["content"] if messages else ""
    answered = isinstance(last, list) and any(b.get("type") == "tool_result" for b in last)
    if answered:
        return MessageReply(text_message(ANSWER))
    return MessageReply(tool_use_message([("get_labs", {"query": "A1C"}), ("get_medications", {})]))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


async def _measure(questions: int, warmup: int, api: FakeMessagesAPI, db: Any) -> dict[str, list[float]]:
    client = ModelClient(ModelConfig.local(api.base_url))
    agent = GuardedAgent(ClaudeAgent(client, bench_registry(), db))
    scope = PatientScope(patient_id="bench-patient", role="patient", actor="bench", conversation_id="bench")
    bare_messages = [{"role": "user", "content": "What is my A1C and what do I take?"}]
    out: dict[str, list[float]] = {
        "total": [],
        "model": [],
        "overhead": [],
        "tools": [],
        "agent_own": [],
        "sdk": [],
    }
    try:
        with progress() as bar:
            task = bar.add_task("agent questions", total=questions + warmup)
            for i in range(questions + warmup):
                done: DoneEvent | None = None
                started = time.perf_counter()
                async for event in agent.run(
                    AgentRequest(scope=scope, question="What is my A1C and what do I take?")
                ):
                    if isinstance(event, DoneEvent):
                        done = event
                total = (time.perf_counter() - started) * 1000
                if done is None:
                    raise RuntimeError("a benchmark question did not finish")
                # the bare SDK: the same request shape, no agent, right after
                sdk_started = time.perf_counter()
                async with client.stream(
                    system=[], messages=bare_messages, tools=agent.inner.tools
                ) as stream:
                    async for _ in stream:
                        pass
                    await stream.get_final_message()
                sdk_ms = (time.perf_counter() - sdk_started) * 1000
                if i >= warmup:
                    model = done.metrics["model_ms"]
                    tools = done.metrics["tool_ms"]
                    out["total"].append(total)
                    out["model"].append(model)
                    out["overhead"].append(total - model)
                    out["tools"].append(tools)
                    out["agent_own"].append(total - model - tools)
                    out["sdk"].append(sdk_ms)
                bar.advance(task)
    finally:
        await client.close()
    return out


def bench_agent(
    questions: int = typer.Option(200, "--questions", "-n", min=10, help="Questions to time."),
    warmup: int = typer.Option(20, "--warmup", min=0, help="Untimed questions first."),
    size_patients: int = typer.Option(
        5,
        "--size-patients",
        min=1,
        help="Generated patients whose record questions are measured for request size.",
    ),
) -> None:
    """Agent overhead per question with a zero-latency fake model, vs the SDK's own request time;
    then the request size (system + tools + tool results) of record questions."""
    from agent.bench_requests import RECORD_QUESTIONS, request_sizes
    from tools.bench_population import fill, patient_ids

    settings = get_settings()
    # its own database on the embedded server, so benchmark audit rows stay out of the real one
    db = open_database(settings, database_name=f"{settings.database_name}_bench")
    try:
        migrate.upgrade(db)
        with FakeMessagesAPI() as api:
            api.record = False
            api.responder = _responder
            results = asyncio.run(_measure(questions, warmup, api, db))
        fill(db, size_patients, seed=7)
        sizes = request_sizes(db, list(patient_ids(size_patients)))
        whole = request_sizes(db, list(patient_ids(size_patients)), select_tools=False)
    except RuntimeError as exc:
        raise fail(str(exc)) from exc
    finally:
        db.dispose()

    sdk_p50 = statistics.median(results["sdk"])
    table = Table(
        title=f"Agent overhead per question ({questions} questions, 2 model turns + 2 parallel tools each)"
    )
    table.add_column("measure")
    table.add_column("p50 ms", justify="right")
    table.add_column("p95 ms", justify="right")
    table.add_column("p50 ÷ one bare SDK stream", justify="right")
    rows = [
        ("whole question (wall)", "total"),
        ("model calls inside the SDK (2 per question)", "model"),
        ("agent overhead = wall − model", "overhead"),
        ("  of which tools (registry, transaction, audit)", "tools"),
        ("  of which the agent itself", "agent_own"),
        ("one bare SDK stream (same size, no agent)", "sdk"),
    ]
    for label, key in rows:
        values = results[key]
        table.add_row(
            label,
            f"{statistics.median(values):.2f}",
            f"{percentile(values, 0.95):.2f}",
            f"{statistics.median(values) / sdk_p50:.2f}×",
        )
    console.print(table)
    model_p50 = statistics.median(results["model"])
    overhead = statistics.median(results["overhead"]) / model_p50
    own = statistics.median(results["agent_own"]) / model_p50
    console.print(
        f"Share of the SDK's own request handling for the same question (p50 ÷ p50 model-call time, "
        f"same run): agent overhead with tools {overhead:.0%}; the agent itself, tools excluded, {own:.0%}."
    )
    _print_sizes(sizes, whole, len(RECORD_QUESTIONS), size_patients)


def _print_sizes(sizes: list, whole: list, questions: int, patients: int) -> None:
    from agent.bench_requests import per_question_rows, summary_rows
    from agent.token_estimate import CHARS_PER_TOKEN, TOOL_USE_SYSTEM_PROMPT_TOKENS

    table = Table(
        title=f"Request size per record question ({questions} questions × {patients} generated patients, "
        "real tools and results, scripted model through the contract-checking fake)"
    )
    table.add_column("measure")
    for name in ("median chars", "p95 chars", "median est. tokens", "p95 est. tokens"):
        table.add_column(name, justify="right")
    for label, med, p95, med_t, p95_t in summary_rows(sizes):
        table.add_row(label, f"{med:,}", f"{p95:,}", f"{med_t:,}", f"{p95_t:,}")
    console.print(table)
    per = Table(
        title="Per question (median over the patients): tools chosen per question vs the whole catalogue"
    )
    per.add_column("question")
    per.add_column("tools offered (first call)")
    for name in ("est. tokens", "whole catalogue", "ratio"):
        per.add_column(name, justify="right")
    for question, offered, mine, theirs, ratio in per_question_rows(sizes, whole):
        per.add_row(question, offered, f"{mine:,}", f"{theirs:,}", ratio)
    console.print(per)
    calls = statistics.median(s.calls for s in sizes)
    console.print(
        f"Estimated tokens = characters ÷ {CHARS_PER_TOKEN} of system + tools + messages, exactly the "
        "fields of a count_tokens request: every request above was also sent through the SDK's "
        "messages.count_tokens to the fake, which checked its shape and agreed. Not in these figures: "
        f"the tool-use system prompt the API adds to every call with tools (~{TOOL_USE_SYSTEM_PROMPT_TOKENS} "
        f"tokens per call for recent models, × {calls:g} calls). Prefixes below the model's minimum "
        "cacheable length are not cached, so compact requests are billed as plain input."
    )
