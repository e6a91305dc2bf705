"""Scoped asking through the API (issue 11): the binding holds for the selected record, the
answer says which scope it used, and the metrics are stored with the message."""

from __future__ import annotations

import httpx
import pytest
from sqlalchemy import text

from records.database import patient_transaction
from tests.server.conftest import CANARY, A, B, C, ask, audit_rows, login, stream
from tests.server.real_agents import offline_factory, serve_agent

SCOPE_ACTION = "http:POST messages scope"


def record(kind: str, rid: str) -> dict:
    return {"record": {"kind": kind, "id": rid}}


def stored_messages(db, patient: str) -> int:
    with patient_transaction(db.admin, patient) as conn:
        return conn.execute(text("SELECT count(*) FROM messages")).scalar_one()


def test_another_patients_record_is_the_same_404_as_a_missing_one_and_is_audited(serve, world):
    served = serve()
    with served.client() as client:
        csrf = login(client, "alice")
        theirs = ask(client, A, "Is this normal?", csrf, scope=record("observation", "obs-b1"))
        missing = ask(client, A, "Is this normal?", csrf, scope=record("observation", "obs-nope"))
    assert theirs.status_code == missing.status_code == 404
    assert theirs.json() == missing.json() == {"error": "not_found", "message": "Not found."}
    assert CANARY not in theirs.text
    rows = audit_rows(world.db, action=SCOPE_ACTION)
    assert [(r.actor, r.outcome, r.target_patient_id) for r in rows] == [("alice", "denied", A)] * 2
    assert "observation/obs-b1" in rows[0].detail and "observation/obs-nope" in rows[1].detail
    assert stored_messages(world.db, A) == 0 and served.agent.runs == 0  # nothing asked, nothing run


def test_a_clinician_cannot_reach_one_panel_patients_record_from_another(serve, world):
    served = serve()
    with served.client() as client:
        csrf = login(client, "carol")  # panel: A and C
        response = ask(client, C, "What is this?", csrf, scope=record("observation", "obs-a3"))
    assert response.status_code == 404
    (row,) = audit_rows(world.db, action=SCOPE_ACTION)
    assert (row.actor, row.outcome, row.target_patient_id) == ("carol", "denied", C)
    assert stored_messages(world.db, C) == 0


@pytest.mark.parametrize(
    ("scope", "field"),
    [
        ({"section": "everything"}, "scope.section"),
        (record("slot", "slot-1"), "scope.record.kind"),  # reference data, not the patient's record
        ({"record": {"kind": "observation", "id": "x" * 201}}, "scope.record.id"),
        ({"section": "labs", "extra": 1}, "scope"),
    ],
)
def test_malformed_scopes_are_400_naming_the_field(serve, world, scope, field):
    served = serve()
    with served.client() as client:
        csrf = login(client, "alice")
        response = ask(client, A, "hello", csrf, scope=scope)
    assert response.status_code == 400 and response.json()["message"].startswith(field)


def _answer(client, csrf, question, scope):
    posted = ask(client, A, question, csrf, scope=scope)
    assert posted.status_code == 201, posted.text
    status, events = stream(client, A, posted.json()["message_id"])
    assert status == 200 and events[-1][1] == "done", events[-1]
    return posted.json()["message_id"], events


def test_record_scoped_answer_end_to_end_with_the_offline_planner(world):
    with serve_agent(world.db, offline_factory) as url, httpx.Client(base_url=url, timeout=30) as client:
        csrf = login(client, "alice")
        message_id, events = _answer(client, csrf, "Is this normal?", record("observation", "obs-a3"))
        stored = client.get(f"/api/patients/{A}/messages/{message_id}").json()
    done = events[-1][2]
    assert done["scope"]["kind"] == "record" and done["scope"]["handle"] == "L1"
    assert done["scope"]["record"] == {"kind": "observation", "id": "obs-a3"}
    answer = done["answer"]
    assert "Scope: this one result — Hemoglobin A1c/Hemoglobin.total in Blood (2024-03-01) [L1]." in answer
    assert "6.1 %" in answer and "(reference …–5.7)" in answer  # the record, with its reference range
    assert "7.2 %" in answer and "6.4 %" in answer  # the same test over time
    assert "12 %" not in answer  # the entered-in-error 12.0 % is never shown
    main, _, background = answer.partition("Background (not the answer):")
    assert "Diabetes mellitus type 2 (disorder)" in background and "Diabetes" not in main
    citations = [e[2] for e in events if e[1] == "citation"]
    assert citations[0]["handle"] == "L1" and citations[0]["record_id"] == "obs-a3"
    assert done["grounding"]["grounded"] is True
    assert CANARY not in str(events)
    # stored with the message, for evaluators: the whole metrics object, scope included
    assert stored["scope"] == record("observation", "obs-a3")
    assert stored["metrics"] == {**done["metrics"], "mode": "offline", "cost_usd": 0.0}
    assert stored["metrics"]["tool_calls"] == sum(1 for e in events if e[1] == "tool_result") == 3


def test_section_scoped_answer_through_the_api(world):

    with serve_agent(world.db, offline_factory) as url, httpx.Client(base_url=url, timeout=30) as client:
        csrf = login(client, "alice")
        _, events = _answer(client, csrf, "What am I taking?", {"section": "medications"})
    calls = [(e[2]["name"], e[2]["background"]) for e in events if e[1] == "tool_call"]
    assert calls == [("get_medications", False), ("get_allergies", True)]
    done = events[-1][2]
    # the section's tools: its list and its changes over time (issue 16), nothing of other sections
    assert done["scope"]["kind"] == "section"
    assert done["scope"]["tools"] == ["compare_active_medications", "get_medication_changes", "get_medications"]
    assert done["answer"].splitlines()[2] == "Scope: the medications section of the record only."
    assert "Metformin 500 MG Oral Tablet" in done["answer"] and "Lisinopril" not in done["answer"]  # stopped


def test_the_page_offers_ask_about_these_and_this_on_every_section_and_row(serve, world):
    served = serve()
    with served.client() as client:
        login(client, "alice")
        page = client.get(f"/patients/{A}").text
    for section in ("conditions", "medications", "labs", "allergies", "encounters", "immunizations", "notes"):
        assert f'data-ask-section="{section}"' in page
    for kind, rid in (
        ("condition", "cond-a1"),
        ("medication", "med-a1"),
        ("observation", "obs-a3"),
        ("allergy", "alg-a1"),
        ("note", "note-a1"),
    ):
        assert f'data-ask-kind="{kind}" data-ask-id="{rid}"' in page
    assert 'aria-label="Ask about this: HbA1c 6.1 % (2024-03-01)"' in page
    assert "obs-b1" not in page and B not in page
