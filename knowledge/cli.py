"""`chartside leaflets …`, `chartside notes …`, `chartside knowledge …`, `chartside eval retrieval`.

Thin: parse options, open the database and the embedder, call the library, print.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.table import Table
from sqlalchemy import text

from chartside.console import console, err_console, fail, reporter
from chartside.groups import bench_app, eval_app
from knowledge import retrieval_eval as reval
from knowledge.embeddings import Embedder, EmbeddingSetupError, check_dimensions, get_embedder
from knowledge.leaflet_store import SHIPPED_LEAFLETS, ingest_leaflets
from knowledge.note_index import index_notes
from knowledge.search import SearchOutcome, search_leaflets, search_notes
from records.database import Database, open_database, patient_transaction
from records.settings import get_settings

leaflets_app = typer.Typer(help="Patient-information leaflets: ingest and search.", no_args_is_help=True)
notes_app = typer.Typer(
    help="Clinical notes: index for search, search one patient's notes.", no_args_is_help=True
)
knowledge_app = typer.Typer(help="The search indexes as a whole.", no_args_is_help=True)


def _open() -> tuple[Database, Embedder]:
    settings = get_settings()
    db = open_database(settings)
    try:
        embedder = get_embedder(settings)
        check_dimensions(db.admin, embedder.dimension, embedder.model_name)
    except EmbeddingSetupError as exc:
        db.dispose()
        raise fail(str(exc)) from exc
    return db, embedder


def _print_outcome(outcome: SearchOutcome, kind: str) -> None:
    if not outcome.passages:
        best = outcome.best_similarity
        console.print(
            f"[yellow]no {kind} passage clears the gate[/] (floor {outcome.floor:.2f}"
            + (f", best similarity {best:.3f})" if best is not None else ", no candidates)")
        )
        return
    table = Table("#", "similarity", "exact", "source", "heading", "passage", show_lines=True)
    for i, p in enumerate(outcome.passages, start=1):
        source = p.meta.get("slug") or f"{p.meta.get('date'):%Y-%m-%d} {p.meta.get('note_type') or ''}"
        table.add_row(str(i), f"{p.similarity:.3f}", "yes" if p.exact else "", source, p.heading_path, p.text)
    console.print(table)


@leaflets_app.command("ingest")
def ingest_command(
    directory: Path = typer.Argument(
        None, help="Folder of .md/.pdf/.docx leaflets (default: the shipped corpus)."
    ),
    force: bool = typer.Option(False, "--force", help="Re-embed even unchanged files."),
    prune: bool = typer.Option(False, "--prune", help="Remove stored leaflets that are not in the folder."),
) -> None:
    """Ingest leaflets: unchanged files are skipped (sha256), changed ones replaced atomically."""
    directory = directory or get_settings().leaflets_dir or SHIPPED_LEAFLETS
    db, embedder = _open()
    try:
        outcomes = ingest_leaflets(db, embedder, directory, force=force, prune=prune, progress=reporter)
    except FileNotFoundError as exc:
        raise fail(str(exc)) from exc
    finally:
        db.dispose()
    counts: dict[str, int] = {}
    for o in outcomes:
        counts[o.status] = counts.get(o.status, 0) + 1
        if o.status == "failed":
            err_console.print(f"[red]failed[/] {o.path.name}: {o.error} ({o.path})", soft_wrap=True)
    summary = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    console.print(
        f"leaflets from {directory}: {summary}; {sum(o.chunks for o in outcomes)} chunks written",
        soft_wrap=True,
    )
    if counts.get("failed"):
        raise typer.Exit(1)


@leaflets_app.command("search")
def leaflets_search_command(
    query: str,
    limit: int = typer.Option(5, min=1, max=20),
    keyword: str = typer.Option("bm25", help="bm25 | fts"),
) -> None:
    """Search the leaflets as the search_leaflets tool does (hybrid + relevance gate)."""
    db, embedder = _open()
    try:
        with db.app.begin() as conn:
            outcome = search_leaflets(
                conn,
                query,
                embedder.embed_query(query),
                model_name=embedder.model_name,
                limit=limit,
                floor=db.settings.leaflet_similarity_floor,
                keyword=keyword or db.settings.leaflet_keyword_backend,  # type: ignore[arg-type]
            )
    finally:
        db.dispose()
    _print_outcome(outcome, "leaflet")


@notes_app.command("index")
def notes_index_command(
    patient: list[str] = typer.Option(None, "--patient", help="Only these patients (repeatable)."),
) -> None:
    """Embed every clinical note not yet indexed with the current model (resumable)."""
    db, embedder = _open()
    try:
        report = index_notes(db, embedder, patient or None, progress=reporter)
    finally:
        db.dispose()
    console.print(
        f"notes indexed: {report.notes} notes of {report.patients} patients → {report.chunks} chunks"
        + (f" ({report.skipped_empty} notes had no text)" if report.skipped_empty else "")
    )


@notes_app.command("search")
def notes_search_command(
    patient: str = typer.Option(..., "--patient", help="Whose notes (the CLI stands in for the server)."),
    query: str = typer.Argument(...),
    limit: int = typer.Option(5, min=1, max=20),
) -> None:
    """Search ONE patient's notes as the search_notes tool does."""
    db, embedder = _open()
    try:
        with patient_transaction(db.app, patient) as conn:
            outcome = search_notes(
                conn,
                query,
                embedder.embed_query(query),
                patient_id=patient,
                model_name=embedder.model_name,
                limit=limit,
                floor=db.settings.note_similarity_floor,
            )
    finally:
        db.dispose()
    _print_outcome(outcome, "note")


