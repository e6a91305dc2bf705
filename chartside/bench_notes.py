"""`chartside bench notes`: note indexing throughput next to the embedding model's own speed.

Both are measured in one run, on the same passages, alternating rounds (this 2-core machine
is shared, so only side-by-side ratios mean anything):

* **model** — `embed_passages` over exactly the distinct chunk texts the indexer will embed,
  in the embedder's batches: the most the indexer could ever reach;
* **indexing** — `index_notes` into an empty `note_chunks` of a scratch database: reading
  the pending notes, chunking, de-duplicating, embedding, writing (one transaction per
  patient). Its rate counts the same distinct texts, so the ratio is model time / index time.

The notes are those of a generated Synthea-format cohort (`synthea_data`, the demo
generator), ingested by the real loader into a scratch database that is dropped at the end:
the same sections recur from visit to visit and patient to patient, as in real output, which
is what the indexer's de-duplication and batching have to cope with. It lives here, in the
top-level package, because it wires three packages together (generator, ingestion, knowledge).
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from rich.table import Table
from sqlalchemy import text

from chartside.console import console, progress
from fhir_ingest.bench import scratch_database
from fhir_ingest.loader import ingest_paths
from knowledge.chunking import embedding_text
from knowledge.embeddings import Embedder, load_embedder
from knowledge.note_index import index_notes, note_chunks_for
from records.database import Database
from records.settings import get_settings
from synthea_data.generator import generate_cohort


@dataclass
class IndexBenchResult:
    patients: int
    notes: int
    chunks: int
    distinct: int
    model_seconds: float  # best round
    index_seconds: float  # best round
    embed_seconds_in_index: float  # of the best indexing round: time inside the model

    @property
    def ratio(self) -> float:
        """Indexing rate as a share of the model's own rate (same passages)."""
        return self.model_seconds / self.index_seconds if self.index_seconds else 0.0


def _notes(db: Database) -> list[str]:
    with db.admin.connect() as conn:
        return list(conn.execute(text("SELECT coalesce(text, '') FROM clinical_notes")).scalars())


class _TimedEmbedder:
    """The real embedder, with the seconds spent inside the model counted."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.model_name = inner.model_name
        self.seconds = 0.0

    def _timed(self, embed, texts, kwargs):
        started = time.perf_counter()
        try:
            return embed(texts, **kwargs)
        finally:
            self.seconds += time.perf_counter() - started

    def embed_passages(self, texts, **kwargs):
        return self._timed(self.inner.embed_passages, texts, kwargs)

    def embed_passage_arrays(self, texts, **kwargs):
        return self._timed(self.inner.embed_passage_arrays, texts, kwargs)


def run_index_benchmark(*, patients: int, seed: int, rounds: int) -> IndexBenchResult:
    settings = get_settings()
    embedder = load_embedder(settings)
    model_times: list[float] = []
    index_times: list[tuple[float, float]] = []
    with tempfile.TemporaryDirectory() as tmp, scratch_database(settings) as db:
        cohort = Path(tmp) / "cohort"
        generate_cohort(cohort, patients=patients, seed=seed)
        loaded = ingest_paths(db, [cohort])
        if not loaded.ok:
            raise RuntimeError(
                "the generated cohort did not ingest: " + "; ".join(str(f.error) for f in loaded.failures)
            )
        bodies = _notes(db)
        texts = [embedding_text(c) for body in bodies for c in note_chunks_for(body)]
        distinct = list(dict.fromkeys(texts))
        embedder.embed_passages(distinct[:32])  # warm the ONNX session
        with progress() as bar:
            task = bar.add_task("rounds", total=rounds * 2)
            for round_ in range(rounds):
                for kind in ("model", "index") if round_ % 2 == 0 else ("index", "model"):
                    if kind == "model":
                        started = time.perf_counter()
                        embedder.embed_passages(distinct)
                        model_times.append(time.perf_counter() - started)
                    else:
                        with db.admin.begin() as conn:
                            conn.execute(text("TRUNCATE note_chunks"))
                        timed = _TimedEmbedder(embedder)
                        started = time.perf_counter()
                        report = index_notes(db, timed)  # type: ignore[arg-type]
                        index_times.append((time.perf_counter() - started, timed.seconds))
                        if report.embedded != len(distinct):
                            raise RuntimeError(
                                f"indexing embedded {report.embedded} texts, expected {len(distinct)}"
                            )
                    bar.advance(task)
    best_index = min(index_times)
    return IndexBenchResult(
        patients=patients,
        notes=len(bodies),
        chunks=len(texts),
        distinct=len(distinct),
        model_seconds=min(model_times),
        index_seconds=best_index[0],
        embed_seconds_in_index=best_index[1],
    )


def print_index_result(r: IndexBenchResult) -> None:
    table = Table(
        "measure",
        "seconds",
        "distinct passages/s",
        "chunks/s",
        title="chartside bench notes (best of the rounds)",
    )
    table.add_row(
        "model alone (embed_passages)", f"{r.model_seconds:.2f}", f"{r.distinct / r.model_seconds:.1f}", "–"
    )
    table.add_row(
        "note indexing (index_notes)",
        f"{r.index_seconds:.2f}",
        f"{r.distinct / r.index_seconds:.1f}",
        f"{r.chunks / r.index_seconds:.1f}",
    )
    console.print(table)
    outside = r.index_seconds - r.embed_seconds_in_index
    console.print(
        f"{r.patients} patients, {r.notes} notes, {r.chunks} chunks, {r.distinct} distinct texts; "
        f"indexing runs at [bold]{r.ratio:.0%}[/] of the model's own passages/s "
        f"(of the indexing time: model {r.embed_seconds_in_index:.2f} s, read/chunk/write {outside:.2f} s)"
    )
