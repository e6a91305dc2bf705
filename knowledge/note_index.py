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

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, text

from knowledge.chunking import chunk_blocks, embedding_text
from knowledge.embeddings import Embedder
from knowledge.note_sections import note_blocks
from records.database import Database, patient_transaction, set_patient

NOTE_BUDGET_WORDS = 120
REPEATED_PASSAGES_KEPT = 20_000  # vectors as pgvector text, ~4 KB each: at most ~80 MB per run
# Distinct new texts gathered (over several patients) before the model is called: after
# de-duplication a patient often has only a handful, and the model at batch 2–5 runs at a
# fraction of its speed at 16 (the issue measured 57 chunks/s against ~110 passages/s).
EMBED_GATHER = 64
VECTOR_DECIMALS = 8  # float32 components as text: 5e-9 absolute error, far below the model's own


@dataclass
class NoteIndexReport:
    patients: int = 0
    notes: int = 0
    chunks: int = 0
    skipped_empty: int = 0
    embedded: int = 0  # distinct texts embedded (the other chunks repeated one of them)


def vector_literal(vector: Iterable[float]) -> str:
    return "[" + ",".join(f"{x:.7g}" for x in vector) + "]"


def _array_literal(vector: Any) -> str:
    """A model output (numpy float32) as pgvector text, without a Python float per format call."""
    if hasattr(vector, "round"):
        return str(vector.astype("float64").round(VECTOR_DECIMALS).tolist())
    return vector_literal(vector)


class RepeatedPassages:
    """The vectors (as pgvector literals) of the texts this run has embedded, oldest dropped first."""

    def __init__(self, limit: int = REPEATED_PASSAGES_KEPT) -> None:
        self.limit = limit
        self._vectors: dict[str, str] = {}

    def missing(self, texts: Iterable[str]) -> list[str]:
        """The distinct texts not embedded yet, in first-seen order."""
        return list(dict.fromkeys(t for t in texts if t not in self._vectors))

    def embed(self, embedder: Embedder, texts: Sequence[str]) -> int:
        """Embed the texts not known yet (in full batches); returns how many that was."""
        todo = self.missing(texts)
        if todo:
            for t, vector in zip(todo, _embed_arrays(embedder, todo), strict=True):
                if len(self._vectors) >= self.limit:
                    self._vectors.pop(next(iter(self._vectors)))
                self._vectors[t] = _array_literal(vector)
        return len(todo)

    def vectors_for(self, embedder: Embedder, texts: list[str]) -> tuple[list[str], int]:
        """One vector per text, and how many distinct texts had to be embedded for them."""
        known = {t: self._vectors[t] for t in set(texts) if t in self._vectors}
        embedded = self.embed(embedder, [t for t in texts if t not in known])
        return [known.get(t) or self._vectors[t] for t in texts], embedded


def _embed_arrays(embedder: Embedder, texts: list[str]) -> list[Any]:
    arrays = getattr(embedder, "embed_passage_arrays", None)  # test doubles may only embed lists
    return arrays(texts) if arrays is not None else embedder.embed_passages(texts)


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
            "SELECT n.id, n.text, n.text_sha256 FROM clinical_notes n WHERE n.patient_id = :p "
            "AND NOT EXISTS (SELECT 1 FROM note_chunks c WHERE c.patient_id = n.patient_id "
            "  AND c.note_id = n.id AND c.embedding_model = :m) ORDER BY n.date NULLS LAST, n.id"
        ),
        {"p": patient_id, "m": model_name},
    ).all()


def patients_with_pending_notes(db: Database, patient_ids: Iterable[str], model_name: str) -> list[str]:
    """Those of `patient_ids` with a note that has no chunks from `model_name` (one cheap
    indexed query per patient: row-level security needs the patient set).

    All in ONE read-only transaction that re-sets the patient before each query (`SET LOCAL`
    holds until the next one): a second `make run` asks this of every demo patient, and a
    transaction per patient cost it ~0.4 s of commits."""
    pending = []
    query = text(
        "SELECT 1 FROM clinical_notes n WHERE n.patient_id = :p AND NOT EXISTS (SELECT 1 "
        "FROM note_chunks c WHERE c.patient_id = n.patient_id AND c.note_id = n.id "
        "AND c.embedding_model = :m) LIMIT 1"
    )
    with db.admin.begin() as conn:
        for patient_id in patient_ids:
            set_patient(conn, patient_id)
            if conn.execute(query, {"p": patient_id, "m": model_name}).first():
                pending.append(patient_id)
    return pending


def lock_patient_index(conn: Connection, patient_id: str) -> None:
    """Serialise indexers of one patient (two concurrent ingests of one folder): the second
    waits for the first to commit, then finds nothing pending instead of inserting the same
    chunks again. Released with the transaction."""
    conn.execute(
        text("SELECT pg_advisory_xact_lock(hashtextextended('chartside-note-index:' || :p, 0))"),
        {"p": patient_id},
    )


def note_chunks_for(note_text: str) -> list:
    return chunk_blocks(note_blocks(note_text), budget=NOTE_BUDGET_WORDS)


@dataclass
class _PatientWork:
    """One patient's pending notes, chunked, waiting for their vectors."""

    patient_id: str
    notes: list  # (id, text, text_sha256) rows
    items: list = field(default_factory=list)  # (note id, note sha, chunk)
    skipped_empty: int = 0

    @property
    def texts(self) -> list[str]:
        return [embedding_text(chunk) for _, _, chunk in self.items]


