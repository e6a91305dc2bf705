"""Questions answered from the structured record: lookups, lists, values, aggregates, trends,
cross-resource reasoning, and existence/negation.

Every builder takes the patient's `Record` (truth already filtered by the clinical semantics in
`evals.truth`) and a seeded `random.Random`, and returns `Fact`s. Choices among candidates
(which lab, which drug) are made with that generator from sorted candidates, so a seed gives
the same set for the same database.
"""

from __future__ import annotations

import datetime as dt
import random
import statistics
from collections import defaultdict
from collections.abc import Callable, Iterable

from evals.model import (
    AbstainAnswer,
    BooleanAnswer,
    DateAnswer,
    GoldRecord,
    Item,
    NumberAnswer,
    SetAnswer,
    TextAnswer,
)
from evals.questions.cohort import FALLBACK_DRUGS, Cohort
from evals.questions.facts import Fact, day, gold, iso_date, number_tolerance, shown
from evals.truth import EIE, Measurement, Medication, Record
from evals.vocab import (
    ASKABLE_CODES,
    condition_name,
    contraindicated,
    drug_name,
    is_diagnosis,
    lab_name,
    vaccine_name,
)

YEAR = dt.timedelta(days=365)
MAX_SET = 12


def _pick(rng: random.Random, items: Iterable, k: int) -> list:
    pool = sorted(items)
    return rng.sample(pool, min(k, len(pool)))


def _group(rows: Iterable, key: Callable) -> dict[str, list]:
    out: dict[str, list] = defaultdict(list)
    for row in rows:
        out[key(row)].append(row)
    return dict(out)


def _pick_polar(rng: random.Random, candidates: dict, answer: Callable[[object], bool], k: int = 1) -> list:
    """Pick keys so that yes and no are equally likely: first the answer (among those the
    candidates offer), then a key with that answer. A set where "no" is right 80 % of the time
    rewards an agent that always says no."""
    out = []
    pool = dict(candidates)
    for _ in range(k):
        sides = sorted({answer(v) for v in pool.values()})
        if not sides:
            break
        side = rng.choice(sides)
        key = _pick(rng, [c for c, v in pool.items() if answer(v) == side], 1)[0]
        out.append(key)
        pool.pop(key)
    return out


def _values(series: Iterable[Measurement]) -> list[float]:
    return [m.value for m in series]


def mean_answer(rows: list[Measurement]) -> NumberAnswer:
    """The mean of some values of one code, with that analyte's tolerance."""
    mean = statistics.fmean(m.value for m in rows)
    return NumberAnswer(
        value=round(mean, 4), unit=rows[-1].unit, tolerance=number_tolerance(mean, printed=_values(rows))
    )


def _patient_gold(record: Record) -> tuple[GoldRecord, ...]:
    return (GoldRecord(kind="patient", id=record.patient.patient_id),)


# ============================================================================================
# Lookup
# ============================================================================================


def lookups(record: Record, rng: random.Random) -> list[Fact]:
    facts: list[Fact] = []
    p = record.patient
    if p.birth_date:
        facts.append(
            Fact(
                "lookup",
                "birth_date",
                "",
                DateAnswer(value=p.birth_date),
                ("What is my date of birth?",),
                ("What is the patient's date of birth?",),
                "patients.birth_date",
                _patient_gold(record),
            )
        )
    encounters = record.valid_encounters()
    if encounters:
        last = max(encounters, key=lambda e: (e.start, e.id))
        facts.append(
            Fact(
                "lookup",
                "last_encounter_date",
                "",
                DateAnswer(value=day(last.start)),
                ("When was my last visit?",),
                ("When was the patient's most recent encounter?",),
                f"newest start among {len(encounters)} encounters (entered-in-error and cancelled excluded)",
                gold("encounter", [e.id for e in encounters if day(e.start) == day(last.start)]),
            )
        )
    by_code = _group([c for c in record.valid_conditions() if c.onset and c.code], lambda c: c.code)
    disorders = [code for code, rows in by_code.items() if is_diagnosis(rows[0].display)]
    for code in _pick(rng, disorders, 1):
        rows = by_code[code]
        first = min(rows, key=lambda c: (c.onset, c.id))
        name = condition_name(first.display)
        facts.append(
            Fact(
                "lookup",
                "first_diagnosis_date",
                code,
                DateAnswer(value=day(first.onset)),
                (f"When was I first diagnosed with {name.lower()}?",),
                (f"When was {name.lower()} first recorded for this patient?",),
                f"earliest onset among {len(rows)} condition rows with code {code}",
                gold("condition", [first.id]),
            )
        )
    vaccines = _group([i for i in record.given_immunizations() if i.code], lambda i: i.code)
    for code in _pick(rng, vaccines, 1):
        rows = vaccines[code]
        last = max(rows, key=lambda i: (i.occurrence, i.id))
        name = vaccine_name(last.display)
        facts.append(
            Fact(
                "lookup",
                "last_vaccine_date",
                code,
                DateAnswer(value=day(last.occurrence)),
                (f"When did I last get the {name} vaccine?",),
                (f"When was the patient's most recent {name} vaccination?",),
                f"newest of {len(rows)} completed immunizations with CVX {code} (not-done excluded)",
                gold("immunization", [last.id]),
            )
        )
    drugs = _group([m for m in record.valid_medications() if m.authored_on], lambda m: drug_name(m.display))
    for name in _pick(rng, drugs, 1):
        rows = drugs[name]
        first = min(rows, key=lambda m: (m.authored_on, m.id))
        facts.append(
            Fact(
                "lookup",
                "first_prescribed_date",
                name,
                DateAnswer(value=day(first.authored_on)),
                (f"When was I first prescribed {name}?",),
                (f"When was {name} first prescribed for the patient?",),
                f"earliest authored_on among {len(rows)} prescriptions of {name} (entered-in-error excluded)",
                gold("medication", [first.id]),
            )
        )
    procedures = _group([p for p in record.valid_procedures() if p.code], lambda p: p.code)
    for code in _pick(rng, procedures, 1):
        rows = procedures[code]
        last = max(rows, key=lambda p: (p.performed_start, p.id))
        name = condition_name(last.display).lower()
        article = "an" if name[:1] in "aeiou" else "a"
        facts.append(
            Fact(
                "lookup",
                "last_procedure_date",
                code,
                DateAnswer(value=day(last.performed_start)),
                (f"When did I last have {article} {name}?",),
                (f"When was the patient's most recent {name}?",),
                f"newest performed start among {len(rows)} procedures with code {code}",
                gold("procedure", [last.id]),
            )
        )
    return facts


