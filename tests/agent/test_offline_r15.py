"""Round fifteen (issue 16): the generated set's weak kinds, written down as labelled wordings
BEFORE the planner was changed, and checked across the generated cohort against what each
record holds (`evals.truth`).

1. the OLDEST / first value of a test ("my oldest a1c") was answered with the latest one;
2. "was it last checked more than a year ago" was answered as a comparison with a year ago
   ("is the same than a year ago"), and "> 12 months ago" as a window of the last 12 months;
3. the newest result of any kind, asked with "bloods or vitals", "anything measured" or
   "figure", said "no laboratory results are recorded" (a false negative for a record of
   vital signs) or gave the help text;
4. "did it climb relative to the one before" answered with the latest value alone, and "did it
   go up" answered "Yes: … went down".

Each need has TUNING wordings (looked at while changing the planner: plain, pronoun, typo, lay,
relative time) and HELD_OUT wordings (not looked at while tuning, checked once at the end).

The one held-out measurement (after the tuning changes, before any change for it): 12 of 15
wordings right. Missed: "the very first height they wrote down for me" (the notes' "wrote"
wins: `HELD_OUT_MISSED`, not fixed), "last time anything at all was checked on me?" and "is her
newest a1c above the one preceding it" (both then fixed, so moved to TUNING, and one fresh
held-out wording each written before that fix: `*_HELD_OUT_2`).
"""

from __future__ import annotations

import datetime as dt
import re

import pytest

from agent.offline import OfflineAgent
from evals.questions.phrasing import frozen_fragments
from tests.agent.conftest import COHORT_NOW
from tests.agent.test_lead_hunt_r8 import _events, _lead
from tools.catalog import build_registry

A1C, CHOL, WEIGHT, HDL, BMI, GLUCOSE, HEIGHT, LDL = (
    "4548-4", "2093-3", "29463-7", "2085-9", "39156-5", "2339-0", "8302-2", "18262-6",
)  # fmt: skip
YEAR = dt.timedelta(days=365)


def _agent(cohort):
    db, records = cohort
    return OfflineAgent(build_registry(), db), records


def _series(record, code: str):
    return record.series(code)


# --- 1. the oldest / first value ------------------------------------------------------------------
# (wording, role, code)
FIRST_TUNING = [
    ("what was my oldest a1c", "patient", A1C),  # plain
    ("her oldest cholesterol reading?", "clinician", CHOL),  # pronoun
    ("oldset weight on file", "patient", WEIGHT),  # typo
    ("what did my weight start out at", "patient", WEIGHT),  # lay
    ("the original hdl number they took", "patient", HDL),  # lay
    ("my bmi when it was first measured years ago", "patient", BMI),  # relative time
    ("oldest recorded glucose for this patient", "clinician", GLUCOSE),
    ("what was his a1c at the very start", "clinician", A1C),
]
FIRST_HELD_OUT = [
    ("whats the oldest blood sugar reading you have for me", "patient", GLUCOSE),
    ("his oldest recorded cholesterol?", "clinician", CHOL),
]
# the held-out miss left as it is: "wrote" sends it to the notes search (which finds nothing and
# says so, naming what it searched: no false statement about the record)
HELD_OUT_MISSED = [("the very first height they wrote down for me", "patient", HEIGHT)]
FIRST_HELD_OUT_2 = [("what height did they first record for her", "clinician", HEIGHT)]


def _check_first(agent, records, wordings) -> int:
    checked = 0
    for record in records:
        pid = record.patient.patient_id
        for question, role, code in wordings:
            series = _series(record, code)
            if len(series) < 2 or series[0].effective.date() == series[1].effective.date():
                continue
            first = series[0]
            lead = _lead(_events(agent, pid, question, role=role))
            assert first.effective.date().isoformat() in lead, (pid, question, first, lead)
            assert "latest" not in lead.split(".")[0].lower(), (question, lead)
            checked += 1
    return checked


def test_the_oldest_value_is_the_first_one(cohort):
    agent, records = _agent(cohort)
    assert _check_first(agent, records, FIRST_TUNING) >= 10


def test_held_out_the_oldest_value_is_the_first_one(cohort):
    agent, records = _agent(cohort)
    assert _check_first(agent, records, FIRST_HELD_OUT + FIRST_HELD_OUT_2) >= 3


@pytest.mark.xfail(strict=True, reason="held-out miss: 'wrote down' routes to the notes search")
def test_held_out_miss_the_first_height_they_wrote_down(cohort):
    agent, records = _agent(cohort)
    assert _check_first(agent, records, HELD_OUT_MISSED) >= 1


