"""Hybrid search: vector + keyword (+ exact terms), fused with RRF, then the relevance gate.

Leaflets are shared reference data: the vector leg uses the HNSW index (cosine ops, matching
the `<=>` operator used here). Notes belong to one patient: the patient's chunks are
selected first in a MATERIALIZED CTE and then scanned exactly, so no approximate index can
ever be applied before the patient filter (an HNSW scan filtered afterwards returns too few
rows). Both functions take an already-embedded query so that evaluations and benchmarks can
time and reuse the embedding separately.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, Literal

from sqlalchemy import Connection, text

from knowledge import bm25
from knowledge.fusion import reciprocal_rank_fusion
from knowledge.gate import ExactTerm, contains_exact, exact_terms, passes_gate

KeywordBackend = Literal["fts", "bm25"]
DEFAULT_KEYWORD_BACKEND: KeywordBackend = "bm25"  # measured: README "Retrieval quality", docs/search.md
CANDIDATES_PER_LEG = 30
HNSW_EF_SEARCH = 100

# OR of the question's stemmed lexemes: a lay question rarely contains every word of a passage,
# so AND semantics (plainto/websearch_to_tsquery) would find almost nothing.
_TSQUERY = (
    "to_tsquery('simple', coalesce(array_to_string(ARRAY(SELECT quote_literal(l) FROM "
    "unnest(tsvector_to_array(to_tsvector('english', :query))) AS l), ' | '), ''))"
)
# weights {D, C, B, A}: heading/title lexemes (A) count 2.5x body lexemes (B); 1 = length normalisation
_RANK = "ts_rank('{{0.1, 0.2, 0.4, 1.0}}', {tsv}, {tsq}, 1)"


# a note the patient's record shows (never one entered in error) dated in the window
# (`:since`, `:until`, either may be NULL): the one definition, for every notes search
NOTE_SHOWN_IN_WINDOW = """coalesce(n.doc_status, '') <> 'entered-in-error'
    AND (CAST(:since AS date) IS NULL OR n.date >= CAST(:since AS date))
    AND (CAST(:until AS date) IS NULL OR n.date < CAST(:until AS date) + 1)"""


@dataclass
class Passage:
    chunk_id: int
    text: str
    heading_path: str
    similarity: float
    overlap_text: str = ""
    exact: bool = False
    vector_rank: int | None = None
    keyword_rank: int | None = None
    fused: float = 0.0
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass
class SearchOutcome:
    passages: list[Passage]  # admitted by the gate, best first
    rejected: list[Passage]  # candidates the gate turned away, best first (for "closest was …")
    floor: float
    terms: list[ExactTerm] = field(default_factory=list)

    @property
    def best_similarity(self) -> float | None:
        sims = [p.similarity for p in self.passages + self.rejected]
        return max(sims) if sims else None


LEAFLET_PASSAGES_PER_LEAFLET = 3


def _vector_literal(vector: list[float]) -> str:
    return "[" + ",".join(f"{x:.7g}" for x in vector) + "]"


def _exact_sql(terms: list[ExactTerm], column: str) -> tuple[str, dict[str, str]]:
    if not terms:
        return "false", {}
    params = {f"exact_{i}": t.pattern for i, t in enumerate(terms)}
    return "(" + " OR ".join(f"{column} ~* :{name}" for name in params) + ")", params


def _fuse_and_gate(
    candidates: dict[int, Passage],
    vector_order: list[int],
    keyword_order: list[int],
    exact_order: list[int],
    *,
    limit: int,
    floor: float,
    terms: list[ExactTerm],
    dedupe: bool = False,
    per_source: int = 0,
) -> SearchOutcome:
    for rank, cid in enumerate(vector_order, start=1):
        candidates[cid].vector_rank = rank
    for rank, cid in enumerate(keyword_order, start=1):
        candidates[cid].keyword_rank = rank
    kept: list[Passage] = []
    rejected: list[Passage] = []
    for cid, score in reciprocal_rank_fusion([vector_order, keyword_order, exact_order]):
        passage = candidates[cid]
        passage.fused = score
        searchable = f"{passage.heading_path}\n{passage.text}"
        passage.exact = bool(terms) and contains_exact(searchable, terms)
        (kept if passes_gate(passage.similarity, floor, passage.exact) else rejected).append(passage)
    rejected.sort(key=lambda p: -p.similarity)
    if dedupe:
        kept = _collapse_repeats(kept)
    if per_source:
        kept = diversify(kept, limit, per_source)
    return SearchOutcome(passages=kept[:limit], rejected=rejected, floor=floor, terms=terms)


def diversify(passages: list[Passage], limit: int, per_source: int) -> list[Passage]:
    """At most `per_source` passages of one leaflet while other leaflets that passed the gate
    wait; the rest fill any slots left, in rank order (one leaflet cannot take every slot)."""
    taken: dict[str, int] = {}
    first: list[Passage] = []
    later: list[Passage] = []
    for p in passages:
        source = str(p.meta.get("slug") or p.chunk_id)
        if taken.get(source, 0) < per_source:
            taken[source] = taken.get(source, 0) + 1
            first.append(p)
        else:
            later.append(p)
    out = first[:limit]
    return out + later[: max(0, limit - len(out))]


def _collapse_repeats(passages: list[Passage]) -> list[Passage]:
    """Notes repeat themselves (Synthea copies the social history into every note): identical
    passages become one, the newest kept, the other dates listed in `meta["also_dates"]`."""
    groups: dict[tuple[str, str], list[Passage]] = {}
    for p in passages:
        groups.setdefault((p.heading_path, " ".join(p.text.split()).casefold()), []).append(p)
    out = []
    for p in passages:
        group = groups.get((p.heading_path, " ".join(p.text.split()).casefold()))
        if not group:
            continue  # already emitted with its group
        newest = max(group, key=lambda g: (g.meta.get("date") is not None, g.meta.get("date") or 0))
        newest.meta["also_dates"] = sorted(
            (g.meta["date"] for g in group if g is not newest and g.meta.get("date")), reverse=True
        )
        out.append(newest)
        groups.pop((p.heading_path, " ".join(p.text.split()).casefold()))
    return out


def search_leaflets(
    conn: Connection,
    query: str,
    query_vector: list[float],
    *,
    model_name: str,
    limit: int = 5,
    floor: float,
    candidates: int = CANDIDATES_PER_LEG,
    keyword: KeywordBackend = DEFAULT_KEYWORD_BACKEND,
    legs: tuple[str, ...] = ("vector", "keyword", "exact"),
) -> SearchOutcome:
    """Top leaflet passages for a question, or none when nothing clears the gate.

    `keyword` picks the keyword leg (PostgreSQL full text or BM25); `legs` lets the
    retrieval evaluation measure each leg alone. Both default to the measured best.
    """
    terms = exact_terms(query)
    vec = _vector_literal(query_vector)
    conn.execute(text(f"SET LOCAL hnsw.ef_search = {HNSW_EF_SEARCH}"))
    conn.execute(text("SET LOCAL hnsw.iterative_scan = relaxed_order"))
    vector_rows = conn.execute(
        text(
            "SELECT id FROM leaflet_chunks WHERE embedding_model = :model "
            "ORDER BY embedding <=> CAST(:vec AS vector) LIMIT :k"
        ),
        {"model": model_name, "vec": vec, "k": candidates},
    ).all()
    if keyword == "bm25":
        keyword_order = bm25.leaflet_index(conn, model_name).rank(bm25.query_terms(conn, query), candidates)
    else:
        keyword_order = [
            r.id
            for r in conn.execute(
                text(
                    f"SELECT id FROM leaflet_chunks, {_TSQUERY} AS tsq WHERE tsv @@ tsq "
                    f"AND embedding_model = :model ORDER BY {_RANK.format(tsv='tsv', tsq='tsq')} DESC, id LIMIT :k"
                ),
                {"query": query, "model": model_name, "k": candidates},
            ).all()
        ]
    exact_where, exact_params = _exact_sql(terms, "(heading_path || ' ' || text)")
    exact_rows = (
        conn.execute(
            text(
                f"SELECT id FROM leaflet_chunks WHERE embedding_model = :model AND {exact_where} "
                "ORDER BY id LIMIT :k"
            ),
            {"model": model_name, "k": candidates, **exact_params},
        ).all()
        if terms
        else []
    )
    vector_order = [r.id for r in vector_rows] if "vector" in legs else []
    keyword_order = keyword_order if "keyword" in legs else []
    exact_order = [r.id for r in exact_rows] if "exact" in legs else []
    ids = list(dict.fromkeys(vector_order + keyword_order + exact_order))
    if not ids:
        return SearchOutcome(passages=[], rejected=[], floor=floor, terms=terms)
    rows = conn.execute(
        text(
            "SELECT c.id, c.text, c.overlap_text, c.heading_path, c.seq, "
            "1 - (c.embedding <=> CAST(:vec AS vector)) AS similarity, "
            "l.slug, l.title, l.category, l.reviewed, l.contact "
            "FROM leaflet_chunks c JOIN leaflets l ON l.id = c.leaflet_id WHERE c.id = ANY(:ids)"
        ),
        {"vec": vec, "ids": ids},
    ).all()
    found = {
        r.id: Passage(
            chunk_id=r.id,
            text=r.text,
            overlap_text=r.overlap_text or "",
            heading_path=r.heading_path or "",
            similarity=float(r.similarity),
            meta={
                "slug": r.slug,
                "seq": r.seq,
                "title": r.title,
                "category": r.category,
                "reviewed": r.reviewed,
                "contact": r.contact,
            },
        )
        for r in rows
    }
    return _fuse_and_gate(
        found,
        [i for i in vector_order if i in found],
        [i for i in keyword_order if i in found],
        [i for i in exact_order if i in found],
        limit=limit,
        floor=floor,
        terms=terms,
        per_source=LEAFLET_PASSAGES_PER_LEAFLET,
    )


def search_notes(
    conn: Connection,
    query: str,
    query_vector: list[float],
    *,
    patient_id: str,
    model_name: str,
    limit: int = 5,
    floor: float,
    since: dt.date | None = None,
    until: dt.date | None = None,
    candidates: int = CANDIDATES_PER_LEG,
    collapse_repeats: bool = True,
) -> SearchOutcome:
    """Top passages from ONE patient's notes: exact scan over that patient's chunks only.

    Identical passages from several notes come back once (the newest, with the other dates)."""
    terms = exact_terms(query)
    exact_expr, exact_params = _exact_sql(terms, "(coalesce(heading_path, '') || ' ' || text)")
    rows = conn.execute(
        text(
            f"""
            WITH mine AS MATERIALIZED (
                SELECT c.id, c.note_id, c.seq, c.section, c.heading_path, c.text, c.tsv, c.embedding,
                       n.date, n.type_display, n.author_name, e.type_display AS encounter_type,
                       e.class_code AS encounter_class
                FROM note_chunks c
                JOIN clinical_notes n ON n.patient_id = c.patient_id AND n.id = c.note_id
                LEFT JOIN encounters e ON e.patient_id = :patient_id AND e.id = n.encounter_id
                WHERE c.patient_id = :patient_id AND n.patient_id = :patient_id
                  AND c.embedding_model = :model
                  AND {NOTE_SHOWN_IN_WINDOW}
            ), scored AS (
                SELECT mine.*, 1 - (embedding <=> CAST(:vec AS vector)) AS similarity,
                       CASE WHEN tsv @@ tsq THEN {_RANK.format(tsv="tsv", tsq="tsq")} END AS keyword_score,
                       {exact_expr} AS exact_hit
                FROM mine, {_TSQUERY} AS tsq
            )
            SELECT * FROM scored
            WHERE id IN (SELECT id FROM scored ORDER BY similarity DESC LIMIT :k)
               OR id IN (SELECT id FROM scored WHERE keyword_score IS NOT NULL
                         ORDER BY keyword_score DESC LIMIT :k)
               OR exact_hit
            """
        ),
        {
            "patient_id": patient_id,
            "model": model_name,
            "since": since,
            "until": until,
            "vec": _vector_literal(query_vector),
            "query": query,
            "k": candidates,
            **exact_params,
        },
    ).all()
    found = {
        r.id: Passage(
            chunk_id=r.id,
            text=r.text,
            heading_path=r.heading_path or "",
            similarity=float(r.similarity),
            meta={
                "note_id": r.note_id,
                "seq": r.seq,
                "section": r.section,
                "date": r.date,
                "note_type": r.type_display,
                "author": r.author_name,
                "encounter_type": r.encounter_type,
                "encounter_class": r.encounter_class,
            },
        )
        for r in rows
    }
    by_similarity = sorted(found, key=lambda cid: -found[cid].similarity)[:candidates]
    keyword_scores = {r.id: r.keyword_score for r in rows if r.keyword_score is not None}
    by_keyword = sorted(keyword_scores, key=lambda cid: (-keyword_scores[cid], cid))[:candidates]
    exact_ids = sorted(r.id for r in rows if r.exact_hit)
    return _fuse_and_gate(
        found,
        by_similarity,
        by_keyword,
        exact_ids,
        limit=limit,
        floor=floor,
        terms=terms,
        dedupe=collapse_repeats,
    )