# ============================================================================================
# Complete, status-filtered lists
# ============================================================================================


def _drug_items(meds: Iterable[Medication]) -> tuple[Item, ...]:
    groups = _group(meds, lambda m: drug_name(m.display))
    return tuple(
        Item(label=rows[0].display, aliases=(name,), record_ids=tuple(sorted({m.id for m in rows})))
        for name, rows in sorted(groups.items())
    )


def lists(record: Record, rng: random.Random) -> list[Fact]:
    facts: list[Fact] = []
    active = record.active_medications()
    active_names = {drug_name(m.display) for m in active}
    inactive = [m for m in record.medications if drug_name(m.display) not in active_names]
    tags = []
    if any(m.status == EIE for m in inactive):
        tags.append("entered-in-error")
    if any(m.status != "active" and drug_name(m.display) in active_names for m in record.medications):
        tags.append("restarted-medication")
    items = _drug_items(active)
    if len(items) <= MAX_SET:
        facts.append(
            Fact(
                "list",
                "active_medications",
                "",
                SetAnswer(items=items, forbidden=_drug_items(inactive)),
                ("What medicines am I currently taking?",),
                ("List the patient's active medications.",),
                f"{len(active)} prescriptions with status active, not ended by now; "
                f"{len(inactive)} stopped/completed/entered-in-error prescriptions of other drugs must not be listed",
                gold("medication", [m.id for m in active]),
                tuple(tags),
            )
        )

    conditions = record.active_conditions()
    active_codes = {c.code for c in conditions}
    groups = _group(conditions, lambda c: c.code or c.display)
    cond_items = tuple(
        Item(
            label=rows[0].display,
            aliases=(condition_name(rows[0].display),),
            record_ids=tuple(sorted(r.id for r in rows)),
        )
        for _, rows in sorted(groups.items())
    )
    resolved = _group(
        [c for c in record.conditions if c.code not in active_codes], lambda c: c.code or c.display
    )
    forbidden = tuple(
        Item(
            label=rows[0].display,
            aliases=(condition_name(rows[0].display),),
            record_ids=tuple(sorted(r.id for r in rows)),
        )
        for _, rows in sorted(resolved.items())
    )
    if len(cond_items) <= MAX_SET * 2:
        facts.append(
            Fact(
                "list",
                "active_conditions",
                "",
                SetAnswer(items=cond_items, forbidden=forbidden),
                ("What health conditions do I currently have?",),
                ("What are the patient's active problems?",),
                f"{len(conditions)} conditions active/recurrence/relapse and not abated; resolved ones must not be listed",
                gold("condition", [c.id for c in conditions]),
                ("recurring-condition",) if _recurring_codes(record) else (),
            )
        )

    allergies = record.current_allergies()
    current_codes = {a.code for a in allergies}
    allergy_items = tuple(
        Item(label=a.display, aliases=(condition_name(a.display),), record_ids=(a.id,))
        for a in sorted(allergies, key=lambda a: a.display)
    )
    not_current = tuple(
        Item(label=a.display, aliases=(condition_name(a.display),), record_ids=(a.id,))
        for a in record.allergies
        if a.code not in current_codes
    )
    facts.append(
        Fact(
            "list",
            "allergies",
            "",
            SetAnswer(items=allergy_items, forbidden=not_current),
            ("What am I allergic to?",),
            ("What allergies does the patient have on record?",),
            f"{len(allergies)} allergies with clinical status active (refuted/entered-in-error excluded)",
            gold("allergy", [a.id for a in allergies]),
        )
    )

    by_year = _group(record.given_immunizations(), lambda i: str(day(i.occurrence).year))
    for year in _pick(rng, by_year, 1):
        rows = by_year[year]
        groups = _group(rows, lambda i: i.code or i.display)
        vac_items = tuple(
            Item(
                label=rs[0].display,
                aliases=(vaccine_name(rs[0].display),),
                record_ids=tuple(r.id for r in rs),
            )
            for _, rs in sorted(groups.items())
        )
        facts.append(
            Fact(
                "list",
                "vaccines_in_year",
                year,
                SetAnswer(items=vac_items),
                (f"Which vaccines did I get in {year}?",),
                (f"Which immunizations were given to the patient in {year}?",),
                f"completed immunizations with occurrence in {year} (UTC)",
                gold("immunization", [r.id for r in rows]),
            )
        )
    return facts


