"""Generating a question set from the database: choose patients, read their truth, build facts.

Deterministic: the same database, seed and "now" give byte-identical files (patients are
sampled from the sorted id list with the seed; every patient gets its own generator seeded
from the set seed and its id, so adding a patient does not reshuffle the others' questions).
"""

from __future__ import annotations

import datetime as dt
import random
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from evals.model import CATEGORIES, Question, SetHeader
from evals.questions.booking import HORIZON, SlotBook, booking_facts
from evals.questions.cohort import Cohort
from evals.questions.facts import Fact, emit
from evals.questions.leaflets import leaflet_facts
from evals.questions.notes import note_facts
from evals.questions.record import aggregates, cross_resource, latest_first, lists, lookups, negations, trends
from evals.questions.safety import safety_facts
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
    return facts


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

    questions: list[Question] = []
    for pid in chosen:
        record = records.get(pid)
        if record is None:
            continue
        facts = facts_for(record, options.seed, cohort, leaflets, slots, options.categories)
        facts = _cap(facts, options.per_patient, random.Random(f"cap:{options.seed}:{pid}"))
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
