"""Issue 18 item 12: `initialize` must not wait for the embedding model.

`chartside mcp` loaded the model before serving, and on a busy 2-core machine `initialize`
took 20–25 s: desktop clients give up at 15 s. Now the stdio server starts without an
embedder and only a search call loads it (tools.search_tools → knowledge.embeddings.load_embedder).
"""

from __future__ import annotations

import pytest
from mcp import Client

import tools.search_tools
from mcp_server.stdio import bind_stdio, build_stdio_server

pytestmark = pytest.mark.anyio


async def test_initialize_and_record_tools_answer_without_loading_the_model(
    catalog_demo, catalog, monkeypatch
):
    loads: list[object] = []
    monkeypatch.setattr(tools.search_tools, "load_embedder", lambda settings: loads.append(settings))
    binding = bind_stdio(catalog_demo.db, catalog_demo.patient, "patient", actor="mcp-stdio:tester")
    async with Client(build_stdio_server(catalog, catalog_demo.db, binding), mode="legacy") as c:
        listed = await c.list_tools()
        conditions = await c.call_tool("get_conditions", {})
        assert listed.tools and not conditions.is_error
    assert loads == []