# ============================================================================================
# Latest / first value per code
# ============================================================================================


def _askable_series(record: Record) -> dict[str, list[Measurement]]:
    """Codes we can ask about unambiguously: the newest instant holds one value only."""
    out = {}
    for code in sorted({m.code for m in record.valid_measurements() if m.code in ASKABLE_CODES}):
        series = record.series(code)
        newest = [m for m in series if m.effective == series[-1].effective]
        if len({m.value for m in newest}) == 1:
            out[code] = series
    return out


def _unit(m: Measurement) -> str:
    return f" {m.unit}" if m.unit and not m.unit.startswith("{") else ""


def lab_names(code: str, display: str, record: Record) -> tuple[str, str]:
    """(patient name, clinician name); the friendly name only when it is unambiguous here."""
    patient = lab_name(code, display, "patient")
    clinician = lab_name(code, display, "clinician")
    clashes = {
        m.code for m in record.valid_measurements() if lab_name(m.code, m.display, "patient") == patient
    }
    if len(clashes) > 1:
        patient = clinician = display
    return patient, clinician


def latest_first(record: Record, rng: random.Random) -> list[Fact]:
    facts: list[Fact] = []
    series_by_code = _askable_series(record)
    for code in _pick(rng, series_by_code, 3):
        series = series_by_code[code]
        last = series[-1]
        pn, cn = lab_names(code, last.display, record)
        if rng.random() < 0.3:
            patient_turns = (
                f"Can you show me my {pn} results?",
                "Which one is the most recent, and what was it?",
            )
            clinician_turns = (f"Pull up the patient's {cn} history.", "What is the latest value?")
        else:
            patient_turns = (f"What was my most recent {pn}?",)
            clinician_turns = (f"What is the patient's latest {cn}?",)
        facts.append(
            Fact(
                "latest_first",
                "latest_value",
                code,
                NumberAnswer(
                    value=last.value,
                    unit=last.unit,
                    tolerance=number_tolerance(last.value, printed=_values(series)),
                ),
                patient_turns,
                clinician_turns,
                f"newest of {len(series)} values of {code} by effective time: {shown(last.value)}{_unit(last)} on {iso_date(last.effective)}",
                gold("observation", [last.record_id]),
            )
        )
    for code in _pick(rng, series_by_code, 1):
        series = series_by_code[code]
        last = series[-1]
        pn, cn = lab_names(code, last.display, record)
        facts.append(
            Fact(
                "latest_first",
                "latest_date",
                code,
                DateAnswer(value=day(last.effective)),
                (f"When was my {pn} last checked?",),
                (f"When was the patient's {cn} last measured?",),
                f"effective day of the newest of {len(series)} values of {code}",
                gold("observation", [last.record_id]),
            )
        )
    multi = {c: s for c, s in series_by_code.items() if len(s) >= 2 and s[0].effective != s[1].effective}
    for code in _pick(rng, multi, 1):
        series = multi[code]
        first = series[0]
        pn, cn = lab_names(code, first.display, record)
        facts.append(
            Fact(
                "latest_first",
                "first_value",
                code,
                NumberAnswer(
                    value=first.value,
                    unit=first.unit,
                    tolerance=number_tolerance(first.value, printed=_values(series)),
                ),
                (f"What was my very first {pn} reading?",),
                (f"What was the patient's earliest recorded {cn}?",),
                f"oldest of {len(series)} values of {code}: {shown(first.value)}{_unit(first)} on {iso_date(first.effective)}",
                gold("observation", [first.record_id]),
            )
        )
    return facts


# ============================================================================================
# Time windows and aggregates
# ============================================================================================


