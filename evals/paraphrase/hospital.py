"""The frozen hospital-information questions: how many reach the leaflet search.

`evals/data/hospital_questions.yaml` was written before the round-three routing changes, in
patients' words rather than our leaflets', so it measures routing on questions the planner
was not fitted to. Each question is asked as a patient through the agent the server builds;
it *reached* the leaflets when the answer's lookups include `search_leaflets`, and it was
*answered* from them when the answer cites a leaflet passage ([K…]).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from agent.base import AgentRequest
from agent.events import DoneEvent, ErrorEvent, ToolCallEvent
from tools.scope import PatientScope

DATA = Path(__file__).resolve().parents[1] / "data"
QUESTIONS_FILE = DATA / "hospital_questions.yaml"
# "main": written before the routing change and measured on before and after it; "holdout":
# written after the first measurement, before the change, never looked at while changing it
PARTS = {"main": QUESTIONS_FILE, "holdout": DATA / "hospital_questions_holdout.yaml"}
FORMAT = "chartside.hospital-questions/1"
_LEAFLET_HANDLE = re.compile(r"\[K\d+\]")


class HospitalQuestionsError(ValueError):
    """The questions file is malformed (the message names the entry and field)."""


@dataclass(frozen=True)
class HospitalQuestion:
    topic: str
    text: str


@dataclass(frozen=True)
class HospitalOutcome:
    question: HospitalQuestion
    reached: bool  # search_leaflets was called while answering
    answered: bool  # the answer cites a leaflet passage
    tools: tuple[str, ...]
    answer: str


def load_questions(path: Path = QUESTIONS_FILE) -> list[HospitalQuestion]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise HospitalQuestionsError(f"{path}: 'format' must be {FORMAT!r}")
    out = []
    for n, entry in enumerate(data.get("questions") or [], start=1):
        if not isinstance(entry, dict) or not isinstance(entry.get("q"), str) or not entry["q"].strip():
            raise HospitalQuestionsError(f"{path}: question {n}: field 'q' must be a non-empty string")
        out.append(HospitalQuestion(str(entry.get("topic") or ""), entry["q"].strip()))
    if not out:
        raise HospitalQuestionsError(f"{path}: 'questions' is empty")
    return out


def ask_all(
    agent: Any,
    patient_id: str,
    questions: list[HospitalQuestion],
    now: dt.datetime,
    *,
    on_done: Callable[[], None] | None = None,
) -> list[HospitalOutcome]:
    """Every question as the patient asks it, one conversation each."""

    async def main() -> list[HospitalOutcome]:
        out = []
        for n, q in enumerate(questions):
            scope = PatientScope(
                patient_id=patient_id,
                role="patient",
                actor="eval:hospital",
                conversation_id=f"hospital-{n}",
                message_id=f"hospital-{n}",
            )
            answer, tools = "", []
            async for event in agent.run(AgentRequest(scope=scope, question=q.text, now=now)):
                if isinstance(event, ToolCallEvent):
                    tools.append(event.name)
                elif isinstance(event, DoneEvent):
                    answer = event.answer
                elif isinstance(event, ErrorEvent):
                    answer = ""
            out.append(
                HospitalOutcome(
                    q, "search_leaflets" in tools, bool(_LEAFLET_HANDLE.search(answer)), tuple(tools), answer
                )
            )
            if on_done:
                on_done()
        return out

    return asyncio.run(main())
