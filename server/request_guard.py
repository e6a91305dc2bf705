"""Refuse, before any route runs, a request line no database column could hold.

PostgreSQL text cannot contain NUL, and a path parameter or query value that is not valid
UTF-8 cannot be compared with one; both used to reach psycopg and come back as a 500
(`DataError`). Every URL of the app goes through this one check, so no handler (API, page,
`/mcp`) has to remember it: such a request gets 400 with a sentence, and nothing is logged
as an error or written to the audit log.
"""

from __future__ import annotations

import json
from urllib.parse import unquote_to_bytes

from starlette.types import ASGIApp, Receive, Scope, Send

BAD_REQUEST = json.dumps(
    {
        "error": "bad_request",
        "message": "The address contains characters that are not allowed (NUL or invalid UTF-8).",
    }
).encode()


def unstorable(raw: bytes) -> bool:
    """True when percent-decoding `raw` gives a NUL, another C0 control, or invalid UTF-8."""
    decoded = unquote_to_bytes(raw)
    if any(b < 0x20 for b in decoded):
        return True
    try:
        decoded.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


class RequestLineGuard:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            raw_path = scope.get("raw_path") or scope["path"].encode("utf-8", "surrogateescape")
            if unstorable(raw_path) or unstorable(scope.get("query_string", b"")) or "\x00" in scope["path"]:
                await send(
                    {
                        "type": "http.response.start",
                        "status": 400,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"content-length", str(len(BAD_REQUEST)).encode()),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": BAD_REQUEST})
                return
        await self.app(scope, receive, send)