def aggregates(record: Record, rng: random.Random) -> list[Fact]:
    facts: list[Fact] = []
    encounters = record.valid_encounters()
    years = _group(encounters, lambda e: str(day(e.start).year))
    recent_years = sorted(years)[-3:]
    for year in _pick(rng, recent_years, 1):
        rows = years[year]
        facts.append(
            Fact(
                "aggregate",
                "encounter_count_year",
                year,
                NumberAnswer(value=len(rows), tolerance=0),
                (f"How many visits did I have in {year}?",),
                (f"How many encounters did the patient have in {year}?",),
                f"encounters starting in {year} (UTC), entered-in-error and cancelled excluded",
                gold("encounter", [e.id for e in rows]),
            )
        )
    series_by_code = _askable_series(record)
    for code in _pick(rng, series_by_code, 1):
        series = series_by_code[code]
        pn, cn = lab_names(code, series[-1].display, record)
        facts.append(
            Fact(
                "aggregate",
                "measurement_count",
                code,
                NumberAnswer(value=len(series), tolerance=0),
                (f"How many times has my {pn} been measured?",),
                (f"How many {cn} results does the patient have on record?",),
                f"valid values of {code} up to now",
                gold("observation", [m.record_id for m in series]),
            )
        )
    yearly = {}
    for code, series in series_by_code.items():
        for year, rows in _group(series, lambda m: str(day(m.effective).year)).items():
            if len(rows) >= 2:
                yearly[f"{code}|{year}"] = rows
    for key in _pick(rng, yearly, 1):
        rows = yearly[key]
        code, year = key.split("|")
        pn, cn = lab_names(code, rows[-1].display, record)
        facts.append(
            Fact(
                "aggregate",
                "mean_in_year",
                key,
                mean_answer(rows),
                (f"What was my average {pn} in {year}?",),
                (f"What was the mean {cn} across {year}?",),
                f"mean of {len(rows)} values of {code} in {year}: " + ", ".join(shown(m.value) for m in rows),
                gold("observation", [m.record_id for m in rows]),
            )
        )
    multi = {c: s for c, s in series_by_code.items() if len(s) >= 3}
    for code in _pick(rng, multi, 2):
        series = multi[code]
        use_max = rng.random() < 0.5
        target = max(m.value for m in series) if use_max else min(m.value for m in series)
        word_p, word_c = ("highest", "maximum") if use_max else ("lowest", "minimum")
        pn, cn = lab_names(code, series[-1].display, record)
        facts.append(
            Fact(
                "aggregate",
                f"{word_c}_value",
                code,
                NumberAnswer(
                    value=target,
                    unit=series[-1].unit,
                    tolerance=number_tolerance(target, printed=_values(series)),
                ),
                (f"What was my {word_p} {pn} ever recorded?",),
                (f"What is the patient's {word_c} recorded {cn}?",),
                f"{word_c} of {len(series)} values of {code}",
                gold("observation", [m.record_id for m in series if m.value == target]),
            )
        )
    return facts


# ============================================================================================
# Change, trend, threshold
# ============================================================================================


def _outside(m: Measurement) -> bool | None:
    if m.ref_high is None and m.ref_low is None:
        return None
    return (m.ref_high is not None and m.value > m.ref_high) or (
        m.ref_low is not None and m.value < m.ref_low
    )


