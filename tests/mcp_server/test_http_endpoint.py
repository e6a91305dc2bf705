"""The streamable-HTTP endpoint, mounted at /mcp in a Starlette app served by uvicorn on a
loopback port, driven by the MCP SDK's own HTTP client."""

from __future__ import annotations

import re
import socket
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager

import httpx
import pytest
import uvicorn
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from sqlalchemy import text
from starlette.applications import Starlette
from starlette.routing import Route

from mcp_server.catalog import RegistryUnavailable
from mcp_server.http import McpMount, build_mcp_asgi_app
from tests.mcp_server.conftest import ALICE, BOB, appointments, audit_rows
from tests.mcp_server.fake_tools import READ_TOOL_ARGUMENTS

pytestmark = pytest.mark.anyio


def serve(app) -> Iterator[str]:
    """Run `app` under uvicorn on a free loopback port (the socket is bound before the thread
    starts, so there is no port race) until the fixture ends."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        thread.join(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


@pytest.fixture(scope="module")
def base_url(db, registry, settings) -> Iterator[str]:
    """The endpoint mounted the way the web app mounts it: routed at /mcp, started in the
    app's lifespan once the database is open."""
    mount = McpMount()

    @asynccontextmanager
    async def lifespan(app) -> AsyncIterator[None]:
        async with mount.running(settings, db, registry):
            yield

    yield from serve(Starlette(routes=[Route("/mcp", endpoint=mount)], lifespan=lifespan))


class Refused:
    """What the client raised: an MCPError, possibly inside the task groups' exception groups."""

    error: MCPError | None = None


@contextmanager
def refused(match: str) -> Iterator[Refused]:
    outcome = Refused()
    try:
        yield outcome
    except BaseException as exc:
        pending = [exc]
        while pending:
            current = pending.pop()
            if isinstance(current, MCPError):
                outcome.error = current
                break
            if isinstance(current, BaseExceptionGroup):
                pending.extend(current.exceptions)
        if outcome.error is None:
            raise
    assert outcome.error is not None, "the connection was not refused"
    assert re.search(match, str(outcome.error)), str(outcome.error)


@asynccontextmanager
async def connect(
    base_url: str, token: str | None, patient: str | None = None, *, query: str = "", mode="auto"
):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    if patient:
        headers["X-Chartside-Patient"] = patient
    async with create_mcp_http_client(headers=headers) as http:
        transport = streamable_http_client(f"{base_url}/mcp{query}", http_client=http)
        async with Client(transport, mode=mode) as client:
            yield client, http


async def test_http_lists_the_agents_tools_and_reads_the_patients_own_record(base_url, demo, registry):
    async with connect(base_url, demo.tokens["alice"]) as (client, _):
        assert client.session.protocol_version == "2025-11-25"  # fell back to the handshake
        listed = await client.list_tools()
        results = {name: await client.call_tool(name, args) for name, args in READ_TOOL_ARGUMENTS.items()}
    assert [(t.name, t.description, t.input_schema) for t in listed.tools] == [
        (d["name"], d["description"], d["input_schema"]) for d in registry.definitions()
    ]
    assert results["list_conditions"].content[0].text == (
        "[C1] Hypertension (active, since 2019-03-01)\n[C2] Sprain of ankle (resolved, since 2021-06-10)"
    )
    assert (
        results["latest_labs"].content[0].text
        == "[L1] Cholesterol total: 190.0 mg/dL\n[L2] Hemoglobin A1c: 5.8 %"
    )
    assert "Alice Example" in results["get_demographics"].content[0].text
    rows = [r for r in audit_rows(demo.db, actor="mcp-http:alice") if r["action"].startswith("tool:")]
    assert [r["action"] for r in rows] == [f"tool:{n}" for n in READ_TOOL_ARGUMENTS]
    assert {(r["target_patient_id"], r["role"], r["outcome"]) for r in rows} == {(ALICE, "patient", "ok")}
    assert len({r["conversation_id"] for r in rows}) == 1
    # the session's binding is audited once, under the same conversation id as its calls
    binds = audit_rows(demo.db, actor="mcp-http:alice", action="mcp:bind")
    assert [(r["outcome"], r["target_patient_id"], r["conversation_id"]) for r in binds] == [
        ("ok", ALICE, rows[0]["conversation_id"])
    ]


