"""Which tools a question is offered (agent.toolset), and `more_tools` through the real loop."""

from __future__ import annotations

import datetime as dt

from hypothesis import given, settings
from hypothesis import strategies as st

from agent import prompts
from agent.bench_requests import RECORD_QUESTIONS
from agent.events import DoneEvent, ToolResultEvent
from agent.intent import write_intent
from agent.token_estimate import estimate_input_tokens
from agent.toolset import COMPUTED_FOR, MORE_TOOLS, SECTIONS, ToolOffer
from tests.agent.conftest import ask, run
from tests.agent.test_loop import make_agent, terminal
from tests.fakes.anthropic_server import text_message, tool_use_message
from tools.catalog import build_registry

REGISTRY = build_registry()


def offered(question: str, previous: tuple[str, ...] = (), **kw) -> list[str]:
    writes = write_intent(question, previous)
    return ToolOffer.for_question(REGISTRY, question, previous, write_allowed=writes, **kw).names


def test_a_record_question_gets_its_sections_tools_and_more_tools():
    assert offered("What are my active conditions?") == ["get_conditions"]
    assert offered("Is she taking metformin?") == ["get_medications"]
    assert offered("What medications am I taking and what am I allergic to?") == [
        "get_medications",
        "get_allergies",
    ]
    offer = ToolOffer.for_question(REGISTRY, "Which vaccines have I had?")
    assert [d["name"] for d in offer.definitions()] == ["get_immunizations", MORE_TOOLS]


def test_computing_tools_come_with_the_computation_the_question_asks_for():
    assert offered("What is my latest A1C?") == ["get_labs"]
    # (a window offers every computed tool of the section: compare_lab too, since round fourteen)
    assert offered("Show me the HbA1c trend since 2020") == ["get_labs", "summarize_labs", "compare_lab"]
    assert "compare_lab" in offered("is my ldl better than last year")
    assert "compare_active_medications" in offered("am i on more meds now than 2 years ago")
    assert offered("What was my highest weight ever?") == ["get_labs", "summarize_labs"]
    assert "count_encounters" in offered("How many times was I admitted?")
    assert "check_drug_allergies" in offered("Any drug-allergy contraindications?")
    assert "get_medication_changes" in offered("What medications was I started on since March 2025?")
    assert set(COMPUTED_FOR) <= set(REGISTRY.names())  # the table names real tools


def test_no_recognised_section_offers_every_read_tool_and_no_more_tools():
    names = offered("How am I doing overall?")
    reads = [n for n in REGISTRY.names() if not REGISTRY.get(n).writes]
    assert names == reads
    offer = ToolOffer.for_question(REGISTRY, "How am I doing overall?")
    assert MORE_TOOLS not in [d["name"] for d in offer.definitions()]  # nothing left to add


def test_writing_tools_only_when_the_users_own_words_ask():
    assert "book_appointment" not in offered("What appointments are available for cardiology?")
    booking = offered("Book me a cardiology appointment next week")
    assert "find_slots" in booking and "book_appointment" in booking and "cancel_appointment" not in booking
    # "S2, please" leans on the question it confirms
    assert "book_appointment" in offered("S2, please", ("Book me a cardiology appointment",))


def test_a_follow_up_without_a_section_keeps_the_previous_questions_sections():
    assert offered("and last year?", ("What is my latest A1C?",)) == ["get_labs", "summarize_labs", "compare_lab"]


def test_a_scope_fixes_the_tools_and_offers_no_more_tools():
    labs = [n for n in REGISTRY.names() if REGISTRY.get(n).section == "labs"]
    offer = ToolOffer.for_question(REGISTRY, "Is this normal?", scope_tools=labs)
    assert offer.names == labs and MORE_TOOLS not in [d["name"] for d in offer.definitions()]


def test_more_tools_adds_whole_sections_but_never_an_unasked_write():
    offer = ToolOffer.for_question(REGISTRY, "What are my active conditions?")
    ok, text = offer.add({"sections": ["encounters", "appointments"]})
    assert ok and "get_encounters" in text and "count_encounters" in text
    assert {"get_encounters", "count_encounters", "find_slots", "list_appointments"} <= set(offer.names)
    assert "book_appointment" not in offer.names and "only when the person asks" in text
    assert offer.names == [n for n in REGISTRY.names() if n in offer.names]  # registry order
    ok, text = offer.add({"sections": ["encounters"]})
    assert ok and text == "Those tools are already available."
    for bad in ({}, {"sections": []}, {"sections": ["billing"]}, ["labs"], {"sections": "labs"}):
        ok, text = offer.add(bad)
        assert not ok and "'sections' must list" in text


