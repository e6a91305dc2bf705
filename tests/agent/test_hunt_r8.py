"""Silent, confident wrong answers found on the demo cohort after round seven (the lead's five,
then a helper's own hunt of fifteen questions written before any round-eight change), each
checked across a generated cohort against the evaluator's own reading of the record
(`evals.truth`), never against a hard-coded answer.

- "what jabs am i due" → "No: your record has no upcoming appointments booked": a vaccine that is
  due is an immunization question, and the record holds no schedule of due vaccines.
- "what was my cholesterol before it was last checked" → the latest value, not the one before it.
- "what does my record say about my pregnancy" → the records-access leaflet, nothing searched.
- clinician "anything in her history about kidney stones" → "I can't answer that".
- "Is there any mention of X in my notes?" → passages ranked by similarity, without a verdict.
- hunt: "has my weight gone down since last year" → "No: your weight went down …" (the yes was
  read as "went up"), compared with the value before the newest rather than last year's.
- hunt: "have i had my covid booster this year" → "Your record has no covid-19: I searched every
  immunization" for a patient with COVID-19 doses in earlier years (only this year was searched).
"""

from __future__ import annotations

import re

from agent.base import AgentRequest, Turn
from agent.events import DoneEvent
from agent.offline import OfflineAgent
from tests.agent.conftest import COHORT_NOW, run
from tools.catalog import build_registry
from tools.render import fmt_num
from tools.scope import PatientScope


def _ask(agent, pid: str, question: str, role: str = "patient", history: list[Turn] | None = None) -> str:
    scope = PatientScope(patient_id=pid, role=role, actor="test", conversation_id="hunt-r8")
    request = AgentRequest(scope=scope, question=question, now=COHORT_NOW, history=history or [])
    done = run(agent, request)[-1]
    assert isinstance(done, DoneEvent)
    return done.answer


def _lead(answer: str) -> str:
    skip = ("Offline mode", "(Following up")
    lines = [line for line in answer.splitlines() if line.strip() and not line.startswith(skip)]
    return lines[0] if lines else ""


def _given(record, word: str = ""):
    rows = [
        i
        for i in record.immunizations
        if i.status == "completed" and i.occurrence and i.occurrence <= COHORT_NOW and word in i.display.lower()
    ]
    return sorted(rows, key=lambda i: i.occurrence, reverse=True)


def _series(record, code: str):
    rows = [
        m
        for m in record.measurements
        if m.code == code and m.status != "entered-in-error" and m.effective <= COHORT_NOW
    ]
    return sorted(rows, key=lambda m: m.effective, reverse=True)


def _form(word: str) -> str:
    # a short word whole (plural allowed), a longer one by its first letters (stones → ston…)
    return rf"{word}s?\b" if len(word) <= 4 else rf"{word[: max(4, len(word) - 3)]}\w*"


def _mentions(text: str, words: list[str]) -> bool:
    """A text mentions a topic when it holds its words as a phrase (at most two words apart), in
    any form: "kidney stone" for "kidney stones"; "back" is not "background"."""
    return re.search(r"\b" + r"(?:\W+\w+){0,2}?\W+".join(_form(w) for w in words), text, re.I) is not None


def _live_notes(record):
    return [n for n in record.notes if n.doc_status != "entered-in-error"]


def test_vaccines_due_are_an_immunization_question_answered_with_what_was_given(cohort):
    db, records = cohort
    agent = OfflineAgent(build_registry(), db)
    wrong = []
    for record in records:
        pid = record.patient.patient_id
        for question, word in (("what jabs am i due", ""), ("am i due a flu jab", "influenza")):
            answer = _ask(agent, pid, question)
            lead = _lead(answer)
            given = _given(record, word)
            if "appointment" in answer.lower() or "no schedule" not in lead:
                wrong.append((pid[:8], question, lead))
            elif given and given[0].occurrence.date().isoformat() not in lead:
                wrong.append((pid[:8], question, "latest dose not in the lead", lead))
    assert wrong == []


def test_the_value_before_the_latest_is_the_second_newest_dated_and_cited(cohort):
    db, records = cohort
    agent = OfflineAgent(build_registry(), db)
    wrong, asked = [], 0
    for record in records:
        pid = record.patient.patient_id
        for question, code in (
            ("what was my cholesterol before it was last checked", "2093-3"),
            ("my previous a1c", "4548-4"),
        ):
            series = _series(record, code)
            if not series:
                continue
            lead = _lead(_ask(agent, pid, question))
            asked += 1
            if len(series) == 1:
                if "no earlier" not in lead:
                    wrong.append((pid[:8], question, "one value", lead))
                continue
            before = series[1]
            if (
                fmt_num(before.value) not in lead
                or before.effective.date().isoformat() not in lead
                or not re.search(r"\[L\d+\]", lead)
            ):
                wrong.append((pid[:8], question, fmt_num(before.value), before.effective.date(), lead))
        # the same asked as a follow-up, in the patient's words
        series = _series(record, "4548-4")
        if len(series) >= 2:
            first = _ask(agent, pid, "what is my a1c")
            lead = _lead(_ask(agent, pid, "the reading before last", history=[Turn(question="what is my a1c", answer=first)]))
            asked += 1
            if fmt_num(series[1].value) not in lead or series[1].effective.date().isoformat() not in lead:
                wrong.append((pid[:8], "follow-up before last", lead))
    assert asked and wrong == []


