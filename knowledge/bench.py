"""`chartside bench search`: latency of both search tools, query embedding included.

Runs in two throwaway databases on the embedded server (never the working one), a small and
a large one, and alternates every call between them: other processes load this 2-core machine
unevenly, so only ratios measured side by side mean anything.

1. leaflets at 1× (the shipped corpus) and at 10× (plus 9× synthetic filler leaflets made of
   the corpus's own sentences reshuffled, ingested and embedded through the real pipeline),
   with each keyword leg (BM25 and PostgreSQL full text), timed side by side;
2. notes with `patients` synthetic patients × `notes_per_patient` notes indexed (and 1% of
   that in the small database: one patient's search must cost the same either way): chunk texts
   and vectors are real embeddings of note sections (plus a little noise per copy), because
   embedding 100k+ passages for real would take an hour here and the exact per-patient
   scan costs the same whatever the vectors say.

Each measurement is one tool call as the server makes it: embed the query, open a
transaction on the application role (patient-scoped for notes), search, commit.
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from rich.table import Table
from sqlalchemy import text
from sqlalchemy.engine import make_url

from chartside.console import console, fail, progress, reporter
from knowledge.chunking import embedding_text
from knowledge.embeddings import get_embedder
from knowledge.leaflet_store import SHIPPED_LEAFLETS, ensure_leaflets, find_files, ingest_leaflets
from knowledge.loaders import load_document
from knowledge.note_index import note_chunks_for
from knowledge.retrieval_eval import load_questions
from knowledge.search import search_leaflets, search_notes
from records import migrate
from records.database import open_database, patient_transaction
from records.embedded import drop_database
from records.settings import get_settings

BENCH_DATABASE = "chartside_bench"
NOTE_QUERIES = (
    "when was I prescribed amoxicillin",
    "did I get a flu vaccine",
    "history of hypertension",
    "what medications was I on",
    "was I seen for bronchitis",
    "do I smoke",
    "any allergies recorded",
    "when was my cholesterol checked",
)
NOTE_TEMPLATES = (
    "# Chief Complaint\n{cc}\n\n# History of Present Illness\nThe patient is a {age} year-old. Patient has a history "
    "of {hx}.\n\n# Social History\n{social}\n\n# Allergies\n{allergy}\n\n# Medications\n{meds}\n\n"
    "# Assessment and Plan\nPatient is presenting with {dx}.\n\n## Plan\nPatient was given the following "
    "immunizations: {imm}.\nThe following procedures were conducted:\n- {proc}\n"
)
FILLS = {
    "cc": ["No complaints.", "Cough for a week.", "Follow-up of blood pressure.", "Tiredness and thirst."],
    "age": ["34", "52", "67", "71"],
    "hx": ["hypertension", "type 2 diabetes", "asthma", "acute bronchitis", "hyperlipidemia"],
    "social": [
        "Patient has never smoked.",
        "Patient is an active smoker.",
        "Patient quit smoking at age 40.",
    ],
    "allergy": ["No Known Allergies.", "Allergy to penicillin.", "Allergy to peanuts."],
    "meds": ["lisinopril 10 mg oral tablet", "metformin 500 mg oral tablet", "albuterol 90 mcg inhaler"],
    "dx": ["acute bronchitis", "essential hypertension", "prediabetes", "viral sinusitis"],
    "imm": ["influenza, seasonal, injectable", "Td (adult) preservative free", "COVID-19 mRNA vaccine"],
    "proc": ["lipid panel", "hemoglobin A1c measurement", "depression screening", "spirometry"],
}


def _percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered), p95


def _filler_leaflets(folder: Path, copies: int, seed: int = 11) -> None:
    """copies × corpus of Markdown leaflets whose paragraphs are the corpus's sentences reshuffled."""
    rng = random.Random(seed)
    documents = [load_document(p) for p in find_files(SHIPPED_LEAFLETS)]
    sentences = [
        s.strip() + "."
        for d in documents
        for b in d.blocks
        if b.kind != "heading"
        for s in b.text.split(". ")
        if len(s.split()) > 3
    ]
    headings = [b.text for d in documents for b in d.blocks if b.kind == "heading" and b.level > 1]
    for copy in range(copies):
        for i, document in enumerate(documents):
            parts = [
                f"---\ntitle: Filler {copy}-{i}\ncategory: Filler\nreviewed: 2025-01-01\ncontact: none, 555-0199\n---\n"
            ]
            for _ in range(len([b for b in document.blocks if b.kind == "heading"])):
                parts.append(f"## {rng.choice(headings)}\n")
                parts.append(" ".join(rng.sample(sentences, 4)) + "\n")
            (folder / f"filler-{copy:02d}-{i:02d}.md").write_text("\n".join(parts), encoding="utf-8")