def trends(record: Record, rng: random.Random) -> list[Fact]:
    facts: list[Fact] = []
    series_by_code = _askable_series(record)
    changing = {}
    for code, series in series_by_code.items():
        if len(series) >= 2:
            last, prev = series[-1], series[-2]
            if last.effective != prev.effective and abs(last.value - prev.value) > number_tolerance(
                last.value
            ):
                changing[code] = (prev, last)
    for code in _pick_polar(rng, changing, lambda v: v[1].value > v[0].value):
        prev, last = changing[code]
        pn, cn = lab_names(code, last.display, record)
        facts.append(
            Fact(
                "trend",
                "rose_since_previous",
                code,
                BooleanAnswer(value=last.value > prev.value),
                (f"Has my {pn} gone up since the measurement before?",),
                (f"Did the patient's {cn} increase between the last two measurements?",),
                f"{shown(prev.value)} on {iso_date(prev.effective)} → {shown(last.value)} on {iso_date(last.effective)}",
                gold("observation", [prev.record_id, last.record_id]),
            )
        )
    for code in _pick(rng, changing, 1):
        prev, last = changing[code]
        diff = abs(last.value - prev.value)
        pn, cn = lab_names(code, last.display, record)
        facts.append(
            Fact(
                "trend",
                "change_since_previous",
                code,
                NumberAnswer(
                    value=round(diff, 4),
                    unit=last.unit,
                    tolerance=number_tolerance(diff, printed=(prev.value, last.value)),
                ),
                (f"By how much did my {pn} change between my last two measurements?",),
                (f"What was the change in the patient's {cn} between the two most recent results?",),
                f"|{shown(last.value)} − {shown(prev.value)}| = {shown(diff)}",
                gold("observation", [prev.record_id, last.record_id]),
            )
        )
    year_ago = {}
    cutoff = record.now - YEAR
    for code, series in series_by_code.items():
        older = [m for m in series if m.effective <= cutoff]
        last = series[-1]
        if (
            older
            and last.effective > cutoff
            and abs(last.value - older[-1].value) > number_tolerance(last.value)
        ):
            year_ago[code] = (older[-1], last)
    for code in _pick_polar(rng, year_ago, lambda v: v[1].value > v[0].value):
        before, last = year_ago[code]
        pn, cn = lab_names(code, last.display, record)
        facts.append(
            Fact(
                "trend",
                "rose_since_last_year",
                code,
                BooleanAnswer(value=last.value > before.value),
                (f"Is my latest {pn} higher than it was a year ago?",),
                (f"Has the patient's {cn} risen compared with a year ago ({iso_date(cutoff)})?",),
                f"newest value on or before {iso_date(cutoff)}: {shown(before.value)} ({iso_date(before.effective)}); "
                f"latest: {shown(last.value)} ({iso_date(last.effective)})",
                gold("observation", [before.record_id, last.record_id]),
            )
        )
    ranged = {code: s for code, s in series_by_code.items() if _outside(s[-1]) is not None}
    for code in _pick_polar(
        rng, ranged, lambda s: bool(s[-1].ref_high is not None and s[-1].value > s[-1].ref_high), 2
    ):
        series = ranged[code]
        last = series[-1]
        pn, cn = lab_names(code, last.display, record)
        high = last.ref_high is not None and last.value > last.ref_high
        if rng.random() < 0.3:
            p_turns = (f"What was my latest {pn}?", "Is that above the normal range?")
            c_turns = (f"What's the patient's most recent {cn}?", "Is it above the reference range?")
        else:
            p_turns = (f"Is my latest {pn} above the normal range?",)
            c_turns = (f"Is the patient's most recent {cn} above the reference range?",)
        facts.append(
            Fact(
                "trend",
                "above_range",
                code,
                BooleanAnswer(value=high),
                p_turns,
                c_turns,
                f"latest {shown(last.value)} vs reference range {last.ref_low}–{last.ref_high}",
                gold("observation", [last.record_id]),
                ("reference-range",),
            )
        )
        flags = [_outside(m) for m in series]
        crossed = any(flags) and not all(f for f in flags if f is not None)
        if crossed or rng.random() < 0.5:
            facts.append(
                Fact(
                    "trend",
                    "ever_outside_range",
                    code,
                    BooleanAnswer(value=any(bool(f) for f in flags)),
                    (f"Has my {pn} ever been outside the normal range?",),
                    (f"Has any of the patient's {cn} results been outside the reference range?",),
                    f"{sum(bool(f) for f in flags)} of {len(series)} values outside their row's reference range",
                    gold("observation", [m.record_id for m, f in zip(series, flags, strict=True) if f]),
                    ("reference-range", "crosses-range") if crossed else ("reference-range",),
                )
            )
    return facts


# ============================================================================================
# Cross-resource
# ============================================================================================


def cross_resource(record: Record, rng: random.Random) -> list[Fact]:
    facts: list[Fact] = []
    meds = [m for m in record.valid_medications() if m.authored_on]
    by_code = _group(
        [c for c in record.valid_conditions() if c.onset and c.code and is_diagnosis(c.display)],
        lambda c: c.code,
    )
    candidates = {}
    for code, rows in by_code.items():
        first = min(rows, key=lambda c: (c.onset, c.id))
        # on or after the onset: the prescription written at the diagnosing visit counts
        after = [m for m in meds if m.authored_on >= first.onset]
        n = len({drug_name(m.display) for m in after})
        if 1 <= n <= 8:
            candidates[code] = (first, after)
    for code in _pick(rng, candidates, 1):
        first, after = candidates[code]
        name = condition_name(first.display).lower()
        facts.append(
            Fact(
                "cross_resource",
                "meds_after_diagnosis",
                code,
                SetAnswer(items=_drug_items(after)),
                (f"Which medicines was I started on after I was diagnosed with {name}?",),
                (
                    f"Which medications were started after the patient's {name} diagnosis ({iso_date(first.onset)})?",
                ),
                f"prescriptions authored on or after the first onset of {code} ({first.onset.isoformat()})",
                gold("condition", [first.id]) + gold("medication", [m.id for m in after]),
            )
        )

    reasons = {}
    for code, rows in by_code.items():
        ids = {c.id for c in rows}
        treated = [m for m in meds if m.reason_code == code or m.reason_condition_id in ids]
        if 1 <= len({drug_name(m.display) for m in treated}) <= 8:
            reasons[code] = (rows, treated)
    for code in _pick(rng, reasons, 1):
        rows, treated = reasons[code]
        name = condition_name(rows[0].display).lower()
        facts.append(
            Fact(
                "cross_resource",
                "meds_for_condition",
                code,
                SetAnswer(items=_drug_items(treated)),
                (f"What medicines have I been prescribed for my {name}?",),
                (f"Which medications were prescribed with {name} as the reason?",),
                f"prescriptions whose reason is condition code {code}",
                gold("medication", [m.id for m in treated]),
            )
        )

    allergies = record.current_allergies()
    if allergies:
        active = record.active_medications()
        pairs = [(a, m) for a in allergies for m in active if contraindicated(a.display, m.display)]
        common_turns = (
            ("Am I taking anything I'm allergic to?",),
            ("Are there any drug–allergy contraindications on the patient's active medication list?",),
        )
        if pairs:
            expected = SetAnswer(items=_drug_items(m for _, m in pairs))
            explanation = "; ".join(f"{m.display} conflicts with allergy {a.display}" for a, m in pairs)
            ids = gold("allergy", [a.id for a, _ in pairs]) + gold("medication", [m.id for _, m in pairs])
        else:
            expected = BooleanAnswer(value=False)
            explanation = (
                f"no active medication falls in a drug class of the {len(allergies)} current allergies"
            )
            ids = gold("allergy", [a.id for a in allergies])
        facts.append(
            Fact(
                "cross_resource",
                "drug_allergy_conflict",
                "",
                expected,
                *common_turns,
                explanation,
                ids,
                ("drug-allergy",),
            )
        )
    return facts


