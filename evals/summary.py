"""Aggregating scored questions: per category, role, answer type, hard-case tag; comparisons.

Pure: takes `Scored` rows, returns plain data the Markdown/JSON/PNG writers render.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from evals.model import CATEGORIES, Expected
from evals.scoring import Scored

VERDICTS = ("correct", "partial", "abstained", "refused", "unclear", "no_answer", "wrong", "error")


@dataclass
class Bucket:
    n: int = 0
    verdicts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(VERDICTS, 0))
    credit: float = 0.0
    utility: float = 0.0
    recalls: list[float] = field(default_factory=list)
    precisions: list[float] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    cost_usd: float = 0.0
    tokens: int = 0
    safety_failures: int = 0

    def add(self, s: Scored) -> None:
        self.n += 1
        self.verdicts[s.grade.verdict] += 1
        self.credit += s.grade.credit
        self.utility += s.grade.utility
        if s.retrieval.recall is not None:
            self.recalls.append(s.retrieval.recall)
        if s.retrieval.precision is not None:
            self.precisions.append(s.retrieval.precision)
        self.latencies.append(s.latency_ms)
        self.cost_usd += s.cost_usd
        self.tokens += s.tokens
        self.safety_failures += int(s.grade.safety_failure)

    @property
    def accuracy(self) -> float:
        return self.credit / self.n if self.n else 0.0

    @property
    def score(self) -> float:
        return self.utility / self.n if self.n else 0.0

    @property
    def recall(self) -> float | None:
        return statistics.fmean(self.recalls) if self.recalls else None

    @property
    def precision(self) -> float | None:
        return statistics.fmean(self.precisions) if self.precisions else None

    def latency(self, q: float) -> float | None:
        if not self.latencies:
            return None
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]

    def as_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "accuracy": round(self.accuracy, 4),
            "score": round(self.score, 4),
            "verdicts": self.verdicts,
            "recall": None if self.recall is None else round(self.recall, 4),
            "precision": None if self.precision is None else round(self.precision, 4),
            "latency_ms_p50": self.latency(0.5),
            "latency_ms_p95": self.latency(0.95),
            "cost_usd": round(self.cost_usd, 6),
            "tokens": self.tokens,
            "safety_failures": self.safety_failures,
        }


def group(scored: Iterable[Scored], key: Callable[[Scored], Iterable[str] | str]) -> dict[str, Bucket]:
    out: dict[str, Bucket] = {}
    for s in scored:
        keys = key(s)
        for k in [keys] if isinstance(keys, str) else keys:
            out.setdefault(k, Bucket()).add(s)
    return out


def by_category(scored: list[Scored]) -> dict[str, Bucket]:
    buckets = group(scored, lambda s: s.question.category)
    order = {c: i for i, c in enumerate(CATEGORIES)}
    return dict(sorted(buckets.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0])))


def overall(scored: list[Scored]) -> Bucket:
    bucket = Bucket()
    for s in scored:
        bucket.add(s)
    return bucket


def describe_expected(expected: Expected) -> str:
    """One line a reader can compare with the answer."""
    t = expected.type
    if t == "number":
        unit = f" {expected.unit}" if expected.unit and not expected.unit.startswith("{") else ""
        return f"{expected.value:g}{unit} (±{expected.tolerance:g})"
    if t == "date":
        return expected.value.isoformat()
    if t == "set":
        if not expected.items:
            return "none"
        return "; ".join(i.label for i in expected.items)
    if t == "boolean":
        return "yes" if expected.value else "no"
    if t == "text":
        return " / ".join(expected.accepted) if expected.accepted else f"cites {expected.reference}"
    if t == "trend":
        return f"{expected.direction}, {expected.first:g} → {expected.last:g} over {expected.count} values"
    if t == "abstain":
        return f"not in the record ({expected.missing})"
    if t == "refuse":
        return f"declines ({expected.kind})"
    if expected.action == "book":
        window = ""
        if expected.window_start and expected.window_end:
            window = f" {expected.window_start.date()}…{expected.window_end.date()}"
        return f"one {expected.specialty or ''} appointment booked{window}".replace("  ", " ")
    if expected.action == "cancel":
        return f"appointment {expected.appointment_id} cancelled"
    return "nothing booked"


@dataclass(frozen=True)
class Regression:
    question_id: str
    category: str
    before: str
    after: str
    detail: str


def compare(before: list[Scored], after: list[Scored]) -> tuple[list[Regression], list[Regression]]:
    """Questions (by id, present in both runs) that got worse, and ones that got better."""
    old = {s.question.id: s for s in before}
    worse, better = [], []
    for s in after:
        prev = old.get(s.question.id)
        if prev is None:
            continue
        if s.grade.credit < prev.grade.credit - 1e-9 or (
            s.grade.safety_failure and not prev.grade.safety_failure
        ):
            worse.append(
                Regression(
                    s.question.id, s.question.category, prev.grade.verdict, s.grade.verdict, s.grade.detail
                )
            )
        elif s.grade.credit > prev.grade.credit + 1e-9:
            better.append(
                Regression(
                    s.question.id, s.question.category, prev.grade.verdict, s.grade.verdict, s.grade.detail
                )
            )
    return worse, better
