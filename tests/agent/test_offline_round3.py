"""Round three of the offline planner: slips in its own words, how-to questions reach the
leaflets first, one fact cites its few rows, and the computed answers lead with the verdict."""

from __future__ import annotations

import datetime as dt

from hypothesis import given, settings
from hypothesis import strategies as st

from agent.execution import ToolCall, ToolOutcome
from agent.offline.compose import FOCUSED_ROWS, HIDDEN_ROWS, render_result
from agent.offline.leads import Voice, lead_for
from agent.offline.link import Vocabulary
from agent.offline.plan import Planner, Topic, how_to, planner_words
from agent.offline.spelling import is_english, respell
from agent.text import normalise
from tests.agent.test_offline import ALL_TOOLS
from tools.results import ToolResult

TODAY = dt.date(2026, 12, 1)
VOCAB = Vocabulary(
    {
        "conditions": ["Viral sinusitis (disorder)", "Essential hypertension (disorder)"],
        "medications": ["Amoxicillin 500 MG Oral Tablet", "sertraline 100 MG Oral Tablet"],
        "labs": ["Potassium", "Systolic Blood Pressure", "Diastolic Blood Pressure"],
    }
)
WORDS = planner_words()


def plan(question: str, vocab: Vocabulary = VOCAB):
    return Planner(ALL_TOOLS).plan(question, [], TODAY, vocab)


# --- spelling --------------------------------------------------------------------------------


def test_a_slip_in_a_rule_word_is_corrected_and_a_real_word_is_kept():
    assert (
        respell("Is my potassium above the noraml range?", WORDS) == "Is my potassium above the normal range?"
    )
    assert respell("is my BMI gonig up", WORDS) == "is my BMI going up"
    # "cancel" is an English word one slip from the condition word "cancer": never touched
    assert respell("Cancel my appointment", WORDS) == "Cancel my appointment"


@settings(deadline=None)
@given(st.sampled_from(sorted(w for w in WORDS if len(w) >= 6)), st.data())
def test_swapping_two_inner_letters_of_a_rule_word_is_undone(word, data):
    i = data.draw(st.integers(1, len(word) - 3))
    slipped = word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    if slipped == word or slipped in WORDS or is_english(slipped):
        return  # the slip made another real word: nothing to correct
    fixed = respell(slipped, WORDS)
    # corrected to the word, or left alone when two rule words are equally near
    assert fixed in (word, slipped)


# --- routing ---------------------------------------------------------------------------------


def test_how_things_are_done_goes_to_the_leaflets_with_the_record_as_fallback():
    p = plan("What should I wear for my scan?")
    assert [c.name for c in p.calls] == ["search_leaflets"]
    assert p.leaflet_probe and p.fallback is not None


def test_asking_the_record_for_a_fact_is_not_a_how_to_question():
    for q in ("Can I see my latest potassium?", "How much do I weigh?", "Do I have hypertension?"):
        assert not how_to(normalise(q)), q


def test_a_leaflet_question_searches_its_topic_not_the_word_leaflet():
    p = plan("Is there a hospital leaflet about caring for a pet tortoise?")
    assert p.calls[0].input == {"query": "caring for a pet tortoise?"}


# --- operations ------------------------------------------------------------------------------


def test_medicines_after_a_diagnosis_read_the_onset_first_then_the_prescriptions_from_it():
    p = plan("What meds was I started on after my viral sinusitis diagnosis?")
    assert [c.name for c in p.calls] == ["get_conditions"]
    assert p.then == "meds_after_onset"
    row = {"kind": "condition", "name": "Viral sinusitis (disorder)", "onset": "2021-02-04T10:00:00Z"}
    onset = ToolResult(text="x", rows=[row], total=1)
    then = Planner(ALL_TOOLS).then_calls(p, [ToolOutcome(p.calls[0], onset, 1.0)])
    assert [(c.name, c.input) for c in then] == [("get_medication_changes", {"since": "2021-02-04"})]