def _topic_verdict(agent, record, question: str, words: list[str], role: str = "patient"):
    """What is wrong with the answer to a question about a topic in the record, or None."""
    pid = record.patient.patient_id
    answer = _ask(agent, pid, question, role)
    lead = _lead(answer)
    in_conditions = any(_mentions(c.display, words) for c in record.conditions if c.verification_status != "entered-in-error")
    in_notes = any(_mentions(n.text, words) for n in _live_notes(record))
    if "can't answer" in answer or "[K" in answer:
        return (pid[:8], question, "not searched", lead)
    if in_conditions or in_notes:
        return None if lead.startswith("Yes") else (pid[:8], question, "a no for a mention", lead)
    if not re.search(r"\bNo\b", lead) or "searched" not in lead or str(len(_live_notes(record))) not in lead:
        return (pid[:8], question, "no honest no", lead)
    return None


def test_a_record_question_about_a_topic_searches_conditions_and_notes(cohort):
    db, records = cohort
    agent = OfflineAgent(build_registry(), db)
    wrong = []
    for record in records:
        for question, words, role in (
            ("what does my record say about my pregnancy", ["pregnancy"], "patient"),
            ("anything in her history about kidney stones", ["kidney", "stones"], "clinician"),
            ("does she have any history of gallstones", ["gallstones"], "clinician"),
            ("anything on file about my back pain", ["back", "pain"], "patient"),
        ):
            if (bad := _topic_verdict(agent, record, question, words, role)) is not None:
                wrong.append(bad)
    assert wrong == []


def test_any_mention_in_my_notes_leads_with_a_verdict_from_the_note_text(cohort):
    db, records = cohort
    agent = OfflineAgent(build_registry(), db)
    wrong, yes = [], 0
    for record in records:
        notes = _live_notes(record)
        # a word the notes hold (a condition of this patient) and one they do not
        named = [c.display.split(" (")[0].lower() for c in record.conditions if "(disorder)" in c.display]
        topics = [*[n for n in named if len(n.split()) == 1][:1], "kidney stones"]
        for topic in topics:
            words = topic.split()
            answer = _ask(agent, record.patient.patient_id, f"Is there any mention of {topic} in my notes?")
            lead = _lead(answer)
            if any(_mentions(n.text, words) for n in notes):
                yes += 1
                if not re.match(r"Yes: your notes mention .* on \d{4}-\d{2}-\d{2} \[N\d+\]", lead):
                    wrong.append((record.patient.patient_id[:8], topic, lead))
            elif not lead.startswith("No note mentions") or f"I searched {len(notes)} note" not in lead:
                wrong.append((record.patient.patient_id[:8], topic, lead))
    assert wrong == []


def test_nothing_in_a_window_is_never_said_as_nothing_in_the_record(cohort):
    db, records = cohort
    agent = OfflineAgent(build_registry(), db)
    wrong, asked = [], 0
    for record in records:
        given = _given(record, "covid")
        if not given or given[0].occurrence.year == COHORT_NOW.year:
            continue
        lead = _lead(_ask(agent, record.patient.patient_id, "have i had my covid booster this year"))
        asked += 1
        if "has no covid" in lead or given[0].occurrence.date().isoformat() not in lead:
            wrong.append((record.patient.patient_id[:8], lead))
    assert asked and wrong == []


def test_a_change_since_a_date_is_measured_from_the_windows_first_value_in_the_asked_direction(cohort):
    db, records = cohort
    agent = OfflineAgent(build_registry(), db)
    wrong, asked = [], 0
    since = COHORT_NOW.replace(year=COHORT_NOW.year - 1, month=1, day=1)
    for record in records:
        weights = [m for m in _series(record, "29463-7") if m.effective >= since]
        if len(weights) < 2 or weights[0].value == weights[-1].value:
            continue
        latest, first = weights[0], weights[-1]
        for question, yes in (
            ("has my weight gone down since last year", latest.value < first.value),
            ("has my weight gone up since last year", latest.value > first.value),
        ):
            lead = _lead(_ask(agent, record.patient.patient_id, question))
            asked += 1
            if not lead.startswith("Yes" if yes else "No") or first.effective.date().isoformat() not in lead:
                wrong.append((record.patient.patient_id[:8], question, lead))
    assert asked and wrong == []
