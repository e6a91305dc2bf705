"""Check an answer against the rows it cites (DESIGN invariant 4). Pure functions.

After the model answers:

1. every handle it cites (`[L3]`, `[M1][M2]`, `[L1, L2]`) must exist in this question's
   `HandleBook` — i.e. among the rows a tool actually returned;
2. every number, date and time in the answer must appear in the rows cited for that part of
   the answer: the first citation after it in the same sentence (adjacent groups such as
   `[M1][M2]` count as one), else the handles of its sentence, line or paragraph. A value
   with no citation in reach is an uncited claim.

Values are compared after normalisation, so "2024-03-05", "March 5, 2024", "5 Mar 2024" and
"03/05/2024" are one date; "1,200", "1200" and "1200.0" one number; "7.2%" is 7.2; "120/80"
is 120 and 80; "2:30 pm" is 14:30. A number may be rounded to the decimals the answer
writes ("7.25" cited, "7.3" said) but not to a whole number. A small integer that is a count of cited rows ("you have
3 active medications") is accepted as a count. A year may be any cited date's year.

Failures are returned in a `GroundingReport` and made visible in the answer text: an unknown
handle becomes `[L9: unknown source]`, an unsupported value is followed by `[unverified]`.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal, InvalidOperation

from agent.events import GroundingIssue, GroundingReport
from tools.results import Citation, HandleBook

UNKNOWN_MARK = ": unknown source"
UNVERIFIED_MARK = " [unverified]"

HANDLE = r"[A-Z]{1,2}\d+"
HANDLE_GROUP = re.compile(rf"\[\s*({HANDLE}(?:\s*[,;]\s*{HANDLE})*)\s*\]")

MONTHS = {
    name: index
    for index, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
_MONTH = r"(?P<mon>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)\d{2})"

DATE_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    (
        "iso",
        re.compile(
            rf"\b{_YEAR}-(?P<m>\d{{1,2}})-(?P<d>\d{{1,2}})(?:[T ]\d{{2}}:\d{{2}}(?::\d{{2}}(?:\.\d+)?)?(?:Z|[+-]\d{{2}}:?\d{{2}})?)?\b"
        ),
    ),
    ("slash", re.compile(rf"\b(?P<a>\d{{1,2}})/(?P<b>\d{{1,2}})/{_YEAR}\b")),
    ("mdy", re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b", re.I)),
    ("dmy", re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b", re.I)),
    ("my", re.compile(rf"\b{_MONTH},?\s+{_YEAR}\b", re.I)),
]
TIME_PATTERN = re.compile(r"\b(?P<h>\d{1,2}):(?P<m>\d{2})(?::\d{2})?(?:\s*(?P<ampm>[ap])\.?\s?m\b\.?)?", re.I)
NUMBER_PATTERN = re.compile(r"(?<![\w.])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w])")
LIST_MARKER = re.compile(r"^\s*\d{1,2}[.)]\s", re.M)
YEAR_RANGE = range(1900, 2101)
MAX_COUNT = 200


@dataclass
class Values:
    """The normalised values found in a piece of text."""

    dates: set[dt.date] = field(default_factory=set)
    month_years: set[tuple[int, int]] = field(default_factory=set)
    years: set[int] = field(default_factory=set)
    times: set[tuple[int, int]] = field(default_factory=set)
    numbers: set[Decimal] = field(default_factory=set)

    def absorb(self, other: Values) -> None:
        self.dates |= other.dates
        self.month_years |= other.month_years
        self.years |= other.years
        self.times |= other.times
        self.numbers |= other.numbers


@dataclass(frozen=True)
class Found:
    """One value in the answer: where it is, what it is, how to show it."""

    start: int
    end: int
    text: str
    kind: str  # date | month_year | year | time | number
    value: object


def _safe_date(year: int, month: int, day: int) -> dt.date | None:
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


def _date_candidates(kind: str, m: re.Match[str]) -> tuple[str, set]:
    year = int(m.group("year"))
    if kind == "iso":
        d = _safe_date(year, int(m.group("m")), int(m.group("d")))
        return "date", {d} if d else set()
    if kind == "slash":  # US order first; the other order when only it is valid (or both are)
        a, b = int(m.group("a")), int(m.group("b"))
        out = {d for d in (_safe_date(year, a, b), _safe_date(year, b, a)) if d}
        return "date", out
    month = MONTHS[m.group("mon").lower()]
    if kind == "my":
        return "month_year", {(year, month)}
    d = _safe_date(year, month, int(m.group("day")))
    return "date", {d} if d else set()


def to_decimal(text: str) -> Decimal | None:
    try:
        return Decimal(text.replace(",", "")).normalize()
    except InvalidOperation:
        return None


def find_values(text: str) -> list[Found]:
    """Dates, times and numbers in `text`, each once (a date's digits are not also numbers)."""
    masked = list(text)
    found: list[Found] = []

    def mask(start: int, end: int) -> None:
        for i in range(start, end):
            masked[i] = " "

    for group in HANDLE_GROUP.finditer(text):
        mask(group.start(), group.end())
    for marker in LIST_MARKER.finditer(text):
        mask(marker.start(), marker.end())
    for kind, pattern in DATE_PATTERNS:
        for m in pattern.finditer("".join(masked)):
            value_kind, candidates = _date_candidates(kind, m)
            if candidates:
                found.append(
                    Found(m.start(), m.end(), text[m.start() : m.end()], value_kind, frozenset(candidates))
                )
            mask(m.start(), m.end())
    for m in TIME_PATTERN.finditer("".join(masked)):
        hour, minute = int(m.group("h")), int(m.group("m"))
        ampm = (m.group("ampm") or "").lower()
        if ampm == "p" and hour < 12:
            hour += 12
        if ampm == "a" and hour == 12:
            hour = 0
        if hour < 24 and minute < 60:
            found.append(Found(m.start(), m.end(), text[m.start() : m.end()], "time", (hour, minute)))
            mask(m.start(), m.end())
    for m in NUMBER_PATTERN.finditer("".join(masked)):
        raw = m.group(0)
        number = to_decimal(raw)
        if number is None:
            continue
        is_year = "." not in raw and "," not in raw and len(raw) == 4 and int(raw) in YEAR_RANGE
        found.append(Found(m.start(), m.end(), raw, "year" if is_year else "number", number))
    return sorted(found, key=lambda f: f.start)


def values_of(texts: Iterable[str]) -> Values:
    """Everything a cited row states, normalised (a date also gives its month and year)."""
    out = Values()
    for text in texts:
        for item in find_values(text):
            if item.kind == "date":
                for d in item.value:  # type: ignore[attr-defined]
                    out.dates.add(d)
                    out.month_years.add((d.year, d.month))
                    out.years.add(d.year)
            elif item.kind == "month_year":
                out.month_years |= set(item.value)  # type: ignore[arg-type]
                out.years |= {y for y, _ in item.value}  # type: ignore[attr-defined]
            elif item.kind == "time":
                out.times.add(item.value)  # type: ignore[arg-type]
            else:
                number = item.value
                out.numbers.add(number)  # type: ignore[arg-type]
                if item.kind == "year":
                    out.years.add(int(number))  # type: ignore[call-overload]
    return out


def citation_texts(citation: Citation) -> list[str]:
    """The strings a row states: its facts, its label, and its structured values."""
    texts = [*citation.facts, citation.label]
    for value in citation.data.values():
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            texts.append(str(value))
    return texts


def _rounds_to(said: Decimal, written: str, facts: set[Decimal]) -> bool:
    """A fact rounded to the decimals the answer wrote ("7.25" → "7.3"); never to a whole
    number, so "6" is not accepted for 5.9."""
    places = len(written.split(".", 1)[1]) if "." in written else 0
    if places == 0:
        return False
    quantum = Decimal(1).scaleb(-places)
    for fact in facts:
        try:
            if said in (fact.quantize(quantum, ROUND_HALF_UP), fact.quantize(quantum, ROUND_HALF_EVEN)):
                return True
        except InvalidOperation:
            continue
    return False


def supported(item: Found, values: Values) -> bool:
    if item.kind == "date":
        return bool(set(item.value) & values.dates)  # type: ignore[arg-type]
    if item.kind == "month_year":
        return bool(set(item.value) & values.month_years)  # type: ignore[arg-type]
    if item.kind == "time":
        return item.value in values.times
    if item.kind == "year":
        return int(item.value) in values.years or item.value in values.numbers  # type: ignore[call-overload]
    number: Decimal = item.value  # type: ignore[assignment]
    return number in values.numbers or _rounds_to(number, item.text, values.numbers)


# --------------------------------------------------------------------------------------------
# Structure: paragraphs → lines → sentences, each with the handles it cites
# --------------------------------------------------------------------------------------------

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"'])")


