"""The embedder the search tools use, as the layers above `tools/` see it.

`agent/`, `server/` and `mcp_server/` never import `knowledge/`: the server's lifespan (or a
CLI command) loads the one embedder here, once, and passes it in — through `ToolContext.embedder`
to the tools, and to the safety gate and the planner — so one model instance and one question
vector serve the whole question. The loader is `knowledge.embeddings.load_embedder` and its
one failure policy: a model that cannot be used raises `EmbeddingSetupError` naming the fix.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from records.settings import Settings


class QueryEmbedder(Protocol):
    """What tools, the gate and the planner use of an embedder (knowledge.embeddings.Embedder,
    or the agent's per-question `SharedQueryEmbedder` around it)."""

    model_name: str

    def embed_query(self, text: str) -> list[float]: ...

    def embed_passages(
        self, texts: Sequence[str], *, progress: Callable[[int, int], None] | None = None
    ) -> list[list[float]]: ...


def load_embedder(settings: Settings) -> Any:
    """The process's embedder for the configured model (loaded once; ~1 s the first time).

    Imported lazily so that importing the tool registry (and the CLI) stays cheap."""
    from knowledge.embeddings import load_embedder as load

    return load(settings)
