"""Grounding: cited handles must exist; numbers and dates must appear in the cited rows."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from agent.events import DoneEvent
from agent.grounding import UNKNOWN_MARK, UNVERIFIED_MARK, check_grounding, find_values
from agent.loop import ClaudeAgent
from agent.runner import GuardedAgent
from tests.agent.conftest import ask, run
from tests.fakes.anthropic_server import model_client_for, text_message, tool_use_message
from tools.results import HandleBook

MONTH_NAMES = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]


def lab_book(value: str = "7.2", date: str = "2024-03-05") -> HandleBook:
    book = HandleBook()
    book.cite(
        "observation",
        "o1",
        label=f"Hemoglobin A1c {value} % ({date})",
        facts=["Hemoglobin A1c", value, "%", date],
    )
    book.cite(
        "medication",
        "m1",
        label="Lisinopril 10 MG Oral Tablet",
        facts=["Lisinopril 10 MG Oral Tablet", "active"],
    )
    book.cite(
        "medication", "m2", label="Metformin 500 MG", facts=["Metformin 500 MG", "active", "2020-01-10"]
    )
    return book


def date_formats(d: dt.date) -> list[str]:
    month = MONTH_NAMES[d.month - 1]
    return [
        d.isoformat(),
        f"{month} {d.day}, {d.year}",
        f"{month[:3]} {d.day} {d.year}",
        f"{d.day} {month} {d.year}",
        f"{d.month:02d}/{d.day:02d}/{d.year}",
        f"{d.isoformat()}T10:15:00Z",
    ]


dates = st.dates(min_value=dt.date(1950, 1, 1), max_value=dt.date(2090, 12, 31))
values = st.decimals(min_value=Decimal("0.01"), max_value=Decimal("99999"), places=2, allow_nan=False)


@settings(max_examples=150, deadline=None)
@given(value=values, when=dates, fmt=st.integers(0, 5), thousands=st.booleans())
def test_a_value_and_date_from_the_cited_row_are_grounded_in_any_format(value, when, fmt, thousands):
    fact = format(value.normalize(), "f")
    book = HandleBook()
    c = book.cite("observation", "o1", facts=[fact, when.isoformat()])
    said = f"{value:,}" if thousands else format(value, "f")  # "1,234.50" / "1234.50"
    answer = f"It was {said} on {date_formats(when)[fmt]} [{c.handle}]."
    report, marked = check_grounding(answer, book)
    assert report.grounded, (answer, report.issues)
    assert marked == answer


@settings(max_examples=150, deadline=None)
@given(value=values, other=values, when=dates)
def test_a_number_not_in_the_cited_row_is_flagged(value, other, when):
    assume(other.normalize() != value.normalize())
    assume(other.quantize(Decimal("0.01")) != value.quantize(Decimal("0.01")))
    assume(other.to_integral_value() != other or other > 300)  # not mistakable for a count
    book = HandleBook()
    c = book.cite("observation", "o1", facts=[format(value, "f"), when.isoformat()])
    answer = f"It was {format(other, 'f')} on {when.isoformat()} [{c.handle}]."
    report, marked = check_grounding(answer, book)
    assert [i.kind for i in report.issues] == ["ungrounded_number"]
    assert UNVERIFIED_MARK in marked


@settings(max_examples=100, deadline=None)
@given(when=dates, other=dates)
def test_a_date_not_in_the_cited_row_is_flagged(when, other):
    assume(when != other)
    book = HandleBook()
    c = book.cite("observation", "o1", facts=["5.5", when.isoformat()])
    report, _ = check_grounding(f"5.5 on {other.isoformat()} [{c.handle}].", book)
    assert [i.kind for i in report.issues] == ["ungrounded_date"]


@settings(max_examples=100, deadline=None)
@given(prefix=st.sampled_from(["L", "M", "C", "CP", "N", "K", "S"]), number=st.integers(1, 999))
def test_only_handles_in_the_book_are_accepted(prefix, number):
    book = lab_book()
    handle = f"{prefix}{number}"
    report, marked = check_grounding(f"See the record [{handle}].", book)
    known = book.get(handle) is not None
    assert report.grounded == known
    if not known:
        assert report.issues[0].kind == "unknown_handle" and f"[{handle}{UNKNOWN_MARK}]" in marked


@given(when=dates)
def test_all_date_formats_normalise_to_the_same_day(when):
    for text in date_formats(when):
        (found,) = [f for f in find_values(text) if f.kind == "date"]
        assert when in found.value


def test_counts_years_rounding_and_lists_are_grounded():
    book = lab_book(value="7.25")
    answer = (
        "You take 2 active medications:\n"
        "1. Lisinopril 10 MG Oral Tablet [M1]\n"
        "2. Metformin 500 MG, since 2020 [M2]\n\n"
        "Your HbA1c was 7.3 % in March 2024 [L1]."
    )
    report, _ = check_grounding(answer, book)
    assert report.grounded, report.issues
    assert report.cited_handles == ["M1", "M2", "L1"]


def test_a_value_with_no_citation_in_reach_is_an_uncited_claim():
    report, marked = check_grounding("Your HbA1c was 7.2 %.", lab_book())
    assert [i.kind for i in report.issues] == ["uncited_claim"]
    assert marked == "Your HbA1c was 7.2" + UNVERIFIED_MARK + " %."


def test_combined_and_grouped_handles_are_read():
    book = lab_book()
    report, _ = check_grounding("Both are active [M1, M2]; HbA1c 7.2 [L1][M1].", book)
    assert report.grounded and report.cited_handles == ["M1", "M2", "L1"]


def test_times_are_compared_as_times():
    book = HandleBook()
    c = book.cite("slot", "s1", facts=["2030-01-07", "14:30"])
    assert check_grounding(f"Booked for 2:30 pm on 2030-01-07 [{c.handle}].", book)[0].grounded
    assert not check_grounding(f"Booked for 3:30 pm on 2030-01-07 [{c.handle}].", book)[0].grounded


def _agent(fake, registry, db):
    return GuardedAgent(ClaudeAgent(model_client_for(fake), registry, db))


def test_loop_flags_a_fabricated_handle(fake_anthropic, registry, db):
    fake_anthropic.enqueue(
        tool_use_message([("get_labs", {"query": "A1C"})]),
        text_message("Your HbA1c was 7.2 % on 2024-03-05 [L1]; your LDL was 99 [L7]."),
    )
    done = run(_agent(fake_anthropic, registry, db), ask("A1C and LDL?"))[-1]
    assert isinstance(done, DoneEvent) and not done.grounding.grounded
    assert [(i.kind, i.handle) for i in done.grounding.issues] == [("unknown_handle", "L7")]
    assert f"[L7{UNKNOWN_MARK}]" in done.answer and "[L1]" in done.answer


def test_loop_flags_a_fabricated_number(fake_anthropic, registry, db):
    fake_anthropic.enqueue(
        tool_use_message([("get_labs", {"query": "A1C"})]),
        text_message("Your HbA1c was 6.1 % on 2024-03-05 [L1]."),
    )
    done = run(_agent(fake_anthropic, registry, db), ask("What is my A1C?"))[-1]
    assert isinstance(done, DoneEvent) and not done.grounding.grounded
    assert [i.kind for i in done.grounding.issues] == ["ungrounded_number"]
    assert "6.1" + UNVERIFIED_MARK in done.answer
