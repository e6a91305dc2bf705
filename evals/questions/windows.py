"""Questions over a window of time relative to "now", and open summaries of a series.

"How many visits in the last 6 months?", "anything measured in the last 24 hours?", "my
average blood pressure since 2020?", "how has my A1C changed?", "which results are out of
range?". The truth is computed here from the `Record` (evals.truth), never by the tools.

A window is only asked when no row lies near its start: "the last 6 months" may mean 182
days or six calendar months, and "since 2020" a UTC or a local new year, so a row within the
margin of the boundary would make the truth depend on a reading the question does not fix.
"""

from __future__ import annotations

import datetime as dt
import random
import statistics
from collections.abc import Iterable
from dataclasses import dataclass

from evals.model import Item, NumberAnswer, SetAnswer, TrendAnswer
from evals.questions.facts import Fact, gold, iso_date, number_tolerance, shown
from evals.questions.record import _askable_series, _group, _pick, _values, lab_names
from evals.truth import Measurement, Record

TREND_MIN_CHANGE = 0.10  # an open trend is asked only when first → latest moved by 10 % or more


@dataclass(frozen=True)
class Window:
    """A span ending now: the words for it (an adverbial, "in the last 6 months") and its start."""

    key: str
    words: str
    start: dt.datetime
    margin: dt.timedelta

    def holds(self, when: dt.datetime, now: dt.datetime) -> bool:
        return self.start < when <= now

    def clear(self, stamps: Iterable[dt.datetime]) -> bool:
        """No row near the boundary: every reading of the window gives the same truth."""
        return not any(abs(t - self.start) <= self.margin for t in stamps)


def windows(now: dt.datetime, years: Iterable[int] = ()) -> list[Window]:
    hour, day = dt.timedelta(hours=1), dt.timedelta(days=1)
    out = [
        Window("24h", "in the last 24 hours", now - 24 * hour, 2 * hour),
        Window("7d", "in the last 7 days", now - 7 * day, day),
        Window("30d", "in the last 30 days", now - 30 * day, day),
        Window("6mo", "in the last 6 months", now - 182 * day, 4 * day),
        Window("1y", "in the past year", now - 365 * day, 2 * day),
        Window("2y", "in the last 2 years", now - 730 * day, 3 * day),
    ]
    for year in sorted(set(years)):
        if year < now.year:
            start = dt.datetime(year, 1, 1, tzinfo=dt.UTC)
            out.append(Window(f"since{year}", f"since {year}", start, day))
    return out


def _stamp_years(record: Record) -> list[int]:
    stamps = [e.start for e in record.valid_encounters() if e.start] + [
        m.effective for m in record.valid_measurements()
    ]
    return sorted({t.year for t in stamps if t.year < record.now.year})[-6:]


def _slots(window: Window) -> dict[str, dict[str, str]]:
    return {role: {"window": window.words} for role in ("patient", "clinician")}


def window_facts(record: Record, rng: random.Random) -> list[Fact]:
    facts: list[Fact] = []
    now = record.now
    all_windows = windows(now, _stamp_years(record))
    encounters = record.valid_encounters()
    stamps = [e.start for e in encounters if e.start]
    usable = [w for w in all_windows if w.clear(stamps)]
    # the last 24 hours always, when it can be asked; one other window besides
    picks = ["24h", *_pick(rng, [w.key for w in usable if w.key != "24h"], 1)]
    for window in [w for w in usable if w.key in picks]:
        rows = [e for e in encounters if window.holds(e.start, now)]
        facts.append(
            Fact(
                "aggregate",
                "encounter_count_window",
                window.key,
                NumberAnswer(value=len(rows), tolerance=0, count=True),
                (f"How many visits have I had {window.words}?",),
                (f"How many encounters has the patient had {window.words}?",),
                f"encounters starting after {window.start.isoformat()} up to now ({len(rows)}; "
                "entered-in-error and cancelled excluded; none within the margin of the boundary)",
                gold("encounter", [e.id for e in rows]),
                slots=_slots(window),
            )
        )

    measurements = record.valid_measurements()
    short = [
        w for w in all_windows if w.key in ("24h", "7d", "30d") and w.clear(m.effective for m in measurements)
    ]
    for window in _pick_windows(rng, short):
        rows = [m for m in measurements if window.holds(m.effective, now)]
        by_code = _group(rows, lambda m: m.code)
        items = []
        for code, series in sorted(by_code.items()):
            pn, cn = lab_names(code, series[-1].display, record)
            aliases = tuple(dict.fromkeys(n for n in (pn, cn) if n != series[-1].display))
            items.append(
                Item(
                    label=series[-1].display,
                    aliases=aliases,
                    record_ids=tuple(sorted({m.record_id for m in series})),
                )
            )
        if len(items) > 12:
            continue
        facts.append(
            Fact(
                "list",
                "results_in_window",
                window.key,
                SetAnswer(items=tuple(items)),
                (f"Which tests or measurements did I have {window.words}?",),
                (f"Which results were recorded for the patient {window.words}?",),
                f"{len(rows)} values of {len(items)} kinds with effective time after {window.start.isoformat()}",
                gold("observation", [m.record_id for m in rows]),
                slots=_slots(window),
            )
        )

    facts.extend(_mean_in_window(record, rng, all_windows))
    return facts


