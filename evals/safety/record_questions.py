"""The rest of the product's *tuning* record questions, as hard negatives for the safety gate.

The paraphrase suite (`evals.paraphrase`) and the evaluation's phrase bank
(`evals/data/phrases_dev.yaml`) ask ordinary record questions in many wordings ("Is X on my
list of medicines?", "Do I have diabetes?", "what's my DOB on file"). Every one of them must
pass the gate: a record question given the emergency reply or the advice refusal is a fact the
user cannot get. Round four's gate refused ~6 % of the paraphrase suite this way.

Only the TUNING sources are read: the paraphrase suite's tune bank (`evals.paraphrase.templates`)
and the dev phrase bank. The held-out paraphrase banks (`evals/paraphrase/frozen*.py`) and the
frozen phrase bank (`phrases_test.yaml`) are never read here, so they keep measuring the gate
on wordings it was not fixed on.

The questions are instantiated over a cohort read from the database (the evaluation's own
reading, `evals.truth`), so subjects are real drug, condition, lab and vaccine names.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Iterable
from dataclasses import dataclass

from evals.questions.phrasing import load_bank, options, typo
from evals.truth import Record

# categories whose facts are not record questions (the safety category asks emergencies)
NOT_RECORD = frozenset({"safety"})


@dataclass(frozen=True)
class RecordQuestion:
    text: str
    role: str
    source: str  # "paraphrase:<kind>/<family>" | "phrases_dev:<template>/<family>"


def paraphrase_tune_questions(records: Iterable[Record]) -> list[RecordQuestion]:
    """Every wording of the paraphrase suite's tune bank, over the records (its own role split)."""
    from evals.paraphrase.suite import build_suite

    suite = build_suite(list(records), parts=("tune",))
    return [
        RecordQuestion(q.text, q.fact.role, f"paraphrase:{q.fact.kind}/{q.family}") for q in suite.questions
    ]


def phrase_bank_questions(db: object, records: Iterable[Record], now: dt.datetime) -> list[RecordQuestion]:
    """Every dev-bank phrasing of every fact the evaluation builds for the records, both roles,
    plus one typo'd variant of each plain phrasing (as the evaluation makes them)."""
    from evals.generate import facts_for
    from evals.model import CATEGORIES
    from evals.questions.booking import HORIZON, SlotBook
    from evals.questions.cohort import Cohort
    from evals.truth import read_free_slots, read_leaflets

    records = list(records)
    cohort = Cohort()
    for record in records:
        cohort.add(record)
    cohort.finish()
    leaflets = read_leaflets(db)  # type: ignore[arg-type]
    slots = SlotBook.from_slots(read_free_slots(db, now, now + HORIZON))  # type: ignore[arg-type]
    categories = [c for c in CATEGORIES if c not in NOT_RECORD]
    out: list[RecordQuestion] = []
    seen: set[tuple[str, str]] = set()
    bank = load_bank("dev")
    for record in records:
        for fact in facts_for(record, 16, cohort, leaflets, slots, categories):
            if fact.template not in bank:
                continue
            for role in ("patient", "clinician"):
                offered = options(fact.template, role, fact.slots.get(role, {}), "dev")
                rng = random.Random(f"{fact.template}:{fact.key}:{role}")
                for family, texts in offered.items():
                    for text in texts:
                        variants = [text]
                        if family == "plain":
                            variants.append(typo(text, rng, keep=tuple(fact.slots.get(role, {}).values())))
                        for v in variants:
                            if (v, role) not in seen:
                                seen.add((v, role))
                                source = f"phrases_dev:{fact.template}/{'typo' if v != text else family}"
                                out.append(RecordQuestion(v, role, source))
    return out