@settings(max_examples=150, deadline=None)
@given(
    question=st.text(max_size=80),
    sections=st.lists(st.sampled_from(SECTIONS), max_size=4),
    wants_write=st.booleans(),
)
def test_whatever_is_asked_the_offer_is_registry_tools_and_only_grows(question, sections, wants_write):
    writes = frozenset({"book_appointment"}) if wants_write else frozenset()
    offer = ToolOffer.for_question(REGISTRY, question, write_allowed=writes)
    before = list(offer.names)
    assert set(before) <= set(REGISTRY.names())
    assert all(not REGISTRY.get(n).writes or n in writes for n in before)
    names = [d["name"] for d in offer.definitions()]
    assert (MORE_TOOLS in names) == bool(offer.missing())
    offer.add({"sections": sections} if sections else {"sections": list(SECTIONS)})
    assert set(before) <= set(offer.names)
    if not sections:
        assert offer.missing() == [] and MORE_TOOLS not in [d["name"] for d in offer.definitions()]


def test_the_first_call_of_every_benchmark_question_stays_small():
    """A guard on the request-size work: system prompt + offered tools + the question."""
    system = prompts.system_blocks("patient", dt.date(2026, 12, 1))
    for question in RECORD_QUESTIONS:
        tools = prompts.tool_definitions_with_cache(ToolOffer.for_question(REGISTRY, question).definitions())
        body = {"system": system, "tools": tools, "messages": [{"role": "user", "content": question}]}
        assert estimate_input_tokens(body) <= 800, question


# --- through the loop and the real SDK --------------------------------------------------------


def test_the_model_asks_for_more_tools_and_gets_them_on_its_next_turn(fake_anthropic, registry, db):
    fake_anthropic.enqueue(
        tool_use_message([(MORE_TOOLS, {"sections": ["medications"]})]),
        tool_use_message([("get_medications", {})]),
        text_message("You take Metformin 500 mg [M1]."),
    )
    events = run(make_agent(fake_anthropic, registry, db), ask("What is my latest A1C?"))
    done = terminal(events)
    assert isinstance(done, DoneEvent) and not fake_anthropic.violations
    first, second, third = ([t["name"] for t in r.body["tools"]] for r in fake_anthropic.message_requests)
    assert first == ["get_labs", MORE_TOOLS] and second == third == [
        "get_labs",
        "get_medications",
        MORE_TOOLS,
    ]
    answered = fake_anthropic.message_requests[1].body["messages"][-1]["content"][0]
    assert answered["type"] == "tool_result" and answered["content"] == "Now available: get_medications."
    results = [e for e in events if isinstance(e, ToolResultEvent) and not e.background]
    assert [(r.name, r.ok) for r in results] == [(MORE_TOOLS, True), ("get_medications", True)]
    assert done.metrics["tools_added"] == ["get_medications"]
    primary = [t["name"] for t in done.metrics["tools"] if not t["background"]]
    assert primary == [MORE_TOOLS, "get_medications"]


def test_a_bad_more_tools_call_is_a_fixable_error_not_a_crash(fake_anthropic, registry, db):
    fake_anthropic.enqueue(
        tool_use_message([(MORE_TOOLS, {"sections": ["billing"]}), ("get_labs", {"query": "A1C"})]),
        text_message("Your HbA1c was 7.2 % on 2024-03-05 [L1]."),
    )
    done = terminal(run(make_agent(fake_anthropic, registry, db), ask("What is my latest A1C?")))
    assert isinstance(done, DoneEvent) and not fake_anthropic.violations
    bad, labs = fake_anthropic.message_requests[1].body["messages"][-1]["content"][:2]
    assert bad["is_error"] is True and "'sections' must list" in bad["content"]
    assert "is_error" not in labs and "7.2" in labs["content"]
