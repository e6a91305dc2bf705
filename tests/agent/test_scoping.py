"""Scoped asking (issue 11) through both agents, on the real record tools.

The Claude loop runs the real SDK against the fake Messages API; the fake model is scripted
to misbehave (ask for tools outside the scope) so the tests show the structural limits hold
whatever the model does.
"""

from __future__ import annotations

import pytest
from sqlalchemy import text

from agent.events import CitationEvent, DoneEvent, TextEvent, ToolCallEvent, ToolResultEvent
from agent.loop import ClaudeAgent
from agent.offline import OFFLINE_BANNER, OfflineAgent
from agent.runner import GuardedAgent
from agent.scoping import AskScope, ScopeError
from tests.agent.conftest import run
from tests.agent.scoped_world import CANARY, ONE, build, record_scope, request
from tests.fakes.anthropic_server import model_client_for, text_message, tool_use_message
from tools.catalog import build_registry
from tools.scoped_record import TOOL_NAME as RECORD_TOOL


@pytest.fixture()
def world(clean_db):
    return build(clean_db)


def claude(fake, db):
    return GuardedAgent(ClaudeAgent(model_client_for(fake), build_registry(), db, max_iterations=4))


def offline(db):
    return GuardedAgent(OfflineAgent(build_registry(), db))


def done_of(events) -> DoneEvent:
    assert isinstance(events[-1], DoneEvent), events[-1]
    return events[-1]


def first_user_texts(fake) -> list[str]:
    content = fake.message_requests[0].body["messages"][-1]["content"]
    return [b["text"] for b in content if b["type"] == "text"]


def audit(db, **where) -> list:
    clause = " AND ".join(f"{k} = :{k}" for k in where)
    with db.admin.connect() as conn:
        return conn.execute(text(f"SELECT * FROM audit_log WHERE {clause} ORDER BY id"), where).all()


# --- section scope ----------------------------------------------------------------------------


def test_section_scope_refuses_an_out_of_scope_tool_with_a_result_not_data(fake_anthropic, world):
    fake_anthropic.enqueue(
        tool_use_message([("get_medications", {}), ("get_labs", {"query": "A1C", "latest_only": True})]),
        text_message("Your latest HbA1c was 7.1 % on 2024-03-30 [L1]."),
    )
    events = run(claude(fake_anthropic, world.db), request("How is my sugar doing?", ask_scope={"section": "labs"}))
    done = done_of(events)

    # the model is offered exactly the section's tools (no more_tools: the scope fixes them),
    # never the internal record lookup; a model calling another tool is still refused below
    offered = [t["name"] for t in fake_anthropic.message_requests[0].body["tools"]]
    labs = [n for n in build_registry().names() if build_registry().get(n).section == "labs"]
    assert offered == labs and RECORD_TOOL not in offered and "more_tools" not in offered
    assert any(
        "<question_scope>" in t and "only these tools will run" in t.lower()
        for t in first_user_texts(fake_anthropic)
    )

    blocks = fake_anthropic.message_requests[1].body["messages"][-1]["content"]
    refused, labs = blocks[0], blocks[1]
    assert refused["type"] == "tool_result" and refused["is_error"] is True
    assert "get_medications was not run" in refused["content"] and "get_labs" in refused["content"]
    assert "Metformin" not in refused["content"] and "Lisinopril" not in refused["content"]
    assert labs["type"] == "tool_result" and "is_error" not in labs and "7.1" in labs["content"]
    results = {e.name: e for e in events if isinstance(e, ToolResultEvent) and not e.background}
    assert results["get_medications"].ok is False and results["get_medications"].rows == []
    denied = audit(world.db, action="tool:get_medications", target_patient_id=ONE)
    assert [r.outcome for r in denied] == ["not_allowed"]

    assert done.scope == {
        "kind": "section",
        "section": "labs",
        "label": "lab results and vitals",
        "tools": ["compare_lab", "find_out_of_range_labs", "get_labs", "summarize_labs"],  # (compare_lab: round 14)
    }
    assert done.metrics["scope"] == done.scope
    assert done.answer.startswith("Scope: the lab results and vitals section of the record only.\n\n")
    assert "".join(e.delta for e in events if isinstance(e, TextEvent)) == done.answer
    assert done.grounding.grounded


