"""Background context (issue 11): added only when the primary lookup found data, and labelled.

Offline and Claude paths on the real record tools; the choice itself is also checked as a
property over arbitrary batches of outcomes.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent.background import BACKGROUND_FOR, Background
from agent.events import DoneEvent, ToolCallEvent, ToolResultEvent
from agent.execution import ToolCall, ToolOutcome
from agent.loop import ClaudeAgent
from agent.offline import OfflineAgent
from agent.runner import GuardedAgent
from tests.agent.conftest import run
from tests.agent.scoped_world import build, request
from tests.fakes.anthropic_server import model_client_for, text_message, tool_use_message
from tools.catalog import build_registry
from tools.results import ToolResult

HEADING = "Background (not the answer):"


@pytest.fixture()
def world(clean_db):
    return build(clean_db)


def claude(fake, db):
    return GuardedAgent(ClaudeAgent(model_client_for(fake), build_registry(), db, max_iterations=4))


def offline(db):
    return GuardedAgent(OfflineAgent(build_registry(), db))


def background_calls(events) -> list[str]:
    return [e.name for e in events if isinstance(e, ToolCallEvent) and e.background]


# --- offline ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "background", "shown"),
    [
        (
            "What is my latest A1C?",
            ["get_conditions"],
            ["Diabetes mellitus type 2", "Essential hypertension"],
        ),
        ("What medications am I taking?", ["get_allergies"], ["Penicillin V"]),
        (
            "What is my care plan?",
            ["get_conditions", "get_medications"],
            ["Diabetes mellitus type 2", "Lisinopril 10 MG Oral Tablet"],
        ),
    ],
)
def test_offline_background_follows_the_answer_under_its_own_heading(world, question, background, shown):
    events = run(offline(world.db), request(question))
    done = events[-1]
    assert isinstance(done, DoneEvent) and done.grounding.grounded, done.grounding.issues
    assert background_calls(events) == background
    _answer, heading, extra = done.answer.partition("\n\n" + HEADING + "\n")
    assert heading, done.answer
    for text in shown:
        assert text in extra
    # background rows are cited like any other row, and flagged in the event stream
    results = [e for e in events if isinstance(e, ToolResultEvent) and e.background]
    assert [r.name for r in results] == background and all(r.ok and r.handles for r in results)
    assert done.metrics["background"] and all(
        t["background"] for t in done.metrics["tools"][-len(background) :]
    )


def test_offline_adds_nothing_when_the_primary_lookup_found_nothing(world):
    events = run(offline(world.db), request("What is my ferritin level?"))
    done = events[-1]
    assert "No results matching 'ferritin'" in done.answer
    assert background_calls(events) == [] and HEADING not in done.answer
    assert done.metrics["background"] == [] and "Diabetes" not in done.answer


def test_offline_medication_answer_without_allergies_adds_no_empty_block(clean_db):
    world = build(clean_db, with_allergy=False)
    events = run(offline(world.db), request("What medications am I taking?"))
    # the lookup ran (the allergies are background) but found none: the block says nothing false
    assert background_calls(events) == ["get_allergies"]
    done = events[-1]
    _, _, extra = done.answer.partition(HEADING)
    assert "No allergies or intolerances are recorded" in extra and done.grounding.grounded


# --- Claude -----------------------------------------------------------------------------------


def test_claude_gets_background_beside_the_tool_results_labelled_as_not_the_answer(fake_anthropic, world):
    fake_anthropic.enqueue(
        tool_use_message([("get_labs", {"query": "A1C", "latest_only": True})]),
        text_message("Your latest HbA1c was 7.1 % on 2024-03-30 [L1]."),
    )
    events = run(claude(fake_anthropic, world.db), request("What is my latest A1C?"))
    assert background_calls(events) == ["get_conditions"]
    content = fake_anthropic.message_requests[1].body["messages"][-1]["content"]
    assert [b["type"] for b in content] == ["tool_result", "text"]  # results first, then background
    block = content[1]["text"]
    assert block.startswith("<background>") and block.endswith("</background>")
    assert "NOT the answer" in block and "active conditions" in block
    assert "Diabetes mellitus type 2" in block and "Acute bronchitis" not in block  # active only
    assert "<background>" not in content[0]["content"]
    done = events[-1]
    assert done.metrics["background"] == ["active conditions"] and done.grounding.grounded


def test_claude_gets_no_background_when_the_lookup_found_nothing(fake_anthropic, world):
    fake_anthropic.enqueue(
        tool_use_message([("get_labs", {"query": "ferritin"})]),
        text_message("The record shows no ferritin results."),
    )
    events = run(claude(fake_anthropic, world.db), request("What is my ferritin?"))
    content = fake_anthropic.message_requests[1].body["messages"][-1]["content"]
    assert [b["type"] for b in content] == ["tool_result"]
    assert background_calls(events) == [] and events[-1].metrics["background"] == []


def test_claude_background_runs_once_and_not_when_the_model_looked_it_up_itself(fake_anthropic, world):
    fake_anthropic.enqueue(
        tool_use_message([("get_labs", {"query": "A1C"}), ("get_conditions", {"status": "active"})]),
        tool_use_message([("get_labs", {"query": "A1C", "latest_only": True})]),
        text_message("Your latest HbA1c was 7.1 % on 2024-03-30 [L1]."),
    )
    events = run(claude(fake_anthropic, world.db), request("How is my diabetes control?"))
    assert background_calls(events) == []  # the model's own get_conditions(active) is primary data
    for later in fake_anthropic.message_requests[1:]:
        assert "<background>" not in str(later.body["messages"][-1]["content"])


# --- the choice, as a property ------------------------------------------------------------------

PRIMARY = sorted(BACKGROUND_FOR)
OTHER = ["get_allergies", "get_encounters", "get_immunizations"]


def outcome(name: str, total: int, ok: bool = True, background: bool = False) -> ToolOutcome:
    result = ToolResult(text="x", total=total) if ok else ToolResult.failure("internal", "failed")
    return ToolOutcome(ToolCall(f"id-{name}", name, {}, background=background), result, 1.0)


batch = st.lists(
    st.tuples(st.sampled_from(PRIMARY + OTHER), st.integers(0, 3), st.booleans(), st.booleans()), max_size=6
)


@settings(deadline=None)  # no timing in tests: the shared machine is slow at times
@given(st.lists(batch, max_size=4))
def test_background_is_earned_only_by_primary_data_and_never_repeats(batches):
    chooser = Background(build_registry())
    seen: list[ToolOutcome] = []
    chosen: list[str] = []
    for spec in batches:
        outcomes = [outcome(n, t, ok, bg) for n, t, ok, bg in spec]
        seen += outcomes  # as in the agents: the executor's outcomes include this batch
        calls = chooser.calls_after(outcomes, seen)
        earned = {
            lookup.tool
            for o in outcomes
            if o.result.ok and o.result.total > 0 and not o.call.background and o.call.name in BACKGROUND_FOR
            for lookup in BACKGROUND_FOR[o.call.name]
        }
        names = {c.name for c in calls}
        assert names <= earned and all(c.background for c in calls)
        before = {entry.split(":")[0] for entry in chosen}
        # every earned lookup is added now, was added before, or the model already made it
        # (these outcomes' inputs are {} = the tools' defaults = the background's own arguments)
        for tool in earned:
            assert tool in names or tool in before or any(s.call.name == tool and s.result.ok for s in seen)
        chosen += [f"{c.name}:{sorted(c.input.items())}" for c in calls]
    assert len(chosen) == len(set(chosen))  # each background lookup at most once per question
