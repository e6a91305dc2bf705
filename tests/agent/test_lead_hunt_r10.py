"""Confident wrong answers of round ten (paraphrase frozen7, measured once on main bf4ece0, then
moved into tuning as `tune_frozen7`), each fixed as a class and checked here in fresh wordings
across a generated cohort against the evaluator's own reading of the record (`evals.truth`):

- "what's my A1C as of today?" → "Your record has no A1C results in the period you asked about":
  "today" read as the last 24 hours, a window that hides every result older than a day (a
  confident false negative for a value the record holds).
- "A1C - all-time high?" → the latest value and its range: a question ending on "high?" read as
  "is it high?", not as the record high.
- "Does my chart say I take sertraline now?" / "Does my record say I can't have peanut because of
  an allergy?" → "No: no condition matching 'i take sertraline now' is recorded" (found in
  tune_frozen6 on the same main: round nine's "do my notes say I ever had X" made every "does my
  record say <clause>" a word search of conditions and notes for the whole clause).
"""

from __future__ import annotations

import datetime as dt

from agent.offline import OfflineAgent
from agent.offline.request import read_request
from evals.paraphrase.grade import grade
from evals.paraphrase.suite import WEIGHT, build_suite
from tests.agent.conftest import COHORT_NOW
from tests.agent.test_lead_hunt_r8 import _events
from tools.catalog import build_registry


def _answer(agent, pid: str, question: str) -> str:
    return _events(agent, pid, question)[-1].answer


def _facts(records, kind: str):
    return [f for f in build_suite(records, parts=("tune",)).facts.values() if f.kind == kind]


def _each_fact_in_each_wording(cohort, kind: str, wordings: tuple[str, ...]):
    """(fact, question, graded answer) for every tuning fact of `kind` asked in every wording."""
    db, records = cohort
    agent = OfflineAgent(build_registry(), db)
    facts = _facts(records, kind)
    assert facts
    for fact in facts:
        for wording in wordings:
            question = wording.format(x=fact.subject)
            answer = _answer(agent, fact.patient_id, question)
            yield fact, question, answer, grade(fact, answer)


def test_as_of_today_is_the_present_state_not_a_24_hour_window(cohort):
    wordings = (
        "as at today, what is my {x}?",
        "what does my {x} stand at as of today",
        "my {x} as it stands today?",
        "what's my {x} reading up to and including today",
    )
    for fact, question, answer, g in _each_fact_in_each_wording(cohort, "lab_latest", wordings):
        assert g.correct and not g.false_negative, (question, fact.expected, answer[:300])


def test_today_as_a_past_event_is_still_a_period():
    """The fix reads the present state only: "today" said of something done today keeps its day."""
    today = COHORT_NOW.date()
    for question in ("what was my weight today?", "did i have bloods taken today", "labs from yesterday?"):
        window = read_request(question, today).window
        assert window is not None and window.since == today - dt.timedelta(days=1), (question, window)
    for question in ("as of today what's my a1c", "my weight to date?", "what is my bp as at today"):
        assert read_request(question, today).window is None, question


def test_all_time_high_or_low_is_the_extreme_not_the_range(cohort):
    wordings = ("{x}: record high?", "{x} all time high", "what was my {x} at its high?")
    for fact, question, answer, g in _each_fact_in_each_wording(cohort, "lab_max", wordings):
        assert g.correct, (question, fact.expected, answer[:300])
    db, records = cohort
    agent = OfflineAgent(build_registry(), db)
    for record in records:
        weights = [m.value for m in record.measurements if m.code == WEIGHT and m.status == "final"]
        if not weights:
            continue
        lowest = min(weights)
        answer = _answer(agent, record.patient.patient_id, "weight - all-time low?")
        lead = next(line for line in answer.splitlines() if line.startswith("Your"))
        assert "lowest" in lead and f"{lowest:g}" in lead, (lowest, lead)
    # asked whether it is high, the range answers as before
    today = COHORT_NOW.date()
    for question in ("is my ldl high?", "cholesterol high?", "creatinine ever high?"):
        assert read_request(question, today).operation == "range", question
    for question in ("a1c record low?", "weight - all-time high?", "bmi at its low"):
        assert read_request(question, today).operation in ("max", "min"), question


def test_does_my_record_say_a_clause_answers_the_concept_it_names(cohort):
    db, records = cohort
    agent = OfflineAgent(build_registry(), db)
    wordings = {
        "med_active": (
            "does my file say i'm taking {x} at the moment",
            "does my chart say i am still on {x}",
        ),
        "med_absent": ("does my record say i was ever put on {x}",),
        "cond_active": ("does my chart say i suffer from {x}", "does my record say i'm living with {x}"),
        "cond_absent": ("does my record say i'm living with {x}",),
        "allergy_yes": (
            "does my chart say i'm allergic to {x}",
            "does my file say {x} gives me an allergic reaction",
        ),
    }
    asked = 0
    for kind, texts in wordings.items():
        for fact in _facts(records, kind):
            for wording in texts:
                question = wording.format(x=fact.subject)
                answer = _answer(agent, fact.patient_id, question)
                g = grade(fact, answer)
                assert g.correct and not g.false_negative, (question, fact.expected, answer[:300])
                asked += 1
    assert asked > 20
