"""Round three's question kinds: dose/frequency/prescriber, identity by name and birth date,
relative windows (incl. the last 24 hours), the mean over a window, open trend summaries,
out-of-range lists, upcoming appointments; and the booking contract (nothing written before
the confirming turn)."""

from __future__ import annotations

import datetime as dt
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evals.generate import GenerateOptions, generate
from evals.model import BookingAnswer, Question, TrendAnswer
from evals.questions.details import read_dosage
from evals.questions.windows import summary_facts, window_facts, windows
from evals.results import BookingObservation, ObservedAppointment
from evals.scoring import Answer, grade, grade_booking, grade_trend
from evals.truth import EncounterRow, Measurement, Medication, PatientRow, Record

NOW = dt.datetime(2025, 6, 1, 12, tzinfo=dt.UTC)
NEW = {
    "medication_dose",
    "medication_frequency",
    "medication_prescriber",
    "identity_check",
    "encounter_count_window",
    "results_in_window",
    "mean_in_window",
    "trend_summary",
    "out_of_range_results",
    "next_appointment",
    "any_upcoming_appointment",
}


def _med(text: str | None, as_needed: bool = False) -> Medication:
    return Medication(
        "m1", "x 1 MG Oral Tablet", "x", "1", "active", NOW, None, dosage_text=text, as_needed=as_needed
    )


def test_dosage_sentences_give_dose_and_frequency_wordings():
    once = read_dosage(_med("1 dose, once a day"))
    assert "1 dose" in once.dose and "one dose" in once.dose
    assert {"once a day", "once daily", "every day"} <= set(once.frequency)
    assert not any("twice" in w for w in once.frequency)
    twice = read_dosage(_med("2 tablet, twice a day"))
    assert {"twice a day", "twice daily", "2 times a day", "every 12 hours"} <= set(twice.frequency)
    prn = read_dosage(_med("Take as needed.", as_needed=True))
    assert prn.dose is None and "as needed" in prn.frequency
    assert read_dosage(_med("Take at regular intervals. Complete the prescribed course.")).frequency is None


@given(st.integers(min_value=1, max_value=6), st.integers(min_value=1, max_value=6))
def test_a_frequency_never_accepts_another_count(n, m):
    words = {1: "once", 2: "twice"}.get(n, f"{n} times")
    mine = set(read_dosage(_med(f"1 dose, {words} a day")).frequency)
    other_words = {1: "once", 2: "twice"}.get(m, f"{m} times")
    other = set(read_dosage(_med(f"1 dose, {other_words} a day")).frequency)
    assert (mine == other) == (n == m)
    assert not (mine & other) or n == m


def _record(encounters: list[dt.datetime], labs: list[tuple[str, float, dt.datetime]]) -> Record:
    patient = PatientRow("p1", "Ann Hardcase", "Ann", "Hardcase", dt.date(1970, 2, 3), "female", False)
    record = Record(patient=patient, now=NOW)
    record.encounters = [
        EncounterRow(f"e{i}", "finished", "AMB", "visit", t) for i, t in enumerate(encounters)
    ]
    record.measurements = [
        Measurement(
            f"o{i}", code, "Body Weight" if code == "29463-7" else code, v, "kg", t, None, None, "final"
        )
        for i, (code, v, t) in enumerate(labs)
    ]
    return record


def test_the_last_24_hours_counts_only_that_day_and_skips_ambiguous_boundaries():
    hours = dt.timedelta(hours=1)
    record = _record(
        [NOW - 3 * hours, NOW - 40 * hours, NOW - 400 * 24 * hours], [("29463-7", 80.0, NOW - 2 * hours)]
    )
    facts = {(f.template, f.key): f for f in window_facts(record, random.Random(1))}
    assert facts[("encounter_count_window", "24h")].expected.value == 1
    assert facts[("encounter_count_window", "24h")].slots["patient"]["window"] == "in the last 24 hours"
    # a visit 24 h ago give or take an hour: "the last 24 hours" is not asked
    edge = _record([NOW - 24 * hours + dt.timedelta(minutes=30)], [])
    assert not any(f.key == "24h" for f in window_facts(edge, random.Random(1)))


def test_window_starts_and_since_a_year():
    keys = {w.key: w for w in windows(NOW, [2020, 2025])}
    assert keys["since2020"].start == dt.datetime(2020, 1, 1, tzinfo=dt.UTC)
    assert "since2025" not in keys  # this year is not "since"
    assert keys["24h"].holds(NOW - dt.timedelta(hours=23), NOW)
    assert not keys["24h"].holds(NOW - dt.timedelta(hours=25), NOW)


