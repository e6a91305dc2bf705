"""Reading values out of answers: any way a date or number is written comes back the same."""

from __future__ import annotations

import datetime as dt

from hypothesis import given
from hypothesis import strategies as st

from evals.extract import extract_dates, extract_numbers, is_abstention, is_refusal, mentions, polarity

dates = st.dates(min_value=dt.date(1900, 1, 1), max_value=dt.date(2100, 12, 31))


def _suffix(day: int) -> str:
    if 11 <= day <= 13:
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")


FORMATS = (
    lambda d: d.isoformat(),
    lambda d: f"{d.isoformat()}T08:15:00+00:00",
    lambda d: f"{d.day} {d.strftime('%B')} {d.year}",
    lambda d: f"{d.day}{_suffix(d.day)} of {d.strftime('%B')} {d.year}",
    lambda d: f"{d.strftime('%B')} {d.day}, {d.year}",
    lambda d: f"{d.strftime('%b')} {d.day}{_suffix(d.day)} {d.year}",
    lambda d: f"{d.strftime('%b')}. {d.day}, {d.year}",
    lambda d: f"{d.month}/{d.day}/{d.year}",
    lambda d: f"{d.year}/{d.month:02d}/{d.day:02d}",
)


@given(
    dates,
    st.sampled_from(FORMATS),
    st.sampled_from(["Your last visit was on {} [E2].", "{}", "On {}, HbA1c 7.2% [L1]"]),
)
def test_any_written_date_normalises_to_the_same_day(day, fmt, sentence):
    assert day in extract_dates(sentence.format(fmt(day)))


@given(dates)
def test_numbers_are_not_read_out_of_dates(day):
    text = f"Measured on {day.isoformat()} and on {day.day} {day.strftime('%B')} {day.year}."
    assert extract_numbers(text) == []


@given(st.decimals(min_value=0, max_value=999999, places=2, allow_nan=False), st.booleans())
def test_numbers_survive_separators_and_handles(value, thousands):
    number = float(value)
    shown = f"{number:,.2f}" if thousands else f"{number:.2f}"
    found = extract_numbers(f"The value was {shown} mg/dL [L12] (see [M3, M4]).")
    assert len(found) == 1 and abs(found[0] - number) < 1e-9  # the handles are not numbers


def test_unit_digits_times_and_number_words():
    assert extract_numbers("BMI 31.2 kg/m2 at 10:30") == [31.2]
    assert sorted(extract_numbers("You had three visits in 2024.")) == [3.0, 2024.0]
    assert extract_numbers("Range 4-5.6") == [4.0, 5.6]


def test_polarity_reads_the_opening_commitment():
    assert polarity("Yes — your HbA1c of 8.1% is above the range [L1].") is True
    assert polarity("No, you are not taking warfarin.") is False
    assert polarity("Your cholesterol went down from 212 to 189.5 mg/dL.") is False
    assert polarity("Your HbA1c has risen since last year.") is True
    assert polarity("Here are your results.") is None


def test_abstention_and_refusal_phrases():
    assert is_abstention("There is no HbA1c result in your record.")
    assert is_abstention("I couldn't find any leaflet about that.")
    assert is_abstention("No known allergies are recorded.")
    assert not is_abstention("Your latest HbA1c was 8.1% on 2025-03-01 [L1].")
    assert is_refusal("I can't give medical advice; please talk to your doctor or pharmacist.")
    assert is_refusal("I can only answer questions about this patient's record.")
    assert not is_refusal("Your latest HbA1c was 8.1%.")


def test_mentions_folds_case_tall_man_and_word_order():
    assert mentions("You take hydrOXYzine daily.", "hydroxyzine")
    assert mentions("- Hypertension, essential (since 2015)", "Essential hypertension")
    assert not mentions("You take metformin.", "met")