@dataclass
class Span:
    start: int
    end: int
    handles: list[str]


def handles_in(text: str) -> list[str]:
    out: list[str] = []
    for group in HANDLE_GROUP.finditer(text):
        for handle in re.split(r"\s*[,;]\s*", group.group(1)):
            if handle not in out:
                out.append(handle)
    return out


def _spans(text: str, pattern: re.Pattern[str], offset: int) -> list[Span]:
    spans, start = [], 0
    for m in pattern.finditer(text):
        spans.append(Span(offset + start, offset + m.start(), handles_in(text[start : m.start()])))
        start = m.end()
    spans.append(Span(offset + start, offset + len(text), handles_in(text[start:])))
    return spans


def structure(answer: str) -> tuple[list[Span], list[Span], list[Span]]:
    paragraphs = _spans(answer, re.compile(r"\n\s*\n"), 0)
    lines: list[Span] = []
    sentences: list[Span] = []
    for para in paragraphs:
        for line in _spans(answer[para.start : para.end], re.compile(r"\n"), para.start):
            lines.append(line)
            sentences.extend(_spans(answer[line.start : line.end], _SENTENCE_END, line.start))
    return paragraphs, lines, sentences


@dataclass
class CitationRun:
    """Adjacent handle groups ("[M1][M2]" or "[M1, M2]") read as one citation."""

    start: int
    end: int
    handles: list[str]


