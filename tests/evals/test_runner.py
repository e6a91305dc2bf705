"""Runs end to end with scripted agents: the oracle scores full marks, planted wrong answers and
booking lies are caught, and the database is left exactly as it was."""

from __future__ import annotations

import asyncio
from pathlib import Path

from sqlalchemy import text

from agent.events import DoneEvent, TextEvent
from evals.db_state import StateGuard
from evals.generate import GenerateOptions, generate
from evals.model import QuestionSet, write_set
from evals.pipeline import report_runs, run_set
from evals.results import read_results
from evals.runner import RunSettings, ask
from tests.evals.agents import OracleAgent
from tests.evals.cohort import NOW


def _set(db, tmp_path: Path, **kw) -> tuple[Path, QuestionSet]:
    header, questions = generate(db, GenerateOptions(seed=7, now=NOW, **kw))
    path = tmp_path / "set.jsonl"
    write_set(path, header, questions)
    return path, QuestionSet(header=header, questions=questions)


def _state(db) -> list:
    with db.admin.connect() as conn:
        appts = conn.execute(
            text("SELECT patient_id, id, status, slot_id FROM appointments ORDER BY 1, 2")
        ).all()
        slots = conn.execute(
            text(
                "SELECT id, booked_appointment_id FROM appointment_slots WHERE booked_appointment_id IS NOT NULL ORDER BY 1"
            )
        ).all()
        offered = conn.execute(text("SELECT count(*) FROM offered_slots")).scalar_one()
        notes = conn.execute(text("SELECT count(*) FROM clinical_notes")).scalar_one()
    return [appts, slots, offered, notes]


def _run(db, tmp_path, question_set, set_path, agent, name="run", concurrency=3):
    run_dir = tmp_path / name
    run_set(
        agent,
        db,
        set_path,
        question_set,
        run_dir,
        agent_name="scripted",
        run_id=name,
        concurrency=concurrency,
    )
    return run_dir


def test_oracle_scores_full_marks_and_state_is_restored(cohort_db, tmp_path):
    set_path, question_set = _set(cohort_db, tmp_path)
    before = _state(cohort_db)
    run_dir = _run(
        cohort_db, tmp_path, question_set, set_path, OracleAgent(question_set.questions, cohort_db)
    )
    assert _state(cohort_db) == before  # bookings, cancellations and planted notes all undone
    files, report, _ = report_runs([run_dir])
    assert files.markdown.exists() and files.json.exists()
    assert files.chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    misses = [(f["question_id"], f["why"]) for f in report["failures"]]
    assert report["overall"]["accuracy"] == 1.0, misses
    assert report["safety"]["count"] == 0
    assert report["by_category"]["booking"]["verdicts"]["correct"] == report["by_category"]["booking"]["n"]
    assert report["run"]["questions_per_second"] > 0
    assert report["overall"]["recall"] == 1.0
    md = files.markdown.read_text()
    assert md.index("## Safety") < md.index("## By category")
    assert "questions/s" in md


def test_planted_wrong_answer_is_scored_wrong(cohort_db, tmp_path):
    set_path, question_set = _set(cohort_db, tmp_path)
    target = next(q for q in question_set.questions if q.template == "latest_value" and q.role == "patient")
    wrong = f"The value was {target.expected.value + 3:g}."
    agent = OracleAgent(
        question_set.questions, cohort_db, override=lambda q: wrong if q.id == target.id else None
    )
    run_dir = _run(cohort_db, tmp_path, question_set, set_path, agent)
    _, report, runs = report_runs([run_dir])
    graded = {s.question.id: s.grade for s in runs[0].scored}
    assert graded[target.id].verdict == "wrong" and graded[target.id].utility == -1.0
    assert [f["question_id"] for f in report["failures"]] == [target.id]
    assert report["overall"]["accuracy"] < 1.0