@knowledge_app.command("reindex")
def reindex_command() -> None:
    """After changing the embedding model: re-embed every leaflet and note with the current one."""
    db, embedder = _open()
    try:
        outcomes = ingest_leaflets(
            db, embedder, db.settings.leaflets_dir or SHIPPED_LEAFLETS, force=True, progress=reporter
        )
        report = index_notes(db, embedder, progress=reporter)
        with db.admin.connect() as conn:
            stale = conn.execute(
                text("SELECT count(*) FROM leaflet_chunks WHERE embedding_model <> :m"),
                {"m": embedder.model_name},
            ).scalar_one()
    finally:
        db.dispose()
    console.print(
        f"re-embedded {sum(o.chunks for o in outcomes)} leaflet chunks and {report.chunks} note chunks "
        f"with {embedder.model_name}"
    )
    if stale:
        console.print(
            f"[yellow]{stale} leaflet chunks from other folders still use another model: "
            "re-ingest those folders with --force[/]"
        )


@knowledge_app.command("status")
def status_command() -> None:
    """What is indexed, with which model."""
    db = open_database(get_settings())
    try:
        with db.admin.connect() as conn:
            rows = conn.execute(
                text(
                    "SELECT 'leaflet' AS kind, embedding_model, count(*) FROM leaflet_chunks GROUP BY 2 "
                    "UNION ALL SELECT 'note', embedding_model, count(*) FROM note_chunks GROUP BY 2 ORDER BY 1, 2"
                )
            ).all()
            leaflets = conn.execute(text("SELECT count(*) FROM leaflets")).scalar_one()
    finally:
        db.dispose()
    table = Table("kind", "embedding model", "chunks", title=f"{leaflets} leaflets")
    for kind, model, count in rows:
        table.add_row(kind, model or "(none)", f"{count:,}")
    console.print(table)


def _metrics_row(label: str, m: reval.Metrics) -> list[str]:
    pct = lambda x: "–" if x != x else f"{x:.0%}"  # noqa: E731  (nan → –)
    return [
        label,
        f"{m.answerable}/{m.unanswerable}",
        pct(m.hit_at_1),
        pct(m.hit_at_5),
        f"{m.mrr:.3f}",
        pct(m.answer_present),
        pct(m.kept_when_answerable),
        pct(m.rejected_when_unanswerable),
    ]


def _metrics_table(title: str) -> Table:
    return Table(
        "run",
        "answerable/not",
        "hit@1",
        "hit@5",
        "MRR",
        "answer present",
        "gate kept answer",
        "out-of-scope rejected",
        title=title,
    )


def _floor_lines(kind: str, results: list[reval.QuestionResult], m: reval.Metrics, setting: str) -> None:
    answerable = [
        r.relevant_similarity for r in results if r.answerable and r.relevant_similarity is not None
    ]
    unanswerable = [r.best_similarity for r in results if not r.answerable and r.best_similarity is not None]
    console.print(
        f"{kind} similarity (min … median … max): answerable (best relevant passage) "
        f"{reval.similarity_summary(answerable)}; unanswerable (best passage) {reval.similarity_summary(unanswerable)}"
    )
    advice = m.advice
    if advice.overlap:
        console.print(
            f"[yellow]the ranges OVERLAP[/]: no floor separates them; {advice.floor:.3f} misjudges the fewest "
            f"({advice.misjudged}). Configured {setting}={m.floor:.3f}."
        )
    elif advice.floor == advice.floor:
        console.print(
            f"the ranges are separate: a floor of {advice.floor:.3f} sits between them. "
            f"Configured {setting}={m.floor:.3f}."
        )


