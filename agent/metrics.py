"""The metrics every answer carries (done event, stored with the message, metrics panel).

One shape for the Claude loop, the offline planner and the guardrail short-circuit, so the
page, the CLI and the evaluators read the same keys:

* `latency_ms` — total time, from the agent starting until the done event was built;
* `ttft_ms` — time to the first token of the answer text: the model's first streamed text
  (Claude), the composed answer (offline), the scripted reply (guardrail); None if no text;
* `iterations` — model turns (0 offline and for guardrail replies);
* `tools` — each tool call in order: name, `ms`, `rows` (the tool's row total), `ok`,
  `background`, `batch` (calls of one batch ran in parallel), `started_ms` (offset from the
  run start); `tool_calls` = how many; `tool_ms` = time spent waiting on tools (wall clock);
* `tokens` — input, output, cache_read, cache_creation (0 offline);
* `cost_usd` / `cost_estimated` — the estimated cost and whether a price was known;
* `scope` — the scope summary (agent.scoping) or None; `background` — what was added.

All times come from one `time.perf_counter()` clock started with the run, so they are
consistent with each other: `ttft_ms ≤ latency_ms`, every tool's `started_ms + ms ≤
latency_ms`, and batches do not overlap.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from agent.events import Usage
from agent.execution import ToolOutcome


@dataclass
class RunClock:
    started: float = field(default_factory=time.perf_counter)
    first_text: float | None = None

    def ms(self, moment: float | None = None) -> float:
        return round(((moment if moment is not None else time.perf_counter()) - self.started) * 1000, 2)

    def text_started(self) -> None:
        if self.first_text is None:
            self.first_text = time.perf_counter()

    @property
    def ttft_ms(self) -> float | None:
        return None if self.first_text is None else self.ms(self.first_text)


def tool_entries(clock: RunClock, outcomes: Iterable[ToolOutcome]) -> list[dict[str, Any]]:
    return [
        {
            "name": o.call.name,
            "ms": round(o.ms, 2),
            "rows": o.result.total,
            "ok": o.result.ok,
            "background": o.call.background,
            "batch": o.batch,
            "started_ms": clock.ms(o.started) if o.started else None,
            **({"error": o.result.error_kind} if not o.result.ok else {}),
        }
        for o in outcomes
    ]


def token_counts(usage: Usage) -> dict[str, int]:
    return {
        "input": usage.input_tokens,
        "output": usage.output_tokens,
        "cache_read": usage.cache_read_input_tokens,
        "cache_creation": usage.cache_creation_input_tokens,
    }


def answer_metrics(
    clock: RunClock,
    *,
    outcomes: Iterable[ToolOutcome] = (),
    tool_ms: float = 0.0,
    iterations: int = 0,
    usage: Usage | None = None,
    cost_usd: float | None = 0.0,
    scope: dict[str, Any] | None = None,
    background: list[str] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """The done event's metrics; call it last, just before building the done event."""
    tools = tool_entries(clock, outcomes)
    return {
        "latency_ms": clock.ms(),
        "ttft_ms": clock.ttft_ms,
        "iterations": iterations,
        "tools": tools,
        "tool_calls": len(tools),
        "tool_ms": round(tool_ms, 2),
        "tokens": token_counts(usage or Usage()),
        "cost_usd": round(cost_usd or 0.0, 6),
        "cost_estimated": cost_usd is not None,
        "scope": scope,
        "background": background or [],
        **extra,
    }
