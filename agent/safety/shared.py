"""One question embedding per question, shared by the safety gate, the planner and search.

`SharedQueryEmbedder` wraps the process's embedder: `embed_query` remembers the last few
texts it embedded, so when the gate has embedded the question, the offline planner's intent
match and a search whose query is the question reuse that vector instead of running the
model again. Everything else (`embed_passages`, `model_name`, …) passes through.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

REMEMBERED = 64


class SharedQueryEmbedder:
    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self._vectors: OrderedDict[str, list[float]] = OrderedDict()
        self._lock = threading.Lock()
        self.computed = 0  # how many query embeddings actually ran the model

    def embed_query(self, text: str) -> list[float]:
        with self._lock:
            cached = self._vectors.get(text)
            if cached is not None:
                self._vectors.move_to_end(text)
                return cached
        vector = self.inner.embed_query(text)
        with self._lock:
            self.computed += 1
            self._vectors[text] = vector
            while len(self._vectors) > REMEMBERED:
                self._vectors.popitem(last=False)
        return vector

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def shared(embedder: Any) -> Any:
    """The embedder wrapped once (a wrapped one is returned as is; None stays None)."""
    if embedder is None or isinstance(embedder, SharedQueryEmbedder):
        return embedder
    return SharedQueryEmbedder(embedder)
