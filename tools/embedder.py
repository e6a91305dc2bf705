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


class DeferredEmbedder:
    """The process's embedder, loaded in the background instead of before serving.

    `chartside up` hands this to the web app when nothing needs embedding at start (a second
    `make run`): the app serves at once while `start()` loads the model in a thread. Any use
    — the safety gate's first question, a search — goes through `load_embedder`, whose lock
    makes it wait for that load to finish (never a "no results" while loading), and whose one
    failure policy raises `EmbeddingSetupError` with the fix. `model_name` is the configured
    name, which is what the loaded embedder reports, so reading it loads nothing.
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.model_name: str = settings.embedding_model

    def start(
        self,
        on_failure: Callable[[Exception], None] | None = None,
        then: Callable[[], None] | None = None,
    ) -> Any:
        """Load the model in a daemon thread; `on_failure(exc)` if it cannot be used, else
        `then()` in the same thread (`chartside up` warms the safety gate there)."""
        import threading

        def load() -> None:
            try:
                load_embedder(self.settings)
            except Exception as exc:  # the one failure policy's error, with its fix
                if on_failure is not None:
                    on_failure(exc)
                return
            if then is not None:
                then()

        thread = threading.Thread(target=load, name="load-embedder", daemon=True)
        thread.start()
        return thread

    def loaded(self) -> Any:
        return load_embedder(self.settings)

    def embed_query(self, text: str) -> list[float]:
        return self.loaded().embed_query(text)

    def embed_passages(
        self, texts: Sequence[str], *, progress: Callable[[int, int], None] | None = None
    ) -> list[list[float]]:
        return self.loaded().embed_passages(texts, progress=progress)

    def __getattr__(self, name: str) -> Any:  # dimension, batch_size, …: the loaded model's
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.loaded(), name)
