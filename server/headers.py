"""Security headers on every response (a plain ASGI middleware, so streams are not buffered).

The CSP allows scripts, styles, images and connections from this origin only (images also
as data: URIs): no inline script can run, an injected external image is never fetched, and
the page cannot be framed. Patient data is never cached.
"""

from __future__ import annotations

import logging

from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger(__name__)

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; form-action 'self'; frame-ancestors 'none'; "
    "base-uri 'none'; object-src 'none'"
)

SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=(), payment=()"),
)


class SecurityHeadersMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        static = scope["path"].startswith("/static/")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [
                    (k, v) for k, v in message.get("headers", []) if k.lower() != b"cache-control" or static
                ]
                headers.extend(SECURITY_HEADERS)
                if not static:
                    headers.append((b"cache-control", b"no-store"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


BODY_LIMIT_MODULE = "starlette.middleware.body_limit"


class GenericErrorMiddleware:
    """Turn any unhandled exception into a generic 500 and log the traceback here.

    Starlette's own error middleware re-raises after answering, and uvicorn then closes the
    connection abruptly; catching it here keeps the connection healthy, and — inside the
    security-header middleware — gives error pages the same headers as every other page.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except Exception as exc:
            if type(exc).__module__ == BODY_LIMIT_MODULE:
                # not a fault: Starlette's body-size limit signals its 413 by raising through
                # the app and answers it in its own outer middleware; one line, no traceback
                log.info("%s %s: request body too large (413)", scope.get("method"), scope.get("path"))
                raise
            log.exception("unhandled error on %s %s", scope.get("method"), scope.get("path"))
            if started:
                return
            wants_html = not scope["path"].startswith("/api/") and any(
                k == b"accept" and b"text/html" in v for k, v in scope.get("headers", [])
            )
            if wants_html:
                body, media = GENERIC_HTML, b"text/html; charset=utf-8"
            else:
                body, media = GENERIC_JSON, b"application/json"
            await send(
                {
                    "type": "http.response.start",
                    "status": 500,
                    "headers": [(b"content-type", media), (b"content-length", str(len(body)).encode())],
                }
            )
            await send({"type": "http.response.body", "body": body})


GENERIC_JSON = b'{"error":"internal","message":"Something went wrong. Please try again."}'
GENERIC_HTML = (
    b"<!doctype html><html lang=en><meta charset=utf-8><title>Error</title>"
    b"<h1>Something went wrong. Please try again.</h1><p><a href=/>Back to the start</a></p></html>"
)