def _load_synthetic_notes(db, embedder, patients: int, notes_per_patient: int, seed: int = 5) -> int:
    """patients × notes of template sections; vectors are real embeddings plus a pooled noise vector."""
    rng = random.Random(seed)
    variants = []
    for _ in range(24):
        note = NOTE_TEMPLATES.format(**{k: rng.choice(v) for k, v in FILLS.items()})
        variants.append(note_chunks_for(note))
    chunk_rows = [(v, c) for v, chunks in enumerate(variants) for c in chunks]
    vectors = embedder.embed_passages(
        [embedding_text(c) for _, c in chunk_rows], progress=reporter, description="Embedding note templates"
    )
    with db.admin.begin() as conn:
        conn.execute(
            text(
                "CREATE TEMP TABLE tmpl (variant int, seq int, section text, heading text, body text, v vector(384))"
            )
        )
        conn.execute(
            text("INSERT INTO tmpl VALUES (:variant, :seq, :section, :heading, :body, CAST(:v AS vector))"),
            [
                {
                    "variant": v,
                    "seq": c.seq,
                    "section": c.heading_path[0],
                    "heading": c.heading,
                    "body": c.text,
                    "v": "[" + ",".join(f"{x:.6f}" for x in vec) + "]",
                }
                for (v, c), vec in zip(chunk_rows, vectors, strict=True)
            ],
        )
        conn.execute(
            text(
                "CREATE TEMP TABLE noise AS SELECT k, CAST(ARRAY(SELECT (random() - 0.5) * 0.02 "
                "FROM generate_series(1, 384) WHERE k >= 0) AS vector(384)) AS v FROM generate_series(0, 96) k"
            )
        )
        conn.execute(
            text(
                "INSERT INTO patients (patient_id, full_name) SELECT 'bench-' || p, 'Bench Patient ' || p "
                "FROM generate_series(1, :P) p"
            ),
            {"P": patients},
        )
        conn.execute(
            text(
                "INSERT INTO clinical_notes (patient_id, id, doc_status, type_display, date, author_name, text, text_sha256) "
                "SELECT 'bench-' || p, 'note-' || n, 'superseded', 'History and physical note', "
                "timestamptz '2015-01-01' + n * interval '61 days', 'Dr. Bench', 'synthetic', 'x' "
                "FROM generate_series(1, :P) p, generate_series(1, :N) n"
            ),
            {"P": patients, "N": notes_per_patient},
        )
        conn.execute(
            text(
                "INSERT INTO note_chunks (patient_id, note_id, seq, section, heading_path, text, tsv, embedding, embedding_model) "
                "SELECT 'bench-' || p, 'note-' || n, t.seq, t.section, t.heading, t.body, "
                "setweight(to_tsvector('english', t.heading), 'A') || setweight(to_tsvector('english', t.body), 'B'), "
                "t.v + z.v, :model "
                "FROM generate_series(1, :P) p, generate_series(1, :N) n, tmpl t, noise z "
                "WHERE t.variant = (n * 7 + p) % 24 AND z.k = (n * 13 + p) % 97"
            ),
            {"P": patients, "N": notes_per_patient, "model": embedder.model_name},
        )
        conn.execute(text("ANALYZE note_chunks"))
        return conn.execute(text("SELECT count(*) FROM note_chunks")).scalar_one()


def _timed(call: Callable[[], float]) -> tuple[float, float]:
    """(total ms, embedding ms) of one tool call; the call returns its embedding seconds."""
    start = time.perf_counter()
    embedded = call()
    return (time.perf_counter() - start) * 1000, embedded * 1000


