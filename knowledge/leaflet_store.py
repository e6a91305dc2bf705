"""Leaflet ingestion: idempotent by checksum, one document replaced atomically.

For each file: sha256 of its bytes → unchanged (same checksum and embedded with the current
model) means nothing to do. Otherwise load → chunk → embed, and then, in ONE transaction,
upsert the `leaflets` row and replace all of its chunks, so a search never sees half of an
old and half of a new leaflet. A file that fails to load is reported by name and leaves
the stored version of that leaflet untouched; the other files still go in.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from sqlalchemy import Connection, text

from knowledge.blocks import DocumentError, LoadedDocument
from knowledge.chunking import Chunk, chunk_blocks, embedding_text
from knowledge.embeddings import Embedder, Progress
from knowledge.loaders import load_document, supported
from records.database import Database

SHIPPED_LEAFLETS = Path(__file__).resolve().parent / "leaflets"
IGNORED_NAMES = ("readme", "_")

Status = Literal["added", "replaced", "unchanged", "failed", "removed"]


@dataclass
class IngestOutcome:
    path: Path
    slug: str
    status: Status
    chunks: int = 0
    error: str | None = None


def slug_for(path: Path) -> str:
    return re.sub(r"[^a-z0-9]+", "-", path.stem.lower()).strip("-")


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def find_files(directory: Path) -> list[Path]:
    if not directory.is_dir():
        raise FileNotFoundError(f"{directory}: not a folder")
    return sorted(
        p
        for p in directory.rglob("*")
        if p.is_file() and supported(p) and not p.name.lower().startswith(IGNORED_NAMES)
    )


@dataclass
class _Prepared:
    path: Path
    slug: str
    sha: str
    document: LoadedDocument
    chunks: list[Chunk]
    existed: bool


def _stored(conn: Connection) -> dict[str, tuple[str, bool]]:
    """slug → (sha256, every chunk embedded with `model`)."""
    rows = conn.execute(
        text(
            "SELECT l.slug, l.sha256, array_agg(DISTINCT c.embedding_model) AS models "
            "FROM leaflets l LEFT JOIN leaflet_chunks c ON c.leaflet_id = l.id GROUP BY l.slug, l.sha256"
        )
    ).all()
    return {r.slug: (r.sha256, r.models) for r in rows}


def _write(conn: Connection, item: _Prepared, vectors: list[list[float]], model_name: str) -> None:
    meta = item.document.meta
    # EXCLUDED.ingested_at (the column's default, now()) rather than now(): Citus refuses a
    # non-IMMUTABLE function in DO UPDATE SET on a distributed or reference table
    leaflet_id = conn.execute(
        text(
            "INSERT INTO leaflets (slug, title, category, reviewed, contact, source_path, format, sha256) "
            "VALUES (:slug, :title, :category, :reviewed, :contact, :path, :format, :sha) "
            "ON CONFLICT (slug) DO UPDATE SET title = EXCLUDED.title, category = EXCLUDED.category, "
            "reviewed = EXCLUDED.reviewed, contact = EXCLUDED.contact, source_path = EXCLUDED.source_path, "
            "format = EXCLUDED.format, sha256 = EXCLUDED.sha256, ingested_at = EXCLUDED.ingested_at RETURNING id"
        ),
        {
            "slug": item.slug,
            "title": meta.title,
            "category": meta.category,
            "reviewed": meta.reviewed,
            "contact": meta.contact,
            "path": str(item.path),
            "format": item.document.format,
            "sha": item.sha,
        },
    ).scalar_one()
    conn.execute(text("DELETE FROM leaflet_chunks WHERE leaflet_id = :id"), {"id": leaflet_id})
    if not item.chunks:
        return
    conn.execute(
        text(
            "INSERT INTO leaflet_chunks (leaflet_id, seq, heading_path, text, overlap_text, tsv, embedding, "
            "embedding_model) VALUES (:leaflet_id, :seq, :heading, :text, :overlap, "
            "setweight(to_tsvector('english', :title || ' ' || :heading), 'A') || "
            "setweight(to_tsvector('english', :text), 'B'), CAST(:embedding AS vector), :model)"
        ),
        [
            {
                "leaflet_id": leaflet_id,
                "seq": chunk.seq,
                "heading": chunk.heading,
                "title": meta.title,
                "text": chunk.text,
                "overlap": chunk.overlap_text or None,
                "embedding": "[" + ",".join(f"{x:.7g}" for x in vector) + "]",
                "model": model_name,
            }
            for chunk, vector in zip(item.chunks, vectors, strict=True)
        ],
    )


def ingest_leaflets(
    db: Database,
    embedder: Embedder,
    directory: Path = SHIPPED_LEAFLETS,
    *,
    force: bool = False,
    prune: bool = False,
    progress: Progress | None = None,
) -> list[IngestOutcome]:
    """Bring the stored leaflets in line with `directory`. Returns one outcome per file."""
    files = find_files(directory)
    outcomes: list[IngestOutcome] = []
    with db.admin.connect() as conn:
        stored = _stored(conn)
    by_slug: dict[str, Path] = {}
    prepared: list[_Prepared] = []
    for path in files:
        slug = slug_for(path)
        if slug in by_slug:
            outcomes.append(
                IngestOutcome(
                    path, slug, "failed", error=f"same leaflet name as {by_slug[slug].name}; rename one"
                )
            )
            continue
        by_slug[slug] = path
        sha = sha256_file(path)
        previous = stored.get(slug)
        if not force and previous and previous[0] == sha and previous[1] == [embedder.model_name]:
            outcomes.append(IngestOutcome(path, slug, "unchanged"))
            continue
        try:
            document = load_document(path)
        except DocumentError as exc:
            outcomes.append(IngestOutcome(path, slug, "failed", error=exc.reason))
            continue
        chunks = chunk_blocks(document.blocks)
        prepared.append(_Prepared(path, slug, sha, document, chunks, existed=previous is not None))

    texts = [embedding_text(c, item.document.meta.title) for item in prepared for c in item.chunks]
    vectors = embedder.embed_passages(texts, progress=progress, description="Embedding leaflets")
    offset = 0
    for item in prepared:
        mine = vectors[offset : offset + len(item.chunks)]
        offset += len(item.chunks)
        with db.admin.begin() as conn:  # one leaflet, one transaction
            _write(conn, item, mine, embedder.model_name)
        outcomes.append(
            IngestOutcome(
                item.path, item.slug, "replaced" if item.existed else "added", chunks=len(item.chunks)
            )
        )
    if prune:
        outcomes.extend(_prune(db, keep=set(by_slug)))
    return outcomes


def _prune(db: Database, keep: Iterable[str]) -> list[IngestOutcome]:
    with db.admin.begin() as conn:
        gone = conn.execute(
            text("DELETE FROM leaflets WHERE NOT (slug = ANY(:keep)) RETURNING slug, source_path"),
            {"keep": list(keep)},
        ).all()
    return [IngestOutcome(Path(r.source_path), r.slug, "removed") for r in gone]


def ensure_leaflets(
    db: Database, embedder: Embedder, *, progress: Progress | None = None
) -> list[IngestOutcome]:
    """`make run` bootstrap: the shipped corpus, (re)embedded only where something changed."""
    return ingest_leaflets(db, embedder, SHIPPED_LEAFLETS, progress=progress)