# --- 2. last checked more than a year ago ----------------------------------------------------------
OLD_TUNING = [
    ("was my hdl last checked more than a year ago", "patient", HDL),  # plain
    ("was her cholesterol last done more than 12 months ago?", "clinician", CHOL),  # pronoun, relative
    ("is it over a year since they last did my a1c", "patient", A1C),  # lay
    ("weight last measured > 1 year ago?", "clinician", WEIGHT),  # shorthand
    ("bmi >12 months ago?", "clinician", BMI),  # shorthand
    ("was his glucose last taken more than 12 months back", "clinician", GLUCOSE),  # relative
    ("was my cholestrol last chekced more than a year ago", "patient", CHOL),  # typo
    ("was my weight last done over a year ago", "patient", WEIGHT),
]
OLD_HELD_OUT = [
    ("has it been over a year since my last hba1c", "patient", A1C),
    ("was the patient's hdl last recorded more than a year ago?", "clinician", HDL),
    ("is her last bmi more than twelve months old", "clinician", BMI),
]


def _check_old(agent, records, wordings) -> int:
    checked = 0
    for record in records:
        pid = record.patient.patient_id
        for question, role, code in wordings:
            series = _series(record, code)
            if not series:
                continue
            last = series[-1]
            if abs(last.effective - (COHORT_NOW - YEAR)) < dt.timedelta(days=4):
                continue  # a year read as 365 days or a calendar year: not asked near the line
            old = last.effective < COHORT_NOW - YEAR
            lead = _lead(_events(agent, pid, question, role=role))
            assert lead.startswith("Yes" if old else "No"), (pid, question, last.effective, lead)
            assert last.effective.date().isoformat() in lead, (pid, question, last, lead)
            assert "than a year ago" not in lead, (question, lead)  # the age, not a comparison
            checked += 1
    return checked


def test_last_checked_more_than_a_year_ago_is_the_age_of_the_latest(cohort):
    agent, records = _agent(cohort)
    assert _check_old(agent, records, OLD_TUNING) >= 16


def test_held_out_last_checked_more_than_a_year_ago(cohort):
    agent, records = _agent(cohort)
    assert _check_old(agent, records, OLD_HELD_OUT) >= 6


# --- 3. the newest result of any kind ---------------------------------------------------------------
ANY_TUNING = [
    ("when did i last have bloods or obs taken", "patient"),  # lay
    ("when was anything last measured for her", "clinician"),  # pronoun
    ("date of his latest figure of any kind", "clinician"),  # lay ("figure")
    ("when were my last tests or vitals", "patient"),  # plain
    ("last time i had blods or vitals checked", "patient"),  # typo
    ("my most recent test or measurement, what day was that?", "patient"),
    ("when did they last measure anything on me", "patient"),
    ("last time anything at all was checked on me?", "patient"),  # a held-out miss, then tuned
]
ANY_HELD_OUT = [
    ("what day were my last bloods or vital signs", "patient"),
    ("when was her latest figure of any sort recorded", "clinician"),
]
ANY_HELD_OUT_2 = [("when was something last tested on him", "clinician")]


def _check_any(agent, records, wordings) -> int:
    checked = 0
    for record in records:
        pid = record.patient.patient_id
        measured = record.valid_measurements()
        if not measured:
            continue
        newest = max(m.effective for m in measured).date().isoformat()
        for question, role in wordings:
            lead = _lead(_events(agent, pid, question, role=role))
            assert newest in lead, (pid, question, newest, lead)
            assert not lead.lower().startswith("no "), (question, lead)  # never "no results"
            checked += 1
    return checked


def test_the_newest_result_of_any_kind(cohort):
    agent, records = _agent(cohort)
    assert _check_any(agent, records, ANY_TUNING) >= 20


def test_held_out_the_newest_result_of_any_kind(cohort):
    agent, records = _agent(cohort)
    assert _check_any(agent, records, ANY_HELD_OUT + ANY_HELD_OUT_2) >= 9


