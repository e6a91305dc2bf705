"""An `Agent` that replays a script of events: the zero-latency agent of `chartside bench serve`
and the test double for the server's own tests.

It counts runs and side-effecting steps, so a test can prove that a reconnect replayed stored
events instead of running the agent (and its tools) again. It is never used to answer a real
user: `chartside serve` wires the real agent.
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field

from agent.base import AgentRequest
from agent.events import (
    CitationEvent,
    DoneEvent,
    Event,
    StatusEvent,
    TextEvent,
    ToolCallEvent,
    ToolResultEvent,
)


@dataclass
class Gate:
    """Pause the script until the test opens the gate (a thread-safe event)."""

    name: str
    opened: threading.Event = field(default_factory=threading.Event)
    reached: threading.Event = field(default_factory=threading.Event)
    timeout_s: float = 30.0

    def open(self) -> None:
        self.opened.set()

    async def wait(self) -> None:
        """Polls, so cancelling the run cancels the wait at once (no thread left blocked)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout_s
        while not self.opened.is_set():
            if loop.time() > deadline:
                raise TimeoutError(f"gate {self.name} was never opened")
            await asyncio.sleep(0.005)


@dataclass
class Effect:
    """A side effect (a tool's work) run when the script reaches it; counted by name."""

    name: str
    fn: Callable[[AgentRequest], Sequence[Event]]


Step = Event | Gate | Effect
Script = Sequence[Step] | Callable[[AgentRequest], Sequence[Step]]


class ScriptedAgent:
    def __init__(self, script: Script) -> None:
        self.script = script
        self.runs = 0
        self.effects: Counter[str] = Counter()
        self.requests: list[AgentRequest] = []
        self.closed_early = 0  # runs whose generator was closed before the script ended

    async def run(self, request: AgentRequest) -> AsyncIterator[Event]:
        self.runs += 1
        self.requests.append(request)
        steps = self.script(request) if callable(self.script) else self.script
        finished = False
        try:
            for step in steps:
                if isinstance(step, Gate):
                    step.reached.set()
                    await step.wait()
                elif isinstance(step, Effect):
                    self.effects[step.name] += 1
                    for event in step.fn(request):
                        yield event
                else:
                    yield step
            finished = True
        finally:
            if not finished:
                self.closed_early += 1


def quick_answer_script(text_chunks: int = 4) -> list[Step]:
    """A typical short answer: status, one tool call with a cited row, streamed text, done."""
    answer = "Your latest HbA1c was 6.1 % on 2024-03-01 [L1]."
    size = max(1, len(answer) // text_chunks)
    chunks = [answer[i : i + size] for i in range(0, len(answer), size)]
    return [
        StatusEvent(text="Looking up your lab results…"),
        ToolCallEvent(id="t1", name="get_labs", input={"query": "A1C", "latest_only": True}),
        ToolResultEvent(
            id="t1",
            name="get_labs",
            ok=True,
            summary="1 lab result",
            handles=["L1"],
            total=1,
            rows=[{"handle": "L1", "display": "Hemoglobin A1c", "value": 6.1, "unit": "%"}],
        ),
        *[TextEvent(delta=c) for c in chunks],
        CitationEvent(handle="L1", kind="observation", record_id="obs-1", label="HbA1c 6.1 %"),
        DoneEvent(answer=answer, mode="offline"),
    ]
