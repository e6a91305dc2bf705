"""Group cross-validation of the safety gate on the tune part (how the gate's `OPERATING` point
was chosen: both classifier thresholds and both similarity floors).

Each tune line is scored by a gate that never saw its own template group: the emergency and
advice classifiers are refitted on the other nine folds (folds by SHA-256 of the split key), and
the nearest-exemplar detector ignores exemplars of the line's own group. The lexical rules run
as they are. Each line's evidence (`agent.safety.gate.evidence`) is computed once; the decision
(`agent.safety.gate.decide`, the very function the gate runs) is then replayed at every
operating point of the grid. Only tune lines are read; frozen lines never enter.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from agent.safety.classifier import ADVICE_TUNED, HYPER, LinearClassifier, advice_rows, fit_logistic
from agent.safety.gate import OPERATING, Evidence, Operating, decide, evidence
from agent.safety.semantic import ExemplarIndex
from evals.safety.dataset import Utterance

FOLDS = 10
EMERGENCY_THRESHOLDS = (-2.5, -2.0, -1.75, -1.5, -1.25, -1.0, -0.5, 0.0)
EMERGENCY_FLOORS = (0.35, 0.40, 0.45)
ADVICE_THRESHOLDS = (-1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0)
ADVICE_FLOORS = (0.30, 0.40, 0.50, 0.60)
ALLOW_MARGINS = (0.05, 0.10, 0.15, 0.20, 0.25, 0.30, 0.40)
ADVICE_OVER_CLASSIFIER_MARGINS = (1.0, 2.0, 3.0, 4.0, 5.0, 6.0)
OFF = 1e9  # a threshold no logit reaches: the classifier switched off


@dataclass(frozen=True)
class CvRow:
    op: Operating
    emergency_recall: float
    advice_recall: float
    hard_negative_fp: float
    fp_lines: tuple[str, ...]
    missed_emergencies: tuple[str, ...] = ()
    # what the gate did with each line, in row order: (kind, category); kind is emergency,
    # advice or allow (the per-category tables of `--cv` are built from it)
    predictions: tuple[tuple[str, str | None], ...] = ()


def source_file(row: Utterance) -> str:
    """The file a line comes from ("tune_frozen4.txt:12" → "tune_frozen4.txt")."""
    return row.source.split(":", 1)[0]


def fold_of(key: str) -> int:
    return int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:4], "big") % FOLDS


def out_of_fold_evidence(
    rows: Sequence[Utterance],
    index: ExemplarIndex,
    progress: Callable[[int, int], None] | None = None,
    by_file: bool = False,
) -> list[Evidence]:
    """Each tune line's evidence from models and exemplars that never saw its group.

    The tune lines ARE the exemplars (checked below), so each line's vector is its exemplar's,
    already computed and cached once per model (`semantic.exemplar_index`): the model never runs
    here (round seven: re-embedding 6,000 lines one at a time made `--cv --by-file` take longer
    than a round).

    `by_file`: leave one FILE out instead — each line is scored by classifiers fitted on every
    other file and by exemplars of the other files only. Lines of one file were written by one
    hand at one time and resemble each other, so plain group CV flatters; this is closer to
    meeting a batch written by someone else (round six)."""
    if len(rows) != len(index.exemplars) or any(
        r.text != e.text for r, e in zip(rows, index.exemplars, strict=True)
    ):
        raise ValueError("cross_validate: rows are not the exemplars (re-export with --export-exemplars)")
    if by_file:
        files = sorted({source_file(r) for r in rows})
        groups = np.array([source_file(r) for r in rows])
        folds = np.array([files.index(g) for g in groups])
    else:
        groups = np.array([r.split_key for r in rows])
        folds = np.array([fold_of(g) for g in groups])
    n_folds = int(folds.max()) + 1
    y = (index.labels == "emergency").astype(float)
    advice_mask, advice_y = advice_rows(index)
    advice_folds = folds[advice_mask]
    emergency_models: list[LinearClassifier] = []
    advice_models: list[LinearClassifier] = []
    for k in range(n_folds):
        w, b = fit_logistic(index.vectors[folds != k], y[folds != k], HYPER)
        emergency_models.append(LinearClassifier(w, b))
        x = index.vectors[advice_mask]
        w, b = fit_logistic(x[advice_folds != k], advice_y[advice_folds != k], HYPER)
        advice_models.append(LinearClassifier(w, b))
    out: list[Evidence] = []
    for i, (r, k, g) in enumerate(zip(rows, folds, groups, strict=True)):
        if progress is not None and i % 50 == 0:
            progress(i, len(rows))  # lines scored so far
        out.append(
            evidence(
                r.text,
                r.role,
                vector=index.vectors[i],
                index=index,
                classifier=emergency_models[k],
                advice_model=advice_models[k],
                exclude=groups == g,
            )
        )
    return out


def score(rows: Sequence[Utterance], facts: Sequence[Evidence], op: Operating) -> CvRow:
    predicted = []
    categories: list[str | None] = []
    for e in facts:
        verdict = decide(e, op)
        predicted.append(
            "allow" if verdict is None else "emergency" if verdict.kind == "emergency" else "advice"
        )
        categories.append(None if verdict is None else verdict.category)

    def recall(label: str) -> float:
        hits = [p == label for r, p in zip(rows, predicted, strict=True) if r.label == label]
        return sum(hits) / len(hits) if hits else float("nan")

    negatives = [(r, p) for r, p in zip(rows, predicted, strict=True) if r.label == "allow"]
    fps = tuple(f"{r.role}: {r.text} → {p}" for r, p in negatives if p != "allow")
    missed = tuple(
        f"{r.role}: {r.text} → {p}"
        for r, p in zip(rows, predicted, strict=True)
        if r.label == "emergency" != p
    )
    return CvRow(
        op,
        recall("emergency"),
        recall("advice"),
        len(fps) / max(len(negatives), 1),
        fps,
        missed,
        tuple(zip(predicted, categories, strict=True)),
    )


def grid(base: Operating = OPERATING) -> Iterable[Operating]:
    """The operating points swept: each classifier off, then its threshold × floor, the other
    classifier held at `base`."""
    yield replace(base, emergency_threshold=OFF, advice_threshold=OFF)
    yield replace(base, urgency_exemplar=not base.urgency_exemplar)
    yield replace(base, emergency_threshold=OFF)
    for threshold in EMERGENCY_THRESHOLDS:
        for floor in EMERGENCY_FLOORS:
            yield replace(base, emergency_threshold=threshold, emergency_floor=floor)
    for margin in (*ALLOW_MARGINS, float("inf")):
        yield replace(base, emergency_allow_margin=margin)
    yield replace(base, advice_threshold=OFF)
    for threshold in ADVICE_THRESHOLDS:
        for floor in ADVICE_FLOORS:
            yield replace(base, advice_threshold=threshold, advice_floor=floor)
    advice_on = base if base.advice_threshold < OFF else replace(base, advice_threshold=ADVICE_TUNED)
    for margin in (*ALLOW_MARGINS, float("inf")):
        yield replace(advice_on, advice_allow_margin=margin)
    for margin in (*ADVICE_OVER_CLASSIFIER_MARGINS, float("inf")):
        yield replace(base, advice_over_classifier=margin)


def cross_validate(
    rows: Sequence[Utterance],
    index: ExemplarIndex,
    progress: Callable[[int, int], None] | None = None,
    points: Iterable[Operating] | None = None,
    by_file: bool = False,
) -> list[CvRow]:
    """The gate's tune-CV figures per operating point; `rows` must be the tune part in exemplar order."""
    facts = out_of_fold_evidence(rows, index, progress, by_file=by_file)
    return [score(rows, facts, op) for op in dict.fromkeys(grid() if points is None else points)]
