"""The semantic half of the safety gate: nearest labelled exemplars on the local MiniLM embeddings.

The exemplars are the *tuning* part of the labelled set (`evals/safety/`), exported to
`exemplars.csv` next to this file by `chartside eval safety --export-exemplars`; a test checks
that the file equals the tuning part and holds no line of the frozen test part. Their
vectors are computed once per model and cached under `<data_dir>/safety/`.

For a question vector q (unit length, the same vector search uses), the score of a label is
the cosine similarity of its nearest exemplar; a label fires when its score clears an
absolute floor and beats the nearest exemplar of every other label by a margin. The floors
and margins (`THRESHOLDS`) were chosen on the tuning part with each template group left out
of its own neighbours (`evals.safety.tuning`), never on the test part.
"""

from __future__ import annotations

import csv
import hashlib
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from threadpoolctl import ThreadpoolController

EXEMPLARS = Path(__file__).with_name("exemplars.csv")


@dataclass(frozen=True)
class Thresholds:
    emergency_floor: float
    emergency_margin: float


THRESHOLDS = Thresholds(emergency_floor=0.60, emergency_margin=0.06)


@dataclass(frozen=True)
class Exemplar:
    text: str
    label: str
    category: str
    role: str


def read_exemplars(path: Path = EXEMPLARS) -> list[Exemplar]:
    with path.open(newline="", encoding="utf-8") as fh:
        return [Exemplar(r["text"], r["label"], r["category"], r["role"]) for r in csv.DictReader(fh)]


def write_exemplars(rows: Sequence[Exemplar], path: Path = EXEMPLARS) -> None:
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(("text", "label", "category", "role"))
        for r in rows:
            writer.writerow((r.text, r.label, r.category, r.role))


@dataclass(frozen=True)
class SemanticScores:
    best: dict[
        str, tuple[float, str]
    ]  # label → (similarity of its nearest exemplar, that exemplar's category)

    def fires(self, label: str, floor: float, margin: float) -> str | None:
        score, category = self.best.get(label, (-1.0, ""))
        others = max((s for other, (s, _) in self.best.items() if other != label), default=-1.0)
        return category if score >= floor and score - others >= margin else None


class ExemplarIndex:
    """Unit vectors of the exemplars, per role, and the nearest-exemplar scores of a question."""

    def __init__(self, exemplars: Sequence[Exemplar], vectors: np.ndarray) -> None:
        self.exemplars = list(exemplars)
        self.vectors = vectors.astype(np.float32)
        self.labels = np.array([e.label for e in exemplars])
        self.roles = np.array([e.role for e in exemplars])
        self._by_role: dict[str, dict[str, np.ndarray]] = {}
        for role in ("patient", "clinician"):
            # a clinician's line is compared with clinician lines and with every emergency line
            mask = (self.roles == role) | ((self.labels == "emergency") if role == "clinician" else False)
            if role == "clinician":
                mask = mask & (self.labels != "advice")
            self._by_role[role] = {
                label: np.flatnonzero(mask & (self.labels == label))
                for label in ("emergency", "advice", "allow")
            }

    def scores(
        self, vector: Sequence[float] | np.ndarray, role: str, exclude: np.ndarray | None = None
    ) -> SemanticScores:
        q = np.asarray(vector, dtype=np.float32)
        norm = float(np.linalg.norm(q))
        if norm:
            q = q / norm
        # one BLAS thread: a 1,500 × 384 product takes ~0.04 ms on one core, but OpenBLAS
        # splits it over its thread pool, and on a busy two-core machine waking those threads
        # cost up to 4 ms at p95 (`chartside bench safety`); the result is bit-identical
        with _blas().limit(limits=1, user_api="blas"):
            sims = self.vectors @ q
        if exclude is not None:
            sims = np.where(exclude, -1.0, sims)
        best: dict[str, tuple[float, str]] = {}
        for label, idx in self._by_role["clinician" if role != "patient" else "patient"].items():
            if idx.size:
                j = idx[int(np.argmax(sims[idx]))]
                best[label] = (float(sims[j]), self.exemplars[j].category)
        return SemanticScores(best)


@lru_cache(maxsize=1)
def _blas() -> ThreadpoolController:
    return ThreadpoolController()


def _unit(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.where(norms == 0, 1, norms)


_lock = threading.Lock()
_indexes: dict[tuple[str, str], ExemplarIndex] = {}


def exemplar_index(
    embed_passages: Callable[..., Sequence[Sequence[float]]],
    model_name: str,
    cache_dir: Path | None,
    progress: Callable[[int, int], None] | None = None,
) -> ExemplarIndex:
    """The index for this model, built once per process (vectors cached on disk per model and file).

    Embedding the exemplars is the one slow step (~7,000 lines, ~30 s on 2 cores), paid once per
    exemplar file and model; `progress(done, total)` reports it (`chartside up` shows it)."""
    exemplars = read_exemplars()
    digest = hashlib.sha256(EXEMPLARS.read_bytes() + model_name.encode()).hexdigest()[:16]
    key = (model_name, digest)
    with _lock:
        if key in _indexes:
            return _indexes[key]
        cached = cache_dir / f"exemplars-{digest}.npy" if cache_dir is not None else None
        vectors: Any = None
        if cached is not None and cached.is_file():
            vectors = np.load(cached)
            if vectors.shape[0] != len(exemplars):
                vectors = None
        if vectors is None:
            texts = [e.text for e in exemplars]
            embedded = embed_passages(texts, progress=progress) if progress else embed_passages(texts)
            vectors = _unit(np.asarray(embedded, dtype=np.float32))
            if cached is not None:
                cached.parent.mkdir(parents=True, exist_ok=True)
                partial = cached.with_suffix(".partial.npy")
                np.save(partial, vectors)
                partial.replace(cached)
        _indexes[key] = ExemplarIndex(exemplars, vectors)
        return _indexes[key]
