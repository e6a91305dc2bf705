"""The scorer checked against answers labelled by hand (`evals/data/audit.yaml`).

An evaluator's number is worth only what its scorer refuses, so the scorer itself is
measured: ≥ 200 (question, expected, answer) triples over every category, including the
tricky ones (the right value beside a wrong one, a hedge, a correct abstention in other
words, an answer only in the background block), each with the verdict a careful reader gives
and a one-line reason. `agreement()` grades every triple with `evals.scoring.grade` and counts
how often it agrees: exactly (the same verdict), and on the outcome (credit and sign: correct,
partial, no credit without penalty, wrong), which is what the scores are made of. Reports
print both; a test holds the outcome agreement at ≥ 98 %.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from importlib import resources
from typing import Any

import yaml
from pydantic import ValidationError

from evals.model import QUESTION_ADAPTER, Question
from evals.results import BookingObservation
from evals.scoring import Answer, Grade, grade

AUDIT_FILE = "audit.yaml"
NOW = dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC)
VERDICTS = ("correct", "partial", "abstained", "refused", "unclear", "no_answer", "wrong")


def outcome(verdict: str) -> str:
    """What a verdict does to the scores: full credit, part credit, nothing, or a penalty."""
    if verdict in ("correct", "partial", "wrong"):
        return verdict
    return "zero"


class AuditFileError(ValueError):
    """The audit file is malformed; the message names the entry and field."""


@dataclass(frozen=True)
class Case:
    question: Question
    answer: Answer
    label: str
    why: str


@dataclass(frozen=True)
class Checked:
    case: Case
    grade: Grade

    @property
    def exact(self) -> bool:
        return self.grade.verdict == self.case.label

    @property
    def agrees(self) -> bool:
        return outcome(self.grade.verdict) == outcome(self.case.label)


def _answer(entry: dict[str, Any], about: tuple[str, ...]) -> Answer:
    cited = entry.get("cited") or {}
    booking = entry.get("booking")
    return Answer(
        text=entry.get("text", ""),
        cited=frozenset(cited),
        handles={key: tuple(hs) for key, hs in cited.items()},
        abstained=entry.get("marker"),
        searched=tuple(entry.get("searched") or ()),
        about=about,
        booking=BookingObservation.model_validate(booking) if booking is not None else None,
    )


def load_cases(text: str | None = None) -> list[Case]:
    if text is None:
        text = resources.files("evals").joinpath("data", AUDIT_FILE).read_text(encoding="utf-8")
    cases: list[Case] = []
    for number, item in enumerate(yaml.safe_load(text) or [], start=1):
        where = f"{AUDIT_FILE} entry {number} ({str(item.get('q', '?'))[:40]!r})"
        try:
            gold = [{"kind": k.split(":", 1)[0], "id": k.split(":", 1)[1]} for k in item.get("gold") or []]
            question = QUESTION_ADAPTER.validate_python(
                {
                    "id": f"audit-{number}",
                    "pair_id": f"audit-{number}",
                    "patient_id": "audit",
                    "role": "patient",
                    "category": item["category"],
                    "template": item["template"],
                    "turns": [item["q"]],
                    "expected": item["expected"],
                    "gold": gold,
                    "now": NOW,
                    "explanation": "hand-labelled audit case",
                    "about": item.get("about") or [],
                }
            )
        except (KeyError, ValidationError, IndexError) as exc:
            raise AuditFileError(f"{where}: {exc}") from exc
        for index, entry in enumerate(item.get("answers") or [], start=1):
            if entry.get("label") not in VERDICTS or not entry.get("why"):
                raise AuditFileError(
                    f"{where}, answer {index}: needs a label ({'/'.join(VERDICTS)}) and a why"
                )
            cases.append(Case(question, _answer(entry, question.about), entry["label"], entry["why"]))
    return cases


@dataclass(frozen=True)
class Agreement:
    checked: list[Checked]

    @property
    def n(self) -> int:
        return len(self.checked)

    @property
    def outcome_rate(self) -> float:
        return sum(c.agrees for c in self.checked) / self.n if self.n else 0.0

    @property
    def exact_rate(self) -> float:
        return sum(c.exact for c in self.checked) / self.n if self.n else 0.0

    @property
    def disagreements(self) -> list[Checked]:
        return [c for c in self.checked if not c.agrees]

    def by_category(self) -> dict[str, tuple[int, int]]:
        out: dict[str, tuple[int, int]] = {}
        for c in self.checked:
            n, ok = out.get(c.case.question.category, (0, 0))
            out[c.case.question.category] = (n + 1, ok + int(c.agrees))
        return out

    def as_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "outcome_agreement": round(self.outcome_rate, 4),
            "exact_agreement": round(self.exact_rate, 4),
            "by_category": {k: {"n": n, "agree": ok} for k, (n, ok) in self.by_category().items()},
            "disagreements": [
                {
                    "question": c.case.question.turns[-1],
                    "answer": c.case.answer.text[:200],
                    "label": c.case.label,
                    "scorer": c.grade.verdict,
                    "why": c.case.why,
                    "scorer_detail": c.grade.detail,
                }
                for c in self.disagreements
            ],
        }


def agreement(cases: list[Case] | None = None) -> Agreement:
    cases = load_cases() if cases is None else cases
    return Agreement([Checked(c, grade(c.question, c.answer)) for c in cases])
