"""A `ToolResult` as an MCP tool result: the model-facing text plus structured rows.

The text content is exactly what the agent's model reads (rows with their citation handles,
or an explanation it can act on), so an MCP client's model sees the same thing Chartside's
own agent sees. `structuredContent` carries the rows and citations for clients that render
or check them; failures are `isError` results, never protocol errors, so the client's model
can read the explanation and try again.
"""

from __future__ import annotations

from typing import Any

import mcp.types as types

from tools.results import ToolResult


def structured(result: ToolResult) -> dict[str, Any]:
    dumped = result.model_dump(mode="json")
    return {
        "ok": dumped["ok"],
        "rows": dumped["rows"],
        "citations": [
            {key: citation[key] for key in ("handle", "kind", "record_id", "label")}
            for citation in dumped["citations"]
        ],
        "total": dumped["total"],
        "truncated": dumped["truncated"],
        "error_kind": dumped["error_kind"],
    }


def to_call_tool_result(result: ToolResult) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=result.text)],
        structured_content=structured(result),
        is_error=not result.ok,
    )
