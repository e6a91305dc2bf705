"""The agent's real tool catalog over MCP (in process): every read tool, a booking, a refusal."""

from __future__ import annotations

import pytest
from mcp import Client

from mcp_server.stdio import bind_stdio, build_stdio_server
from tests.mcp_server.catalog_calls import handles_in, must_have_rows, read_calls
from tests.mcp_server.conftest import appointments, audit_rows

pytestmark = pytest.mark.anyio

CANARIES = ("CANARY", "Otto", "9.9")


async def test_the_catalog_is_published_with_the_agents_exact_definitions(catalog_demo, catalog):
    binding = bind_stdio(catalog_demo.db, catalog_demo.patient, "patient", actor="mcp-stdio:tester")
    async with Client(build_stdio_server(catalog, catalog_demo.db, binding), mode="legacy") as client:
        listed = await client.list_tools()
    assert [(t.name, t.description, t.input_schema) for t in listed.tools] == [
        (d["name"], d["description"], d["input_schema"]) for d in catalog.definitions()
    ]
    writes = {t.name for t in listed.tools if not t.annotations.read_only_hint}
    assert writes == {name for name in catalog.names() if catalog.get(name).writes}
    destructive = {t.name for t in listed.tools if t.annotations.destructive_hint}
    assert destructive == writes - {"book_appointment"}


async def test_every_read_tool_answers_about_the_bound_patient_with_handles(
    catalog_demo, catalog, catalog_embedder
):
    binding = bind_stdio(catalog_demo.db, catalog_demo.patient, "clinician", actor="mcp-stdio:tester")
    server = build_stdio_server(catalog, catalog_demo.db, binding, embedder=catalog_embedder)
    calls = read_calls(catalog)
    async with Client(server, mode="legacy") as client:
        for name, arguments in calls:
            result = await client.call_tool(name, arguments)
            text = result.content[0].text
            assert not result.is_error, (name, text)
            assert not any(canary in text for canary in CANARIES), (name, text)
            handles = {c["handle"] for c in result.structured_content["citations"]}
            assert handles == handles_in(text) == {row["handle"] for row in result.structured_content["rows"]}
            assert handles or not must_have_rows(catalog, name), f"{name} found nothing in the demo record"
    rows = [
        r for r in audit_rows(catalog_demo.db, actor="mcp-stdio:tester") if r["action"].startswith("tool:")
    ]
    assert [r["action"] for r in rows] == [f"tool:{name}" for name, _ in calls]
    assert {(r["outcome"], r["role"], r["target_patient_id"]) for r in rows} == {
        ("ok", "clinician", catalog_demo.patient)
    }
    assert {r["conversation_id"] for r in rows} == {binding.conversation.id}


async def test_booking_with_the_catalog_goes_through_find_slots_and_books_once(catalog_demo, catalog):
    binding = bind_stdio(catalog_demo.db, catalog_demo.patient, "patient", actor="mcp-stdio:tester")
    async with Client(build_stdio_server(catalog, catalog_demo.db, binding), mode="legacy") as client:
        offered = await client.call_tool(
            "find_slots", {"specialty_or_department": "general practice", "limit": 3}
        )
        assert not offered.is_error, offered.content[0].text
        slot_id = offered.structured_content["rows"][0]["slot_id"]
        # the handle from this session's find_slots result is accepted as well as the slot id
        booked = await client.call_tool("book_appointment", {"slot_id": "S1", "reason": "check-up"})
        assert not booked.is_error, booked.content[0].text
        # issue 18 item 12: the tool is annotated idempotent, so booking the held slot again
        # (a new request) reports the same appointment instead of an error
        again = await client.call_tool("book_appointment", {"slot_id": slot_id, "reason": "check-up"})
        assert not again.is_error, again.content[0].text
        assert (
            again.structured_content["rows"][0]["appointment_id"]
            == booked.structured_content["rows"][0]["appointment_id"]
        )
        assert "Already booked" in again.content[0].text
        listed = await client.call_tool("list_appointments", {})
    assert booked.structured_content["rows"][0]["slot_id"] == slot_id
    assert listed.structured_content["total"] == 1
    (appointment,) = appointments(catalog_demo.db, catalog_demo.patient)
    assert appointment["slot_id"] == slot_id
    assert (appointment["booked_by"], appointment["conversation_id"]) == (
        "mcp-stdio:tester",
        binding.conversation.id,
    )


async def test_a_slot_from_another_session_is_refused(catalog_demo, catalog):
    first = bind_stdio(catalog_demo.db, catalog_demo.patient, "patient", actor="mcp-stdio:tester")
    async with Client(build_stdio_server(catalog, catalog_demo.db, first), mode="legacy") as client:
        offered = await client.call_tool(
            "find_slots", {"specialty_or_department": "general practice", "limit": 1}
        )
    slot_id = offered.structured_content["rows"][0]["slot_id"]
    second = bind_stdio(catalog_demo.db, catalog_demo.patient, "patient", actor="mcp-stdio:tester")
    async with Client(build_stdio_server(catalog, catalog_demo.db, second), mode="legacy") as client:
        refused = await client.call_tool("book_appointment", {"slot_id": slot_id})
    assert refused.is_error and refused.structured_content["error_kind"] == "not_allowed"
    assert appointments(catalog_demo.db, catalog_demo.patient) == []


@pytest.mark.parametrize(
    "arguments", [{"patient_id": "p-mcp-other"}, {"query": "asthma", "subject": "p-mcp-other"}]
)
async def test_naming_another_patient_is_refused_and_audited(catalog_demo, catalog, arguments):
    binding = bind_stdio(catalog_demo.db, catalog_demo.patient, "clinician", actor="mcp-stdio:tester")
    async with Client(build_stdio_server(catalog, catalog_demo.db, binding), mode="legacy") as client:
        result = await client.call_tool("get_conditions", arguments)
    assert result.is_error and result.structured_content["error_kind"] == "bad_argument"
    assert "CANARY" not in result.content[0].text
    (row,) = audit_rows(catalog_demo.db, action="tool:get_conditions", actor="mcp-stdio:tester")
    assert (row["outcome"], row["target_patient_id"]) == ("bad_argument", catalog_demo.patient)
