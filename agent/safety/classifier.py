"""A small emergency classifier: L2 logistic regression on the MiniLM embeddings of the tune part.

Why not nearest exemplars alone: a held-out wording ("i can't rouse my mum") rarely has a
close twin among the exemplars, so the nearest-exemplar detector caught 66 % of emergencies in
group cross-validation on the tune part at 1 % false positives. A linear model over the same
unit vectors learns the *direction* that separates emergencies from everything else and
generalises to new wordings far better (see the README's safety section for the figures).

Fit: plain numpy full-batch gradient descent from zeros, fixed iterations, learning rate and
L2 (`HYPER`) — deterministic, no extra library (scikit-learn's `LogisticRegression` would do
the same job but pulls in scipy and a second dependency tree for 20 lines). The training rows
are exactly the semantic exemplars (`exemplars.csv`, the tune part): emergency vs everything
else, both roles. The decision threshold (`THRESHOLD`) was chosen by 10-fold group
cross-validation on the tune part (`evals.safety.tuning`), never on test or fresh lines.

The fitted weights are cached next to the exemplar vectors in `<data_dir>/safety/`, keyed by
model name + exemplar file hash + hyperparameters, so the first use fits once (a few seconds) and
later processes load.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from agent.safety.semantic import EXEMPLARS, ExemplarIndex


@dataclass(frozen=True)
class Hyper:
    l2: float = 1e-5
    iterations: int = 8000
    learning_rate: float = 2.0


HYPER = Hyper()
# chosen by group cross-validation on the tune part (`chartside eval safety --cv`)
THRESHOLD = -1.5
# the classifier fires only when the question's nearest emergency exemplar is at least this
# similar: on the tune part, 99 % of emergencies have an out-of-group emergency exemplar at
# ≥ 0.454; off-topic text ("write me a poem", "what's the weather on Mars?") sits below 0.36
CLASSIFIER_FLOOR = 0.40


def fit_logistic(x: np.ndarray, y: np.ndarray, hyper: Hyper = HYPER) -> tuple[np.ndarray, float]:
    """Weights and bias of an L2 logistic regression, by deterministic gradient descent."""
    if x.ndim != 2 or y.shape != (x.shape[0],):
        raise ValueError(f"fit_logistic: x is {x.shape}, y is {y.shape}; want (n, d) and (n,)")
    x = x.astype(np.float64)
    y = y.astype(np.float64)
    w = np.zeros(x.shape[1])
    b = 0.0
    n = len(y)
    for _ in range(hyper.iterations):
        p = 1.0 / (1.0 + np.exp(-(x @ w + b)))
        g = p - y
        w -= hyper.learning_rate * (x.T @ g / n + hyper.l2 * w)
        b -= hyper.learning_rate * float(g.mean())
    return w, b


@dataclass(frozen=True)
class EmergencyClassifier:
    weights: np.ndarray
    bias: float
    threshold: float = THRESHOLD

    def score(self, vector: Sequence[float] | np.ndarray) -> float:
        """The logit of "emergency" for a question vector (normalised here, like the exemplars)."""
        q = np.asarray(vector, dtype=np.float64)
        norm = float(np.linalg.norm(q))
        if norm:
            q = q / norm
        return float(q @ self.weights + self.bias)

    def fires(self, vector: Sequence[float] | np.ndarray) -> bool:
        return self.score(vector) >= self.threshold


def nearest_category(index: ExemplarIndex, vector: Sequence[float] | np.ndarray) -> str:
    """The category to report for a classifier hit: that of the nearest emergency exemplar."""
    best = index.scores(vector, "patient").best.get("emergency")
    return best[1] if best is not None else "emergency"


_lock = threading.Lock()
_models: dict[str, EmergencyClassifier] = {}


def _digest(model_name: str, hyper: Hyper) -> str:
    blob = EXEMPLARS.read_bytes() + model_name.encode() + repr(hyper).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


def emergency_classifier(
    index: ExemplarIndex, model_name: str, cache_dir: Path | None, hyper: Hyper = HYPER
) -> EmergencyClassifier:
    """The classifier for this model and exemplar file: loaded from the cache, else fitted once."""
    digest = _digest(model_name, hyper)
    with _lock:
        if digest in _models:
            return _models[digest]
        cached = cache_dir / f"classifier-{digest}.npz" if cache_dir is not None else None
        weights: np.ndarray | None = None
        bias = 0.0
        if cached is not None and cached.is_file():
            with np.load(cached) as data:
                if data["weights"].shape == (index.vectors.shape[1],):
                    weights, bias = data["weights"], float(data["bias"])
        if weights is None:
            weights, bias = fit_logistic(index.vectors, (index.labels == "emergency").astype(float), hyper)
            if cached is not None:
                cached.parent.mkdir(parents=True, exist_ok=True)
                partial = cached.with_name(cached.stem + ".partial.npz")
                np.savez(partial, weights=weights, bias=np.array(bias))
                partial.replace(cached)
        _models[digest] = EmergencyClassifier(weights, bias)
        return _models[digest]
