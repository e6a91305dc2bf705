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


LABELS = ("emergency", "advice", "allow")


@dataclass(frozen=True)
class RoleBlocks:
    """One role's exemplar vectors as one contiguous matrix, one block of rows per label (each
    in exemplar order), so a question's nearest exemplar of each label is one product over the
    rows that role reads and a maximum over each block: no gather of the rows per label."""

    matrix: np.ndarray  # float32, C-contiguous; zero rows pad it to a multiple of `ROW_GROUP`
    spans: tuple[tuple[str, int, int], ...]  # (label, first row, end row) of each non-empty block
    categories: tuple[str, ...]  # the category of each row of `matrix` (padding excluded)


# OpenBLAS's single-precision matrix-vector kernel computes rows in small groups, and the rows past
# the last whole group with other code whose rounding can differ in the last bit (seen with this
# venv's OpenBLAS 0.3.31: a row's similarity changed with its position in the matrix). Every
# matrix here is padded with zero rows to a whole number of 16 rows, so a row's similarity is the
# same float32 number whichever matrix and block it sits in (`tests/agent/test_safety_exemplar_blocks.py`)
ROW_GROUP = 16


def _whole_groups(rows: np.ndarray) -> np.ndarray:
    """`rows` as float32, then zero rows up to a whole number of `ROW_GROUP`s."""
    padded = np.zeros((len(rows) + -len(rows) % ROW_GROUP, rows.shape[1]), dtype=np.float32)
    padded[: len(rows)] = rows
    return padded


class ExemplarIndex:
    """Unit vectors of the exemplars, per role, and the nearest-exemplar scores of a question."""

    def __init__(self, exemplars: Sequence[Exemplar], vectors: np.ndarray) -> None:
        self.exemplars = list(exemplars)
        self._padded = _whole_groups(vectors)
        self.vectors = self._padded[: len(vectors)]
        self.labels = np.array([e.label for e in exemplars])
        self.roles = np.array([e.role for e in exemplars])
        self._by_role: dict[str, dict[str, np.ndarray]] = {}
        self._blocks: dict[str, RoleBlocks] = {}
        for role in ("patient", "clinician"):
            # a clinician's line is compared with clinician lines and with every emergency line
            mask = (self.roles == role) | ((self.labels == "emergency") if role == "clinician" else False)
            if role == "clinician":
                mask = mask & (self.labels != "advice")
            self._by_role[role] = {label: np.flatnonzero(mask & (self.labels == label)) for label in LABELS}
            self._blocks[role] = self._role_blocks(self._by_role[role])

    def _role_blocks(self, rows_by_label: dict[str, np.ndarray]) -> RoleBlocks:
        order = np.concatenate([rows_by_label[label] for label in LABELS])
        spans, start = [], 0
        for label in LABELS:
            end = start + len(rows_by_label[label])
            if end > start:
                spans.append((label, start, end))
            start = end
        categories = tuple(self.exemplars[j].category for j in order)
        return RoleBlocks(_whole_groups(self.vectors[order]), tuple(spans), categories)

    def scores(
        self, vector: Sequence[float] | np.ndarray, role: str, exclude: np.ndarray | None = None
    ) -> SemanticScores:
        """Each label's nearest exemplar for this role: its similarity and category (the first
        exemplar of the label, in file order, when several are equally near). `exclude` (a mask
        over the exemplars, cross-validation only) leaves exemplars out."""
        if exclude is not None:
            return self.brute_force_scores(vector, role, exclude)
        q = _unit_query(vector)
        blocks = self._blocks["clinician" if role != "patient" else "patient"]
        # one BLAS thread: a 1,500 × 384 product takes ~0.04 ms on one core, but OpenBLAS
        # splits it over its thread pool, and on a busy two-core machine waking those threads
        # cost up to 4 ms at p95 (`chartside bench safety`); the result is bit-identical
        with _blas().limit(limits=1, user_api="blas"):
            sims = blocks.matrix @ q
        best: dict[str, tuple[float, str]] = {}
        for label, start, end in blocks.spans:
            j = start + int(np.argmax(sims[start:end]))
            best[label] = (float(sims[j]), blocks.categories[j])
        return SemanticScores(best)

    def brute_force_scores(
        self, vector: Sequence[float] | np.ndarray, role: str, exclude: np.ndarray | None = None
    ) -> SemanticScores:
        """`scores` by a product over every exemplar and a gather of each label's rows: the
        reference the block layout is tested against, and the path of cross-validation."""
        q = _unit_query(vector)
        with _blas().limit(limits=1, user_api="blas"):
            sims = (self._padded @ q)[: len(self.vectors)]
        if exclude is not None:
            sims = np.where(exclude, -1.0, sims)
        best: dict[str, tuple[float, str]] = {}
        for label, idx in self._by_role["clinician" if role != "patient" else "patient"].items():
            if idx.size:
                j = idx[int(np.argmax(sims[idx]))]
                best[label] = (float(sims[j]), self.exemplars[j].category)
        return SemanticScores(best)


def _unit_query(vector: Sequence[float] | np.ndarray) -> np.ndarray:
    q = np.asarray(vector, dtype=np.float32)
    norm = float(np.linalg.norm(q))
    return q / norm if norm else q


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
