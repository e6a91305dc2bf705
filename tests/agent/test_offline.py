"""The offline planner: intent → tools → a templated, cited answer over the same events."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from agent.base import Turn
from agent.events import DoneEvent, ToolCallEvent, is_terminal
from agent.offline import (
    OFFLINE_BANNER,
    UNKNOWN_REPLY,
    EmbeddingIntents,
    OfflineAgent,
    Planner,
    render_result,
)
from agent.runner import GuardedAgent, build_agent
from tests import conftest as root
from tests.agent.conftest import ask, run

ALL_TOOLS = [
    "get_patient_profile",
    "get_conditions",
    "get_medications",
    "get_labs",
    "get_allergies",
    "get_encounters",
    "get_immunizations",
    "get_procedures",
    "get_care_plans",
    "find_slots",
    "book_appointment",
    "list_appointments",
    "cancel_appointment",
    "search_leaflets",
    "search_notes",
    "summarize_labs",
    "count_encounters",
    "get_medication_changes",
    "check_drug_allergies",
]
TODAY = dt.date(2026, 11, 29)

PLANS = [
    ("What medications am I taking?", "get_medications", {"status": "active"}),
    # a named drug is searched over the whole history: the answer says whether it is active
    ("Am I still on lisinopril?", "get_medications", {"status": "all", "query": "lisinopril"}),
    ("Which medicines have I ever been prescribed?", "get_medications", {"status": "all"}),
    ("What is my latest A1C?", "get_labs", {"query": "A1C", "latest_only": True}),
    ("Show my cholesterol trend since 2020", "summarize_labs", {"query": "cholesterol", "since": "2020-01-01"}),
    ("What was my highest weight ever?", "summarize_labs", {"query": "weight"}),
    ("Any ED visits?", "count_encounters", {}),
    ("Is she taking a statin?", "get_medications", {"status": "all", "query": "statins"}),
    ("What was my blood pressure in 2023?", "summarize_labs", {"query": "BP", "since": "2023-01-01", "until": "2023-12-31"}),
    ("How much do I weigh?", "get_labs", {"query": "weight", "latest_only": True}),
    ("Do I have diabetes?", "get_conditions", {"status": "all", "query": "diabetes"}),
    ("What conditions have I had?", "get_conditions", {"status": "all"}),
    ("What am I allergic to?", "get_allergies", {}),
    ("When was my last visit?", "get_encounters", {"limit": 1}),
    ("Which vaccines have I had?", "get_immunizations", {}),
    ("Have I had any surgery?", "get_procedures", {}),
    ("What is my care plan?", "get_care_plans", {}),
    ("Who is my GP?", "get_patient_profile", {}),
    ("When is my next appointment?", "list_appointments", {}),
    (
        "Book me a cardiology appointment next week",
        "find_slots",
        {"specialty_or_department": "cardiology", "from_date": "2026-11-30", "to_date": "2026-12-06"},
    ),
    (
        "I need to see a dermatologist",
        "find_slots",
        {"specialty_or_department": "dermatology", "from_date": "2026-11-29", "to_date": "2026-12-13"},
    ),
    ("Cancel my appointment", "list_appointments", {}),
    ("What are the visiting hours?", "search_leaflets", {"query": "What are the visiting hours?"}),
    ("What is HbA1c?", "search_leaflets", {"query": "What is HbA1c?"}),
    ("Where can I park?", "search_leaflets", {"query": "Where can I park?"}),
    ("What did the doctor write about my back pain?", "search_notes", {"query": "back pain"}),
]


@pytest.mark.parametrize(("question", "tool", "args"), PLANS)
def test_each_question_plans_the_right_tool_and_arguments(question, tool, args):
    plan = Planner(ALL_TOOLS).plan(question, [], TODAY)
    expected = [(tool, args)]
    if tool == "summarize_labs" and ("since" in args or "until" in args):
        # a window may hold none: the newest result of the whole history is fetched beside it
        expected.append(("get_labs", {"query": args["query"], "latest_only": True}))
    assert [(c.name, c.input) for c in plan.calls] == expected


def test_several_intents_in_one_question_run_several_tools():
    plan = Planner(ALL_TOOLS).plan("What medications and allergies do I have?", [], TODAY)
    assert [c.name for c in plan.calls] == ["get_medications", "get_allergies"]


def test_a_follow_up_without_an_intent_replans_the_previous_question():
    history = [Turn(question="What is my latest A1C?", answer="…")]
    plan = Planner(ALL_TOOLS).plan("and last year?", history, TODAY)
    assert plan.follow_up and [(c.name, c.input) for c in plan.calls] == [
        ("summarize_labs", {"query": "A1C", "since": "2025-01-01", "until": "2025-12-31"}),
        ("get_labs", {"query": "A1C", "latest_only": True}),  # said when last year holds none
    ]


def test_a_confirmation_naming_a_slot_offered_before_the_last_answer_books_that_slot():
    offer = Turn(question="Book me a check-up", answer="Free slots …\n- Mon 09:00 · slot_id slot-7 [S1]")
    other = Turn(question="where can I park?", answer="Parking … [K1]")
    planner = Planner(ALL_TOOLS)
    plan = planner.plan("Book S1: Mon 09:00 (slot_id slot-7).", [offer, other], TODAY)
    assert [(c.name, c.input["slot_id"]) for c in plan.calls] == [("book_appointment", "slot-7")]
    # never offered in this conversation, or not explicitly named: no booking from an old offer
    assert planner.plan("Book S1 (slot_id slot-99).", [offer, other], TODAY).kind != "book"
    assert planner.plan("yes please book it", [offer, other], TODAY).kind != "book"


def test_a_leaflet_question_after_a_slot_offer_is_not_taken_as_more_booking():
    history = [Turn(question="Book me a check-up", answer="Free slots …\n- Mon 09:00 · slot_id slot-1 [S1]")]
    plan = Planner(ALL_TOOLS).plan("where can I park?", history, TODAY)
    assert [c.name for c in plan.calls] == ["search_leaflets"]


@pytest.mark.parametrize("question", ["What is the meaning of life?", "Write me a poem", "asdf qwerty"])
def test_out_of_scope_questions_plan_nothing(question):
    assert (
        Planner([t for t in ALL_TOOLS if t != "search_leaflets"]).plan(question, [], TODAY).kind == "unknown"
    )


def test_tools_that_are_not_registered_are_never_planned():
    assert Planner(["get_labs"]).plan("What medications am I taking?", [], TODAY).kind == "unknown"


class BagOfWords:
    """A deterministic stand-in embedder: word-count vectors over a fixed vocabulary."""

    VOCAB = ("vaccine", "jab", "flu", "shot", "immun", "pill", "weigh", "protected", "measles", "covid")

    def _vec(self, text: str) -> list[float]:
        low = text.lower()
        return [float(low.count(w)) for w in self.VOCAB] + [0.01]

    def embed_query(self, text: str) -> list[float]:
        return self._vec(text)

    def embed_passages(self, texts: list[str]) -> list[list[float]]:
        return [self._vec(t) for t in texts]


def test_the_embedding_model_is_the_fallback_when_no_keyword_fires():
    question = "Am I protected against that?"
    # no keyword and no concept: without the model it is a leaflet question (their gate decides)
    assert Planner(ALL_TOOLS).plan(question, [], TODAY).leaflet_probe
    embedder = BagOfWords()
    intents = EmbeddingIntents(embedder.embed_query, embedder.embed_passages, floor=0.1)
    # the examples for immunizations mention jabs and shots; "protected" is not a keyword
    intents._examples = None
    planner = Planner(ALL_TOOLS, intents)
    sims = intents.similarities("my flu jab")
    assert max(sims, key=sims.get) == "immunizations"
    assert planner.plan("my covid jab, was it done?", [], TODAY).calls[0].name == "get_immunizations"


def test_render_puts_each_handle_after_its_row():
    text = "Active medications (2):\n[M1] Lisinopril 10 MG\n[M2] Metformin 500 MG\n… 3 more not shown."
    assert render_result(text) == (
        "Active medications (2):\n- Lisinopril 10 MG [M1]\n- Metformin 500 MG [M2]\n… 3 more not shown."
    )


def test_render_words_the_more_hint_for_people_not_in_tool_arguments():
    text = "Free slots (8 of 250 shown):\n[S1] Mon 09:00\n… 242 more not shown; choose a later from_date to see them."
    rendered = render_result(text)
    assert "from_date" not in rendered and "… 242 more not shown (ask" in rendered


def _offline(registry, db):
    return GuardedAgent(OfflineAgent(registry, db))


def test_offline_medications_answer_is_cited_grounded_and_says_offline(registry, db):
    events = run(_offline(registry, db), ask("What medications am I taking?"))
    done = events[-1]
    assert isinstance(done, DoneEvent) and done.mode == "offline"
    assert done.answer.startswith(OFFLINE_BANNER)
    assert "- Lisinopril 10 MG Oral Tablet since 2019-05-01 [M1]" in done.answer
    assert "- Metformin 500 MG since 2020-01-10 [M2]" in done.answer
    assert done.grounding.grounded and done.grounding.cited_handles[:2] == ["M1", "M2"]
    # the allergies follow as labelled background (issue 11), after the answer, never in it
    answer, _, background = done.answer.partition("\n\nBackground (not the answer):\n")
    assert "[A1]" not in answer and "- Penicillin (high criticality) [A1]" in background
    assert [e.handle for e in events if e.type == "citation"] == ["M1", "M2", "A1"]
    calls = [e for e in events if isinstance(e, ToolCallEvent)]
    assert [(e.name, e.background) for e in calls] == [("get_medications", False), ("get_allergies", True)]
    assert sum(is_terminal(e) for e in events) == 1


def test_offline_unknown_question_is_an_honest_refusal(registry, db, tool_log):
    done = run(_offline(registry, db), ask("What's the weather on Mars?"))[-1]
    # at most the leaflets were searched; nothing relevant → the helpful reply, marked abstained
    assert done.answer == UNKNOWN_REPLY and done.abstained
    assert {c for c, *_ in tool_log.calls} <= {"search_leaflets"}


def test_offline_booking_offers_then_books_on_confirmation(registry, db, tool_log):
    agent = _offline(registry, db)
    first = run(agent, ask("Book me a cardiology appointment"))[-1]
    assert "Reply 'book S1'" in first.answer and tool_log.bookings == []
    assert "slot_id slot-1 [S1]" in first.answer and first.grounding.grounded
    history = [Turn(question="Book me a cardiology appointment", answer=first.answer)]
    second = run(agent, ask("book S1", history=history))[-1]
    assert tool_log.bookings == ["slot-1"]
    assert "Booked" in second.answer and second.grounding.grounded


def test_offline_booking_is_never_triggered_without_the_users_request(registry, db, tool_log):
    # a previous answer offering slots, but the user now asks something else
    history = [Turn(question="What did my note say?", answer="- 2030-01-07 09:30 · slot_id slot-1 [S1]")]
    run(_offline(registry, db), ask("ok", history=history))
    assert tool_log.bookings == []


def test_offline_emergency_still_goes_through_the_guardrails(registry, db, tool_log):
    done = run(_offline(registry, db), ask("I can't breathe"))[-1]
    assert done.mode == "guardrail" and tool_log.calls == []


def test_build_agent_without_a_key_is_offline(registry, db):
    agent = build_agent(root.test_settings(), db, registry)
    assert agent.mode == "offline"
    done = run(agent, ask("What medications am I taking?"))[-1]
    assert done.mode == "offline" and re.search(r"\[M1\]", done.answer)


@pytest.mark.parametrize(
    ("question", "routed"),
    [
        ("What does my most recent note say about my education?", True),
        ("What insurance does my note record?", True),
        ("Do my notes say I smoke?", True),
        ("What is the patient's marital status in the notes?", True),
        ("Search my notes for back pain", False),
    ],
)
def test_life_facts_in_notes_are_searched_in_the_social_history_section(question, routed):
    """Synthea keeps education, insurance, smoking, marital status… in one Social History passage
    that a one-word topic query does not reach; the planner searches that section by name."""
    from agent.offline import notes_query

    assert notes_query(question).startswith("social history") is routed