def run_search_benchmark(*, runs: int, patients: int, notes_per_patient: int, keep: bool) -> None:
    """Small and large databases side by side; calls alternate between them so that machine load
    (other processes on 2 cores) falls on both alike and the ratios stay meaningful."""
    settings = get_settings()
    if settings.database_url:
        raise fail("the benchmark creates its own databases on the embedded server; unset DATABASE_URL")
    small = open_database(settings, database_name=BENCH_DATABASE + "_small")
    large = open_database(settings, database_name=BENCH_DATABASE + "_large")
    small_patients = max(10, patients // 100)
    series: dict[str, list[tuple[float, float]]] = {}
    sizes: dict[str, str] = {}
    try:
        embedder = get_embedder(settings)
        for db in (small, large):
            migrate.upgrade(db)
            ensure_leaflets(db, embedder, progress=reporter)
        with tempfile.TemporaryDirectory() as tmp:
            _filler_leaflets(Path(tmp), copies=9)
            ingest_leaflets(large, embedder, Path(tmp), progress=reporter)
        small_chunks = _load_synthetic_notes(small, embedder, small_patients, notes_per_patient)
        large_chunks = _load_synthetic_notes(large, embedder, patients, notes_per_patient)
        for db in (small, large):
            with db.admin.begin() as conn:
                conn.execute(text("ANALYZE"))

        def leaflet_call(db, query: str, keyword: str) -> Callable[[], float]:
            def call() -> float:
                start = time.perf_counter()
                vector = embedder.embed_query(query)
                embedded = time.perf_counter() - start
                with db.app.begin() as conn:
                    search_leaflets(
                        conn,
                        query,
                        vector,
                        model_name=embedder.model_name,
                        limit=5,
                        floor=settings.leaflet_similarity_floor,
                        keyword=keyword,  # type: ignore[arg-type]
                    )
                return embedded

            return call

        def note_call(db, patient_id: str, query: str) -> Callable[[], float]:
            def call() -> float:
                start = time.perf_counter()
                vector = embedder.embed_query(query)
                embedded = time.perf_counter() - start
                with patient_transaction(db.app, patient_id) as conn:
                    outcome = search_notes(
                        conn,
                        query,
                        vector,
                        patient_id=patient_id,
                        model_name=embedder.model_name,
                        limit=5,
                        floor=settings.note_similarity_floor,
                    )
                assert all(p.meta["note_id"].startswith("note-") for p in outcome.passages)
                return embedded

            return call

        def chunks(db) -> int:
            with db.admin.connect() as conn:
                return conn.execute(text("SELECT count(*) FROM leaflet_chunks")).scalar_one()

        sizes.update(
            {
                "leaflets 1×": f"{chunks(small):,} chunks",
                "leaflets 10×": f"{chunks(large):,} chunks",
            }
        )
        questions = [q.question for q in load_questions()]
        rng = random.Random(1)
        embedder.embed_query("warm up")
        for keyword in ("bm25", "fts"):  # build the BM25 indexes outside the timing
            for db in (small, large):
                leaflet_call(db, questions[0], keyword)()
        with progress() as bar:
            task = bar.add_task("search calls", total=runs * 6)
            for i in range(runs):
                query = rng.choice(questions)
                note_query = rng.choice(NOTE_QUERIES)
                pairs = [
                    (
                        f"leaflets 1× {kw}",
                        f"leaflets 10× {kw}",
                        leaflet_call(small, query, kw),
                        leaflet_call(large, query, kw),
                    )
                    for kw in ("bm25", "fts")
                ]
                pairs.append(
                    (
                        f"notes, {small_patients:,} patients",
                        f"notes, {patients:,} patients",
                        note_call(small, f"bench-{rng.randint(1, small_patients)}", note_query),
                        note_call(large, f"bench-{rng.randint(1, patients)}", note_query),
                    )
                )
                for label_a, label_b, call_a, call_b in pairs:
                    order = [(label_a, call_a), (label_b, call_b)]
                    if i % 2:
                        order.reverse()  # neither side always goes first
                    for label, call in order:
                        series.setdefault(label, []).append(_timed(call))
                        bar.advance(task)
        sizes[f"notes, {small_patients:,} patients"] = (
            f"{small_chunks:,} chunks, ~{small_chunks // small_patients} per patient"
        )
        sizes[f"notes, {patients:,} patients"] = (
            f"{large_chunks:,} chunks, ~{large_chunks // patients} per patient"
        )
    finally:
        for db in (small, large):
            name = make_url(db.admin_url).database
            db.dispose()
            if not keep and db.embedded is not None:
                drop_database(db.embedded, name)

    table = Table(
        "tool call",
        "indexed",
        "n",
        "p50 ms",
        "p95 ms",
        "p50 embed ms",
        "p50 search ms",
        title="Search latency per tool call (query embedding included; calls alternate between sizes)",
    )
    medians: dict[str, float] = {}
    for label, samples in series.items():
        totals = [t for t, _ in samples]
        p50, p95 = _percentiles(totals)
        search_only = statistics.median(t - e for t, e in samples)
        medians[label] = search_only
        size = sizes.get(label) or sizes.get(label.rsplit(" ", 1)[0], "")
        table.add_row(
            label,
            size,
            str(len(samples)),
            f"{p50:.1f}",
            f"{p95:.1f}",
            f"{statistics.median(e for _, e in samples):.1f}",
            f"{search_only:.1f}",
        )
    console.print(table)
    for keyword in ("bm25", "fts"):
        one, ten = medians[f"leaflets 1× {keyword}"], medians[f"leaflets 10× {keyword}"]
        console.print(
            f"leaflets ({keyword}): the 10× corpus costs {ten / one:.2f}× the 1× search time (median)"
        )
    few, many = medians[f"notes, {small_patients:,} patients"], medians[f"notes, {patients:,} patients"]
    console.print(
        f"notes: one patient's search among {patients:,} patients costs {many / few:.2f}× the same search "
        f"among {small_patients:,} (median search time)"
    )
