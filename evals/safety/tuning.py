"""Group cross-validation of the safety gate on the tune part (how `classifier.THRESHOLD` was chosen).

Each tune line is scored by a gate that never saw its own template group: the emergency
classifier is refitted on the other nine folds (folds by SHA-256 of the split key), and the
nearest-exemplar detector ignores exemplars of the line's own group. The lexical rules run as
they are. The result is one row per classifier threshold: emergency recall, advice recall and
hard-negative false positives of the whole gate, both without the classifier (`off`) and with it.
Only tune lines are read; test and fresh lines never enter.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from agent.safety.classifier import HYPER, EmergencyClassifier, fit_logistic
from agent.safety.gate import check
from agent.safety.semantic import THRESHOLDS as SEMANTIC
from agent.safety.semantic import ExemplarIndex
from evals.safety.dataset import Utterance

FOLDS = 10
THRESHOLDS = (-2.5, -2.0, -1.75, -1.5, -1.25, -1.0, -0.5, 0.0)


@dataclass(frozen=True)
class CvRow:
    threshold: float | None  # None: the gate without the classifier
    emergency_recall: float
    advice_recall: float
    hard_negative_fp: float
    fp_lines: tuple[str, ...]
    # the semantic detector alone, no lexical rules or framing (the lexical rules were written
    # from tune lines, so the gate's own CV recall is flattering; this is the honest estimate
    # of what the detector catches in wordings the rules do not know)
    detector_recall: float = float("nan")
    detector_fp: float = float("nan")


def fold_of(key: str) -> int:
    return int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:4], "big") % FOLDS


def cross_validate(
    rows: Sequence[Utterance],
    index: ExemplarIndex,
    embed_query: Callable[[str], Sequence[float]],
    thresholds: Sequence[float] = THRESHOLDS,
    progress: Callable[[int, int], None] | None = None,
) -> list[CvRow]:
    """The gate's tune-CV figures per threshold; `rows` must be the tune part in exemplar order."""
    if len(rows) != len(index.exemplars) or any(
        r.text != e.text for r, e in zip(rows, index.exemplars, strict=True)
    ):
        raise ValueError("cross_validate: rows are not the exemplars (re-export with --export-exemplars)")
    groups = np.array([r.split_key for r in rows])
    folds = np.array([fold_of(g) for g in groups])
    y = np.array([r.label == "emergency" for r in rows], dtype=float)
    models: list[EmergencyClassifier] = []
    for k in range(FOLDS):
        if progress is not None:
            progress(k, FOLDS)  # folds fitted so far
        w, b = fit_logistic(index.vectors[folds != k], y[folds != k], HYPER)
        models.append(EmergencyClassifier(w, b))
    vectors = [embed_query(r.text) for r in rows]
    logits = np.array([models[k].score(v) for v, k in zip(vectors, folds, strict=True)])
    nearest = np.array(
        [
            index.scores(v, r.role, groups == g).fires(
                "emergency", SEMANTIC.emergency_floor, SEMANTIC.emergency_margin
            )
            is not None
            for r, v, g in zip(rows, vectors, groups, strict=True)
        ]
    )
    emergency = y == 1
    allow = np.array([r.label == "allow" for r in rows])
    out: list[CvRow] = []
    for threshold in (None, *thresholds):
        predicted: list[str] = []
        for r, v, k, g in zip(rows, vectors, folds, groups, strict=True):
            clf = (
                None
                if threshold is None
                else EmergencyClassifier(models[k].weights, models[k].bias, threshold)
            )
            verdict = check(r.text, r.role, vector=v, index=index, classifier=clf, exclude=groups == g)
            predicted.append(
                "allow" if verdict is None else "emergency" if verdict.kind == "emergency" else "advice"
            )
        fired = nearest if threshold is None else nearest | (logits >= threshold)
        detector = {
            "detector_recall": float(fired[emergency].mean()),
            "detector_fp": float(fired[allow].mean()),
        }
        out.append(CvRow(**{**_row(threshold, rows, predicted).__dict__, **detector}))
    return out


def _row(threshold: float | None, rows: Sequence[Utterance], predicted: Sequence[str]) -> CvRow:
    def recall(label: str) -> float:
        hits = [p == label for r, p in zip(rows, predicted, strict=True) if r.label == label]
        return sum(hits) / len(hits) if hits else float("nan")

    negatives = [(r, p) for r, p in zip(rows, predicted, strict=True) if r.label == "allow"]
    fps = tuple(f"{r.role}: {r.text}" for r, p in negatives if p != "allow")
    return CvRow(threshold, recall("emergency"), recall("advice"), len(fps) / max(len(negatives), 1), fps)