@pytest.mark.parametrize("token", [None, "tok-wrong", "Basic abc"])
async def test_http_without_a_valid_token_is_refused_and_audited(base_url, demo, token):
    with refused("Authentication required"):
        async with connect(base_url, token) as (client, _):
            await client.list_tools()
    refused_rows = audit_rows(demo.db, action="mcp:auth", outcome="unauthenticated")
    assert refused_rows and {r["actor"] for r in refused_rows} == {"mcp-http:anonymous"}


async def test_http_refusals_have_status_and_body_an_http_client_can_read(base_url, demo):
    async with httpx.AsyncClient() as http:
        response = await http.post(
            f"{base_url}/mcp",
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            headers={"Authorization": "Bearer tok-wrong"},
        )
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert response.json()["error"]["message"].startswith("Authentication required")


async def test_http_patient_cannot_bind_another_patient(base_url, demo):
    with refused("No such patient is available to this account"):
        async with connect(base_url, demo.tokens["alice"], BOB) as (client, _):
            await client.list_tools()
    denied = audit_rows(demo.db, actor="mcp-http:alice", outcome="denied")
    # one row per refused HTTP request (the client probes server/discover, then tries initialize)
    assert denied and {(r["action"], r["target_patient_id"]) for r in denied} == {("mcp:bind", BOB)}


async def test_a_nul_in_the_requested_patient_id_is_refused_and_still_audited(base_url, demo):
    """PostgreSQL text cannot hold NUL: the one audit writer stores it visibly instead of
    losing the row of exactly the request that probes for that."""
    async with httpx.AsyncClient() as http:
        response = await http.post(
            f"{base_url}/mcp?patient=pat%00evil",
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            headers={"Authorization": f"Bearer {demo.tokens['dr-jones']}"},
        )
    assert response.status_code in (403, 404)
    (row,) = audit_rows(demo.db, actor="mcp-http:dr-jones", outcome="denied")
    assert (row["action"], row["target_patient_id"]) == ("mcp:bind", "pat\\x00evil")


async def test_http_clinician_reads_a_panel_patient_named_by_header_or_query(base_url, demo):
    async with connect(base_url, demo.tokens["dr-jones"], ALICE) as (client, _):
        by_header = await client.call_tool("list_conditions", {})
    async with connect(base_url, demo.tokens["dr-jones"], query=f"?patient={ALICE}") as (client, _):
        by_query = await client.call_tool("list_conditions", {})
    assert (
        by_header.content[0].text
        == by_query.content[0].text
        == "[C1] Hypertension (active, since 2019-03-01)"
    )
    rows = audit_rows(demo.db, actor="mcp-http:dr-jones", action="tool:list_conditions")
    assert {(r["role"], r["target_patient_id"]) for r in rows} == {("clinician", ALICE)}


async def test_http_clinician_off_panel_and_unknown_patients_get_the_same_refusal(base_url, demo):
    messages = []
    for patient in (ALICE, "pat-nobody"):  # dr-other looks after Bob only
        with refused("No such patient") as outcome:
            async with connect(base_url, demo.tokens["dr-other"], patient) as (client, _):
                await client.list_tools()
        messages.append(str(outcome.error))
    assert messages[0] == messages[1]
    assert "No such patient is available to this account" in messages[0]
    denied = audit_rows(demo.db, actor="mcp-http:dr-other", outcome="denied")
    assert {r["target_patient_id"] for r in denied} == {ALICE, "pat-nobody"}


