"""Request size per record question (part of `chartside bench agent`).

Record questions are played through the real loop, the real tool registry and definitions
(real tool results from a generated population) and the real SDK, against the
contract-checking fake answering as the scripted model (`agent.scripted_model`: the tool
calls a model would make, then a cited answer). Every request the SDK sends is measured:
system prompt, tool definitions, and messages (question + tool results), in characters and
estimated tokens (`agent.token_estimate`: characters ÷ 3.5 of exactly the fields a
`count_tokens` request carries; each measured request is also sent through the SDK's
`messages.count_tokens` to the fake, which checks its shape and answers with the same
estimate, so estimate and request shape cannot drift apart). "Input per question" sums every
model call of the question (each call resends the system prompt and tools).

The same questions are played a second time offering the whole catalogue on every call (how
every question was asked before tools were chosen per question), side by side in one run.
"""

from __future__ import annotations

import asyncio
import statistics
from dataclasses import dataclass, field
from typing import Any

from agent import scripted_model
from agent.base import AgentRequest
from agent.fake_api import FakeMessagesAPI
from agent.llm import ModelClient, ModelConfig
from agent.loop import ClaudeAgent
from agent.runner import GuardedAgent
from agent.token_estimate import estimate_input_tokens, json_chars, tokens
from records.database import Database
from tools.catalog import build_registry
from tools.scope import PatientScope

__all__ = ["RECORD_QUESTIONS", "QuestionSize", "request_sizes", "summary_rows", "tokens"]

RECORD_QUESTIONS = (
    "What are my active conditions?",
    "What medications am I taking?",
    "What is my latest A1C?",
    "What am I allergic to?",
    "Which vaccines have I had?",
    "When was my last visit?",
    "What procedures have I had?",
    "What is my current care plan?",
    "What medications am I taking and what am I allergic to?",
    "What are my latest lab results?",
)


def _size(value: Any) -> int:
    return json_chars(value)


@dataclass
class QuestionSize:
    question: str
    calls: int = 0
    system: int = 0  # characters, summed over the question's calls
    tools: int = 0
    messages: int = 0
    first_call: int = 0  # characters of the first call alone
    results: int = 0  # characters of tool results in the last call
    uncached: int = 0  # characters after the last cache breakpoint, summed over calls
    offered: list[str] = field(default_factory=list)  # tool names of the first call
    estimated: int = 0  # estimated input tokens, summed per call
    counted: int = 0  # count_tokens (through the SDK, answered by the fake) summed per call
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return self.system + self.tools + self.messages


def measure(body: dict[str, Any]) -> tuple[int, int, int]:
    return _size(body.get("system")), _size(body.get("tools")), _size(body.get("messages"))


def uncached_chars(body: dict[str, Any]) -> int:
    """What lies outside the cached prefix (tools, then the cached identity block): the
    uncached system blocks and the messages. After the first call of a 5-minute window the
    prefix is billed as cache reads (0.1× input on Sonnet 5.5); this part is full-price input."""
    system = body.get("system") or []
    loose = (
        [b for b in system if isinstance(b, dict) and "cache_control" not in b]
        if isinstance(system, list)
        else []
    )
    return _size(loose) + _size(body.get("messages"))


def _results_chars(body: dict[str, Any]) -> int:
    last = (body.get("messages") or [{}])[-1].get("content")
    if not isinstance(last, list):
        return 0
    return sum(len(str(b.get("content", ""))) for b in last if b.get("type") == "tool_result")


async def _play(
    db: Database, api: FakeMessagesAPI, patients: list[str], *, select_tools: bool = True
) -> list[QuestionSize]:
    client = ModelClient(ModelConfig.local(api.base_url, max_tokens=2048))
    agent = GuardedAgent(ClaudeAgent(client, build_registry(), db, select_tools=select_tools))
    sizes: list[QuestionSize] = []
    try:
        for pid in patients:
            scope = PatientScope(patient_id=pid, role="patient", actor="bench", conversation_id="bench")
            for question in RECORD_QUESTIONS:
                before = len(api.requests)
                async for _ in agent.run(AgentRequest(scope=scope, question=question)):
                    pass
                bodies = [r.body for r in api.requests[before:] if r.path == "/v1/messages"]
                size = QuestionSize(question, calls=len(bodies))
                for i, body in enumerate(bodies):
                    s, t, m = measure(body)
                    size.system += s
                    size.tools += t
                    size.messages += m
                    if i == 0:
                        size.first_call = s + t + m
                        size.offered = [d.get("name", "") for d in body.get("tools") or []]
                    size.uncached += uncached_chars(body)
                    size.estimated += estimate_input_tokens(body)
                    size.counted += await client.count_tokens(body)
                if bodies:
                    size.results = _results_chars(bodies[-1])
                sizes.append(size)
    finally:
        await client.close()
    if api.violations:
        raise RuntimeError(f"the contract-checking fake refused a request: {api.violations[0][1].message}")
    for size in sizes:
        if size.counted != size.estimated:
            raise RuntimeError(f"count_tokens disagrees with the estimate for {size.question!r}")
    return sizes


def request_sizes(db: Database, patients: list[str], *, select_tools: bool = True) -> list[QuestionSize]:
    with FakeMessagesAPI() as api:
        api.responder = scripted_model.respond
        return asyncio.run(_play(db, api, patients, select_tools=select_tools))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))] if ordered else 0.0


def summary_rows(sizes: list[QuestionSize]) -> list[tuple[str, int, int, int, int]]:
    """(measure, median chars, p95 chars, median tokens, p95 tokens)."""
    rows = []
    for label, pick in (
        ("system prompt (per question)", lambda s: s.system),
        ("tool definitions (per question)", lambda s: s.tools),
        ("messages: question + tool results (per question)", lambda s: s.messages),
        ("  tool results in the answering call", lambda s: s.results),
        ("first call alone (system + tools + question)", lambda s: s.first_call),
        ("input per record question (all calls)", lambda s: s.total),
        ("  of which outside the cached prefix", lambda s: s.uncached),
    ):
        values = [pick(s) for s in sizes]
        med, p95 = statistics.median(values), percentile(values, 0.95)
        rows.append((label, round(med), round(p95), tokens(round(med)), tokens(round(p95))))
    return rows


def per_question_rows(
    chosen: list[QuestionSize], whole: list[QuestionSize]
) -> list[tuple[str, str, int, int, str]]:
    """(question, tools offered on its first call, median est. tokens with tools chosen per
    question, the same with the whole catalogue, ratio) — medians over the patients."""
    rows = []
    for question in RECORD_QUESTIONS:
        mine = [s for s in chosen if s.question == question]
        theirs = [s for s in whole if s.question == question]
        if not mine or not theirs:
            continue
        a = tokens(round(statistics.median(s.total for s in mine)))
        b = tokens(round(statistics.median(s.total for s in theirs)))
        offered = ", ".join(dict.fromkeys(n for s in mine for n in s.offered))
        rows.append((question, offered, a, b, f"{a / b:.2f}×"))
    return rows