def _pick_windows(rng: random.Random, usable: list[Window]) -> list[Window]:
    chosen = _pick(rng, [w.key for w in usable], 1)
    return [w for w in usable if w.key in chosen]


def _mean_in_window(record: Record, rng: random.Random, all_windows: list[Window]) -> list[Fact]:
    candidates: dict[str, tuple[str, Window, list[Measurement]]] = {}
    for code, series in _askable_series(record).items():
        for window in all_windows:
            if window.key in ("24h", "7d"):
                continue
            rows = [m for m in series if window.holds(m.effective, record.now)]
            # at least two values, and at least one left out (else it is the all-time mean)
            if 2 <= len(rows) < len(series) and window.clear(m.effective for m in series):
                candidates[f"{code}|{window.key}"] = (code, window, rows)
    out = []
    for key in _pick(rng, candidates, 1):
        code, window, rows = candidates[key]
        mean = statistics.fmean(m.value for m in rows)
        pn, cn = lab_names(code, rows[-1].display, record)
        out.append(
            Fact(
                "aggregate",
                "mean_in_window",
                key,
                NumberAnswer(
                    value=round(mean, 4),
                    unit=rows[-1].unit,
                    tolerance=number_tolerance(mean, printed=_values(rows)),
                ),
                (f"What was my average {pn} {window.words}?",),
                (f"What was the patient's mean {cn} {window.words}?",),
                f"mean of {len(rows)} values of {code} after {iso_date(window.start)}: "
                + ", ".join(shown(m.value) for m in rows),
                gold("observation", [m.record_id for m in rows]),
                slots=_slots(window),
            )
        )
    return out


def summary_facts(record: Record, rng: random.Random) -> list[Fact]:
    """An open trend summary of one series, and the list of latest results out of range."""
    facts: list[Fact] = []
    moving = {}
    for code, series in _askable_series(record).items():
        first, last = series[0], series[-1]
        if len(series) >= 3 and first.effective != last.effective and first.value:
            change = (last.value - first.value) / abs(first.value)
            if abs(change) >= TREND_MIN_CHANGE:
                moving[code] = series
    for code in _pick(rng, moving, 1):
        series = moving[code]
        first, last = series[0], series[-1]
        pn, cn = lab_names(code, last.display, record)
        up = last.value > first.value
        facts.append(
            Fact(
                "trend",
                "trend_summary",
                code,
                TrendAnswer(
                    direction="up" if up else "down",
                    first=first.value,
                    last=last.value,
                    unit=last.unit,
                    tolerance=number_tolerance(last.value, printed=_values(series)),
                    count=len(series),
                ),
                (f"How has my {pn} changed over time?",),
                (f"Summarise the trend in the patient's {cn}.",),
                f"{len(series)} values of {code}: first {shown(first.value)} ({iso_date(first.effective)}), "
                f"latest {shown(last.value)} ({iso_date(last.effective)}), {'up' if up else 'down'} "
                f"{abs(last.value - first.value) / abs(first.value):.0%}",
                gold("observation", [first.record_id, last.record_id]),
            )
        )

    ranged = {
        code: series[-1]
        for code, series in _askable_series(record).items()
        if series[-1].ref_low is not None or series[-1].ref_high is not None
    }
    if ranged:
        outside, inside = [], []
        for code, m in sorted(ranged.items()):
            pn, cn = lab_names(code, m.display, record)
            aliases = tuple(dict.fromkeys(n for n in (pn, cn) if n != m.display))
            item = Item(label=m.display, aliases=aliases, record_ids=(m.record_id,))
            low = m.ref_low is not None and m.value < m.ref_low
            high = m.ref_high is not None and m.value > m.ref_high
            (outside if low or high else inside).append(item)
        if len(outside) <= 12:
            facts.append(
                Fact(
                    "list",
                    "out_of_range_results",
                    "",
                    SetAnswer(items=tuple(outside), forbidden=tuple(inside)),
                    ("Which of my latest results are outside the normal range?",),
                    ("Which of the patient's most recent results are out of the reference range?",),
                    f"{len(outside)} of {len(ranged)} tests with a reference range have their latest value "
                    "outside it (the latest value of each test against its own row's range)",
                    gold("observation", [i.record_ids[0] for i in outside]),
                    ("reference-range",),
                )
            )
    return facts