def test_booking_grader_reads_the_database_not_the_transcript(cohort_db, tmp_path):
    set_path, question_set = _set(cohort_db, tmp_path, categories=("booking",))
    liar = OracleAgent(
        question_set.questions, cohort_db, book=False, override=lambda q: "Booked and cancelled as asked!"
    )
    run_dir = _run(cohort_db, tmp_path, question_set, set_path, liar, name="liar")
    _, _, runs = report_runs([run_dir])
    verdicts = {s.question.template: s.grade.verdict for s in runs[0].scored}
    assert verdicts["book_in_window"] == "abstained"  # it said "booked"; the database says otherwise
    assert verdicts["cancel_appointment"] == "abstained"
    # nothing changed, but "booked" is not telling the user there was no slot (issue 15)
    assert verdicts["book_without_slots"] == "abstained"
    silent = OracleAgent(question_set.questions, cohort_db, override=lambda q: "…")
    run_dir = _run(cohort_db, tmp_path, question_set, set_path, silent, name="silent")
    _, _, runs = report_runs([run_dir])
    # it said nothing useful, but the database is right: full marks wherever the database is the answer
    for s in runs[0].scored:
        expected = "abstained" if s.question.template == "book_without_slots" else "correct"
        assert s.grade.verdict == expected, (s.question.template, s.grade.detail)


class EagerAgent(OracleAgent):
    """Books (or cancels) on the request turn, before the user confirms: the contract broken."""

    async def run(self, request):
        first = {(q.patient_id, q.role, q.turns[0]): q for q in self.by_turn.values() if len(q.turns) > 1}
        question = first.get((request.scope.patient_id, request.scope.role, request.question))
        if question is not None and not request.history and question.expected.type == "booking":
            self._act(question, request.scope.conversation_id)
        answer = "Done, as you asked." if request.history else "Booked it straight away."
        yield TextEvent(delta=answer)
        yield DoneEvent(answer=answer, mode="offline")


def test_a_write_before_the_confirming_turn_is_wrong_and_a_safety_failure(cohort_db, tmp_path):
    set_path, question_set = _set(cohort_db, tmp_path, categories=("booking",))
    before = _state(cohort_db)
    run_dir = _run(cohort_db, tmp_path, question_set, set_path, EagerAgent(question_set.questions, cohort_db))
    assert _state(cohort_db) == before
    _, _, runs = report_runs([run_dir])
    eager = [s for s in runs[0].scored if s.question.template in ("book_in_window", "cancel_appointment")]
    assert eager and all(s.grade.verdict == "wrong" and s.grade.safety_failure for s in eager), [
        (s.question.template, s.grade.detail) for s in eager
    ]
    assert all("before the user confirmed" in s.grade.detail for s in eager)


def test_unrequested_booking_on_a_read_question_is_a_safety_failure_and_undone(cohort_db, tmp_path):
    set_path, question_set = _set(cohort_db, tmp_path, categories=("lookup",))
    question = next(q for q in question_set.questions if q.template == "birth_date")
    single = QuestionSet(header=question_set.header, questions=[question])

    class Rogue(OracleAgent):
        async def run(self, request):
            with cohort_db.admin.begin() as conn:
                conn.execute(
                    text("SELECT set_config('app.patient_id', :p, true)"), {"p": request.scope.patient_id}
                )
                slot = conn.execute(
                    text("SELECT id FROM appointment_slots WHERE booked_appointment_id IS NULL LIMIT 1")
                ).scalar_one()
                conn.execute(
                    text(
                        "INSERT INTO appointments (patient_id, id, slot_id, status, idempotency_key, conversation_id) "
                        "VALUES (:p, 'rogue', :s, 'booked', 'rogue', :c)"
                    ),
                    {"p": request.scope.patient_id, "s": slot, "c": request.scope.conversation_id},
                )
                conn.execute(
                    text("UPDATE appointment_slots SET booked_appointment_id = 'rogue' WHERE id = :s"),
                    {"s": slot},
                )
            async for event in super().run(request):
                yield event

    before = _state(cohort_db)
    run_dir = _run(cohort_db, tmp_path, single, set_path, Rogue([question]))
    assert _state(cohort_db) == before
    _, report, _ = report_runs([run_dir])
    assert report["safety"]["count"] == 1
    assert "nobody asked for" in report["safety"]["failures"][0]["why"]


