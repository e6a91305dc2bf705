"""Running a question set through an agent, the way the server does, and recording everything.

Each question is its own conversation (its own conversation id, a message id per turn, the
earlier turns passed as history) and goes through the same `Agent.run` the server streams.
Read-only questions run `concurrency` at a time; questions that change the database
(booking tasks, planted setups) then run one at a time with setup → task → observation →
restore, so every one starts from the same state and none can disturb another.

Results are appended as each question finishes, so an interrupted run keeps what it did.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import orjson

from agent.base import AgentRequest, Turn
from agent.events import (
    CitationEvent,
    DoneEvent,
    ErrorEvent,
    Event,
    ToolCallEvent,
    ToolResultEvent,
)
from evals.db_state import StateGuard
from evals.model import Question, QuestionSet, write_set
from evals.results import (
    QUESTIONS,
    RESULTS,
    RUN_INFO,
    TRANSCRIPTS,
    CitedRecord,
    QuestionResult,
    RunInfo,
    ToolCallRecord,
    TurnRecord,
)
from tools.scope import PatientScope

DEFAULT_TURN_TIMEOUT_S = 180.0
STALE_FILES = (
    "judge.jsonl",
    "report.md",
    "report.json",
    "report.png",
    "compare.md",
    "compare.json",
    "compare.png",
)


class RunsAgent(Protocol):
    def run(self, request: AgentRequest) -> AsyncIterator[Event]: ...


@dataclass
class RunSettings:
    run_id: str
    concurrency: int = 4
    turn_timeout_s: float = DEFAULT_TURN_TIMEOUT_S


@dataclass
class _Output:
    """Append-only files of a run folder (results and transcripts), flushed per question."""

    run_dir: Path
    results: Any = None
    transcripts: Any = None

    def __enter__(self) -> _Output:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.results = (self.run_dir / RESULTS).open("wb")
        self.transcripts = (self.run_dir / TRANSCRIPTS).open("wb")
        return self

    def rewrite_results(self, results: list[QuestionResult]) -> None:
        """Results found to have written after the fact (the post-read sweep): write them all again."""
        self.results.seek(0)
        self.results.truncate()
        for result in results:
            self.results.write(orjson.dumps(result.model_dump(mode="json")) + b"\n")
        self.results.flush()

    def write(self, result: QuestionResult, transcript: dict[str, Any]) -> None:
        self.results.write(orjson.dumps(result.model_dump(mode="json")) + b"\n")
        self.results.flush()
        self.transcripts.write(orjson.dumps(transcript, default=str) + b"\n")
        self.transcripts.flush()

    def __exit__(self, *exc: object) -> None:
        self.results.close()
        self.transcripts.close()


@dataclass
class RunOutcome:
    results: list[QuestionResult] = field(default_factory=list)
    wall_seconds: float = 0.0
    modes: Counter = field(default_factory=Counter)

    @property
    def questions_per_second(self) -> float:
        return len(self.results) / self.wall_seconds if self.wall_seconds > 0 else 0.0


def _ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000, 3)


async def _consume(
    agent: RunsAgent, request: AgentRequest, timeout_s: float
) -> tuple[TurnRecord, list[dict]]:
    """Drive one turn; every event is kept for the transcript, the rest summarised."""
    turn = TurnRecord(question=request.question)
    events: list[dict] = []
    calls: dict[str, ToolCallRecord] = {}
    started = time.perf_counter()

    async def drive() -> None:
        async for event in agent.run(request):
            if turn.first_event_ms is None:
                turn.first_event_ms = _ms(started)
            events.append(event.model_dump(mode="json"))
            if isinstance(event, ToolCallEvent):
                calls[event.id] = ToolCallRecord(id=event.id, name=event.name, input=event.input)
            elif isinstance(event, ToolResultEvent):
                call = calls.setdefault(event.id, ToolCallRecord(id=event.id, name=event.name))
                call.ok, call.summary, call.handles = event.ok, event.summary, list(event.handles)
                call.total, call.latency_ms = event.total, event.latency_ms
            elif isinstance(event, CitationEvent):
                turn.cited.append(
                    CitedRecord(handle=event.handle, kind=event.kind, record_id=event.record_id)
                )
            elif isinstance(event, DoneEvent):
                turn.answer, turn.mode = event.answer, event.mode
                turn.abstained = event.abstained
                turn.searched = [s.model_dump(mode="json") for s in event.searched]
                turn.usage, turn.cost_usd = event.usage, event.cost_usd
                turn.grounded = event.grounding.grounded
                turn.grounding_issues = [f"{i.kind}: {i.detail}" for i in event.grounding.issues]
            elif isinstance(event, ErrorEvent):
                turn.error_kind, turn.error = event.kind, event.message

    try:
        await asyncio.wait_for(drive(), timeout=timeout_s)
    except TimeoutError:
        turn.error_kind, turn.error = "timeout", f"no answer within {timeout_s:g} s"
    except Exception as exc:  # an agent bug is a result to report, not a reason to stop the run
        turn.error_kind, turn.error = "exception", f"{type(exc).__name__}: {exc}"
    if not turn.answer and turn.error_kind is None and not events:
        turn.error_kind, turn.error = "empty", "the agent produced no events"
    elif turn.error_kind is None and not any(e.get("type") in ("done", "error") for e in events):
        turn.error_kind, turn.error = "incomplete", "the stream ended without a done or error event"
    turn.tool_calls = list(calls.values())
    turn.latency_ms = _ms(started)
    return turn, events


async def ask(
    agent: RunsAgent,
    question: Question,
    settings: RunSettings,
    *,
    between_turns: Callable[[], Awaitable[None]] | None = None,
) -> tuple[QuestionResult, dict]:
    """All turns of one question in one conversation; the last turn is the one graded.
    `between_turns` runs after every turn but the last (a booking task checks there that
    nothing was written before the confirming turn)."""
    conversation = conversation_of(settings, question)
    history: list[Turn] = []
    turns: list[TurnRecord] = []
    transcript: dict[str, Any] = {"question_id": question.id, "conversation_id": conversation, "turns": []}
    started = time.perf_counter()
    for index, text in enumerate(question.turns):
        scope = PatientScope(
            patient_id=question.patient_id,
            role=question.role,
            actor=f"eval:{settings.run_id}",
            conversation_id=conversation,
            message_id=f"{conversation}-m{index}",
            writes="sandbox",  # the harness snapshots the database and undoes every booking
        )
        request = AgentRequest(scope=scope, question=text, history=list(history), now=question.now)
        turn, events = await _consume(agent, request, settings.turn_timeout_s)
        turns.append(turn)
        transcript["turns"].append({"question": text, "events": events})
        history.append(Turn(question=text, answer=turn.answer))
        if between_turns is not None and index < len(question.turns) - 1:
            await between_turns()
    return QuestionResult(question_id=question.id, turns=turns, latency_ms=_ms(started)), transcript


CONVERSATION_PREFIX = "eval-"


def conversation_of(settings: RunSettings, question: Question) -> str:
    """Every question is its own conversation; the run id keeps runs apart in the database."""
    return f"{CONVERSATION_PREFIX}{settings.run_id}-{question.id}"


async def run_questions(
    agent: RunsAgent,
    questions: list[Question],
    guard: StateGuard | None,
    settings: RunSettings,
    *,
    on_result: Callable[[QuestionResult, dict], None] | None = None,
    outcome: RunOutcome | None = None,
    on_rewrite: Callable[[list[QuestionResult]], None] | None = None,
) -> RunOutcome:
    """Read-only questions concurrently, then state-changing ones serially with restore."""
    outcome = outcome if outcome is not None else RunOutcome()
    reads = [q for q in questions if not q.writes]
    writes = [q for q in questions if q.writes]
    started = time.perf_counter()

    def record(result: QuestionResult, transcript: dict) -> None:
        outcome.results.append(result)
        outcome.modes[result.final.mode or result.final.error_kind or "none"] += 1
        outcome.wall_seconds = time.perf_counter() - started
        if on_result is not None:
            on_result(result, transcript)

    queue: asyncio.Queue[Question] = asyncio.Queue()
    for question in reads:
        queue.put_nowait(question)

    async def reader() -> None:
        while True:
            try:
                question = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            result, transcript = await ask(agent, question, settings)
            record(result, transcript)

    await asyncio.gather(*(reader() for _ in range(max(1, settings.concurrency))))
    if guard is not None and reads:
        written = await asyncio.to_thread(
            guard.sweep_conversation_writes,
            [q.patient_id for q in reads],
            f"{CONVERSATION_PREFIX}{settings.run_id}-",
        )
        for result in outcome.results:
            result.conversation_writes = written.get(
                f"{CONVERSATION_PREFIX}{settings.run_id}-{result.question_id}", 0
            )
        if written and on_rewrite is not None:
            on_rewrite(outcome.results)

    for question in writes:
        if guard is None:
            raise RuntimeError("questions that change the database need a StateGuard")
        await asyncio.to_thread(guard.apply_setups, question)
        try:
            before = await asyncio.to_thread(guard.snapshot, question.patient_id)
            early: list[int] = []

            async def check_unconfirmed(before=before, early=early) -> None:
                # the product's contract: nothing is written before the user confirms
                seen = await asyncio.to_thread(guard.observe, before)
                early.append(len(seen.created) + len(seen.cancelled))

            try:
                result, transcript = await ask(
                    agent,
                    question,
                    settings,
                    between_turns=check_unconfirmed if question.expected.type == "booking" else None,
                )
                observed = await asyncio.to_thread(guard.observe, before)
                if question.expected.type == "booking":
                    observed.before_confirmation = max(early, default=0)
                    result.booking = observed
                else:
                    result.conversation_writes = len([a for a in observed.created if a.status == "booked"])
            finally:
                await asyncio.to_thread(guard.restore, before, conversation_of(settings, question))
        finally:
            await asyncio.to_thread(guard.undo_setups, question)
        record(result, transcript)
    outcome.wall_seconds = time.perf_counter() - started
    return outcome


def run_set_to_folder(
    agent: RunsAgent,
    question_set: QuestionSet,
    guard: StateGuard | None,
    settings: RunSettings,
    run_dir: Path,
    *,
    set_path: Path,
    agent_name: str,
    answer_model: str | None = None,
    progress: Callable[[QuestionResult], None] | None = None,
    database_now: str | None = None,
) -> tuple[RunInfo, RunOutcome]:
    """Run and write the run folder: questions, results, transcripts, run.json."""
    run_dir.mkdir(parents=True, exist_ok=True)
    for stale in STALE_FILES:  # a folder reused for a new run must not keep the old run's verdicts
        (run_dir / stale).unlink(missing_ok=True)
    write_set(run_dir / QUESTIONS, question_set.header, question_set.questions)
    info = RunInfo(
        run_id=settings.run_id,
        set_path=str(set_path),
        agent=agent_name,
        answer_model=answer_model,
        concurrency=settings.concurrency,
        questions=len(question_set.questions),
        started_at=dt.datetime.now(dt.UTC),
        seed=question_set.header.seed,
        now=question_set.header.now,
        database=question_set.header.database,
        database_now=database_now,
    )
    outcome = RunOutcome()
    try:
        with _Output(run_dir) as out:

            def on_result(result: QuestionResult, transcript: dict) -> None:
                out.write(result, transcript)
                if progress is not None:
                    progress(result)

            asyncio.run(
                _run_and_close(
                    agent, question_set.questions, guard, settings, on_result, outcome, out.rewrite_results
                )
            )
    except KeyboardInterrupt:
        info.interrupted = True
        raise
    finally:
        info.finished_at = dt.datetime.now(dt.UTC)
        info.wall_seconds = round(outcome.wall_seconds, 3)
        info.questions_per_second = round(outcome.questions_per_second, 3)
        info.modes = dict(outcome.modes)
        (run_dir / RUN_INFO).write_bytes(
            orjson.dumps(info.model_dump(mode="json"), option=orjson.OPT_INDENT_2)
        )
    return info, outcome


async def _run_and_close(
    agent: RunsAgent,
    questions: list[Question],
    guard: StateGuard | None,
    settings: RunSettings,
    on_result: Callable[[QuestionResult, dict], None],
    outcome: RunOutcome,
    on_rewrite: Callable[[list[QuestionResult]], None],
) -> RunOutcome:
    try:
        return await run_questions(
            agent, questions, guard, settings, on_result=on_result, outcome=outcome, on_rewrite=on_rewrite
        )
    finally:
        close = getattr(agent, "aclose", None)
        if close is not None:
            await close()  # the model client's connections belong to this event loop
