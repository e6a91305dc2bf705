"""Okapi BM25 (rank-bm25) over the leaflet chunks, as the alternative keyword leg.

PostgreSQL's `ts_rank` has no inverse document frequency: a question's rare, telling word
("grapefruit") counts no more than a word every cholesterol leaflet repeats. BM25 weighs
terms by rarity. To compare the two fairly, both use the same analyzer: terms are the
lexemes PostgreSQL stored in `tsv` (english stemming), heading/title lexemes (weight A)
counted `HEADING_REPEAT` times. The index lives in process memory and is rebuilt when the
stored chunks change (count and newest id are the signature).
"""

from __future__ import annotations

import re
import threading

from rank_bm25 import BM25Okapi
from sqlalchemy import Connection, text

HEADING_REPEAT = 2
_LEXEME = re.compile(r"'((?:[^']|'')*)'(?::([0-9A-D,]+))?")


def tsvector_terms(tsv: str, heading_repeat: int = HEADING_REPEAT) -> list[str]:
    """ "'fast':3,9A 'water':4" → ['fast', 'fast', 'fast', 'water'] (A positions repeated)."""
    terms: list[str] = []
    for match in _LEXEME.finditer(tsv):
        lexeme = match.group(1).replace("''", "'")
        positions = (match.group(2) or "1").split(",")
        for position in positions:
            terms.extend([lexeme] * (heading_repeat if position.endswith("A") else 1))
    return terms


class Bm25Index:
    def __init__(self, ids: list[int], documents: list[list[str]]) -> None:
        self.ids = ids
        self._bm25 = BM25Okapi(documents) if documents else None

    def rank(self, query_terms: list[str], k: int) -> list[int]:
        if self._bm25 is None or not query_terms:
            return []
        scores = self._bm25.get_scores(query_terms)
        order = sorted(range(len(self.ids)), key=lambda i: (-scores[i], self.ids[i]))
        return [self.ids[i] for i in order[:k] if scores[i] > 0]


_cache: dict[str, tuple[tuple, Bm25Index]] = {}
_lock = threading.Lock()


def leaflet_index(conn: Connection, model_name: str) -> Bm25Index:
    key = f"{conn.engine.url.render_as_string(hide_password=True)}|{model_name}"  # one index per database
    signature = tuple(
        conn.execute(
            text("SELECT count(*), max(id) FROM leaflet_chunks WHERE embedding_model = :m"), {"m": model_name}
        ).one()
    )
    with _lock:
        cached = _cache.get(key)
        if cached and cached[0] == signature:
            return cached[1]
    rows = conn.execute(
        text("SELECT id, tsv::text AS tsv FROM leaflet_chunks WHERE embedding_model = :m ORDER BY id"),
        {"m": model_name},
    ).all()
    index = Bm25Index([r.id for r in rows], [tsvector_terms(r.tsv or "") for r in rows])
    with _lock:
        _cache[key] = (signature, index)
    return index


def query_terms(conn: Connection, query: str) -> list[str]:
    return list(
        conn.execute(text("SELECT tsvector_to_array(to_tsvector('english', :q))"), {"q": query}).scalar_one()
        or []
    )
