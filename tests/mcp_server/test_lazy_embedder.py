"""Issue 18 item 12: `initialize` must not wait for the embedding model.

`chartside mcp` loaded the model before serving, and on a busy 2-core machine `initialize`
took 20–25 s: desktop clients give up at 15 s. Now the model loads in the background and only
a search call waits for it (knowledge.embeddings.get_embedder).
"""

from __future__ import annotations

from concurrent.futures import Future

import pytest
from mcp import Client

from mcp_server.stdio import bind_stdio, build_stdio_server

pytestmark = pytest.mark.anyio


async def test_initialize_and_record_tools_answer_while_the_model_is_still_loading(catalog_demo, catalog):
    loading: Future = Future()  # never finishes until the test says so
    binding = bind_stdio(catalog_demo.db, catalog_demo.patient, "patient", actor="mcp-stdio:tester")
    async with Client(
        build_stdio_server(catalog, catalog_demo.db, binding, embedder=loading), mode="legacy"
    ) as c:
        listed = await c.list_tools()
        conditions = await c.call_tool("get_conditions", {})
        assert listed.tools and not conditions.is_error
        assert not loading.done()
    loading.set_result(None)
