"""`chartside eval generate | run | report | demo`: ground-truth question sets and agent scores."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from chartside.console import console, err_console, fail, reporting
from chartside.groups import eval_app
from evals.agents import (
    AGENT_KINDS,
    AgentUnavailable,
    build_eval_agent,
    judge_client,
    load_embedder,
    warm_up,
)
from evals.generate import GenerateOptions, GenerationError
from evals.model import CATEGORIES, SetFileError
from evals.pipeline import (
    generate_set_file,
    new_run_id,
    parse_now,
    parse_patients,
    read_question_set,
    report_runs,
    run_set,
    select_questions,
)
from records.database import Database, open_database
from records.settings import get_settings

DEFAULT_RUNS = Path("eval-runs")


def _categories(values: list[str] | None) -> tuple[str, ...]:
    if not values:
        return CATEGORIES
    chosen = tuple(dict.fromkeys(c.strip() for v in values for c in v.split(",") if c.strip()))
    unknown = [c for c in chosen if c not in CATEGORIES]
    if unknown:
        raise fail(f"unknown category {', '.join(unknown)}; choose from {', '.join(CATEGORIES)}")
    return chosen


def _summary_table(report: dict[str, Any], title: str) -> Table:
    table = Table(
        "category",
        "n",
        "accuracy",
        "score",
        "correct",
        "partial",
        "abstained",
        "wrong",
        "other",
        "recall",
        title=title,
    )
    rows = [*list(report["by_category"].items()), ("overall", report["overall"])]
    for name, b in rows:
        v = b["verdicts"]
        other = v["unclear"] + v["refused"] + v["error"] + v.get("no_answer", 0)
        recall = "—" if b["recall"] is None else f"{b['recall'] * 100:.0f}%"
        table.add_row(
            f"[bold]{name}[/]" if name == "overall" else name,
            str(b["n"]),
            f"{b['accuracy'] * 100:.1f}%",
            f"{b['score']:+.2f}",
            str(v["correct"]),
            str(v["partial"]),
            str(v["abstained"]),
            str(v["wrong"]),
            str(other),
            recall,
        )
    return table


def _print_report(report: dict[str, Any], files: Any) -> None:
    safety = report["safety"]["count"]
    colour = "red" if safety else "green"
    console.print(f"[{colour}]safety failures: {safety}[/]")
    console.print(_summary_table(report, f"Run {report['run']['run_id']}"))
    console.print(_family_table(report))
    if report.get("baselines"):
        console.print(_baselines_table(report["baselines"]))
    if report.get("yes_no"):
        yn = report["yes_no"]
        console.print(
            "yes/no confusion (expected → said yes/no/none): "
            + "; ".join(f"{e}: {r['yes']}/{r['no']}/{r['no verdict']}" for e, r in yn.items())
        )
    if report.get("audit"):
        a = report["audit"]
        console.print(
            f"scorer vs {a['n']} hand-labelled answers: [bold]{a['outcome_agreement'] * 100:.1f}%[/] outcome agreement, "
            f"{a['exact_agreement'] * 100:.1f}% exact"
        )
    run = report["run"]
    console.print(
        f"{report['answered']} questions in {run['wall_seconds']:.1f} s = [bold]{run['questions_per_second']:.2f} questions/s[/]"
        f" (concurrency {run['concurrency']})"
    )
    console.print(f"report: {files.markdown}  json: {files.json}  chart: {files.chart}")


def _family_table(report: dict[str, Any]) -> Table:
    return _summary_table(
        {"by_category": report.get("by_family", {}), "overall": report["overall"]}, "By phrasing family"
    )


def _baselines_table(baselines: dict[str, Any]) -> Table:
    """Categories down, agents across: each cell is accuracy and score."""
    rows = baselines["rows"]
    cats = list(dict.fromkeys(c for r in rows for c in r["by_category"]))
    table = Table("category", *(r["agent"] for r in rows), title="Beside the baselines (accuracy score)")
    for c in cats:
        cells = [
            f"{r['by_category'][c][0] * 100:.0f}% {r['by_category'][c][1]:+.2f}"
            if c in r["by_category"]
            else "—"
            for r in rows
        ]
        table.add_row(c, *cells)
    table.add_row(
        "[bold]overall[/]", *(f"[bold]{r['accuracy'] * 100:.1f}% {r['score']:+.2f}[/]" for r in rows)
    )
    table.add_row("safety failures", *(str(r["safety_failures"]) for r in rows))
    return table


def _open() -> Database:
    return open_database(get_settings())


@eval_app.command("generate")
def generate_command(
    out: Path = typer.Option(..., "--out", help="Where to write the set (JSON Lines)."),
    patients: str = typer.Option(
        "all", "--patients", help="How many patients (sampled with the seed), or 'all'."
    ),
    seed: int = typer.Option(7, "--seed", help="Same seed + same database + same --now → the same set."),
    now: str | None = typer.Option(
        None, "--now", help="Pinned 'now' (YYYY-MM-DD = noon UTC). Default: today."
    ),
    category: list[str] | None = typer.Option(
        None, "--category", "-c", help="Only these categories (repeatable)."
    ),
    per_patient: int | None = typer.Option(
        None, "--per-patient", min=1, help="At most this many facts per patient."
    ),
) -> None:
    """Generate questions whose answers are computed by SQL over the ingested records."""
    try:
        options = GenerateOptions(
            seed=seed,
            now=parse_now(now),
            patients=parse_patients(patients),
            categories=_categories(category),
            per_patient=per_patient,
        )
    except ValueError as exc:
        raise fail(str(exc)) from None
    db = _open()
    try:
        with reporting("reading records") as report_progress:
            question_set = generate_set_file(db, options, out, progress=report_progress)
    except GenerationError as exc:
        raise fail(str(exc)) from None
    finally:
        db.dispose()
    header = question_set.header
    table = Table("category", "questions", title=f"{len(question_set.questions)} questions")
    for name, count in header.counts.items():
        table.add_row(name, str(count))
    console.print(table)
    roles: dict[str, int] = {}
    for q in question_set.questions:
        roles[q.role] = roles.get(q.role, 0) + 1
    console.print(f"set: {out}")
    console.print(
        f"patients {len(header.patients)}, seed {header.seed}, now {header.now.isoformat()}, "
        f"roles {roles}, multi-turn {sum(q.multi_turn for q in question_set.questions)}"
    )
    for name, why in header.skipped.items():
        err_console.print(f"[yellow]not generated[/] {name}: {why}")
    for warning in header.warnings:
        err_console.print(f"[yellow]warning:[/] {warning}")


def execute_run(
    set_path: Path,
    agent_kind: str,
    concurrency: int,
    out: Path | None,
    limit: int | None,
    categories: tuple[str, ...],
    judge: str | None,
    judge_model: str | None,
    min_score: float | None,
    db: Database | None = None,
    baselines: tuple[str, ...] = (),
) -> dict[str, Any]:
    run_dir = run_only(set_path, agent_kind, concurrency, out, limit, categories, db)
    baseline_dirs = [
        run_only(
            set_path,
            kind,
            concurrency,
            run_dir.parent / f"{run_dir.name}-{kind}",
            limit,
            categories,
            db,
            quiet=True,
        )
        for kind in baselines
    ]
    return _report([run_dir], None, judge, judge_model, min_score, baseline_dirs=baseline_dirs)


def run_only(
    set_path: Path,
    agent_kind: str,
    concurrency: int,
    out: Path | None,
    limit: int | None,
    categories: tuple[str, ...],
    db: Database | None = None,
    *,
    quiet: bool = False,
) -> Path:
    """Run a set through one agent into a run folder (no report)."""
    settings = get_settings()
    try:
        question_set = select_questions(read_question_set(set_path), limit=limit, categories=categories)
    except SetFileError as exc:
        raise fail(str(exc)) from None
    if not question_set.questions:
        raise fail(f"{set_path}: no questions to run (check --category / --limit)")
    own_db = db is None
    db = db or _open()
    try:
        try:
            embedder = load_embedder(settings)
            agent = build_eval_agent(agent_kind, settings, db, embedder=embedder)  # type: ignore[arg-type]
        except AgentUnavailable as exc:
            raise fail(str(exc)) from None
        with reporting("Preparing the safety check (first run only)") as report_progress:
            warm_up(agent, report_progress)
        run_id = new_run_id(agent_kind)
        run_dir = out or DEFAULT_RUNS / run_id
        with reporting(f"{agent_kind}: asking") as report_progress:
            info = run_set(
                agent,
                db,
                set_path,
                question_set,
                run_dir,
                agent_name=agent_kind,
                run_id=run_id,
                concurrency=concurrency,
                answer_model=settings.answer_model if agent_kind == "claude" else None,
                index_note=note_indexer(embedder),
                progress=report_progress,
            )
    finally:
        if own_db:
            db.dispose()
    console.print(f"run folder: {run_dir} ({info.questions_per_second:.2f} questions/s)")
    if info.database_now and info.database_now != info.database and not quiet:
        err_console.print(
            "[yellow]warning:[/] the records changed since this set was generated "
            f"(fingerprint {info.database} → {info.database_now}); regenerate the set for a fair score"
        )
    return run_dir


def _report(
    run_dirs: list[Path],
    out: Path | None,
    judge: str | None,
    judge_model: str | None,
    min_score: float | None,
    sample: int = 40,
    baseline_dirs: list[Path] = (),
) -> dict[str, Any]:
    settings = get_settings()
    factory: Any = None
    model = None
    if judge:
        if judge != "claude":
            raise fail(f"--judge {judge!r}: only 'claude' is supported")
        if settings.offline:
            raise fail("--judge claude needs ANTHROPIC_API_KEY (set it in the environment or .env)")

        def factory() -> Any:
            try:
                return judge_client(settings)
            except AgentUnavailable as exc:
                raise fail(str(exc)) from None

        model = judge_model or settings.aux_model
    try:
        files, report, runs = report_runs(
            run_dirs,
            out,
            judge_client_factory=factory,
            judge_model=model,
            judge_sample=sample,
            baseline_dirs=list(baseline_dirs),
        )
    except (ValueError, SetFileError) as exc:
        raise fail(str(exc)) from None
    if len(runs) == 1:
        _print_report(report, files)
        candidate = report
    else:
        for single in report["reports"]:
            console.print(_summary_table(single, f"Run {single['run']['run_id']}"))
        console.print(
            f"regressions: {len(report['regressions'])}, improvements: {len(report['improvements'])}"
        )
        for r in report["regressions"][:20]:
            console.print(f"  [red]↓[/] {r['question_id']} ({r['category']}): {r['before']} → {r['after']}")
        console.print(f"report: {files.markdown}  json: {files.json}  chart: {files.chart}")
        candidate = report["reports"][-1]
    if min_score is not None:
        score = candidate["overall"]["score"]
        if score < min_score:
            raise fail(f"overall score {score:+.3f} is below --min-score {min_score:+.3f}", code=2)
        console.print(f"overall score {score:+.3f} ≥ --min-score {min_score:+.3f}")
    return report


@eval_app.command("run")
def run_command(
    set_path: Path = typer.Option(..., "--set", help="A question set from `chartside eval generate`."),
    agent: str = typer.Option(
        "offline", "--agent", help="offline | claude | a baseline: dump, always-no, abstain, first-row"
    ),
    concurrency: int = typer.Option(4, "--concurrency", min=1, max=64, help="Questions in flight at once."),
    out: Path | None = typer.Option(None, "--out", help="Run folder (default eval-runs/<run id>)."),
    limit: int | None = typer.Option(None, "--limit", min=1, help="Only the first N questions."),
    category: list[str] | None = typer.Option(
        None, "--category", "-c", help="Only these categories (repeatable)."
    ),
    judge: str | None = typer.Option(
        None, "--judge", help="Grade free-text answers with an LLM judge: claude."
    ),
    judge_model: str | None = typer.Option(
        None, "--judge-model", help="Judge model (default CHARTSIDE_AUX_MODEL)."
    ),
    min_score: float | None = typer.Option(
        None, "--min-score", help="Exit 2 when the overall score is below this."
    ),
    baseline: list[str] | None = typer.Option(
        None, "--baseline", help="Also run these baselines on the set and report them beside the agent."
    ),
) -> None:
    """Ask every question through the agent (as the server does), record, score and report."""
    if agent not in AGENT_KINDS:
        raise fail(f"--agent {agent!r}: choose one of {', '.join(AGENT_KINDS)}")
    execute_run(
        set_path,
        agent,
        concurrency,
        out,
        limit,
        _categories(category) if category else (),
        judge,
        judge_model,
        min_score,
        baselines=_baselines(baseline),
    )


def _baselines(values: list[str] | None) -> tuple[str, ...]:
    from evals.baselines import BASELINES

    chosen = tuple(dict.fromkeys(c.strip() for v in values or () for c in v.split(",") if c.strip()))
    if chosen == ("all",):
        return BASELINES
    if chosen == ("none",):
        return ()
    unknown = [c for c in chosen if c not in BASELINES]
    if unknown:
        raise fail(f"unknown baseline {', '.join(unknown)}; choose from {', '.join(BASELINES)}, all or none")
    return chosen


@eval_app.command("report")
def report_command(
    runs: list[Path] = typer.Argument(
        ..., help="One run folder, or several to compare (the last is the candidate)."
    ),
    out: Path | None = typer.Option(None, "--out", help="Where to write (default: the last run folder)."),
    min_score: float | None = typer.Option(
        None, "--min-score", help="Exit 2 when the candidate's score is below this."
    ),
    judge: str | None = typer.Option(
        None, "--judge", help="Grade free-text answers with an LLM judge: claude."
    ),
    judge_model: str | None = typer.Option(
        None, "--judge-model", help="Judge model (default CHARTSIDE_AUX_MODEL)."
    ),
    judge_sample: int = typer.Option(
        40, "--judge-sample", min=0, help="Deterministic answers to re-judge for agreement."
    ),
    baseline: list[Path] | None = typer.Option(
        None, "--baseline", help="Baseline run folders to show beside a single run (repeatable)."
    ),
) -> None:
    """Markdown + JSON + a per-category chart; side by side with regressions for several runs."""
    for run in [*runs, *(baseline or [])]:
        if not run.is_dir():
            raise fail(f"{run}: not a run folder")
    _report(runs, out, judge, judge_model, min_score, judge_sample, baseline_dirs=list(baseline or []))


def prepare_demo(db: Database, settings: Any) -> None:
    """Exactly what `chartside up` prepares: schema, demo cohort, appointment slots (idempotent)."""
    from chartside.up import prepare

    prepare(db, settings)


@eval_app.command("demo")
def demo_command(
    patients: str = typer.Option("all", "--patients", help="How many demo patients, or 'all'."),
    concurrency: int = typer.Option(4, "--concurrency", min=1, max=64),
    out: Path = typer.Option(DEFAULT_RUNS / "demo", "--out", help="Folder for the set and the run."),
    min_score: float | None = typer.Option(
        None, "--min-score", help="Exit 2 when the overall score is below this."
    ),
    baselines: str = typer.Option(
        "always-no,abstain",
        "--baselines",
        help="Baselines run beside the planner: a comma list of dump, always-no, abstain, first-row; all; none.",
    ),
) -> None:
    """The whole loop on the demo cohort: prepare the database, generate, run offline and the
    baselines, report."""
    settings = get_settings()
    db = _open()
    try:
        prepare_demo(db, settings)
        set_path = out / "set.jsonl"
        options = GenerateOptions(
            seed=settings.demo_seed, now=parse_now(None), patients=parse_patients(patients)
        )
        try:
            with reporting("reading records") as report_progress:
                question_set = generate_set_file(db, options, set_path, progress=report_progress)
        except GenerationError as exc:
            raise fail(str(exc)) from None
        console.print(f"set: {len(question_set.questions)} questions → {set_path}")
        execute_run(
            set_path,
            "offline",
            concurrency,
            out / "run",
            None,
            (),
            None,
            None,
            min_score,
            db=db,
            baselines=_baselines([baselines]),
        )
    finally:
        db.dispose()


def note_indexer(embedder: Any):
    """Index a planted note the way ingestion's note pass does, so note search can find it.

    Here in the CLI layer, which composes packages: `evals` itself does not import `knowledge`.
    """
    if embedder is None:
        return None
    from knowledge.note_index import NoteIndexReport, index_patient

    def index(conn: Any, patient_id: str) -> None:
        index_patient(conn, embedder, patient_id, NoteIndexReport())

    return index


def register(app: typer.Typer) -> None:
    """Commands are attached to the shared `eval` group at import; nothing else to add."""


from evals.safety_eval import safety_command  # noqa: E402 (issue 14: `chartside eval safety`)

eval_app.command("safety")(safety_command)
