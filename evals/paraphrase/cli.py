"""`chartside eval paraphrase`: the paraphrase suite on the loaded cohort, offline planner."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.table import Table
from sqlalchemy import text

from chartside.console import console, fail, reporting
from chartside.groups import bench_app, eval_app
from evals.agents import AgentUnavailable, build_eval_agent, load_embedder
from evals.paraphrase.run import Summary, run_suite
from evals.paraphrase.suite import BANKS, TUNING, build_suite, reference_now
from evals.truth import read_record
from records.database import open_database
from records.settings import get_settings

# one part per bank (tune and every held-out `frozen*.py` found), and `all` of them
PARTS = {**{name: (name,) for name in BANKS}, "all": tuple(BANKS)}


def _table(summary: Summary, key: str, title: str) -> Table:
    table = Table(
        key, "n", "accuracy", "consistency", "confident false negatives", "gate misses", "planner misses",
        title=title,
    )  # fmt: skip
    for name, n, acc, cons, fn, gate, planner in summary.table(key):
        table.add_row(
            name, str(n), f"{acc * 100:.1f}%", f"{cons * 100:.1f}%", str(fn), str(gate), str(planner)
        )
    gate, planner = summary.misses(summary.outcomes)
    table.add_row(
        "[bold]overall[/]",
        str(len(summary.outcomes)),
        f"{summary.accuracy * 100:.1f}%",
        f"{summary.consistency() * 100:.1f}%",
        str(len(summary.false_negatives)),
        str(gate),
        str(planner),
    )
    return table


def _split_tables(summary: Summary) -> list[Table]:
    """Consistency diagnostics: for tuning parts, each minority template (id, family, an example,
    the answers it gave against the majority); for held-out parts, per fact kind only the number of
    split facts and the kinds of minority answer (never a held-out line)."""
    tune = [s for s in summary.splits() if s.part in TUNING]
    held = [s for s in summary.splits() if s.part not in TUNING]
    tables = []
    if tune:
        t = Table("kind", "template", "family", "split facts", "majority", "minority answers", "example",
                  title="Consistency splits, tuning parts: the minority templates")  # fmt: skip
        for s in tune:
            answers = ", ".join(f"{k}×{n}" for k, n in sorted(s.answers.items()))
            t.add_row(s.kind, s.template, s.family, str(s.facts), s.majority, answers, s.example)
        tables.append(t)
    if held:
        agg: dict[tuple[str, str], dict[str, int]] = {}
        facts: dict[tuple[str, str], int] = {}
        for s in held:
            key = (s.part, s.kind)
            facts[key] = facts.get(key, 0) + s.facts
            for k, n in s.answers.items():
                agg.setdefault(key, {})[k] = agg.setdefault(key, {}).get(k, 0) + n
        t = Table("part", "kind", "minority answers (facts × templates)", "minority answer kinds",
                  title="Consistency splits, held-out parts (aggregates only)")  # fmt: skip
        for (part, kind), answers in sorted(agg.items()):
            kinds = ", ".join(f"{k}×{n}" for k, n in sorted(answers.items()))
            t.add_row(part, kind, str(facts[(part, kind)]), kinds)
        tables.append(t)
    return tables


def _records(db, patients: int, now) -> list:
    """The evaluation's reading of the first N patients (all when 0); fails when there are none."""
    with db.admin.connect() as conn:
        ids = [r[0] for r in conn.execute(text("SELECT patient_id FROM patients ORDER BY patient_id"))]
        ids = ids[:patients] if patients else ids
        records = [r for pid in ids if (r := read_record(conn, pid, now)) is not None]
    if not records:
        raise fail("no patients in the database; run `chartside up` or `chartside eval demo` first")
    return records