def _gather(conn: Connection, patient_id: str, model_name: str) -> _PatientWork | None:
    pending = _pending_notes(conn, patient_id, model_name)
    if not pending:
        return None
    work = _PatientWork(patient_id, pending)
    for note in pending:
        chunks = note_chunks_for(note.text or "")
        if not chunks:
            work.skipped_empty += 1
        work.items.extend((note.id, note.text_sha256, chunk) for chunk in chunks)
    return work


_INSERT_CHUNK = text(
    "INSERT INTO note_chunks (patient_id, note_id, seq, section, heading_path, text, tsv, embedding, "
    "embedding_model) SELECT :p, :note_id, :seq, :section, :heading, :text, "
    "setweight(to_tsvector('english', :heading), 'A') || setweight(to_tsvector('english', :text), 'B'), "
    "CAST(:embedding AS vector), :model "
    # the note may have been re-ingested since it was read: chunks only for the text they came from
    "WHERE EXISTS (SELECT 1 FROM clinical_notes n WHERE n.patient_id = :p AND n.id = :note_id "
    "  AND n.text_sha256 IS NOT DISTINCT FROM :sha)"
)


def _still_pending(
    conn: Connection, work: _PatientWork, vectors: list[str], model_name: str
) -> tuple[_PatientWork, list[str]]:
    """Drop the notes another indexer of this patient wrote since `work` was gathered (two
    ingests of one folder): the caller holds `lock_patient_index`, so that one has committed."""
    done = set(
        conn.execute(
            text(
                "SELECT DISTINCT note_id FROM note_chunks WHERE patient_id = :p AND note_id = ANY(:ids) "
                "AND embedding_model = :m"
            ),
            {"p": work.patient_id, "ids": [n.id for n in work.notes], "m": model_name},
        ).scalars()
    )
    if not done:
        return work, vectors
    keep = [i for i, (note_id, _, _) in enumerate(work.items) if note_id not in done]
    notes = [n for n in work.notes if n.id not in done]
    items = [work.items[i] for i in keep]
    with_chunks = {note_id for note_id, _, _ in items}
    rest = _PatientWork(work.patient_id, notes, items, sum(n.id not in with_chunks for n in notes))
    return rest, [vectors[i] for i in keep]


def _write(conn: Connection, work: _PatientWork, vectors: list[str], model_name: str) -> _PatientWork:
    """Write `work`'s chunks; returns the part of it this call wrote (see `_still_pending`)."""
    lock_patient_index(conn, work.patient_id)
    work, vectors = _still_pending(conn, work, vectors, model_name)
    if not work.notes:
        return work
    conn.execute(
        text("DELETE FROM note_chunks WHERE patient_id = :p AND note_id = ANY(:ids)"),
        {"p": work.patient_id, "ids": [n.id for n in work.notes]},
    )
    if work.items:
        conn.execute(
            _INSERT_CHUNK,
            [
                {
                    "p": work.patient_id,
                    "note_id": note_id,
                    "sha": sha,
                    "seq": chunk.seq,
                    "section": chunk.heading_path[0] if chunk.heading_path else None,
                    "heading": chunk.heading,
                    "text": chunk.text,
                    "embedding": vector,
                    "model": model_name,
                }
                for (note_id, sha, chunk), vector in zip(work.items, vectors, strict=True)
            ],
        )
    return work


def _count(report: NoteIndexReport, work: _PatientWork) -> None:
    if not work.notes:  # another indexer wrote them all
        return
    report.patients += 1
    report.notes += len(work.notes)
    report.chunks += len(work.items)
    report.skipped_empty += work.skipped_empty


def index_patient(
    conn: Connection,
    embedder: Embedder,
    patient_id: str,
    report: NoteIndexReport,
    repeated: RepeatedPassages | None = None,
) -> None:
    """Index one patient's pending notes inside the caller's (patient-bound) transaction."""
    lock_patient_index(conn, patient_id)
    work = _gather(conn, patient_id, embedder.model_name)
    if work is None:
        return
    vectors, embedded = (repeated or RepeatedPassages()).vectors_for(embedder, work.texts)
    _count(report, _write(conn, work, vectors, embedder.model_name))
    report.embedded += embedded


def index_notes(
    db: Database,
    embedder: Embedder,
    patient_ids: Iterable[str] | None = None,
    *,
    progress: Callable[[int, int], None] | None = None,
) -> NoteIndexReport:
    """Index every note not yet indexed with the current model; one transaction per patient.

    Patients are read one by one, their new texts gathered until there are `EMBED_GATHER`
    (so the model runs at full batches), embedded, and each patient then written in its own
    transaction. Stopping at any point loses at most the gathered, unwritten patients, which
    the next run finds still pending. `progress(done, total)` counts patients.
    """
    patients = list(patient_ids) if patient_ids is not None else candidate_patients(db)
    report = NoteIndexReport()
    repeated = RepeatedPassages()
    gathered: list[_PatientWork] = []
    new_texts: set[str] = set()
    done = 0

    def flush() -> None:
        nonlocal done
        texts = [t for work in gathered for t in work.texts]
        report.embedded += repeated.embed(embedder, texts)
        for work in gathered:
            vectors, _ = repeated.vectors_for(embedder, work.texts)  # all known now
            with patient_transaction(db.admin, work.patient_id) as conn:
                written = _write(conn, work, vectors, embedder.model_name)
            _count(report, written)
        done += len(gathered)
        gathered.clear()
        new_texts.clear()
        if progress is not None:
            progress(done, len(patients))

    for patient_id in patients:
        with patient_transaction(db.admin, patient_id) as conn:
            work = _gather(conn, patient_id, embedder.model_name)
        if work is None:
            done += 1
            continue
        gathered.append(work)
        new_texts.update(repeated.missing(work.texts))
        if len(new_texts) >= EMBED_GATHER:
            flush()
    flush()
    return report
