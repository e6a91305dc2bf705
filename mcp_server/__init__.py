"""Chartside as an MCP server: the agent's patient-scoped tools for any MCP client.

Two transports share one tool surface (`mcp_server.server.build_mcp_server`):

* stdio (`chartside mcp --patient ID`): the local operator binds one patient on the command
  line; the process is one MCP session and so one conversation.
* streamable HTTP (`mcp_server.http.build_mcp_asgi_app`, mounted at `/mcp`): every request
  carries an account bearer token; the patient is bound from the account exactly as the chat
  API binds it, and each MCP session is one conversation.

The package is not called `mcp` so that it cannot shadow the SDK.
"""
