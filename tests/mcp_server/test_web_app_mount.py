"""/mcp inside the real web app: its accounts, its binding rule, its rate limits, and the
agent's tool catalog, driven by the MCP SDK's HTTP client."""

from __future__ import annotations

import httpx
import pytest

from server.app import create_app
from server.live import LiveServer
from tests import conftest as base
from tests.mcp_server.catalog_calls import handles_in, read_calls
from tests.mcp_server.conftest import appointments, audit_rows
from tests.mcp_server.test_catalog_over_stdio import CANARIES
from tests.mcp_server.test_http_endpoint import connect, refused

pytestmark = pytest.mark.anyio


@pytest.fixture()
def web_app(catalog_demo):
    """start(**settings) -> the web app's URL, on a loopback port until the test ends."""
    started: list[LiveServer] = []

    def start(**overrides) -> str:
        live = LiveServer(create_app(base.test_settings(**overrides), db=catalog_demo.db)).__enter__()
        started.append(live)
        return live.url

    yield start
    for live in started:
        live.__exit__(None, None, None)


async def test_the_web_app_serves_the_agents_catalog_at_slash_mcp(web_app, catalog_demo, catalog):
    url = web_app()
    async with connect(url, catalog_demo.tokens["dr-jones"], catalog_demo.patient) as (client, _):
        listed = await client.list_tools()
        results = {name: await client.call_tool(name, arguments) for name, arguments in read_calls(catalog)}
    assert [(t.name, t.input_schema) for t in listed.tools] == [
        (d["name"], d["input_schema"]) for d in catalog.definitions()
    ]
    for name, result in results.items():
        text = result.content[0].text
        assert not result.is_error, (name, text)
        assert not any(canary in text for canary in CANARIES), (name, text)
        assert {c["handle"] for c in result.structured_content["citations"]} == handles_in(text)
    rows = [
        r for r in audit_rows(catalog_demo.db, actor="mcp-http:dr-jones") if r["action"].startswith("tool:")
    ]
    assert [r["action"] for r in rows] == [f"tool:{name}" for name, _ in read_calls(catalog)]
    assert {(r["role"], r["target_patient_id"], r["outcome"]) for r in rows} == {
        ("clinician", catalog_demo.patient, "ok")
    }


async def test_booking_over_the_web_apps_mcp_endpoint(web_app, catalog_demo):
    url = web_app()
    async with connect(url, catalog_demo.tokens["alice"]) as (client, _):
        offered = await client.call_tool(
            "find_slots", {"specialty_or_department": "general practice", "limit": 2}
        )
        slot_id = offered.structured_content["rows"][0]["slot_id"]
        async with connect(url, catalog_demo.tokens["alice"]) as (other_session, _):
            elsewhere = await other_session.call_tool("book_appointment", {"slot_id": slot_id})
        booked = await client.call_tool("book_appointment", {"slot_id": slot_id, "reason": "check-up"})
    assert elsewhere.is_error and elsewhere.structured_content["error_kind"] == "not_allowed"
    assert not booked.is_error, booked.content[0].text
    (appointment,) = appointments(catalog_demo.db, catalog_demo.patient)
    assert appointment["slot_id"] == slot_id and appointment["booked_by"] == "mcp-http:alice"


async def test_the_web_apps_binding_rule_applies_to_mcp(web_app, catalog_demo):
    url = web_app()
    messages = []
    for token, patient in (
        (catalog_demo.tokens["alice"], catalog_demo.other),  # a patient naming someone else
        (catalog_demo.tokens["dr-other"], catalog_demo.patient),  # off the clinician's panel
        (catalog_demo.tokens["dr-other"], "p-nobody"),  # no such patient
    ):
        with refused("No such patient") as outcome:
            async with connect(url, token, patient) as (client, _):
                await client.list_tools()
        messages.append(str(outcome.error))
    assert len(set(messages)) == 1
    with refused("Authentication required"):
        async with connect(url, "cs_not-a-token") as (client, _):
            await client.list_tools()


async def test_the_web_apps_per_account_rate_limit_covers_mcp(web_app, catalog_demo):
    url = web_app(api_rate_per_minute=3)
    statuses = []
    async with httpx.AsyncClient() as http:
        for i in range(5):
            response = await http.post(
                f"{url}/mcp",
                json={"jsonrpc": "2.0", "id": i, "method": "ping"},
                headers={
                    "Authorization": f"Bearer {catalog_demo.tokens['alice']}",
                    "Accept": "application/json",
                },
            )
            statuses.append(response.status_code)
    assert 429 not in statuses[:3] and statuses[3:] == [429, 429]
    assert int(response.headers["retry-after"]) >= 1
    assert "Too many requests" in response.json()["error"]["message"]
