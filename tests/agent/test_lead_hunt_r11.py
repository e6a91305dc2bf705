"""Confident wrong answers of round eleven, each hunted across a generated cohort against the
record itself:

- "highest blood pressure reading i've ever had" → "Your highest blood pressure was 83 mm[Hg]":
  the diastolic alone, while the systolic high (124) sat in the cited summary below it. Every
  summary operation on blood pressure (max, min, mean, trend, change, "is it normal?") read the
  first series of the panel's two and dropped the other, so "is my blood pressure normal?" said
  "Yes" from the diastolic whatever the systolic was. A blood pressure has two numbers; a lead
  about it names both unless the question names one, and "normal?" is yes only when both are.
"""

from __future__ import annotations

import datetime as dt
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from agent.offline import OfflineAgent
from agent.offline.windows import read_window
from tests.agent.conftest import COHORT_NOW
from tests.agent.test_lead_hunt_r8 import _events, _lead
from tools.catalog import build_registry

SYSTOLIC, DIASTOLIC = "8480-6", "8462-4"


def _series(record, code: str) -> list:
    return [
        m
        for m in record.measurements
        if m.code == code and m.status not in ("entered-in-error", "cancelled") and m.effective <= COHORT_NOW
    ]


def _bp_patients(cohort):
    db, records = cohort
    agent = OfflineAgent(build_registry(), db)
    found = 0
    for record in records:
        systolic, diastolic = _series(record, SYSTOLIC), _series(record, DIASTOLIC)
        if systolic and diastolic:
            found += 1
            yield agent, record.patient.patient_id, systolic, diastolic
    assert found >= 3


def _number(value: float) -> str:
    return f"{value:g}"


def _says(lead: str, part: str, value: float) -> bool:
    """The lead names the part and gives its value in the same clause (up to the next part)."""
    clauses = re.split(r"(?=\b(?:systolic|diastolic)\b)", lead.lower())
    return any(c.startswith(part) and re.search(rf"\b{re.escape(_number(value))}\b", c) for c in clauses)


def test_extremes_of_blood_pressure_name_both_numbers(cohort):
    for agent, pid, systolic, diastolic in _bp_patients(cohort):
        for question, pick in (
            ("highest blood pressure reading i've ever had", max),
            ("what was my bp at its highest", max),
            ("lowest blood pressure ever?", min),
            ("whats the lowest my bp has been", min),
        ):
            lead = _lead(_events(agent, pid, question))
            top_s = pick(m.value for m in systolic)
            top_d = pick(m.value for m in diastolic)
            assert _says(lead, "systolic", top_s) and _says(lead, "diastolic", top_d), (question, top_s, top_d, lead)


def test_is_my_blood_pressure_normal_judges_both_numbers(cohort):
    for agent, pid, systolic, diastolic in _bp_patients(cohort):
        latest_s = max(systolic, key=lambda m: m.effective).value
        latest_d = max(diastolic, key=lambda m: m.effective).value
        for question in ("is my blood pressure normal?", "is my bp in the normal range", "blood pressure ok?"):
            lead = _lead(_events(agent, pid, question))
            assert _says(lead, "systolic", latest_s) and _says(lead, "diastolic", latest_d), (question, lead)
            # normal only when both are within the typical adult ranges the answer cites (ACC/AHA 2017)
            normal = 90 <= latest_s <= 119 and 60 <= latest_d <= 79
            assert lead.startswith("Yes" if normal else "No"), (question, latest_s, latest_d, lead)
        high = latest_s > 119 or latest_d > 79
        lead = _lead(_events(agent, pid, "is my blood pressure high?"))
        assert lead.startswith("Yes" if high else "No"), (latest_s, latest_d, lead)


