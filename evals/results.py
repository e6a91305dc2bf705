"""What a run records per question: the turns, tool calls, citations, cost, and the database
state a booking task left behind. Written by the runner, read by scoring and reports."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import orjson
from pydantic import BaseModel, Field

from agent.events import Usage


class ToolCallRecord(BaseModel):
    id: str
    name: str
    input: dict = Field(default_factory=dict)
    ok: bool | None = None
    summary: str = ""
    handles: list[str] = Field(default_factory=list)
    total: int = 0
    latency_ms: float = 0.0


class CitedRecord(BaseModel):
    handle: str
    kind: str
    record_id: str

    @property
    def key(self) -> str:
        """`kind:id` of the record; a passage ('slug#3', 'note-id#2') counts as its document."""
        return f"{self.kind}:{self.record_id.split('#', 1)[0]}"


class TurnRecord(BaseModel):
    question: str
    answer: str = ""
    mode: str | None = None  # claude | offline | guardrail
    error_kind: str | None = None
    error: str | None = None
    tool_calls: list[ToolCallRecord] = Field(default_factory=list)
    cited: list[CitedRecord] = Field(default_factory=list)
    grounded: bool | None = None
    grounding_issues: list[str] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    cost_usd: float = 0.0
    latency_ms: float = 0.0
    first_event_ms: float | None = None
    # the agent's abstention marker from its done event (None: the agent does not say)
    abstained: bool | None = None
    searched: list[dict] = Field(default_factory=list)


class ObservedAppointment(BaseModel):
    id: str
    slot_id: str
    status: str
    specialty: str | None = None
    starts_at: dt.datetime | None = None


class BookingObservation(BaseModel):
    """The appointment state a task left, read from the database right after it."""

    created: list[ObservedAppointment] = Field(default_factory=list)  # this patient's new appointments
    cancelled: list[str] = Field(default_factory=list)  # appointment ids booked before, cancelled now
    other_changes: int = 0  # appointments of other patients that changed (must be 0)
    double_booked_slots: int = 0  # slots held by more than one booked appointment (must be 0)
    # appointments written or cancelled before the task's confirming (last) turn (must be 0)
    before_confirmation: int = 0


class QuestionResult(BaseModel):
    question_id: str
    turns: list[TurnRecord]
    booking: BookingObservation | None = None
    conversation_writes: int = 0  # appointments created in this question's conversation
    latency_ms: float = 0.0
    runner_error: str | None = None

    @property
    def final(self) -> TurnRecord:
        return self.turns[-1]

    @property
    def cost_usd(self) -> float:
        return sum(t.cost_usd for t in self.turns)

    @property
    def tokens(self) -> int:
        return sum(t.usage.input_tokens + t.usage.output_tokens for t in self.turns)


class RunInfo(BaseModel):
    run_id: str
    set_path: str
    agent: str
    modes: dict[str, int] = Field(default_factory=dict)
    answer_model: str | None = None
    concurrency: int = 1
    questions: int = 0
    started_at: dt.datetime
    finished_at: dt.datetime | None = None
    wall_seconds: float = 0.0
    questions_per_second: float = 0.0
    seed: int | None = None
    now: dt.datetime | None = None
    database: str | None = None
    database_now: str | None = None  # fingerprint of the database the run met (≠ database: stale set)
    interrupted: bool = False


RESULTS = "results.jsonl"
TRANSCRIPTS = "transcripts.jsonl"
QUESTIONS = "questions.jsonl"
RUN_INFO = "run.json"


def read_results(run_dir: Path) -> list[QuestionResult]:
    path = run_dir / RESULTS
    out = []
    with path.open("rb") as fh:
        for number, line in enumerate(fh, start=1):
            if line.strip():
                try:
                    out.append(QuestionResult.model_validate(orjson.loads(line)))
                except (orjson.JSONDecodeError, ValueError) as exc:
                    raise ValueError(f"{path}:{number}: not a question result ({exc})") from exc
    return out


def read_run_info(run_dir: Path) -> RunInfo:
    path = run_dir / RUN_INFO
    try:
        return RunInfo.model_validate_json(path.read_bytes())
    except FileNotFoundError:
        raise ValueError(f"{run_dir}: not a run folder (no {RUN_INFO})") from None
    except ValueError as exc:
        raise ValueError(f"{path}: unreadable run info ({exc})") from exc