def citation_runs(answer: str) -> list[CitationRun]:
    runs: list[CitationRun] = []
    for group in HANDLE_GROUP.finditer(answer):
        handles = handles_in(group.group(0))
        if runs and not answer[runs[-1].end : group.start()].strip():
            runs[-1].end = group.end()
            runs[-1].handles += [h for h in handles if h not in runs[-1].handles]
        else:
            runs.append(CitationRun(group.start(), group.end(), handles))
    return runs


def scope_of(
    position: int, runs: list[CitationRun], sentences: list[Span], lines: list[Span], paragraphs: list[Span]
) -> list[str]:
    """The handles a value at `position` is cited by: the first citation after it in its
    sentence, else its sentence's, line's or paragraph's handles."""
    sentence = _containing(sentences, position)
    if sentence is not None:
        for run in runs:
            if position <= run.start < sentence.end + 1:
                return run.handles
    for level in (sentences, lines, paragraphs):
        span = _containing(level, position)
        if span is not None and span.handles:
            return span.handles
    return []


def _containing(spans: list[Span], position: int) -> Span | None:
    for span in spans:
        if span.start <= position < span.end or (span.start == span.end == position):
            return span
    return None


def count_candidates(answer: str, paragraphs: list[Span], totals: Iterable[int]) -> set[int]:
    """Integers that may be counts: distinct handles cited overall, per paragraph, tool totals."""
    counts = {len(handles_in(answer))} | {len(p.handles) for p in paragraphs}
    counts |= {t for t in totals if 0 <= t <= MAX_COUNT}
    return counts


# --------------------------------------------------------------------------------------------
# The check
# --------------------------------------------------------------------------------------------