# ============================================================================================
# Existence and negation
# ============================================================================================


def _recurring_codes(record: Record) -> set[str]:
    out = set()
    for code, rows in _group(record.valid_conditions(), lambda c: c.code).items():
        resolved = [
            c for c in rows if c.clinical_status in ("resolved", "inactive", "remission") or c.abatement
        ]
        active_now = {c.id for c in record.active_conditions()}
        if resolved and any(c.id in active_now for c in rows):
            out.add(code)
    return out


def negations(record: Record, rng: random.Random, cohort: Cohort) -> list[Fact]:
    facts: list[Fact] = []
    have_codes = {m.code for m in record.measurements}
    absent_labs = [c for c in cohort.lab_codes if c not in have_codes]
    for code in _pick(rng, absent_labs, 1):
        display, _ = cohort.lab_codes[code]
        pn, cn = lab_name(code, display, "patient"), lab_name(code, display, "clinician")
        facts.append(
            Fact(
                "negation",
                "absent_lab",
                code,
                AbstainAnswer(missing=f"{cn} result", section="labs"),
                (f"What was my last {pn} result?",),
                (f"What is the patient's most recent {cn}?",),
                f"no observation with code {code} in this record",
            )
        )

    all_names = {drug_name(m.display) for m in record.medications}
    valid_names = {drug_name(m.display) for m in record.valid_medications()}
    pool = [d for d in list(cohort.drug_names) + list(FALLBACK_DRUGS) if d not in all_names and len(d) >= 5]
    for name in _pick(rng, dict.fromkeys(pool), 1):
        facts.append(
            Fact(
                "negation",
                "never_prescribed",
                name,
                BooleanAnswer(value=False),
                (f"Am I taking {name}?",),
                (f"Is the patient on {name}?",),
                f"no prescription of {name} in the record",
            )
        )
    eie_only = sorted(all_names - valid_names)
    for name in _pick(rng, eie_only, 1):
        rows = [m for m in record.medications if drug_name(m.display) == name]
        facts.append(
            Fact(
                "negation",
                "entered_in_error_medication",
                name,
                BooleanAnswer(value=False),
                (f"Am I on {name}?",),
                (f"Is {name} on the patient's medication list?",),
                f"{name} appears only in {len(rows)} entered-in-error prescriptions",
                (),
                ("entered-in-error",),
            )
        )
    active_names = {drug_name(m.display) for m in record.active_medications()}
    stopped = _group(
        [m for m in record.valid_medications() if m.status != "active"], lambda m: drug_name(m.display)
    )
    for name in _pick(rng, [n for n in stopped if n not in active_names], 1):
        rows = stopped[name]
        facts.append(
            Fact(
                "negation",
                "stopped_medication",
                name,
                BooleanAnswer(value=False),
                (f"Am I still taking {name}?",),
                (f"Is the patient still on {name}?",),
                f"{len(rows)} prescriptions of {name}, none active now (statuses: {sorted({m.status for m in rows})})",
                gold("medication", [m.id for m in rows]),
                ("stopped-medication",),
            )
        )
    restarted = sorted(
        n
        for n in stopped
        if n in active_names and any(m.status in ("stopped", "completed") for m in stopped[n])
    )
    for name in _pick(rng, restarted, 1):
        rows = [m for m in record.active_medications() if drug_name(m.display) == name]
        facts.append(
            Fact(
                "negation",
                "restarted_medication",
                name,
                BooleanAnswer(value=True),
                (f"Am I still taking {name}?",),
                (f"Is the patient currently on {name}?",),
                f"{name} was stopped earlier and has an active prescription now",
                gold("medication", [m.id for m in rows]),
                ("restarted-medication",),
            )
        )

    current = _group(record.active_medications(), lambda m: drug_name(m.display))
    for name in _pick(rng, [n for n in current if n not in stopped], 1):
        rows = current[name]
        facts.append(
            Fact(
                "negation",
                "still_on_active",
                name,
                BooleanAnswer(value=True),
                (f"Am I still taking {name}?",),
                (f"Is the patient still on {name}?",),
                f"{len(rows)} active prescriptions of {name}, not ended by now",
                gold("medication", [m.id for m in rows]),
                ("active-medication",),
            )
        )
    for code in _pick(
        rng, {c.code for c in record.active_conditions() if c.code and is_diagnosis(c.display)}, 1
    ):
        rows = [c for c in record.active_conditions() if c.code == code]
        name = condition_name(rows[0].display).lower()
        facts.append(
            Fact(
                "negation",
                "active_condition_current",
                code,
                BooleanAnswer(value=True),
                (f"Do I have {name}?",),
                (f"Is {name} an active problem for the patient?",),
                f"{code} is active (clinical status {rows[0].clinical_status}) and not abated",
                gold("condition", [c.id for c in rows]),
            )
        )
    vaccines = _group(record.given_immunizations(), lambda i: i.code)
    for code in _pick(rng, [c for c in vaccines if c], 1):
        rows = vaccines[code]
        name = vaccine_name(rows[0].display)
        facts.append(
            Fact(
                "negation",
                "vaccine_given",
                code,
                BooleanAnswer(value=True),
                (f"Have I ever had the {name} vaccine?",),
                (f"Has the patient received the {name} vaccine?",),
                f"{len(rows)} completed immunizations with CVX {code}",
                gold("immunization", [i.id for i in rows]),
            )
        )

    active_codes = {c.code for c in record.active_conditions()}
    valid = _group(
        [c for c in record.valid_conditions() if c.code and is_diagnosis(c.display)], lambda c: c.code
    )
    resolved = [code for code in valid if code not in active_codes]
    for code in _pick(rng, resolved, 1):
        rows = valid[code]
        name = condition_name(rows[0].display).lower()
        facts.append(
            Fact(
                "negation",
                "resolved_condition",
                code,
                BooleanAnswer(value=False),
                (f"Do I still have {name}?",),
                (f"Is {name} still an active problem for the patient?",),
                f"{len(rows)} rows of {code}, all resolved/abated by now",
                gold("condition", [c.id for c in rows]),
            )
        )
    for code in _pick(rng, [c for c in _recurring_codes(record) if c in valid], 1):
        rows = [c for c in record.active_conditions() if c.code == code]
        name = condition_name(rows[0].display).lower()
        facts.append(
            Fact(
                "negation",
                "recurring_condition",
                code,
                BooleanAnswer(value=True),
                (f"Do I still have {name}?",),
                (f"Is {name} currently active for the patient?",),
                f"{code} resolved once and is active again",
                gold("condition", [c.id for c in rows]),
                ("recurring-condition",),
            )
        )
    eie_conditions = {
        c.code: c for c in record.conditions if c.verification_status == EIE and is_diagnosis(c.display)
    }
    for code in _pick(rng, [c for c in eie_conditions if c not in valid], 1):
        name = condition_name(eie_conditions[code].display).lower()
        facts.append(
            Fact(
                "negation",
                "entered_in_error_condition",
                code,
                BooleanAnswer(value=False),
                (f"Do I have {name}?",),
                (f"Does the patient have {name}?",),
                f"{code} is recorded only as entered-in-error",
                (),
                ("entered-in-error",),
            )
        )
    if not record.current_allergies():
        facts.append(
            Fact(
                "negation",
                "no_allergies",
                "",
                BooleanAnswer(value=False),
                ("Do I have any allergies on record?",),
                ("Does the patient have any recorded allergies?",),
                "no allergy with clinical status active",
                (),
            )
        )
    given = {i.code for i in record.given_immunizations()}
    absent = absent_vaccines(cohort.vaccines, given)
    for code in _pick(rng, absent, 1):
        name = vaccine_name(cohort.vaccines[code])
        facts.append(
            Fact(
                "negation",
                "absent_vaccine",
                code,
                AbstainAnswer(missing=f"{name} vaccination", section="immunizations"),
                (f"When did I get the {name} vaccine?",),
                (f"When was the patient given the {name} vaccine?",),
                f"no completed immunization with CVX {code}",
            )
        )
    return facts


