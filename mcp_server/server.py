"""The MCP server both transports run: the agent's registry, published and executed as is.

`tools/list` publishes `Registry.definitions()` unchanged (same names, descriptions and strict
input schemas as the agent's tools), so what an MCP client's model may send is exactly what
Chartside's own model may send. `tools/call` runs `Registry.execute` with the session's
`PatientScope` and `HandleBook`: the same validation, row-level security, limits, audit row
and citation handles as an agent tool call.

The low-level `Server` is used (not the decorator-based `MCPServer`) because it publishes
our JSON schemas verbatim instead of deriving new ones from Python signatures.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import anyio.to_thread
import mcp.types as types
from mcp.server import Server, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND

from mcp_server.binding import Binding, BindingRefused, call_message_id
from mcp_server.results import to_call_tool_result
from records.database import Database
from tools.registry import Registry, Tool, ToolContext
from tools.results import ToolResult

log = logging.getLogger(__name__)

SERVER_NAME = "chartside"

INSTRUCTIONS = (
    "These tools read ONE patient's medical record; the server chose the patient, and no tool "
    "can read anyone else's. Every row in a result carries a citation handle such as [L3] or "
    "[M1]; cite the handles for every fact you state, and say so when the record does not "
    "contain something instead of guessing. Chartside is a records reader, not a clinician. "
    "book_appointment only accepts a slot_id that find_slots returned earlier in this same "
    "session."
)

Binder = Callable[[ServerRequestContext[Any, Any]], Binding]


def chartside_version() -> str:
    try:
        return version("chartside")
    except PackageNotFoundError:  # running from a checkout without an install
        return "0"


def tool_listing(registry: Registry) -> list[types.Tool]:
    """The registry's definitions as MCP tools; input schemas are passed through untouched."""
    listed = []
    for definition in registry.definitions():
        tool = registry.get(definition["name"])
        assert tool is not None
        listed.append(
            types.Tool(
                name=definition["name"],
                description=definition["description"],
                input_schema=definition["input_schema"],
                annotations=annotations_for(tool),
            )
        )
    return listed


# Writes that only add (a booking can be cancelled again); any other write is announced as
# destructive, so clients that ask the user before destructive calls ask before these.
ADDITIVE_WRITES = frozenset({"book_appointment"})


def annotations_for(tool: Tool) -> types.ToolAnnotations:
    if tool.writes:
        # repeating a call has no further effect: a resent request replays its result, a new
        # one for the same slot or appointment is refused (see binding.call_message_id)
        return types.ToolAnnotations(
            read_only_hint=False,
            destructive_hint=tool.name not in ADDITIVE_WRITES,
            idempotent_hint=True,
            open_world_hint=False,
        )
    return types.ToolAnnotations(read_only_hint=True, open_world_hint=False)


def build_mcp_server(
    registry: Registry,
    db: Database,
    binder: Binder,
    *,
    embedder: Any = None,
    now: dt.datetime | None = None,
    serve_discover: bool = True,
) -> Server[Any]:
    """An MCP server over `registry`; `binder` turns each request into a `Binding`.

    `serve_discover=False` answers the 2026-07-28 `server/discover` probe with "method not
    found", which makes clients fall back to the initialize handshake: the HTTP transport
    needs a stateful session to be a conversation (see `mcp_server.http`).
    """

    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tool_listing(registry))

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        if params.name not in registry:  # a protocol error (JSON-RPC), not a tool result
            raise MCPError(
                code=INVALID_PARAMS, message=f"Unknown tool: {params.name[:100]!r}; see tools/list"
            )
        try:
            binding = binder(ctx)
        except BindingRefused as exc:
            raise MCPError(code=INVALID_REQUEST, message=str(exc)) from None
        arguments = dict(params.arguments or {})
        message_id = call_message_id(binding.conversation.id, ctx.request_id)

        tool_ctx = ToolContext(
            scope=binding.scope(message_id),
            db=db,
            handles=binding.conversation.handles,
            embedder=embedder,
            now=now,
        )

        def run() -> ToolResult:
            binding.conversation.first_call_done()
            return registry.execute(tool_ctx, params.name, arguments)

        async with binding.conversation.lock:
            result = await anyio.to_thread.run_sync(run)
        return to_call_tool_result(result)

    server: Server[Any] = Server(
        SERVER_NAME,
        version=chartside_version(),
        title="Chartside",
        description="Grounded, cited reads of one patient's medical record, and appointment booking.",
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
    if not serve_discover:

        async def no_discover(ctx: ServerRequestContext[Any, Any], params: types.RequestParams) -> None:
            raise MCPError(
                code=METHOD_NOT_FOUND,
                message="this server keeps a conversation per session: connect with the initialize handshake",
            )

        server.add_request_handler("server/discover", types.RequestParams, no_discover)
    return server