CITED_LINE = re.compile(rf"^\s*\[({HANDLE})\]\s?(.*)$")


def row_texts(tool_texts: Iterable[str]) -> dict[str, list[str]]:
    """What each cited row says in the tool results the model saw: the line starting with its
    handle (`[L3] …`) and any uncited lines that continue it (a note passage)."""
    rows: dict[str, list[str]] = {}
    for text in tool_texts:
        current: str | None = None
        for line in text.splitlines():
            m = CITED_LINE.match(line)
            if m:
                current = m.group(1)
                rows.setdefault(current, []).append(m.group(2))
            elif current is not None and line.strip():
                rows[current].append(line)
            else:
                current = None
    return rows


def check_grounding(
    answer: str,
    book: HandleBook,
    totals: Iterable[int] = (),
    *,
    rows: dict[str, list[str]] | None = None,
    trusted_lines: Iterable[str] = (),
) -> tuple[GroundingReport, str]:
    """(report, the answer with visible markers).

    A cited row's values are its citation's facts, label and structured data, plus what the
    tool result showed for it (`rows`, from `row_texts`). `totals` = row totals of this
    question's tools (accepted as counts). `trusted_lines` = lines copied verbatim from a
    tool's own header or notes (the offline planner's), whose values (a search window,
    "3 of 12 shown") describe the lookup rather than the record.
    """
    trusted = {line.strip() for line in trusted_lines}
    tool_rows = rows or {}
    cited = handles_in(answer)
    issues: list[GroundingIssue] = []
    unknown = [h for h in cited if book.get(h) is None]
    for handle in unknown:
        issues.append(
            GroundingIssue(
                kind="unknown_handle", handle=handle, detail=f"[{handle}] is not a row any tool returned"
            )
        )

    paragraphs, lines, sentences = structure(answer)
    runs = citation_runs(answer)
    counts = count_candidates(answer, paragraphs, totals)
    inserts: list[tuple[int, str]] = []
    for item in find_values(answer):
        line = _containing(lines, item.start)
        if line is not None and answer[line.start : line.end].strip() in trusted:
            continue
        scope = scope_of(item.start, runs, sentences, lines, paragraphs)
        known = [h for h in scope if book.get(h) is not None]
        values = values_of(
            [t for h in known for c in [book.get(h)] if c for t in citation_texts(c)]
            + [t for h in known for t in tool_rows.get(h, [])]
        )
        if known and supported(item, values):
            continue
        if item.kind == "number" and _is_count(item, counts):
            continue
        if not scope:
            kind, detail = "uncited_claim", f"'{item.text}' has no citation"
        elif not known:
            continue  # already reported as unknown handles
        else:
            kind = (
                "ungrounded_date"
                if item.kind in ("date", "month_year", "year", "time")
                else "ungrounded_number"
            )
            shown = ", ".join(known)
            detail = f"'{item.text}' does not appear in the cited row(s) {shown}"
        issues.append(GroundingIssue(kind=kind, detail=detail, handle=known[0] if known else None))
        inserts.append((item.end, UNVERIFIED_MARK))

    marked = _mark(answer, inserts, unknown)
    report = GroundingReport(grounded=not issues, cited_handles=cited, issues=issues)
    return report, marked


def _is_count(item: Found, counts: set[int]) -> bool:
    number: Decimal = item.value  # type: ignore[assignment]
    return number == number.to_integral_value() and int(number) in counts


def _mark(answer: str, inserts: list[tuple[int, str]], unknown: list[str]) -> str:
    out = answer
    for position, mark in sorted(inserts, reverse=True):
        out = out[:position] + mark + out[position:]
    if unknown:
        bad = set(unknown)

        def relabel(group: re.Match[str]) -> str:
            parts = re.split(r"\s*[,;]\s*", group.group(1))
            return "".join(f"[{h}{UNKNOWN_MARK}]" if h in bad else f"[{h}]" for h in parts)

        out = HANDLE_GROUP.sub(relabel, out)
    return out