@eval_app.command("retrieval")
def eval_retrieval_command(
    questions: Path = typer.Option(reval.QUESTIONS_FILE, help="Labelled leaflet questions (JSONL)."),
    notes: int = typer.Option(
        40, help="Note questions to generate from the notes in the database (0 = none)."
    ),
    compare: bool = typer.Option(False, help="Also measure each leg alone and BM25 vs full text."),
    show_misses: bool = typer.Option(True, help="List the questions that went wrong."),
    as_json: bool = typer.Option(False, "--json", help="Print the metrics as JSON."),
) -> None:
    """Hit@1/@5, MRR, answer present, out-of-scope rejected, and where the similarity floor belongs."""
    try:
        labelled = reval.load_questions(questions)
    except (OSError, ValueError) as exc:
        raise fail(str(exc)) from exc
    db, embedder = _open()
    settings = db.settings
    try:
        with db.admin.connect() as conn:
            if not conn.execute(text("SELECT count(*) FROM leaflet_chunks")).scalar_one():
                raise fail("no leaflets are indexed: run `chartside leaflets ingest` first")
        runs: list[tuple[str, dict]] = [("hybrid: vector + BM25 + exact (default)", {})]
        if compare:
            runs += [
                ("vector only", {"legs": ("vector",)}),
                ("BM25 only", {"legs": ("keyword",), "keyword": "bm25"}),
                ("PostgreSQL full text only", {"legs": ("keyword",), "keyword": "fts"}),
                ("hybrid: vector + full text + exact", {"keyword": "fts"}),
            ]
        table = _metrics_table(f"Leaflet retrieval ({len(labelled)} labelled questions)")
        output: dict = {}
        main_results: list[reval.QuestionResult] = []
        main_metrics = None
        for label, options in runs:
            results = reval.evaluate_leaflets(
                db, embedder, labelled, floor=settings.leaflet_similarity_floor, **options
            )
            metrics = reval.summarise(results, settings.leaflet_similarity_floor)
            table.add_row(*_metrics_row(label, metrics))
            output[label] = metrics.__dict__ | {"advice": metrics.advice.__dict__}
            if main_metrics is None:
                main_results, main_metrics = results, metrics
        note_questions = reval.generate_note_questions(db, count=notes) if notes else []
        note_results = (
            reval.evaluate_notes(db, embedder, note_questions, floor=settings.note_similarity_floor)
            if note_questions
            else []
        )
    finally:
        db.dispose()
    if as_json:
        if note_results:
            m = reval.summarise(note_results, settings.note_similarity_floor)
            output["notes"] = m.__dict__ | {"advice": m.advice.__dict__}
        console.print_json(json.dumps(output, default=str))
        return
    console.print(table)
    assert main_metrics is not None
    _floor_lines("leaflets", main_results, main_metrics, "CHARTSIDE_LEAFLET_SIMILARITY_FLOOR")
    if show_misses:
        _print_misses(main_results)
    if not notes:
        return
    if not note_questions:
        console.print(
            "[yellow]no indexed clinical notes: note questions skipped[/] (ingest, then `chartside notes index`)"
        )
        return
    note_metrics = reval.summarise(note_results, settings.note_similarity_floor)
    notes_table = _metrics_table(
        f"Note retrieval ({len(note_questions)} questions generated from indexed notes)"
    )
    notes_table.add_row(*_metrics_row("hybrid, one patient (exact scan)", note_metrics))
    console.print(notes_table)
    _floor_lines("notes", note_results, note_metrics, "CHARTSIDE_NOTE_SIMILARITY_FLOOR")
    if show_misses:
        _print_misses(note_results)


def _print_misses(results: list[reval.QuestionResult]) -> None:
    for r in results:
        q = r.question
        if q.answerable and (r.rank is None or not r.gate_correct):
            why = "not in top 5" if r.rank is None else "gate dropped it"
            sim = f"{r.relevant_similarity:.3f}" if r.relevant_similarity is not None else "–"
            console.print(
                f"  [red]miss[/] ({why}, relevant sim {sim}) {q.question!r} → {q.expect or q.phrase}"
            )
        elif not q.answerable and not r.gate_correct:
            top = r.kept[0]
            label = top.meta.get("slug") or top.meta.get("section")
            console.print(
                f"  [red]not rejected[/] {q.question!r} → {label} (sim {top.similarity:.3f}"
                + (", exact match" if top.exact else "")
                + ")"
            )


def _bench_command(
    runs: int = typer.Option(200, help="Queries per measurement."),
    patients: int = typer.Option(1000, help="Synthetic patients with indexed notes."),
    notes_per_patient: int = typer.Option(30),
    keep: bool = typer.Option(False, help="Keep the benchmark database afterwards."),
) -> None:
    """p50/p95 of both search tools (query embedding included), 1× vs 10× leaflets, notes at scale."""
    from knowledge.bench import run_search_benchmark

    run_search_benchmark(runs=runs, patients=patients, notes_per_patient=notes_per_patient, keep=keep)


def register(app: typer.Typer) -> None:
    app.add_typer(leaflets_app, name="leaflets")
    app.add_typer(notes_app, name="notes")
    app.add_typer(knowledge_app, name="knowledge")
    bench_app.command("search")(_bench_command)
