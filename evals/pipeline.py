"""The three steps an evaluator runs — generate, run, report — as plain functions.

The CLI (`chartside eval …`) and the tests call these; the CLI only adds argument parsing,
progress bars and tables.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any

from evals.db_state import StateGuard
from evals.generate import GenerateOptions, generate
from evals.judge import Judge, agreement_candidates, needs_judge, read_cache, write_cache
from evals.model import QuestionSet, read_set, write_set
from evals.report import (
    JudgeSummary,
    LoadedRun,
    ReportFiles,
    apply_judge,
    load_run,
    write_comparison,
    write_single,
)
from evals.results import RunInfo
from evals.runner import RunsAgent, RunSettings, run_set_to_folder
from evals.truth import fingerprint
from records.database import Database


def parse_now(value: str | None) -> dt.datetime:
    """A date means noon UTC that day (as the tools read a pinned date); no value means today."""
    if not value:
        today = dt.datetime.now(dt.UTC).date()
        return dt.datetime.combine(today, dt.time(12), tzinfo=dt.UTC)
    try:
        if len(value) == 10:
            return dt.datetime.combine(dt.date.fromisoformat(value), dt.time(12), tzinfo=dt.UTC)
        parsed = dt.datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(f"--now {value!r}: expected YYYY-MM-DD or an ISO date-time") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)


def parse_patients(value: str) -> int | None:
    if value.strip().lower() == "all":
        return None
    try:
        count = int(value)
    except ValueError:
        raise ValueError(f"--patients {value!r}: expected a number or 'all'") from None
    if count < 1:
        raise ValueError("--patients must be at least 1")
    return count


def generate_set_file(
    db: Database, options: GenerateOptions, out: Path, progress: Callable[[int, int], None] | None = None
) -> QuestionSet:
    header, questions = generate(db, options, progress=progress)
    write_set(out, header, questions)
    return QuestionSet(header=header, questions=questions)


def select_questions(
    question_set: QuestionSet, *, limit: int | None = None, categories: tuple[str, ...] = ()
) -> QuestionSet:
    questions = question_set.questions
    if categories:
        questions = [q for q in questions if q.category in set(categories)]
    if limit is not None:
        questions = questions[:limit]
    return QuestionSet(header=question_set.header, questions=questions)


def new_run_id(agent: str) -> str:
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%d-%H%M%S")
    return f"{stamp}-{agent}-{secrets.token_hex(2)}"


def run_set(
    agent: RunsAgent,
    db: Database | None,
    set_path: Path,
    question_set: QuestionSet,
    run_dir: Path,
    *,
    agent_name: str,
    run_id: str,
    concurrency: int = 4,
    answer_model: str | None = None,
    index_note: Any = None,
    progress: Callable[[int, int], None] | None = None,
) -> RunInfo:
    guard = StateGuard(db, index_note=index_note) if db is not None else None
    current = fingerprint(db, question_set.header.patients) if db is not None else None
    info, _ = run_set_to_folder(
        agent,
        question_set,
        guard,
        RunSettings(run_id=run_id, concurrency=concurrency),
        run_dir,
        set_path=set_path,
        agent_name=agent_name,
        answer_model=answer_model,
        progress=progress,
        database_now=current,
    )
    return info


def judge_run(run: LoadedRun, client: Any, model: str, sample: int) -> JudgeSummary:
    """Judge free-text answers and a deterministic sample (cached per run folder and model)."""
    cache = read_cache(run.run_dir, model)
    free = [s for s in run.scored if needs_judge(s) and (s.question.id, "free_text") not in cache]
    check = [s for s in agreement_candidates(run.scored, sample) if (s.question.id, "agreement") not in cache]
    if free or check:

        async def go() -> list:
            judge = Judge(client, model)
            try:
                return await judge.judge_all(free, check)
            finally:
                close = getattr(client, "close", None)
                if close is not None:
                    await close()

        verdicts = asyncio.run(go())
        write_cache(run.run_dir, verdicts)
        cache.update({(v.question_id, v.subset): v for v in verdicts})
    return apply_judge(run, cache, model)


def report_runs(
    run_dirs: list[Path],
    out_dir: Path | None = None,
    *,
    judge_client_factory: Callable[[], Any] | None = None,
    judge_model: str | None = None,
    judge_sample: int = 40,
    baseline_dirs: list[Path] = (),
) -> tuple[ReportFiles, dict[str, Any], list[LoadedRun]]:
    runs = [load_run(d) for d in run_dirs]
    baselines = [load_run(d) for d in baseline_dirs]
    judges: list[JudgeSummary | None] = []
    for run in runs:
        if judge_client_factory is not None and judge_model:
            judges.append(judge_run(run, judge_client_factory(), judge_model, judge_sample))
        else:
            judges.append(None)
    if len(runs) == 1:
        files, report = write_single(runs[0], out_dir or runs[0].run_dir, judges[0], baselines)
    else:
        files, report = write_comparison(runs, out_dir or runs[-1].run_dir, judges)
    return files, report, runs


def read_question_set(path: Path) -> QuestionSet:
    return read_set(path)
