"""The embedding fallback: nearest section intent by similarity to example questions."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from agent.offline.parse import INTENTS

EMBEDDING_FLOOR = 0.55


EmbedFn = Callable[[str], Sequence[float]]


@dataclass
class EmbeddingIntents:
    """Nearest intent by cosine similarity to its example questions (the local model)."""

    embed_query: EmbedFn
    embed_passages: Callable[[list[str]], Sequence[Sequence[float]]]
    floor: float = EMBEDDING_FLOOR
    _examples: list[tuple[str, Sequence[float]]] | None = None

    def _table(self) -> list[tuple[str, Sequence[float]]]:
        if self._examples is None:
            pairs = [(i.name, e) for i in INTENTS for e in i.examples]
            vectors = self.embed_passages([e for _, e in pairs])
            self._examples = [(name, v) for (name, _), v in zip(pairs, vectors, strict=True)]
        return self._examples

    def similarities(self, question: str) -> dict[str, float]:
        q = self.embed_query(question)
        best: dict[str, float] = {}
        for name, vector in self._table():
            best[name] = max(best.get(name, -1.0), _cosine(q, vector))
        return best

    def nearest(self, question: str) -> tuple[str, float] | None:
        sims = self.similarities(question)
        name, score = max(sims.items(), key=lambda kv: kv[1])
        return (name, score) if score >= self.floor else None


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0


def embedding_intents(embedder: Any) -> EmbeddingIntents | None:
    if embedder is None:
        return None
    return EmbeddingIntents(embed_query=embedder.embed_query, embed_passages=embedder.embed_passages)


# --------------------------------------------------------------------------------------------
# The planner