def test_comparison_lists_regressions_and_min_score_gate(cohort_db, tmp_path):
    set_path, question_set = _set(cohort_db, tmp_path, categories=("lookup", "negation"))
    good = _run(
        cohort_db,
        tmp_path,
        question_set,
        set_path,
        OracleAgent(question_set.questions, cohort_db),
        name="good",
    )
    worse_ids = {q.id for q in question_set.questions if q.template == "birth_date"}
    bad_agent = OracleAgent(
        question_set.questions, cohort_db, override=lambda q: "On 1999-01-01." if q.id in worse_ids else None
    )
    bad = _run(cohort_db, tmp_path, question_set, set_path, bad_agent, name="bad")
    files, comp, _ = report_runs([good, bad], tmp_path / "cmp")
    assert {r["question_id"] for r in comp["regressions"]} == worse_ids
    assert files.markdown.name == "compare.md" and "Regressions (" in files.markdown.read_text()


def test_multi_turn_questions_share_one_conversation_with_history(cohort_db, tmp_path):
    _, question_set = _set(cohort_db, tmp_path)
    question = next(q for q in question_set.questions if q.multi_turn)
    seen = []

    class Recorder(OracleAgent):
        async def run(self, request):
            seen.append(
                (
                    request.scope.conversation_id,
                    request.scope.message_id,
                    [t.question for t in request.history],
                    request.now,
                )
            )
            async for event in super().run(request):
                yield event

    result, transcript = asyncio.run(ask(Recorder([question]), question, RunSettings(run_id="r")))
    assert len(seen) == len(question.turns) == len(result.turns)
    assert len({c for c, *_ in seen}) == 1 and len({m for _, m, *_ in seen}) == len(seen)
    assert seen[-1][2] == list(question.turns[:-1])
    assert all(now == question.now for *_, now in seen)
    assert len(transcript["turns"]) == len(question.turns)


def test_agent_errors_and_hangs_are_results_not_crashes(cohort_db, tmp_path):
    set_path, question_set = _set(cohort_db, tmp_path, categories=("lookup",))
    questions = question_set.questions[:2]

    class Broken:
        async def run(self, request):
            raise RuntimeError("boom")
            yield  # pragma: no cover

    run_dir = tmp_path / "broken"
    run_set(
        Broken(),
        cohort_db,
        set_path,
        QuestionSet(header=question_set.header, questions=questions),
        run_dir,
        agent_name="broken",
        run_id="b",
    )
    results = read_results(run_dir)
    assert [r.final.error_kind for r in results] == ["exception", "exception"]
    _, report, _ = report_runs([run_dir])
    assert report["overall"]["verdicts"]["error"] == 2


def test_state_guard_restores_a_cancelled_existing_appointment(cohort_db, tmp_path):
    _, question_set = _set(cohort_db, tmp_path, categories=("booking",))
    cancel = next(q for q in question_set.questions if q.template == "cancel_appointment")
    guard = StateGuard(cohort_db)
    before = _state(cohort_db)
    guard.apply_setups(cancel)
    snap = guard.snapshot(cancel.patient_id)
    with cohort_db.admin.begin() as conn:
        conn.execute(
            text("UPDATE appointments SET status='cancelled' WHERE id = :id"),
            {"id": cancel.expected.appointment_id},
        )
        conn.execute(
            text(
                "UPDATE appointment_slots SET booked_appointment_id = NULL WHERE booked_appointment_id = :id"
            ),
            {"id": cancel.expected.appointment_id},
        )
    observed = guard.observe(snap)
    assert observed.cancelled == [cancel.expected.appointment_id] and not observed.created
    guard.restore(snap, "conv")
    assert guard.observe(snap).cancelled == []
    guard.undo_setups(cancel)
    assert _state(cohort_db) == before


def test_a_stale_set_is_flagged_in_the_report(cohort_db, tmp_path):
    set_path, question_set = _set(cohort_db, tmp_path, categories=("lookup",))
    with cohort_db.admin.begin() as conn:
        conn.execute(text("SELECT set_config('app.patient_id', 'pat-bob', true)"))
        conn.execute(
            text(
                "INSERT INTO encounters (patient_id, id, status, start) VALUES ('pat-bob', 'late', 'finished', now())"
            )
        )
    run_dir = _run(
        cohort_db, tmp_path, question_set, set_path, OracleAgent(question_set.questions, cohort_db)
    )
    files, report, _ = report_runs([run_dir])
    assert report["run"]["database_now"] != report["set"]["database"]
    assert "the records changed after the set was generated" in files.markdown.read_text()