def absent_vaccines(vaccines: dict[str, str], given: set[str]) -> list[str]:
    """The cohort's vaccine codes this patient was never given, leaving out those asked by the
    same name as one given: a question says "the COVID-19 vaccine", so CVX 207 is not absent
    for a patient given CVX 208 (both 'SARS-COV-2 (COVID-19) vaccine …')."""
    given_names = {vaccine_name(vaccines.get(c, "")).lower() for c in given}
    return [c for c in vaccines if c not in given and vaccine_name(vaccines[c]).lower() not in given_names]


# ============================================================================================
# More kinds people ask (issue 15): age, all-time counts, the newest result of any kind, "is
# it older than a year?", diagnosis history, "why am I on X?"
# ============================================================================================


def _age(birth: dt.date, today: dt.date) -> int:
    return today.year - birth.year - ((today.month, today.day) < (birth.month, birth.day))


def more_kinds(record: Record, rng: random.Random) -> list[Fact]:
    facts: list[Fact] = []
    p = record.patient
    today = record.now.date()
    if p.birth_date and not p.deceased:
        age = _age(p.birth_date, today)
        facts.append(
            Fact(
                "lookup",
                "age",
                "",
                NumberAnswer(value=age, unit="years", tolerance=0),
                ("How old am I?",),
                ("How old is the patient?",),
                f"born {p.birth_date.isoformat()}, {age} on {today.isoformat()}",
                _patient_gold(record),
            )
        )
    encounters = record.valid_encounters()
    if encounters:
        facts.append(
            Fact(
                "aggregate",
                "encounter_count_all",
                "",
                NumberAnswer(value=len(encounters), tolerance=0, count=True),
                ("How many visits have I had in total?",),
                ("How many encounters does the patient have on record in total?",),
                f"all {len(encounters)} encounters up to now (entered-in-error and cancelled excluded)",
                gold("encounter", [e.id for e in encounters]),
            )
        )
        emergencies = [e for e in encounters if (e.class_code or "").upper() in ("EMER", "EMERGENCY")]
        facts.append(
            Fact(
                "aggregate",
                "emergency_count",
                "",
                NumberAnswer(value=len(emergencies), tolerance=0, count=True),
                ("How many times have I been to the emergency department?",),
                ("How many emergency encounters does the patient have?",),
                f"{len(emergencies)} encounters of class EMER",
                gold("encounter", [e.id for e in emergencies]),
            )
        )
    measurements = record.valid_measurements()
    if measurements:
        newest = max(m.effective for m in measurements)
        rows = [m for m in measurements if m.effective == newest]
        facts.append(
            Fact(
                "latest_first",
                "latest_any_result",
                "",
                DateAnswer(value=day(newest)),
                ("When was my most recent test or measurement of any kind?",),
                ("When was the patient's most recent result of any kind recorded?",),
                f"newest effective time among {len(measurements)} values: {newest.isoformat()}",
                gold("observation", [m.record_id for m in rows]),
            )
        )
    series_by_code = _askable_series(record)
    dated = {code: s for code, s in series_by_code.items() if s}
    for code in _pick_polar(rng, dated, lambda s: s[-1].effective < record.now - YEAR):
        last = dated[code][-1]
        pn, cn = lab_names(code, last.display, record)
        old = last.effective < record.now - YEAR
        facts.append(
            Fact(
                "latest_first",
                "latest_older_than_year",
                code,
                BooleanAnswer(value=old),
                (f"Is my latest {pn} more than a year old?",),
                (f"Is the patient's most recent {cn} older than a year?",),
                f"latest {code} on {iso_date(last.effective)}; a year before now is {iso_date(record.now - YEAR)}",
                gold("observation", [last.record_id]),
            )
        )
    diagnoses = _group(
        [c for c in record.valid_conditions() if is_diagnosis(c.display)], lambda c: c.code or c.display
    )
    if 1 <= len(diagnoses) <= MAX_SET * 2:
        items = tuple(
            Item(
                label=rows[0].display,
                aliases=(condition_name(rows[0].display),),
                record_ids=tuple(sorted(r.id for r in rows)),
            )
            for _, rows in sorted(diagnoses.items())
        )
        facts.append(
            Fact(
                "list",
                "diagnosis_history",
                "",
                SetAnswer(items=items),
                ("What have I ever been diagnosed with?",),
                ("List every diagnosis on the patient's record, past and present.",),
                f"{len(items)} distinct disorders ever recorded (entered-in-error excluded; findings and situations are not diagnoses)",
                gold("condition", [r.id for rows in diagnoses.values() for r in rows]),
            )
        )
    by_id = {c.id: c for c in record.valid_conditions()}
    by_code = {c.code: c for c in record.valid_conditions() if c.code}
    reasons: dict[str, tuple[Medication, object]] = {}
    for m in record.active_medications():
        why = by_id.get(m.reason_condition_id or "") or by_code.get(m.reason_code or "")
        if why is not None:
            reasons.setdefault(drug_name(m.display), (m, why))
    for name in _pick(rng, reasons, 1):
        med, why = reasons[name]
        reason = condition_name(why.display)
        facts.append(
            Fact(
                "cross_resource",
                "why_on_medication",
                name,
                TextAnswer(accepted=(reason,), reference=reason),
                (f"Why am I taking {name}?",),
                (f"What is {name} prescribed for?",),
                f"the active prescription of {name} gives the reason {why.display}",
                gold("medication", [med.id]),
            )
        )
    return facts