async def test_http_evaluators_cannot_read_records_even_on_their_panel(base_url, demo):
    with refused("role cannot read patient records"):
        async with connect(base_url, demo.tokens["evaluator"], ALICE) as (client, _):
            await client.list_tools()
    rows = audit_rows(demo.db, actor="mcp-http:evaluator")
    assert rows and {(r["outcome"], r["target_patient_id"]) for r in rows} == {("forbidden", ALICE)}


async def test_http_clinician_must_name_a_patient(base_url, demo):
    with refused("must name a patient"):
        async with connect(base_url, demo.tokens["dr-jones"]) as (client, _):
            await client.list_tools()


async def test_http_session_stays_bound_to_its_patient_and_account(base_url, demo):
    async with connect(base_url, demo.tokens["dr-jones"], ALICE) as (client, http):
        first = await client.call_tool("list_conditions", {})
        assert "Hypertension" in first.content[0].text
        # Bob is on dr-jones's panel too, but this session (conversation) was opened for Alice:
        # the SDK answers as if the session did not exist.
        http.headers["X-Chartside-Patient"] = BOB
        with refused("Session"):
            await client.call_tool("list_conditions", {})
        # another account's token cannot ride on the session either
        http.headers["X-Chartside-Patient"] = BOB
        http.headers["Authorization"] = f"Bearer {demo.tokens['dr-other']}"
        with refused("Session"):
            await client.call_tool("list_conditions", {})
    assert not [
        r for r in audit_rows(demo.db, action="tool:list_conditions") if r["target_patient_id"] == BOB
    ]


async def test_http_booking_needs_a_slot_offered_in_the_same_session(base_url, demo):
    async with connect(base_url, demo.tokens["alice"]) as (first, _):
        offered = await first.call_tool("find_slots", {"specialty": "general practice", "limit": 2})
        slot_ids = [row["id"] for row in offered.structured_content["rows"]]
        assert slot_ids == list(demo.slot_ids[:2])

        async with connect(base_url, demo.tokens["alice"]) as (second, _):
            elsewhere = await second.call_tool("book_appointment", {"slot_id": slot_ids[0]})
        assert elsewhere.is_error and elsewhere.structured_content["error_kind"] == "not_allowed"

        booked = await first.call_tool("book_appointment", {"slot_id": slot_ids[0]})
    assert not booked.is_error
    (appointment,) = appointments(demo.db, ALICE)
    assert appointment["booked_by"] == "mcp-http:alice"
    assert appointment["conversation_id"].startswith("mcp-http-")


class RawSession:
    """JSON-RPC by hand, to resend a request with the same id (which the SDK client never does)."""

    def __init__(self, http: httpx.AsyncClient, url: str, token: str) -> None:
        self.http, self.url = http, url
        self.headers = {
            "Authorization": f"Bearer {token}",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2025-11-25",
        }

    async def post(self, message: dict) -> dict | None:
        response = await self.http.post(self.url, json=message, headers=self.headers)
        response.raise_for_status()
        return response.json() if response.content else None

    async def open(self) -> None:
        response = await self.http.post(
            self.url,
            headers=self.headers,
            json={
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "1"},
                },
            },
        )
        response.raise_for_status()
        self.headers["Mcp-Session-Id"] = response.headers["mcp-session-id"]
        await self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})

    async def call(self, request_id: int, name: str, arguments: dict) -> dict:
        reply = await self.post(
            {
                "jsonrpc": "2.0",
                "id": request_id,
                "method": "tools/call",
                "params": {"name": name, "arguments": arguments},
            }
        )
        assert reply is not None and reply["id"] == request_id
        return reply["result"]