def test_section_scope_in_the_offline_planner_skips_intent_detection(world):
    # "how am I doing" names no section at all: without the scope the planner could not answer it
    unscoped = done_of(run(offline(world.db), request("How am I doing?")))
    assert "can't answer that" in unscoped.answer
    events = run(offline(world.db), request("How am I doing?", ask_scope={"section": "medications"}))
    done = done_of(events)
    primary = [e.name for e in events if isinstance(e, ToolCallEvent) and not e.background]
    assert primary == ["get_medications"]
    assert done.answer.startswith(OFFLINE_BANNER + "\n\nScope: the medications section of the record only.")
    assert "Metformin hydrochloride 500 MG Oral Tablet" in done.answer and done.grounding.grounded
    assert done.scope["kind"] == "section"
    assert done.scope["tools"] == ["compare_active_medications", "get_medication_changes", "get_medications"]


def test_section_scope_keeps_the_questions_own_modifiers(world):
    events = run(
        offline(world.db), request("Show all of these since 2020", ask_scope={"section": "conditions"})
    )
    call = next(e for e in events if isinstance(e, ToolCallEvent))
    assert call.name == "get_conditions" and call.input == {"status": "all", "since": "2020-01-01"}  # the onset window
    assert "Acute bronchitis" in done_of(events).answer  # resolved: only with status=all


# --- record scope -----------------------------------------------------------------------------


def test_record_scope_hands_the_model_that_record_and_limits_its_tools(fake_anthropic, world):
    fake_anthropic.enqueue(
        tool_use_message([("get_medications", {"status": "all"}), ("get_labs", {"query": "A1C"})]),
        text_message("This HbA1c was 7.1 % on 2024-03-30 [L1], above the reference upper limit of 5.7 [L1]."),
    )
    ask_scope = record_scope("observation", world.a1c_latest)
    events = run(claude(fake_anthropic, world.db), request("Is this normal?", ask_scope=ask_scope))
    done = done_of(events)

    calls = [e for e in events if isinstance(e, ToolCallEvent)]
    assert (calls[0].name, calls[0].background) == (RECORD_TOOL, False)  # the agent's own lookup, first
    note = next(t for t in first_user_texts(fake_anthropic) if "<question_scope>" in t)
    assert "[L1] Hemoglobin A1c/Hemoglobin.total in Blood 7.1 %" in note and "2024-03-30" in note
    assert "you may use only: get_labs" in note
    refused = fake_anthropic.message_requests[1].body["messages"][-1]["content"][0]
    assert refused["is_error"] is True and "get_medications was not run" in refused["content"]

    assert done.scope["kind"] == "record" and done.scope["handle"] == "L1"
    assert done.scope["record"] == {"kind": "observation", "id": world.a1c_latest}
    assert done.scope["tools"] == ["get_labs", "search_leaflets"]  # what the test is, from a leaflet
    assert done.answer.startswith(
        "Scope: this one result — Hemoglobin A1c/Hemoglobin.total in Blood (2024-03-30) [L1]."
    )
    cited = [e for e in events if isinstance(e, CitationEvent)]
    assert [c.handle for c in cited] == ["L1"] and cited[0].record_id == world.a1c_latest
    assert done.grounding.grounded


def test_record_scope_in_the_offline_planner_shows_the_record_and_the_same_test_over_time(world):
    ask_scope = record_scope("observation", world.a1c_latest)
    events = run(offline(world.db), request("Is this normal?", ask_scope=ask_scope))
    done = done_of(events)
    assert [(e.name, e.background) for e in events if isinstance(e, ToolCallEvent)] == [
        (RECORD_TOOL, False),
        ("get_labs", False),  # the same test's history, by its LOINC code
        ("get_conditions", True),
    ]
    answer, _, background = done.answer.partition("Background (not the answer):")
    assert "Scope: this one result — Hemoglobin A1c/Hemoglobin.total in Blood (2024-03-30) [L1]." in answer
    assert "The result you asked about:\n- Hemoglobin A1c/Hemoglobin.total in Blood 7.1 %" in answer
    assert "7.1 % is above the upper reference limit of 5.7 recorded with this result [L1]." in answer
    assert "Other results of the same test, newest first:\n- Hemoglobin A1c" in answer and "6.8 %" in answer
    assert "Diabetes mellitus type 2" in background and "Diabetes" not in answer.split("[L1]")[0]
    assert done.grounding.grounded and done.scope["handle"] == "L1"