def test_blood_pressure_trend_and_average_name_both_numbers(cohort):
    for agent, pid, systolic, diastolic in _bp_patients(cohort):
        for question in ("blood pressure trend", "average blood pressure?", "has my bp gone up over the years"):
            lead = _lead(_events(agent, pid, question)).lower()
            assert "systolic" in lead and "diastolic" in lead, (question, lead)
        lead = _lead(_events(agent, pid, "what's my average blood pressure"))
        for part, series in (("systolic", systolic), ("diastolic", diastolic)):
            mean = sum(m.value for m in series) / len(series)
            assert any(_says(lead, part, round(mean, n)) for n in (0, 1, 2)), (part, mean, lead)


def test_a_named_part_still_answers_that_part_alone(cohort):
    for agent, pid, systolic, diastolic in _bp_patients(cohort):
        lead = _lead(_events(agent, pid, "highest systolic blood pressure ever"))
        assert _says(lead, "systolic", max(m.value for m in systolic)), lead
        assert "diastolic" not in lead.lower(), lead
        lead = _lead(_events(agent, pid, "my lowest diastolic"))
        assert _says(lead, "diastolic", min(m.value for m in diastolic)), lead
        assert "systolic" not in lead.lower(), lead


def test_clinician_voice_names_both_numbers_too(cohort):
    for agent, pid, systolic, diastolic in _bp_patients(cohort):
        lead = _lead(_events(agent, pid, "pt's max BP?", role="clinician"))
        top_s, top_d = max(m.value for m in systolic), max(m.value for m in diastolic)
        assert _says(lead, "systolic", top_s) and _says(lead, "diastolic", top_d), lead


# --- "between 2020 and today"; "what's my weight today?" ------------------------------------------
#
# - "labs between 2020 and today" → "Your record has no results in the period you asked about":
#   "and today" was read as "today", a 24-hour window, hiding six years of results.
# - "what's my weight today?" → "Your record has no weight results in the period you asked
#   about": true of the last 24 hours, and no use; the newest weight of the whole history is now
#   said beside it (so is every empty window of a named test: "highest bp in the last 2 weeks").


@settings(max_examples=200, deadline=None)
@given(
    year=st.integers(1990, COHORT_NOW.year),
    opener=st.sampled_from(["between", "from"]),
    joiner=st.sampled_from(["and", "to", "until", "till", "through", "up to"]),
    end=st.sampled_from(["today", "now", "right now", "the present", "date"]),
    lead=st.sampled_from(["labs", "show my a1c results", "what visits did i have", "bp readings"]),
)
def test_from_a_year_to_today_is_that_year_onwards(year, opener, joiner, end, lead):
    today = COHORT_NOW.date()
    window = read_window(f"{lead} {opener} {year} {joiner} {end}", today)
    assert window is not None and window.since == dt.date(year, 1, 1) and window.until is None, window


def test_between_two_years_and_through_keep_both_ends():
    today = COHORT_NOW.date()
    for text in ("bp from 2019 through 2022", "a1c between 2019 and 2022", "labs from 2019 thru 2022"):
        window = read_window(text, today)
        assert window is not None and (window.since, window.until) == (dt.date(2019, 1, 1), dt.date(2022, 12, 31)), text
    window = read_window("weight from march 2021 till now", today)
    assert window is not None and (window.since, window.until) == (dt.date(2021, 3, 1), None)


def test_an_empty_window_says_the_newest_result_of_the_whole_history(cohort):
    db, records = cohort
    agent = OfflineAgent(build_registry(), db)
    checked = 0
    for record in records:
        weights = [m for m in _series(record, "29463-7")]
        if not weights:
            continue
        newest = max(weights, key=lambda m: m.effective)
        if newest.effective.date() >= (COHORT_NOW - dt.timedelta(days=14)).date():
            continue  # a weight inside the window: the usual lead answers
        for question in ("what's my weight today?", "my weight in the last 2 weeks", "weight this week?"):
            events = _events(agent, record.patient.patient_id, question)
            lead = _lead(events)
            assert lead.startswith("No weight result is recorded"), (question, lead)
            assert re.search(rf"\b{re.escape(_number(newest.value))}\b", lead), (question, newest.value, lead)
            assert newest.effective.date().isoformat() in lead, (question, lead)
        checked += 1
    assert checked >= 3