async def test_http_a_resent_booking_request_replays_instead_of_booking_twice(base_url, demo):
    async with httpx.AsyncClient() as http:
        session = RawSession(http, f"{base_url}/mcp", demo.tokens["alice"])
        await session.open()
        offered = await session.call(1, "find_slots", {"specialty": "general practice", "limit": 1})
        slot_id = offered["structuredContent"]["rows"][0]["id"]
        booked = await session.call(2, "book_appointment", {"slot_id": slot_id})
        resent = await session.call(2, "book_appointment", {"slot_id": slot_id})
        asked_again = await session.call(3, "book_appointment", {"slot_id": slot_id})
    assert not booked["isError"] and not resent["isError"]
    assert resent["structuredContent"]["rows"] == booked["structuredContent"]["rows"]
    assert resent["content"][0]["text"].startswith("[B1] Already booked")
    assert asked_again["isError"] and asked_again["structuredContent"]["error_kind"] == "conflict"
    (appointment,) = appointments(demo.db, ALICE)
    assert appointment["slot_id"] == slot_id


async def test_http_stateless_protocol_calls_are_refused_with_an_explanation(base_url, demo):
    async with connect(base_url, demo.tokens["alice"], mode="2026-07-28") as (client, _):
        with refused("one conversation per MCP session"):
            await client.call_tool("list_conditions", {})


async def test_the_endpoint_also_serves_on_its_own_running_its_own_lifespan(db, registry, settings, demo):
    app = build_mcp_asgi_app(settings, db, registry)
    for url in serve(app):  # one iteration; the generator stops uvicorn afterwards
        async with connect(url, demo.tokens["alice"]) as (client, _):
            listed = await client.list_tools()
        assert [t.name for t in listed.tools] == registry.names()


async def test_the_mount_answers_503_until_the_app_lifespan_started_it():
    app = Starlette(routes=[Route("/mcp", endpoint=McpMount())])
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as http:
        response = await http.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert response.status_code == 503
    assert "not running" in response.json()["error"]["message"]


class Limited(Exception):
    """Shaped like the web API's errors (status, message, headers)."""

    def __init__(self) -> None:
        super().__init__("slow down")
        self.status, self.message, self.headers = (
            429,
            "Too many requests. Try again in 7 s.",
            {"Retry-After": "7"},
        )


async def test_the_web_apps_rate_limits_apply_per_account(db, registry, settings, demo):
    with db.admin.connect() as conn:
        limited_id = conn.execute(text("SELECT id FROM accounts WHERE username = 'dr-other'")).scalar_one()
    seen: list[int] = []

    def throttle(account_id: int) -> None:
        seen.append(account_id)
        if account_id == limited_id:
            raise Limited()

    for url in serve(build_mcp_asgi_app(settings, db, registry, throttle=throttle)):
        async with httpx.AsyncClient() as http:
            response = await http.post(
                url,
                json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                headers={"Authorization": f"Bearer {demo.tokens['dr-other']}", "X-Chartside-Patient": BOB},
            )
        async with connect(url, demo.tokens["alice"]) as (client, _):
            assert not (await client.call_tool("list_conditions", {})).is_error
    assert response.status_code == 429 and response.headers["retry-after"] == "7"
    assert response.json()["error"]["message"] == "Too many requests. Try again in 7 s."
    assert limited_id in seen and len(set(seen)) == 2


async def test_without_a_tool_catalog_the_mount_says_so_instead_of_failing_the_app(db, settings, monkeypatch):
    def no_catalog():
        raise RegistryUnavailable("cannot load the tool registry 'tools.catalog:build_registry'")

    monkeypatch.setattr("mcp_server.http.load_registry", no_catalog)
    mount = McpMount()

    @asynccontextmanager
    async def lifespan(app) -> AsyncIterator[None]:
        async with mount.running(settings, db):
            yield

    for url in serve(Starlette(routes=[Route("/mcp", endpoint=mount)], lifespan=lifespan)):
        async with httpx.AsyncClient() as http:
            response = await http.post(f"{url}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert response.status_code == 503
    assert "no tool catalog is installed" in response.json()["error"]["message"]