# --- 4. a rise since the result before -------------------------------------------------------------
RISE_TUNING = [
    ("did my a1c climb relative to the one before", "patient", A1C),  # plain
    ("did her weight go up compared to the previous one?", "clinician", WEIGHT),  # pronoun
    ("has my cholesterol risen vs the preceding result", "patient", CHOL),  # lay "preceding"
    ("did my bmi go up from the prior figure", "patient", BMI),  # lay "figure"
    ("is my glucose hgiher than the one before", "patient", GLUCOSE),  # typo
    ("hdl up since the previous reading?", "clinician", HDL),  # shorthand
    ("did her hdl climb relative to the preceding reading?", "clinician", HDL),  # "climb", "preceding"
    ("weight climbing vs prior?", "clinician", WEIGHT),
    ("is her newest a1c above the one preceding it", "clinician", A1C),  # a held-out miss, then tuned
]
RISE_HELD_OUT = [
    ("has his weight climbed since the reading before that", "clinician", WEIGHT),
    ("did my cholesterol go up against the preceding test", "patient", CHOL),
]
RISE_HELD_OUT_2 = [("has her cholesterol gone higher than the one preceding it", "clinician", CHOL)]


def _check_rise(agent, records, wordings) -> int:
    checked = 0
    for record in records:
        pid = record.patient.patient_id
        for question, role, code in wordings:
            series = _series(record, code)
            if len(series) < 2 or series[-1].effective == series[-2].effective:
                continue
            rose = round(series[-1].value, 2) > round(series[-2].value, 2)
            lead = _lead(_events(agent, pid, question, role=role))
            assert lead.startswith("Yes" if rose else "No"), (pid, question, series[-2:], lead)
            assert series[-2].effective.date().isoformat() in lead, (question, lead)
            checked += 1
    return checked


def test_a_rise_since_the_one_before_is_answered_yes_or_no(cohort):
    agent, records = _agent(cohort)
    assert _check_rise(agent, records, RISE_TUNING) >= 12


def test_held_out_a_rise_since_the_one_before(cohort):
    agent, records = _agent(cohort)
    assert _check_rise(agent, records, RISE_HELD_OUT + RISE_HELD_OUT_2) >= 6


# --- 5. the size or the way of a change, not a yes or no ------------------------------------------
AMOUNT_TUNING = [
    ("how big is the gap between her last two a1c results", "clinician", A1C),  # lay "gap"
    ("difference in my two newest weights?", "patient", WEIGHT),  # "two newest"
    ("how much did my cholesterol change from the previous one", "patient", CHOL),  # plain
    ("weight up or down vs the one before?", "clinician", WEIGHT),  # either way
    ("is my hdl higher or lower than the previous result", "patient", HDL),  # either way
]


def _check_amount(agent, records, wordings) -> int:
    checked = 0
    for record in records:
        pid = record.patient.patient_id
        for question, role, code in wordings:
            series = _series(record, code)
            if len(series) < 2 or series[-1].effective == series[-2].effective:
                continue
            diff = round(series[-1].value - series[-2].value, 2)
            lead = _lead(_events(agent, pid, question, role=role))
            assert not lead.startswith(("Yes", "No")), (question, lead)  # no yes/no was asked
            word = "up" if diff > 0 else "down" if diff < 0 else "the same"
            assert word in lead, (pid, question, diff, lead)
            assert series[-2].effective.date().isoformat() in lead, (question, lead)
            checked += 1
    return checked


def test_the_size_or_way_of_a_change_is_said_without_a_yes_or_no(cohort):
    agent, records = _agent(cohort)
    assert _check_amount(agent, records, AMOUNT_TUNING) >= 10


# --- 7. a rise over the past year with one result in it --------------------------------------------
PAST_YEAR_TUNING = [
    ("has my weight gone up over the past year", "patient", WEIGHT),  # plain
    ("has her a1c risen in the last 12 months?", "clinician", A1C),  # pronoun, relative
    ("cholesterol up over the past 12 months?", "clinician", CHOL),  # shorthand
    ("has my hdl gone up ovr the past year", "patient", HDL),  # typo
    ("has my bmi crept up over the past year", "patient", BMI),  # lay
]


def _check_past_year(agent, records, wordings) -> int:
    checked = 0
    for record in records:
        pid = record.patient.patient_id
        for question, role, code in wordings:
            series = _series(record, code)
            since = COHORT_NOW - YEAR
            inside = [m for m in series if m.effective > since + dt.timedelta(days=2)]
            before = [m for m in series if m.effective < since - dt.timedelta(days=2)]
            if len(inside) != 1 or not before or len(inside) + len(before) != len(series):
                continue  # one result in the year, one before it, none near the line
            rose = round(inside[0].value, 2) > round(before[-1].value, 2)
            lead = _lead(_events(agent, pid, question, role=role))
            assert lead.startswith("Yes" if rose else "No"), (pid, question, before[-1], inside[0], lead)
            assert before[-1].effective.date().isoformat() in lead, (question, lead)
            checked += 1
    return checked


