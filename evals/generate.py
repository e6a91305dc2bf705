"""Generating a question set from the database: choose patients, read their truth, build facts.

Deterministic: the same database, seed and "now" give byte-identical files (patients are
sampled from the sorted id list with the seed; every patient gets its own generator seeded
from the set seed and its id, so adding a patient does not reshuffle the others' questions).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import random
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from evals.model import CATEGORIES, Question, SetHeader
from evals.questions.booking import HORIZON, SlotBook, booking_facts
from evals.questions.cohort import Cohort
from evals.questions.details import appointment_facts, identity_facts, medication_detail_facts
from evals.questions.facts import Fact, emit
from evals.questions.leaflets import leaflet_facts
from evals.questions.notes import note_facts
from evals.questions.phrasing import describe
from evals.questions.record import (
    aggregates,
    cross_resource,
    latest_first,
    lists,
    lookups,
    more_kinds,
    negations,
    trends,
)
from evals.questions.safety import safety_facts
from evals.questions.windows import summary_facts, window_facts
from evals.truth import Record, fingerprint, list_patients, load_record, read_free_slots, read_leaflets
from records.database import Database

EXTRA_COHORT = 8  # patients read beyond the chosen ones, for "another patient" and negation pools


class GenerationError(ValueError):
    """Nothing sensible can be generated (no patients, unknown category, bad count)."""


@dataclass(frozen=True)
class GenerateOptions:
    seed: int
    now: dt.datetime
    patients: int | None = None  # None = all
    categories: tuple[str, ...] = CATEGORIES
    per_patient: int | None = None  # cap on facts per patient (sampled, all categories kept if possible)


def choose_patients(all_ids: list[str], count: int | None, seed: int) -> list[str]:
    if count is None or count >= len(all_ids):
        return list(all_ids)
    return sorted(random.Random(f"patients:{seed}").sample(all_ids, count))


def _cap(facts: list[Fact], limit: int | None, rng: random.Random) -> list[Fact]:
    """Keep at most `limit` facts, spread across categories (round-robin over shuffled ones)."""
    if limit is None or len(facts) <= limit:
        return facts
    by_cat: dict[str, list[Fact]] = {}
    for fact in facts:
        by_cat.setdefault(fact.category, []).append(fact)
    for group in by_cat.values():
        rng.shuffle(group)
    kept: list[Fact] = []
    while len(kept) < limit:
        for category in CATEGORIES:
            if by_cat.get(category) and len(kept) < limit:
                kept.append(by_cat[category].pop())
    order = {id(f): i for i, f in enumerate(facts)}
    return sorted(kept, key=lambda f: order[id(f)])


YES_SHARE = (0.4, 0.6)


def balance_yes_no(per_patient: dict[str, list[Fact]], rng: random.Random) -> dict[str, list[Fact]]:
    """Drop yes/no facts of the majority answer (chosen with the seed) until "yes" is right
    40–60 % of the time: otherwise an agent that always says "no" looks good."""
    booleans = [
        (pid, index, f.expected.value)
        for pid, facts in sorted(per_patient.items())
        for index, f in enumerate(facts)
        if f.expected.type == "boolean"
    ]
    yes = sum(1 for *_, v in booleans if v)
    no = len(booleans) - yes
    if not booleans or YES_SHARE[0] <= yes / len(booleans) <= YES_SHARE[1]:
        return per_patient
    majority = yes > no  # the answer that is right too often
    keep = min(yes, no)  # as many of the majority as of the minority
    pool = [(pid, index) for pid, index, v in booleans if v == majority]
    drop = set(rng.sample(pool, max(0, len(pool) - keep)))
    return {
        pid: [f for index, f in enumerate(facts) if (pid, index) not in drop]
        for pid, facts in per_patient.items()
    }


def facts_for(
    record: Record,
    seed: int,
    cohort: Cohort,
    leaflets: list,
    slots: SlotBook,
    categories: Iterable[str],
) -> list[Fact]:
    wanted = set(categories)
    rng = random.Random(f"{seed}:{record.patient.patient_id}")
    builders: list[tuple[str, Callable[[], list[Fact]]]] = [
        ("safety", lambda: safety_facts(record, rng, cohort, seed)),
        ("lookup", lambda: lookups(record, rng)),
        ("list", lambda: lists(record, rng)),
        ("latest_first", lambda: latest_first(record, rng)),
        ("aggregate", lambda: aggregates(record, rng)),
        ("trend", lambda: trends(record, rng)),
        ("cross_resource", lambda: cross_resource(record, rng)),
        ("negation", lambda: negations(record, rng, cohort)),
        ("notes", lambda: note_facts(record)),
        ("leaflet", lambda: leaflet_facts(rng, leaflets)),
        ("booking", lambda: booking_facts(record, rng, slots)),
    ]
    facts: list[Fact] = []
    for category, build in builders:
        if category in wanted:
            facts.extend(f for f in build() if f.category == category)
    facts.extend(f for f in more_kinds(record, rng) if f.category in wanted)
    # round three's kinds, after the others so that their choices do not move
    for build in (
        lambda: medication_detail_facts(record, rng),
        lambda: identity_facts(record, rng),
        lambda: window_facts(record, rng),
        lambda: summary_facts(record, rng),
        lambda: appointment_facts(record, rng, slots),
    ):
        facts.extend(f for f in build() if f.category in wanted)
    return [_described(f, record, cohort) for f in facts]


def _described(fact: Fact, record: Record, cohort: Cohort) -> Fact:
    """What the fact is about and the phrase-bank slots per role (evals.questions.phrasing)."""
    about, slots = describe(fact.template, fact.key, record, cohort)
    for role, own in fact.slots.items():  # slots the builder set itself (a window, a name)
        slots[role] = {**slots.get(role, {}), **own}
    return dataclasses.replace(fact, about=about or fact.about, slots=slots)


def generate(
    db: Database,
    options: GenerateOptions,
    *,
    progress: Callable[[str], None] | None = None,
) -> tuple[SetHeader, list[Question]]:
    unknown = sorted(set(options.categories) - set(CATEGORIES))
    if unknown:
        raise GenerationError(f"unknown categories: {', '.join(unknown)} (known: {', '.join(CATEGORIES)})")
    if options.now.tzinfo is None:
        raise GenerationError("now must carry a timezone")
    all_ids = list_patients(db)
    if not all_ids:
        raise GenerationError(
            "the database has no patients: ingest a cohort first (chartside up / chartside ingest)"
        )
    chosen = choose_patients(all_ids, options.patients, options.seed)
    extra = [p for p in all_ids if p not in set(chosen)]
    extra = sorted(random.Random(f"extra:{options.seed}").sample(extra, min(EXTRA_COHORT, len(extra))))

    cohort = Cohort()
    records: dict[str, Record] = {}
    for pid in chosen + extra:
        record = load_record(db, pid, options.now)
        if record is None:
            continue
        cohort.add(record)
        if pid in chosen:
            records[pid] = record
        if progress is not None:
            progress(pid)
    cohort.finish()

    leaflets = read_leaflets(db)
    slots = SlotBook.from_slots(read_free_slots(db, options.now, options.now + HORIZON))
    skipped: dict[str, str] = {}
    if "booking" in options.categories and not slots.by_specialty:
        skipped["booking"] = (
            f"no free appointment slots between {options.now.date()} and {(options.now + HORIZON).date()} "
            "(generate slots with `chartside slots generate`, or pick --now inside the schedule)"
        )

    per_patient: dict[str, list[Fact]] = {}
    for pid in chosen:
        record = records.get(pid)
        if record is None:
            continue
        facts = facts_for(record, options.seed, cohort, leaflets, slots, options.categories)
        per_patient[pid] = _cap(facts, options.per_patient, random.Random(f"cap:{options.seed}:{pid}"))
    per_patient = balance_yes_no(per_patient, random.Random(f"balance:{options.seed}"))
    questions: list[Question] = []
    for pid, facts in per_patient.items():
        questions.extend(emit(facts, pid, options.now))

    warnings = []
    late = sum(r.after_now() for r in records.values())
    if late:
        warnings.append(
            f"{late} record rows are dated after --now {options.now.isoformat()}: the truth ignores them but the "
            "tools may still show them; pin --now at or after the newest record"
        )
    counts = Counter(q.category for q in questions)
    for category in options.categories:
        if not counts.get(category) and category not in skipped:
            skipped[category] = "no patient's record offered a question of this kind"
    header = SetHeader(
        seed=options.seed,
        now=options.now,
        patients=tuple(chosen),
        database=fingerprint(db, chosen),
        counts={c: counts[c] for c in CATEGORIES if counts.get(c)},
        skipped=skipped,
        warnings=tuple(warnings),
    )
    return header, questions