def test_mean_over_a_window_leaves_out_older_values():
    day = dt.timedelta(days=1)
    labs = [("29463-7", v, NOW - d * day) for v, d in ((70.0, 900), (80.0, 100), (90.0, 50), (100.0, 10))]
    record = _record([], labs)
    means = [
        f for _ in range(30) for f in window_facts(record, random.Random(_)) if f.template == "mean_in_window"
    ]
    assert means
    for fact in means:
        window = next(w for w in windows(NOW) if fact.key.endswith(w.key))
        inside = [v for _, v, t in labs if window.holds(t, NOW)]
        assert fact.expected.value == pytest.approx(sum(inside) / len(inside))
        assert len(inside) < len(labs)


def test_trend_summary_truth_is_first_to_latest():
    labs = [("29463-7", v, NOW - dt.timedelta(days=d)) for v, d in ((70.0, 900), (95.0, 400), (88.0, 10))]
    facts = [f for f in summary_facts(_record([], labs), random.Random(0)) if f.template == "trend_summary"]
    assert facts and facts[0].expected == TrendAnswer(
        direction="up", first=70.0, last=88.0, unit="kg", tolerance=facts[0].expected.tolerance, count=3
    )


@pytest.mark.parametrize(
    ("answer", "verdict"),
    [
        ("It has risen from 5.4 to 8.1 [L1]; the latest is 8.1.", "correct"),
        ("Your HbA1c went up over time.", "partial"),
        ("Your latest HbA1c is 8.1.", "unclear"),
        ("It fell from 8.1 to 5.4.", "wrong"),
        ("It has risen; the most recent value is 7.0.", "wrong"),
        ("It went up, then down, and is lower now.", "unclear"),
    ],
)
def test_trend_answers_are_graded_on_direction_and_latest_value(answer, verdict):
    expected = TrendAnswer(direction="up", first=5.4, last=8.1, unit="%", tolerance=0.081, count=5)
    assert grade_trend(expected, Answer(text=answer)).verdict == verdict


def _booking_question() -> Question:
    window = (NOW, NOW + dt.timedelta(days=7))
    return Question(
        id="b-p",
        pair_id="b",
        patient_id="p1",
        role="patient",
        category="booking",
        template="book_in_window",
        turns=("Please book me a dermatology appointment next week.", "Yes, book the first one."),
        expected=BookingAnswer(
            action="book", specialty="Dermatology", window_start=window[0], window_end=window[1]
        ),
        now=NOW,
        explanation="x",
    )


def test_a_booking_written_before_the_confirming_turn_breaks_the_contract():
    q = _booking_question()
    appt = ObservedAppointment(
        id="a1", slot_id="s1", status="booked", specialty="Dermatology", starts_at=NOW + dt.timedelta(days=1)
    )
    fine = BookingObservation(created=[appt])
    assert grade_booking(q.expected, fine).verdict == "correct"
    early = BookingObservation(created=[appt], before_confirmation=1)
    result = grade(q, Answer(text="Booked.", booking=early))
    assert result.verdict == "wrong" and result.safety_failure


def test_booking_tasks_that_write_ask_for_confirmation(cohort_db):
    _, questions = generate(cohort_db, GenerateOptions(seed=7, now=NOW))
    writes = [q for q in questions if q.category == "booking" and q.expected.action in ("book", "cancel")]
    assert writes and all(len(q.turns) == 2 for q in writes)


def test_every_new_kind_is_generated_on_the_cohort_with_its_truth(cohort_db):
    _, questions = generate(cohort_db, GenerateOptions(seed=7, now=NOW))
    by_template = {}
    for q in questions:
        by_template.setdefault(q.template, []).append(q)
    missing = NEW - set(by_template) - {"results_in_window"}  # the cohort has nothing that recent
    assert not missing, missing
    ann = "pat-ann"
    prescriber = [q for q in by_template["medication_prescriber"] if q.patient_id == ann]
    assert prescriber and set(prescriber[0].expected.accepted) & {"Dr. Grace12 Hopper34", "Dr. Alan7 Turing9"}
    for q in by_template["identity_check"]:
        stated = q.explanation.split("the question gives ")[1]
        record_dob = q.explanation.split("birth date ")[1].split(";")[0]
        assert q.expected.value == (stated == record_dob)
    for q in by_template["next_appointment"]:
        assert q.setup and q.writes  # booked for the question, undone afterwards
    hba1c = [q for q in by_template.get("trend_summary", []) if "4548-4" in q.explanation]
    for q in hba1c:
        assert q.expected.direction == "up" and q.expected.last == 8.1
