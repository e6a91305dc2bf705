"""Issue 18 items 4 and 12: `/mcp` with many sessions, real clients and hostile pages.

4. One account could open sessions until the pool was full (everyone else got 503).
12. A 401 carried no protected-resource metadata (clients started OAuth instead of showing the
    message), `Origin` was not checked, and an unknown tool came back as a tool result.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager

import httpx
import pytest
from starlette.applications import Starlette
from starlette.routing import Route

from mcp_server.http import McpMount
from tests.conftest import test_settings as make_settings
from tests.mcp_server.conftest import ALICE
from tests.mcp_server.test_http_endpoint import serve

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture()
def capped_url(demo, registry) -> Iterator[str]:
    settings = make_settings(mcp_max_sessions=4, mcp_max_sessions_per_account=2)
    mount = McpMount()

    @asynccontextmanager
    async def lifespan(app) -> AsyncIterator[None]:
        async with mount.running(settings, demo.db, registry):
            yield

    yield from serve(Starlette(routes=[Route("/mcp", endpoint=mount)], lifespan=lifespan))


def _open(url: str, token: str, patient: str | None = None, **headers: str) -> httpx.Response:
    sent = {**ACCEPT, "Authorization": f"Bearer {token}", **headers}
    if patient:
        sent["X-Chartside-Patient"] = patient
    return httpx.post(f"{url}/mcp", json=INITIALIZE, headers=sent, timeout=30)


def test_one_account_cannot_fill_the_session_pool(capped_url, demo):
    mine = [_open(capped_url, demo.tokens["alice"]) for _ in range(3)]
    assert [r.status_code for r in mine] == [200, 200, 429]
    assert "already has 2 MCP sessions open" in mine[2].json()["error"]["message"]
    others = [_open(capped_url, demo.tokens["dr-jones"], ALICE) for _ in range(2)]
    assert [r.status_code for r in others] == [200, 200]  # the pool still has room for others
    # closing a session frees a place for the same account
    session = mine[0].headers["mcp-session-id"]
    closed = httpx.delete(
        f"{capped_url}/mcp",
        headers={**ACCEPT, "Authorization": f"Bearer {demo.tokens['alice']}", "Mcp-Session-Id": session},
        timeout=30,
    )
    assert closed.status_code in (200, 204)
    assert _open(capped_url, demo.tokens["alice"]).status_code == 200


def test_a_401_points_at_metadata_that_lists_no_oauth_server(capped_url, demo):
    response = httpx.post(f"{capped_url}/mcp", json=INITIALIZE, headers=ACCEPT, timeout=30)
    assert response.status_code == 401
    challenge = response.headers["www-authenticate"]
    assert (
        'resource_metadata="http://127.0.0.1:' in challenge
        and "/.well-known/oauth-protected-resource/mcp" in challenge
    )
    assert "Authentication required" in response.json()["error"]["message"]


def test_the_web_app_serves_that_metadata():
    from starlette.testclient import TestClient

    from server.app import _protected_resource

    app = Starlette(routes=[Route("/.well-known/oauth-protected-resource/mcp", _protected_resource)])
    body = TestClient(app).get("/.well-known/oauth-protected-resource/mcp").json()
    assert body["authorization_servers"] == [] and body["resource"].endswith("/mcp")
    assert body["bearer_methods_supported"] == ["header"]


def test_a_page_of_another_origin_is_refused(capped_url, demo):
    foreign = _open(capped_url, demo.tokens["alice"], Origin="http://evil.example")
    same = _open(capped_url, demo.tokens["alice"], Origin=capped_url)
    assert foreign.status_code == 403 and "another origin" in foreign.json()["error"]["message"]
    assert same.status_code == 200


def test_an_unknown_tool_is_a_json_rpc_error(capped_url, demo):
    opened = _open(capped_url, demo.tokens["alice"])
    headers = {
        **ACCEPT,
        "Authorization": f"Bearer {demo.tokens['alice']}",
        "Mcp-Session-Id": opened.headers["mcp-session-id"],
        "Mcp-Protocol-Version": "2025-11-25",
    }
    httpx.post(
        f"{capped_url}/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers
    )
    called = httpx.post(
        f"{capped_url}/mcp",
        json={
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "drop_tables", "arguments": {}},
        },
        headers=headers,
        timeout=30,
    ).json()
    assert "result" not in called
    assert called["error"]["code"] == -32602 and "Unknown tool" in called["error"]["message"]
