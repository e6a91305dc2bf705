"""The embedding fallback: nearest section intent by similarity to example questions."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agent.offline.parse import INTENTS

EMBEDDING_FLOOR = 0.55


EmbedFn = Callable[[str], Sequence[float]]


@dataclass
class EmbeddingIntents:
    """Nearest intent by cosine similarity to its example questions (the local model)."""

    embed_query: EmbedFn
    embed_passages: Callable[[list[str]], Sequence[Sequence[float]]]
    floor: float = EMBEDDING_FLOOR
    _names: list[str] | None = None
    _matrix: np.ndarray | None = None  # one unit-length row per example question
    _recent: OrderedDict[str, dict[str, float]] = field(default_factory=OrderedDict)

    def _table(self) -> tuple[list[str], np.ndarray]:
        if self._matrix is None or self._names is None:
            pairs = [(i.name, e) for i in INTENTS for e in i.examples]
            self._matrix = _unit(np.asarray(self.embed_passages([e for _, e in pairs]), dtype=np.float32))
            self._names = [name for name, _ in pairs]
        return self._names, self._matrix

    def similarities(self, question: str) -> dict[str, float]:
        """Best cosine similarity per intent (one embedding and one matrix product per question;
        the planner asks several times about the same question, so the last few are kept)."""
        if (hit := self._recent.get(question)) is not None:
            return hit
        names, matrix = self._table()
        q = _unit(np.asarray(self.embed_query(question), dtype=np.float32).reshape(1, -1))[0]
        best: dict[str, float] = {}
        for name, score in zip(names, (matrix @ q).tolist(), strict=True):
            best[name] = max(best.get(name, -1.0), score)
        self._recent[question] = best
        if len(self._recent) > RECENT:
            self._recent.popitem(last=False)
        return best

    def nearest(self, question: str) -> tuple[str, float] | None:
        sims = self.similarities(question)
        name, score = max(sims.items(), key=lambda kv: kv[1])
        return (name, score) if score >= self.floor else None


RECENT = 32


def _unit(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.where(norms == 0, 1.0, norms)


def embedding_intents(embedder: Any) -> EmbeddingIntents | None:
    if embedder is None:
        return None
    return EmbeddingIntents(embed_query=embedder.embed_query, embed_passages=embedder.embed_passages)


# --------------------------------------------------------------------------------------------
# The planner
