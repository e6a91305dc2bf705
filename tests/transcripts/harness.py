"""Playing a conversation through the real loop, registry and SDK against the fake API.

`play(...)` is shared by the replay tests (responder = the transcript's `Replayer`) and by
`make_examples` (responder = the scripted model, recording a new transcript).
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Callable
from typing import Any

from agent.base import AgentRequest, Turn
from agent.events import DoneEvent, Event
from agent.fake_api import FakeMessagesAPI
from agent.llm import ModelClient, ModelConfig, TranscriptRecorder
from agent.loop import ClaudeAgent
from agent.runner import GuardedAgent
from records.database import Database
from tools.catalog import build_registry
from tools.scope import PatientScope


def client_for(api: FakeMessagesAPI, model: str, thinking: str) -> ModelClient:
    return ModelClient(
        ModelConfig.local(api.base_url, max_tokens=2048, timeout_s=10, answer_model=model, thinking=thinking)
    )


def play(
    db: Database,
    api: FakeMessagesAPI,
    *,
    patient_id: str,
    role: str,
    today: str,
    questions: list[str],
    model: str = "claude-sonnet-5-5",
    thinking: str = "auto",
    before_question: Callable[[int], None] | None = None,
    recorders: list[TranscriptRecorder] | None = None,
) -> list[list[Event]]:
    """One conversation; returns each question's events. `recorders` collects the exchanges."""
    client = client_for(api, model, thinking)
    agent = GuardedAgent(ClaudeAgent(client, build_registry(), db, max_iterations=6))
    now = dt.datetime.combine(dt.date.fromisoformat(today), dt.time(12), tzinfo=dt.UTC)
    scope = PatientScope(patient_id=patient_id, role=role, actor="transcript", conversation_id="transcript")

    async def go() -> list[list[Event]]:
        history: list[Turn] = []
        out: list[list[Event]] = []
        try:
            for i, question in enumerate(questions):
                if before_question:
                    before_question(i)
                if recorders is not None:
                    client.recorder = TranscriptRecorder()
                    recorders.append(client.recorder)
                events = [
                    e
                    async for e in agent.run(
                        AgentRequest(scope=scope, question=question, history=history, now=now)
                    )
                ]
                out.append(events)
                done = events[-1]
                if isinstance(done, DoneEvent):
                    history.append(Turn(question=question, answer=done.answer))
        finally:
            await client.close()
        return out

    return asyncio.run(go())


def responses_of(recorders: list[TranscriptRecorder]) -> list[list[Any]]:
    return [r.exchanges for r in recorders]
