"""The stdio server through the MCP SDK's own client, in process (both protocol eras)."""

from __future__ import annotations

import re

import pytest
from mcp import Client

from mcp_server.stdio import PatientNotFound, bind_stdio, build_stdio_server
from tests.mcp_server.conftest import BOB, appointments, audit_rows
from tests.mcp_server.fake_tools import READ_TOOL_ARGUMENTS

pytestmark = pytest.mark.anyio

# "legacy" = the initialize handshake (what desktop clients speak today); "auto" probes
# server/discover and, in process, runs the stateless 2026-07-28 path.
MODES = ["legacy", "auto"]


def stdio_server(demo, registry, role="patient"):
    binding = bind_stdio(demo.db, demo.patient, role, actor="mcp-stdio:tester")
    return build_stdio_server(registry, demo.db, binding), binding


def handles_in(text: str) -> set[str]:
    return set(re.findall(r"\[([A-Z]+\d+)\]", text))


@pytest.mark.parametrize("mode", MODES)
async def test_tools_are_listed_with_the_agents_exact_schemas(demo, registry, mode):
    server, _ = stdio_server(demo, registry)
    async with Client(server, mode=mode) as client:
        listed = await client.list_tools()
    published = {t.name: (t.description, t.input_schema) for t in listed.tools}
    agents = {d["name"]: (d["description"], d["input_schema"]) for d in registry.definitions()}
    assert published == agents
    read_only = {t.name: t.annotations.read_only_hint for t in listed.tools}
    assert read_only["book_appointment"] is False
    assert all(read_only[name] for name in READ_TOOL_ARGUMENTS)


@pytest.mark.parametrize("mode", MODES)
async def test_each_read_tool_returns_the_bound_patients_rows_with_handles_and_audit(demo, registry, mode):
    server, binding = stdio_server(demo, registry)
    async with Client(server, mode=mode) as client:
        for name, arguments in READ_TOOL_ARGUMENTS.items():
            result = await client.call_tool(name, arguments)
            assert not result.is_error, result.content
            text = result.content[0].text
            rows = result.structured_content["rows"]
            assert rows, f"{name} returned no rows for the demo patient"
            assert result.structured_content["total"] == len(rows)
            cited = {c["handle"] for c in result.structured_content["citations"]}
            assert cited == {row["handle"] for row in rows} == handles_in(text)
            assert "Bob" not in text and "Asthma" not in text and "9.9" not in text
    calls = audit_rows(demo.db, conversation_id=binding.conversation.id, actor="mcp-stdio:tester")
    tool_calls = [r for r in calls if r["action"].startswith("tool:")]
    assert [r["action"] for r in tool_calls] == [f"tool:{n}" for n in READ_TOOL_ARGUMENTS]
    assert {(r["outcome"], r["target_patient_id"], r["role"]) for r in tool_calls} == {
        ("ok", demo.patient, "patient")
    }


async def test_handles_are_stable_within_a_session_and_fresh_in_the_next(demo, registry):
    server, _ = stdio_server(demo, registry)
    async with Client(server, mode="legacy") as client:
        first = await client.call_tool("latest_labs", {})
        await client.call_tool("list_conditions", {"status": "all"})
        again = await client.call_tool("latest_labs", {})
    assert first.content[0].text == again.content[0].text
    assert handles_in(first.content[0].text) == {"L1", "L2"}
    server2, _ = stdio_server(demo, registry)
    async with Client(server2, mode="legacy") as client:
        conditions = await client.call_tool("list_conditions", {"status": "all"})
    assert handles_in(conditions.content[0].text) == {"C1", "C2"}


@pytest.mark.parametrize(
    "arguments", [{"patient_id": BOB}, {"status": "all", "patient": BOB}, {"subject": BOB}]
)
async def test_naming_another_patient_in_arguments_is_refused_and_audited(demo, registry, arguments):
    server, binding = stdio_server(demo, registry)
    async with Client(server, mode="legacy") as client:
        result = await client.call_tool("list_conditions", arguments)
    assert result.is_error
    assert result.structured_content["error_kind"] == "bad_argument"
    assert "is not an argument of list_conditions" in result.content[0].text
    assert "Asthma" not in result.content[0].text
    (row,) = audit_rows(demo.db, conversation_id=binding.conversation.id, action="tool:list_conditions")
    assert (row["outcome"], row["target_patient_id"]) == ("bad_argument", demo.patient)


def test_binding_an_unknown_patient_is_refused_and_audited(demo, registry):
    with pytest.raises(PatientNotFound):
        bind_stdio(demo.db, "pat-nobody", "clinician", actor="mcp-stdio:tester")
    (row,) = audit_rows(demo.db, target_patient_id="pat-nobody")
    assert (row["action"], row["outcome"], row["role"]) == ("mcp:bind", "denied", "clinician")


@pytest.mark.parametrize("mode", MODES)
async def test_booking_goes_through_find_slots_in_the_same_session_and_books_once(demo, registry, mode):
    server, binding = stdio_server(demo, registry)
    async with Client(server, mode=mode) as client:
        early = await client.call_tool("book_appointment", {"slot_id": demo.slot_ids[0]})
        assert early.is_error and early.structured_content["error_kind"] == "not_allowed"

        offered = await client.call_tool("find_slots", {"specialty": "general practice", "limit": 2})
        offered_ids = [row["id"] for row in offered.structured_content["rows"]]
        assert offered_ids == list(demo.slot_ids[:2])

        not_offered = await client.call_tool("book_appointment", {"slot_id": demo.slot_ids[2]})
        assert not_offered.is_error and not_offered.structured_content["error_kind"] == "not_allowed"

        booked = await client.call_tool("book_appointment", {"slot_id": offered_ids[0], "reason": "check-up"})
        assert not booked.is_error, booked.content
        # asked again in a new request: refused by the booking itself, nothing new is booked
        again = await client.call_tool("book_appointment", {"slot_id": offered_ids[0], "reason": "check-up"})
        assert again.is_error and again.structured_content["error_kind"] == "conflict"

    (appointment,) = appointments(demo.db, demo.patient)
    assert appointment["slot_id"] == offered_ids[0]
    assert appointment["conversation_id"] == binding.conversation.id
    assert appointment["booked_by"] == "mcp-stdio:tester"

    # A new session is a new conversation: what the first one was offered is not bookable here.
    server2, _ = stdio_server(demo, registry)
    async with Client(server2, mode=mode) as client:
        other_session = await client.call_tool("book_appointment", {"slot_id": offered_ids[1]})
    assert other_session.is_error and other_session.structured_content["error_kind"] == "not_allowed"
    assert len(appointments(demo.db, demo.patient)) == 1