@eval_app.command("paraphrase")
def paraphrase_command(
    part: str = typer.Option("tune", "--part", help="tune, a held-out part (frozen, frozen2, …) or all"),
    patients: int = typer.Option(0, "--patients", help="First N patients (0 = all)."),
    out: Path | None = typer.Option(None, "--out", help="Write every answer and grade here (JSONL)."),
) -> None:
    """Many phrasings of the same facts: accuracy, consistency and confident false negatives."""
    if part not in PARTS:
        raise fail(f"--part must be one of {', '.join(PARTS)}")
    settings = get_settings()
    db = open_database(settings)
    now = reference_now()
    try:
        records = _records(db, patients, now)
        suite = build_suite(records, parts=PARTS[part])
        try:
            agent = build_eval_agent("offline", settings, db, embedder=load_embedder(settings))
        except AgentUnavailable as exc:
            raise fail(str(exc)) from exc
        facts = len(suite.facts)
        console.print(
            f"{len(suite.questions)} questions over {facts} facts of {len(records)} patients ({part})"
        )
        with reporting("asking") as report_progress:
            summary = run_suite(agent, suite, now, progress=report_progress)
        console.print(_table(summary, "family", "By phrasing family"))
        console.print(_table(summary, "kind", "By fact kind"))
        if part == "all":
            console.print(_table(summary, "part", "Tuning vs held-out parts"))
        for name in PARTS[part]:
            facts, differ, same_split = summary.request_splits(
                [o for o in summary.outcomes if o.question.part == name]
            )
            console.print(
                f"{name}: of {facts} facts, {differ} were asked in wordings that made different look-ups; "
                f"{same_split} got different verdicts from the same look-ups"
            )
        for table in _split_tables(summary):
            console.print(table)
        if out is not None:
            with out.open("w") as f:
                for o in summary.outcomes:
                    row = {
                        "fact": o.question.fact.fact_id,
                        "template": o.question.template if o.question.part in TUNING else None,
                        "kind": o.question.fact.kind,
                        "part": o.question.part,
                        "family": o.question.family,
                        "question": o.question.text,
                        "expected": o.question.fact.expected,
                        "verdict": o.grade.verdict,
                        "correct": o.grade.correct,
                        "false_negative": o.grade.false_negative,
                        "gate": o.gate,
                        "cause": o.cause,
                        "lookups": [list(call) for call in o.lookups],
                        "answer": o.answer,
                    }
                    f.write(json.dumps(row) + "\n")
            console.print(f"answers: {out}")
    finally:
        db.dispose()


@eval_app.command("hunt")
def hunt_command(
    patients: int = typer.Option(0, "--patients", help="First N patients (0 = all)."),
    out: Path | None = typer.Option(None, "--out", help="Write every ask and answer here (JSONL)."),
) -> None:
    """The false-negative hunt: every concept each record holds asked in the grammar's wordings
    (no answer may deny it), and things it does not hold (each must get an honest no)."""
    from evals.paraphrase.grade import lead_of
    from evals.paraphrase.hunt import run_hunt

    settings = get_settings()
    db = open_database(settings)
    now = reference_now()
    try:
        records = _records(db, patients, now)
        try:
            agent = build_eval_agent("offline", settings, db, embedder=load_embedder(settings))
        except AgentUnavailable as exc:
            raise fail(str(exc)) from exc
        with reporting("asking") as advance:
            result = run_hunt(agent, records, now, progress=advance)
        table = Table("kind", "asked", "failed", title="False-negative hunt")
        for kind, n, failed in result.by_kind():
            table.add_row(kind, str(n), str(failed))
        table.caption = (
            f"{len(result.answers)} asked over {len(records)} patients; held and denied: {len(result.denials)}; "
            f"absent without an honest no: {len(result.dishonest)}"
        )
        console.print(table)
        for ask, answer in (result.denials + result.dishonest)[:40]:
            console.print(f"- [{ask.kind}] {ask.question} → {lead_of(answer)}")
        if out is not None:
            with out.open("w") as f:
                for ask, answer in result.answers:
                    row = {"patient": ask.patient_id, "kind": ask.kind, "concept": ask.concept,
                           "question": ask.question, "held": ask.held, "answer": answer}  # fmt: skip
                    f.write(json.dumps(row) + "\n")
            console.print(f"answers: {out}")
    finally:
        db.dispose()