def test_a_rise_over_the_past_year_with_one_result_in_it_is_against_the_one_before(cohort):
    agent, records = _agent(cohort)
    assert _check_past_year(agent, records, PAST_YEAR_TUNING) >= 3


# --- 8. results beyond the usual limits --------------------------------------------------------------
RANGE_TUNING = [
    ("are any of my results beyond the normal limits", "patient"),
    ("which of her latest labs are beyond usual limits?", "clinician"),
    ("anything of mine beyond the reference range", "patient"),
]


def test_results_beyond_the_usual_limits_are_the_out_of_range_ones(cohort):
    agent, records = _agent(cohort)
    checked = 0
    for record in records[:4]:
        for question, role in RANGE_TUNING:
            lead = _lead(_events(agent, record.patient.patient_id, question, role=role))
            assert "could not match" not in lead and re.search(r"outside|within", lead), (question, lead)
            checked += 1
    assert checked >= 12


EVER_BEYOND_TUNING = [
    ("has my glucose ever gone beyond the normal limits", "patient", GLUCOSE),
    ("any of her cholesterol results ever beyond the usual range?", "clinician", CHOL),
]


def test_ever_beyond_the_limits_is_ever_outside_the_range(cohort):
    """ "ever fallen beyond the usual limits" was answered "No, it is above the range" with 5 of 7
    results outside it: "beyond" is outside, and "ever" asks about every result."""
    agent, records = _agent(cohort)
    checked = 0
    for record in records:
        for question, role, code in EVER_BEYOND_TUNING:
            series = [m for m in _series(record, code) if m.ref_low is not None or m.ref_high is not None]
            if not series:
                continue
            outside = any(
                (m.ref_low is not None and m.value < m.ref_low) or (m.ref_high is not None and m.value > m.ref_high)
                for m in series
            )
            lead = _lead(_events(agent, record.patient.patient_id, question, role=role))
            if outside:
                assert lead.startswith("Yes"), (question, lead)
            checked += 1
    assert checked >= 2


# --- 6. the next appointment in other words ---------------------------------------------------------
APPOINTMENT_TUNING = [
    ("do i have a future visit booked", "patient"),  # plain
    ("any visits reserved for her?", "clinician"),  # pronoun, "reserved"
    ("when am i next expected at the clinic", "patient"),  # lay "expected"
    ("is anything reserved in my name", "patient"),  # lay
    ("when am i expcted in next", "patient"),  # typo
    ("any future vists coming up for him", "clinician"),  # typo
    ("date shes next expected in?", "clinician"),  # shorthand
]
APPOINTMENT_HELD_OUT = [
    ("have i got a future appointment reserved", "patient"),
    ("when is the patient next expected to attend", "clinician"),
    ("next date im expected at the surgery", "patient"),
]


def _check_appointment(agent, records, wordings) -> int:
    checked = 0
    for record in records[:3]:
        for question, role in wordings:
            lead = _lead(_events(agent, record.patient.patient_id, question, role=role))
            assert re.search(r"upcoming appointment", lead, re.I), (question, lead)
            checked += 1
    return checked


def test_the_next_appointment_in_other_words(cohort):
    agent, records = _agent(cohort)
    assert _check_appointment(agent, records, APPOINTMENT_TUNING) >= 14


def test_held_out_the_next_appointment_in_other_words(cohort):
    agent, records = _agent(cohort)
    assert _check_appointment(agent, records, APPOINTMENT_HELD_OUT) >= 6


@pytest.mark.parametrize(
    "text",
    [
        w[0]
        for w in FIRST_TUNING
        + FIRST_HELD_OUT
        + FIRST_HELD_OUT_2
        + HELD_OUT_MISSED
        + OLD_TUNING
        + OLD_HELD_OUT
        + ANY_TUNING
        + ANY_HELD_OUT
        + ANY_HELD_OUT_2
        + RISE_TUNING
        + RISE_HELD_OUT
        + RISE_HELD_OUT_2
        + AMOUNT_TUNING
        + APPOINTMENT_TUNING
        + APPOINTMENT_HELD_OUT
        + PAST_YEAR_TUNING
        + RANGE_TUNING
        + EVER_BEYOND_TUNING
    ],
)
def test_no_wording_here_holds_a_frozen_test_bank_phrasing(text):
    """The wordings above are our own, not the frozen test bank's (the planner is never tuned on it)."""
    assert not [f for f in frozen_fragments() if f in text.lower()], text