@pytest.mark.parametrize("which", ["other_patient", "missing"])
@pytest.mark.parametrize("mode", ["claude", "offline"])
def test_record_scope_outside_the_patient_binding_is_refused_alike_and_audited(
    fake_anthropic, world, which, mode
):
    record_id = world.other_patients_a1c if which == "other_patient" else "obs-does-not-exist"
    agent = claude(fake_anthropic, world.db) if mode == "claude" else offline(world.db)
    events = run(agent, request("Is this normal?", ask_scope=record_scope("observation", record_id)))
    done = done_of(events)
    assert "That result is not in this patient's record." in done.answer  # the same words either way
    assert "Nothing else was looked up" in done.answer
    assert fake_anthropic.message_requests == []  # no model call at all
    assert [e.name for e in events if isinstance(e, ToolCallEvent)] == [RECORD_TOOL]
    everything = " ".join(e.model_dump_json() for e in events)
    assert CANARY not in everything and "9.9 %" not in everything
    rows = audit(world.db, action=f"tool:{RECORD_TOOL}", target_patient_id=ONE)
    assert [r.outcome for r in rows] == ["not_found"]
    assert done.scope["kind"] == "record" and done.scope.get("handle") is None


def test_an_entered_in_error_record_is_not_explained(world):
    with world.db.admin.begin() as conn:
        conn.execute(text("SELECT set_config('app.patient_id', :p, true)"), {"p": ONE})
        conn.execute(
            text("UPDATE observations SET status = 'entered-in-error' WHERE id = :i"), {"i": world.a1c_older}
        )
    done = done_of(
        run(
            offline(world.db),
            request("What is this?", ask_scope=record_scope("observation", world.a1c_older)),
        )
    )
    assert "entered in error" in done.answer and "6.8" not in done.answer


def test_medication_record_scope_adds_allergies_as_background(world):
    events = run(
        offline(world.db),
        request("Why was this started?", ask_scope=record_scope("medication", world.metformin)),
    )
    done = done_of(events)
    answer, _, background = done.answer.partition("Background (not the answer):")
    assert "for Diabetes" in answer and "Penicillin V" in background and "Penicillin" not in answer
    assert done.metrics["background"] == ["allergies"]


# --- parsing ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "error"),
    [
        ({"section": "everything"}, "scope.section"),
        ({"record": {"kind": "slot", "id": "slot-1"}}, "scope.record.kind"),
        ({"record": {"kind": "observation", "id": ""}}, "scope.record.id"),
        ({"record": {"kind": "observation"}}, "scope.record"),
        ({"section": "labs", "record": {}}, "scope"),
        ("labs", "scope"),
    ],
)
def test_bad_scopes_are_refused_with_the_field_named(raw, error):
    with pytest.raises(ScopeError, match=error.replace(".", r"\.")):
        AskScope.parse(raw)


def test_cli_scope_syntax():
    assert AskScope.parse_cli("section:labs").as_json() == {"section": "labs"}
    assert AskScope.parse_cli("record:observation:urn:uuid:1234").as_json() == {
        "record": {"kind": "observation", "id": "urn:uuid:1234"}
    }
    with pytest.raises(ScopeError, match="--scope"):
        AskScope.parse_cli("labs")


def test_section_scope_words_that_match_nothing_show_the_whole_section(world):
    events = run(offline(world.db), request("Am I on warfarin?", ask_scope={"section": "medications"}))
    done = done_of(events)
    calls = [e.input for e in events if isinstance(e, ToolCallEvent) and not e.background]
    # a recognised drug is searched over the whole history; none → the whole section is shown
    assert calls == [{"status": "all", "query": "warfarin"}, {"status": "all"}]
    assert "No. Your record has no prescription of warfarin: I searched every prescription" in done.answer
    assert "Lisinopril 10 MG Oral Tablet" in done.answer and done.grounding.grounded
