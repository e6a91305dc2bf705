"""A `Fact` is one thing worth asking, with its truth; it becomes a question per role.

Builders produce facts; `emit` turns each into a patient-phrased and a clinician-phrased
question that share a `pair_id`, so a report can show whether an agent answers the same
fact equally well for both audiences.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from evals.model import Expected, GoldRecord, Question, Setup
from evals.questions.phrasing import choose


@dataclass(frozen=True)
class Fact:
    category: str
    template: str
    key: str  # tells apart facts of one template for one patient (a code, a drug, a year…)
    expected: Expected
    patient: tuple[str, ...] | None  # turns in a patient's words; None: patients are not asked this
    clinician: tuple[str, ...] | None
    explanation: str
    gold: tuple[GoldRecord, ...] = ()
    tags: tuple[str, ...] = ()
    setup: tuple[Setup, ...] = field(default_factory=tuple)
    about: tuple[str, ...] = ()  # names of what is asked about (evals.questions.phrasing.describe)
    slots: dict[str, dict[str, str]] = field(default_factory=dict)  # role → phrase-bank slots


def pair_id(patient_id: str, template: str, key: str) -> str:
    digest = hashlib.sha256(f"{patient_id}\x1f{template}\x1f{key}".encode()).hexdigest()[:10]
    return f"{template}-{digest}"


def emit(facts: Iterable[Fact], patient_id: str, now: dt.datetime) -> Iterator[Question]:
    for fact in facts:
        pid = pair_id(patient_id, fact.template, fact.key)
        for role, turns in (("patient", fact.patient), ("clinician", fact.clinician)):
            if not turns:
                continue
            family, bank = "plain", "dev"
            if len(turns) == 1 and fact.slots:
                rng = random.Random(f"phrase:{pid}:{role}")
                phrased = choose(fact.template, role, fact.slots.get(role, {}), rng, turns[0])
                turns, family, bank = (phrased.text,), phrased.family, phrased.bank
            yield Question(
                id=f"{pid}-{role[0]}",
                pair_id=pid,
                patient_id=patient_id,
                role=role,
                category=fact.category,
                template=fact.template,
                turns=turns,
                expected=fact.expected,
                gold=fact.gold,
                now=now,
                setup=fact.setup,
                tags=fact.tags + (("multi-turn",) if len(turns) > 1 else ()),
                explanation=fact.explanation,
                about=fact.about,
                family=family,
                bank=bank,
            )


def gold(kind: str, ids: Iterable[str]) -> tuple[GoldRecord, ...]:
    seen: dict[str, None] = {}
    for record_id in ids:
        seen.setdefault(record_id, None)
    return tuple(GoldRecord(kind=kind, id=i) for i in seen)


def day(value: dt.datetime | dt.date) -> dt.date:
    """The calendar day of an instant, in UTC (how the record stores and the tools show it)."""
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.UTC).date()
    return value


def spoken_date(value: dt.datetime | dt.date) -> str:
    d = day(value)
    return f"{d.day} {d.strftime('%B')} {d.year}"


def iso_date(value: dt.datetime | dt.date) -> str:
    return day(value).isoformat()


RELATIVE_TOLERANCE = 0.01
MAX_ROUNDING = 0.05


def decimals(values: Iterable[float]) -> int:
    """How many decimals the record prints these values with (as `shown` does, at most 2)."""
    return max((len(shown(v).partition(".")[2]) for v in values), default=0)


def number_tolerance(value: float, *, exact: bool = False, printed: Iterable[float] | None = None) -> float:
    """Relative, per analyte: 1 % of the value, or half a unit of the last decimal the record
    prints this analyte with (`printed`: its values) when that is larger but within 5 %. A
    creatinine of 0.62 mg/dL gets ±0.0062 (not ±0.05, which was 8 % of it); a weight of
    80.4 kg gets ±0.8; a heart rate of 72 (printed whole) ±0.72."""
    if exact:
        return 0.0
    places = decimals(printed if printed is not None else [value])
    rounding = min(0.5 * 10.0**-places, abs(value) * MAX_ROUNDING)
    return round(max(abs(value) * RELATIVE_TOLERANCE, rounding), 6)


def shown(value: float) -> str:
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return text or "0"
