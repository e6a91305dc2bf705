"""What every agent (Claude loop, offline planner, guardrail short-circuit) accepts and yields."""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator
from typing import Any, Protocol

from pydantic import BaseModel, Field

from agent.events import Event
from tools.scope import PatientScope


class Turn(BaseModel):
    """A previous question and its answer in the same conversation (for follow-ups)."""

    question: str
    answer: str


class AgentRequest(BaseModel):
    scope: PatientScope
    question: str
    history: list[Turn] = Field(default_factory=list)
    # section/record scope chosen in the UI (issue 11): {"section": "labs"} or {"record": {...}}
    ask_scope: dict[str, Any] | None = None
    now: dt.datetime | None = None  # pinned "now" for evaluations; None = wall clock


class Agent(Protocol):
    def run(self, request: AgentRequest) -> AsyncIterator[Event]:
        """Yield events; the last one is exactly one DoneEvent or ErrorEvent."""
        ...
