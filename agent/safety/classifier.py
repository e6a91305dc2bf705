"""Two small classifiers, L2 logistic regressions on the MiniLM embeddings of the tune part:
emergency vs everything else, and (patients) advice request vs hard negative.

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

The advice classifier (round three) is the same fit on the patients' advice and allow lines
only (emergencies are decided before it runs): the lexical advice rules know the shapes the
team wrote ("should I stop …", "is that bad"), the classifier catches the rest ("would 40 be
better", "be honest am i getting worse"). Its threshold and similarity floor were chosen the
same way, by group CV on tune (`chartside eval safety --cv`).
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
# tune CV, round three: the advice classifier alone catches 85 % of advice lines it never saw
# (the lexical rules, written from tune lines, look better in CV than on new wordings) and adds
# 0.5 points of hard-negative false positives to the gate
# Round three shipped it off: at -0.5 it sent ordinary record questions to the advice refusal
# outside tune ("¿Qué dice mi última nota clínica?", "has my psa gone up": 6.1 % false
# positives on the test part). Round four switches it ON at -1.0 (tune CV), because it now
# stays silent on record-shaped questions — fetches without a word of asking what to do
# (`lexical.RECORD_FETCH`), range comparisons (`lexical.RANGE_COMPARISON`) — and when a hard
# negative is clearly nearer than any advice exemplar (`ADVICE_ALLOW_MARGIN`).
ADVICE_TUNED = -1.0
ADVICE_THRESHOLD = ADVICE_TUNED
# the advice classifier speaks only when some advice exemplar is at least this similar
ADVICE_FLOOR = 0.40
# the classifier fires only when the question's nearest emergency exemplar is at least this
# similar (off-topic text, "write me a poem", sits far from every exemplar). Swept in tune CV
# in round three: 0.35 catches the two emergencies 0.40 missed ("i can't see myself being
# around next week", "he's making a whistling sound and going grey") at no extra false positive
CLASSIFIER_FLOOR = 0.35
# the hard-negative vetoes (`agent.safety.gate.Operating`), chosen in tune CV (round four):
# the emergency classifier is silenced when the nearest hard negative beats the nearest
# emergency exemplar by 0.10 or more. At 0.00 CV lost emergencies, from 0.05 up it lost none;
# 0.10 keeps a step of room from that edge (recall first) and cut false positives 1.8 → 0.9 %
EMERGENCY_ALLOW_MARGIN = 0.10
ADVICE_ALLOW_MARGIN = 0.10
# round thirteen: an alarm from the emergency classifier alone yields to the advice classifier
# when the advice logit is higher by this much (`gate.Operating.advice_over_classifier`), to be
# chosen in tune CV (`chartside eval safety --cv` sweeps 1–6). Shipped OFF (inf = never): the
# sweep needs over an hour on this machine and was not run to completion in round thirteen, and a
# margin picked without it would be tuned on nothing
ADVICE_OVER_CLASSIFIER = float("inf")


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
class LinearClassifier:
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


EmergencyClassifier = LinearClassifier  # the name the gate and CV were written with


def advice_rows(index: ExemplarIndex) -> tuple[np.ndarray, np.ndarray]:
    """The advice classifier's training rows: (mask over the exemplars, target 0/1 on that mask)."""
    mask = (index.roles == "patient") & np.isin(index.labels, ("advice", "allow"))
    return mask, (index.labels[mask] == "advice").astype(float)


_lock = threading.Lock()
_models: dict[str, EmergencyClassifier] = {}


def _digest(model_name: str, hyper: Hyper, target: str) -> str:
    blob = EXEMPLARS.read_bytes() + model_name.encode() + repr(hyper).encode() + target.encode()
    return hashlib.sha256(blob).hexdigest()[:16]


def emergency_classifier(
    index: ExemplarIndex, model_name: str, cache_dir: Path | None, hyper: Hyper = HYPER
) -> LinearClassifier:
    """The emergency classifier for this model and exemplar file: from the cache, else fitted once."""
    y = (index.labels == "emergency").astype(float)
    return _cached(index.vectors, y, _digest(model_name, hyper, "emergency"), cache_dir, hyper, THRESHOLD)


def advice_classifier(
    index: ExemplarIndex, model_name: str, cache_dir: Path | None, hyper: Hyper = HYPER
) -> LinearClassifier:
    """The (patient) advice classifier for this model and exemplar file, cached the same way."""
    mask, y = advice_rows(index)
    digest = _digest(model_name, hyper, "advice")
    return _cached(index.vectors[mask], y, digest, cache_dir, hyper, ADVICE_THRESHOLD, "advice-")


def _cached(
    x: np.ndarray,
    y: np.ndarray,
    digest: str,
    cache_dir: Path | None,
    hyper: Hyper,
    threshold: float,
    prefix: str = "",
) -> LinearClassifier:
    with _lock:
        if digest in _models:
            return _models[digest]
        cached = cache_dir / f"{prefix}classifier-{digest}.npz" if cache_dir is not None else None
        weights: np.ndarray | None = None
        bias = 0.0
        if cached is not None and cached.is_file():
            with np.load(cached) as data:
                if data["weights"].shape == (x.shape[1],):
                    weights, bias = data["weights"], float(data["bias"])
        if weights is None:
            weights, bias = fit_logistic(x, y, hyper)
            if cached is not None:
                cached.parent.mkdir(parents=True, exist_ok=True)
                partial = cached.with_name(cached.stem + ".partial.npz")
                np.savez(partial, weights=weights, bias=np.array(bias))
                partial.replace(cached)
        _models[digest] = LinearClassifier(weights, bias, threshold)
        return _models[digest]
