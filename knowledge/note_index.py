"""Clinical notes → embedded section chunks, as a separate, resumable pass after ingestion.

Embedding runs at ~100 passages/s here, and a patient has ~35 notes of ~7 sections, so
embedding inside the record ingestion would cap it near one patient a second. Instead this
pass indexes whatever is not indexed yet (a note with no chunks, or chunks from another
embedding model), one patient per transaction, so it can stop and resume at any point.

Row-level security is forced even for the table owner, so each patient's rows are read and
written inside a transaction that sets that patient (`patient_transaction`). The list of
patients to visit comes from `clinical_notes` (visible to a superuser or BYPASSRLS owner)
together with `source_files.bundle_patient_id` (not row-secured), so it also works when the
owner is subject to row-level security.

Notes repeat themselves: whole sections recur from visit to visit and patient to patient
("Patient has never smoked.", the same plan text). In the 40-patient demo cohort only 879 of
4,438 chunks are distinct, so a run embeds each distinct text once (`RepeatedPassages`) —
the same text always embeds to the same vector — which makes the first `make run` several
times faster.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import nullcontext
from dataclasses import dataclass

from sqlalchemy import Connection, text

from knowledge.chunking import chunk_blocks, embedding_text
from knowledge.embeddings import Embedder, Progress
from knowledge.note_sections import note_blocks
from records.database import Database, patient_transaction

NOTE_BUDGET_WORDS = 120
REPEATED_PASSAGES_KEPT = 20_000  # vectors as pgvector text, ~4 KB each: at most ~80 MB per run


@dataclass
class NoteIndexReport:
    patients: int = 0
    notes: int = 0
    chunks: int = 0
    skipped_empty: int = 0
    embedded: int = 0  # distinct texts embedded (the other chunks repeated one of them)


def vector_literal(vector: Iterable[float]) -> str:
    return "[" + ",".join(f"{x:.7g}" for x in vector) + "]"


class RepeatedPassages:
    """The vectors (as pgvector literals) of the texts this run has embedded, oldest dropped first."""

    def __init__(self, limit: int = REPEATED_PASSAGES_KEPT) -> None:
        self.limit = limit
        self._vectors: dict[str, str] = {}

    def vectors_for(self, embedder: Embedder, texts: list[str]) -> tuple[list[str], int]:
        """One vector per text, and how many distinct texts had to be embedded for them."""
        known = {t: self._vectors[t] for t in set(texts) if t in self._vectors}
        missing = list(dict.fromkeys(t for t in texts if t not in known))
        fresh = {
            t: vector_literal(v)
            for t, v in zip(missing, embedder.embed_passages(missing) if missing else [], strict=True)
        }
        for t, literal in fresh.items():
            if len(self._vectors) >= self.limit:
                self._vectors.pop(next(iter(self._vectors)))
            self._vectors[t] = literal
        return [known.get(t) or fresh[t] for t in texts], len(missing)


def candidate_patients(db: Database) -> list[str]:
    with db.admin.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT DISTINCT patient_id FROM clinical_notes UNION "
                "SELECT DISTINCT bundle_patient_id FROM source_files WHERE bundle_patient_id IS NOT NULL "
                "ORDER BY 1"
            )
        ).scalars()
        return list(rows)


def _pending_notes(conn: Connection, patient_id: str, model_name: str) -> list:
    return conn.execute(
        text(
            "SELECT n.id, n.text FROM clinical_notes n WHERE n.patient_id = :p "
            "AND NOT EXISTS (SELECT 1 FROM note_chunks c WHERE c.patient_id = n.patient_id "
            "  AND c.note_id = n.id AND c.embedding_model = :m) ORDER BY n.date NULLS LAST, n.id"
        ),
        {"p": patient_id, "m": model_name},
    ).all()


def note_chunks_for(note_text: str) -> list:
    return chunk_blocks(note_blocks(note_text), budget=NOTE_BUDGET_WORDS)


def index_patient(
    conn: Connection,
    embedder: Embedder,
    patient_id: str,
    report: NoteIndexReport,
    repeated: RepeatedPassages | None = None,
) -> None:
    pending = _pending_notes(conn, patient_id, embedder.model_name)
    if not pending:
        return
    items = []
    for note in pending:
        chunks = note_chunks_for(note.text or "")
        if not chunks:
            report.skipped_empty += 1
        items.extend((note.id, chunk) for chunk in chunks)
    repeated = repeated or RepeatedPassages()
    vectors, embedded = repeated.vectors_for(embedder, [embedding_text(chunk) for _, chunk in items])
    conn.execute(
        text("DELETE FROM note_chunks WHERE patient_id = :p AND note_id = ANY(:ids)"),
        {"p": patient_id, "ids": [n.id for n in pending]},
    )
    if items:
        conn.execute(
            text(
                "INSERT INTO note_chunks (patient_id, note_id, seq, section, heading_path, text, tsv, embedding, "
                "embedding_model) VALUES (:p, :note_id, :seq, :section, :heading, :text, "
                "setweight(to_tsvector('english', :heading), 'A') || setweight(to_tsvector('english', :text), 'B'), "
                "CAST(:embedding AS vector), :model)"
            ),
            [
                {
                    "p": patient_id,
                    "note_id": note_id,
                    "seq": chunk.seq,
                    "section": chunk.heading_path[0] if chunk.heading_path else None,
                    "heading": chunk.heading,
                    "text": chunk.text,
                    "embedding": vector,
                    "model": embedder.model_name,
                }
                for (note_id, chunk), vector in zip(items, vectors, strict=True)
            ],
        )
    report.patients += 1
    report.notes += len(pending)
    report.chunks += len(items)
    report.embedded += embedded


def index_notes(
    db: Database,
    embedder: Embedder,
    patient_ids: Iterable[str] | None = None,
    *,
    progress: Progress | None = None,
) -> NoteIndexReport:
    """Index every note not yet indexed with the current model; one transaction per patient."""
    patients = list(patient_ids) if patient_ids is not None else candidate_patients(db)
    report = NoteIndexReport()
    repeated = RepeatedPassages()
    with (
        progress("Indexing notes", len(patients))
        if progress is not None and patients
        else nullcontext() as advance
    ):
        for patient_id in patients:
            with patient_transaction(db.admin, patient_id) as conn:
                index_patient(conn, embedder, patient_id, report, repeated)
            if advance is not None:
                advance(1)
    return report