@eval_app.command("hospital")
def hospital_command(
    part: str = typer.Option("all", "--part", help="main | holdout | all"),
    out: Path | None = typer.Option(None, "--out", help="Write every answer here (JSONL)."),
) -> None:
    """The frozen hospital-information questions: how many reach the leaflet search and cite a leaflet."""
    from evals.paraphrase.hospital import PARTS as HOSPITAL_PARTS
    from evals.paraphrase.hospital import HospitalQuestionsError, ask_all, load_questions

    files = list(HOSPITAL_PARTS.values()) if part == "all" else [HOSPITAL_PARTS.get(part)]
    if None in files:
        raise fail("--part must be main, holdout or all")

    settings = get_settings()
    db = open_database(settings)
    now = reference_now()
    try:
        try:
            questions = [q for path in files if path is not None for q in load_questions(path)]
        except HospitalQuestionsError as exc:
            raise fail(str(exc)) from exc
        patient = _records(db, 1, now)[0].patient.patient_id
        try:
            agent = build_eval_agent("offline", settings, db, embedder=load_embedder(settings))
        except AgentUnavailable as exc:
            raise fail(str(exc)) from exc
        with reporting("asking") as advance:
            outcomes = ask_all(agent, patient, questions, now, progress=advance)
        table = Table(
            "topic", "question", "reached leaflets", "cites a leaflet", "lookups", title="Hospital questions"
        )
        for o in outcomes:
            table.add_row(
                o.question.topic,
                o.question.text,
                "yes" if o.reached else "NO",
                "yes" if o.answered else "no",
                ", ".join(dict.fromkeys(o.tools)) or "-",
            )
        reached = sum(o.reached for o in outcomes)
        answered = sum(o.answered for o in outcomes)
        n = len(outcomes)
        table.caption = (
            f"reached the leaflet search: {reached}/{n}; answered citing a leaflet: {answered}/{n}"
        )
        console.print(table)
        if out is not None:
            with out.open("w") as f:
                for o in outcomes:
                    row = {"topic": o.question.topic, "question": o.question.text, "reached": o.reached,
                           "answered": o.answered, "tools": list(o.tools), "answer": o.answer}  # fmt: skip
                    f.write(json.dumps(row) + "\n")
            console.print(f"answers: {out}")
    finally:
        db.dispose()


@bench_app.command("offline")
def bench_offline_command(
    patients: int = typer.Option(0, "--patients", help="First N patients (0 = all)."),
    limit: int = typer.Option(600, "--limit", help="Most suite questions to time (plus the quoted ones)."),
) -> None:
    """Offline answer latency on the loaded cohort: p50/p95 with and without embedding time."""
    from evals.paraphrase.bench import QUOTED, TimedEmbedder, measure, print_report

    settings = get_settings()
    db = open_database(settings)
    now = reference_now()
    try:
        records = _records(db, patients, now)
        suite = build_suite(records, parts=("tune",))
        asks = [(q.fact.patient_id, q.fact.role, q.text) for q in suite.questions[:limit]]
        asks += [(records[n % len(records)].patient.patient_id, "patient", q) for n, q in enumerate(QUOTED)]
        inner = load_embedder(settings)
        embedder = TimedEmbedder(inner) if inner is not None else None
        agent = build_eval_agent("offline", settings, db, embedder=embedder)
        measure(agent, embedder, asks[:20], now)  # warm-up: model session, caches, connections
        console.print(f"timing {len(asks)} questions over {len(records)} patients")
        totals, planner, tools = measure(agent, embedder, asks, now)
        print_report(totals, planner, tools)
    finally:
        db.dispose()


def register(app: typer.Typer) -> None:
    """The commands register themselves on `chartside eval` / `chartside bench` when imported."""