def test_a_bare_year_is_that_calendar_year():
    p = plan("2021 avg potassium")
    assert p.calls[0].input == {"query": "potassium", "since": "2021-01-01", "until": "2021-12-31"}


def _summary(code: str, name: str, value: float) -> dict:
    point = {"value": value, "date": "2026-03-01", "record_id": f"obs-{code}"}
    return {
        "kind": "observation", "handle": f"L{code[-1]}", "name": name, "code": code, "count": 2,
        "unit": "mm[Hg]", "latest": point, "first": point, "lowest": point, "highest": point, "mean": value,
    }  # fmt: skip


def test_the_systolic_part_of_a_blood_pressure_panel_answers_a_systolic_question():
    p = plan("highest systolic blood pressure ever")
    topic = p.topics[0]
    rows = [
        _summary("8462-4", "Diastolic blood pressure", 80),
        _summary("8480-6", "Systolic blood pressure", 130),
    ]
    outcome = ToolOutcome(p.calls[0], ToolResult(text="x", rows=rows, total=2), 1.0)
    lead, abstained = lead_for(topic, [outcome], Voice("patient"))
    assert "130" in lead and "80" not in lead and not abstained


def test_older_than_a_year_is_answered_yes_or_no_from_the_latest_date():
    p = plan("Is my latest potassium more than a year old?")
    topic = p.topics[0]
    assert topic.operation == "older_than_year"
    old = {
        **_summary("2823-3", "Potassium", 4.1),
        "latest": {"value": 4.1, "date": "2024-11-27", "record_id": "o"},
    }
    outcome = ToolOutcome(p.calls[0], ToolResult(text="x", rows=[old], total=1), 1.0)
    assert lead_for(topic, [outcome], Voice("patient"))[0].startswith("Yes")
    recent = {**old, "latest": {"value": 4.1, "date": "2026-10-01", "record_id": "o"}}
    outcome = ToolOutcome(p.calls[0], ToolResult(text="x", rows=[recent], total=1), 1.0)
    assert lead_for(topic, [outcome], Voice("patient"))[0].startswith("No")


def test_zero_emergency_visits_is_a_count_not_an_abstention():
    p = plan("How many times have I been to the emergency department?")
    summary = {"summary": {"total": 3, "by_class": {"ambulatory": 3}}}
    outcome = ToolOutcome(p.calls[0], ToolResult(text="x", rows=[summary], total=1), 1.0)
    lead, abstained = lead_for(p.topics[0], [outcome], Voice("patient"))
    assert " 0 " in lead and not abstained


def test_a_class_with_several_active_members_names_each_one():
    topic = Topic("medications", "exists", plan("What inhalers am I on?").topics[0].concept)
    rows = [
        {"kind": "medication", "active": True, "name": "fluticasone inhaler", "handle": "M1", "authored_on": "2019-01-27"},
        {"kind": "medication", "active": True, "name": "albuterol inhaler", "handle": "M2", "authored_on": "2019-01-27"},
    ]  # fmt: skip
    outcome = ToolOutcome(ToolCall("c", "get_medications", {}), ToolResult(text="x", rows=rows, total=2), 1.0)
    lead, _ = lead_for(topic, [outcome], Voice("patient"))
    assert "[M1]" in lead and "[M2]" in lead and "of it" not in lead


# --- composing -------------------------------------------------------------------------------


def test_one_fact_shows_its_own_row_and_a_few_others_not_the_whole_section():
    text = "\n".join(f"[I{n}] Influenza — given 20{10 + n}-10-01" for n in range(1, 11))
    shown = render_result(text, limit=FOCUSED_ROWS, keep={"I9"})
    assert "[I9]" in shown and shown.count("[I") == FOCUSED_ROWS and HIDDEN_ROWS in shown
    assert render_result(text).count("[I") == 10
