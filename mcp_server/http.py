"""Streamable-HTTP MCP endpoint for the web app (`/mcp`), authenticated by account token.

Every HTTP request is authenticated again (a disabled account or a replaced token stops
working at once) and bound to a patient exactly as the chat API binds one:

* patients get their own record (naming any other patient is refused);
* clinicians name a patient on their panel in the connection, with the
  `X-Chartside-Patient` header or `?patient=` in the endpoint URL.

An unknown patient and a forbidden one get the same refusal, and every refusal is audited.
The (account, patient) pair becomes the SDK's authenticated principal, so the SDK's session
manager refuses a session id presented with another token or another patient.

Each MCP session (`Mcp-Session-Id`) is one conversation. That needs the stateful initialize
handshake: the 2026-07-28 stateless protocol has no session to hang a conversation on, so
its `server/discover` probe is answered "method not found" (clients then fall back to the
handshake) and stateless tool calls are refused with an explanation.

Mount it in Starlette as `Route("/mcp", endpoint=app)` (a `Mount` would redirect `/mcp` to
`/mcp/`) and run `app.lifespan()` inside the web app's lifespan; served on its own (uvicorn
directly) it runs its lifespan itself. A web app that opens its database (and embedder) only
in its lifespan routes `/mcp` to an `McpMount` and starts it there with `mount.running(...)`.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio.to_thread
from mcp.server import ServerRequestContext
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from starlette.authentication import AuthCredentials
from starlette.types import Receive, Scope, Send

from mcp_server import access, audit
from mcp_server.binding import Binding, BindingRefused
from mcp_server.catalog import RegistryUnavailable, load_registry
from mcp_server.conversation import Conversation, ConversationStore
from mcp_server.http_auth import (
    FOREIGN_ORIGIN,
    NOT_RUNNING,
    Principal,
    Refusal,
    Throttle,
    authenticate,
    bearer_token,
    foreign_origin,
    refusal_from,
)
from mcp_server.server import build_mcp_server
from records.database import Database
from records.settings import Settings
from tools.registry import Registry

log = logging.getLogger(__name__)

SESSION_HEADER = "mcp-session-id"
PRINCIPAL_KEY = "chartside.mcp.principal"


ACCOUNT_PREFIX = "chartside-account:"


class AccountCappedSessionManager(StreamableHTTPSessionManager):
    """The SDK's session manager, with a cap on the sessions one account may hold open.

    The SDK caps sessions only in total (`max_sessions`), so one account opening sessions in a
    loop could take every slot and leave everybody else with 503. The cap is checked where the
    SDK admits a session, under its session-creation lock, so concurrent openings cannot slip
    past it.
    """

    def __init__(self, *args: Any, max_sessions_per_account: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.max_sessions_per_account = max_sessions_per_account

    def open_sessions(self, client_id: str) -> int:
        """Sessions the principal `client_id` holds open right now."""
        return sum(
            1
            for session_id, owner in self._session_owners.items()
            if owner.get("client_id") == client_id and session_id in self._server_instances
        )

    def _admit_session(self, requestor: Any) -> Any:
        client_id = requestor.get("client_id") if requestor else None
        if client_id and self.open_sessions(client_id) >= self.max_sessions_per_account:
            return None
        return super()._admit_session(requestor)


class McpHttpApp:
    """The ASGI app behind `/mcp`. Build with `build_mcp_asgi_app`."""

    def __init__(
        self,
        db: Database,
        registry: Registry,
        *,
        embedder: Any = None,
        session_idle_timeout_s: float,
        max_sessions: int,
        max_sessions_per_account: int | None = None,
        throttle: Throttle | None = None,
    ) -> None:
        self.db = db
        self.throttle = throttle
        self.conversations = ConversationStore(
            transport="http", idle_timeout_s=session_idle_timeout_s, max_conversations=max_sessions
        )
        self.server = build_mcp_server(registry, db, self.bind, embedder=embedder, serve_discover=False)
        self.session_manager = AccountCappedSessionManager(
            app=self.server,
            json_response=True,  # plain JSON answers: nothing here streams, and proxies pass JSON untouched
            stateless=False,  # a session is a conversation
            session_idle_timeout=session_idle_timeout_s,
            max_sessions=max_sessions,
            max_sessions_per_account=max_sessions_per_account or max_sessions,
        )

    @asynccontextmanager
    async def lifespan(self) -> AsyncIterator[None]:
        """Run the SDK's session manager; enter it once, inside the web app's lifespan."""
        async with self.session_manager.run():
            yield

    def bind(self, ctx: ServerRequestContext[Any, Any]) -> Binding:
        request = ctx.request
        principal = request.scope.get(PRINCIPAL_KEY) if request is not None else None
        if not isinstance(principal, Principal):
            raise BindingRefused("this request was not authenticated")
        session_id = request.headers.get(SESSION_HEADER)
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS or not session_id:
            raise BindingRefused(
                "Chartside keeps one conversation per MCP session (booking only accepts slots "
                "offered in the same session); connect with the initialize handshake "
                "(protocol 2025-11-25 or earlier)."
            )
        key = f"{session_id}:{principal.account_id}:{principal.patient_id}"

        def audit_opening(conversation: Conversation) -> None:
            audit.record(
                self.db,
                actor=principal.actor,
                role=principal.role,
                target_patient_id=principal.patient_id,
                action="mcp:bind",
                outcome="ok",
                detail="http session bound",
                conversation_id=conversation.id,
            )

        return Binding(
            patient_id=principal.patient_id,
            role=principal.role,
            actor=principal.actor,
            conversation=self.conversations.get(key, on_first_call=audit_opening),
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._serve_lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if foreign_origin(headers):
            await FOREIGN_ORIGIN.send(send)
            return
        outcome = await anyio.to_thread.run_sync(self._admit, headers, scope.get("query_string", b""))
        if isinstance(outcome, Refusal):
            await outcome.send(send)
            return
        if SESSION_HEADER not in headers:  # opening a session: say why, if this account is at its cap
            manager = self.session_manager
            if (
                manager.open_sessions(f"{ACCOUNT_PREFIX}{outcome.account_id}")
                >= manager.max_sessions_per_account
            ):
                await Refusal(
                    429,
                    f"This account already has {manager.max_sessions_per_account} MCP sessions open, the most "
                    "allowed: close one (DELETE it), or wait until idle ones end.",
                    (("retry-after", "60"),),
                ).send(send)
                return
        token_hash = access.hash_api_token(bearer_token(headers) or "")
        scope = {
            **scope,
            "user": outcome.sdk_user(token_hash),
            "auth": AuthCredentials([outcome.role]),
            PRINCIPAL_KEY: outcome,
        }
        await self.session_manager.handle_request(scope, receive, send)

    def _admit(self, headers: dict[str, str], query_string: bytes) -> Principal | Refusal:
        outcome = authenticate(self.db, headers, query_string)
        if isinstance(outcome, Principal) and self.throttle is not None:
            try:
                self.throttle(outcome.account_id)
            except Exception as exc:
                refusal = refusal_from(exc)
                if refusal is None:
                    raise
                return refusal
        return outcome

    async def _serve_lifespan(self, receive: Receive, send: Send) -> None:
        """ASGI lifespan for when this app is served on its own rather than mounted."""
        await receive()  # lifespan.startup
        started = False
        try:
            async with self.lifespan():
                await send({"type": "lifespan.startup.complete"})
                started = True
                await receive()  # lifespan.shutdown
        except Exception as exc:
            log.exception("the MCP session manager failed")
            phase = "shutdown" if started else "startup"
            await send({"type": f"lifespan.{phase}.failed", "message": str(exc)})
            return
        await send({"type": "lifespan.shutdown.complete"})


def build_mcp_asgi_app(
    settings: Settings,
    db: Database,
    registry: Registry,
    *,
    embedder: Any = None,
    throttle: Throttle | None = None,
) -> McpHttpApp:
    """The `/mcp` endpoint for the web app, sharing its database, tool registry and (through
    `throttle`) its per-account rate limits."""
    return McpHttpApp(
        db,
        registry,
        embedder=embedder,
        throttle=throttle,
        session_idle_timeout_s=settings.mcp_session_idle_timeout_s,
        max_sessions=settings.mcp_max_sessions,
        max_sessions_per_account=settings.mcp_max_sessions_per_account,
    )


class McpMount:
    """A `/mcp` route endpoint for a web app whose database and embedder exist only once its
    lifespan runs:

        mount = McpMount()
        routes = [..., Route("/mcp", endpoint=mount)]
        # in the lifespan, after opening the database and loading the embedder:
        async with mount.running(settings, db, embedder=embedder):
            yield

    Without a `registry` it publishes the agent's catalog (`tools.catalog`). Before the
    lifespan has started it, after it stopped, or when no tool catalog is installed,
    requests get 503 with the reason.
    """

    def __init__(self) -> None:
        self.app: McpHttpApp | None = None
        self.unavailable = NOT_RUNNING

    @asynccontextmanager
    async def running(
        self,
        settings: Settings,
        db: Database,
        registry: Registry | None = None,
        *,
        embedder: Any = None,
        throttle: Throttle | None = None,
    ) -> AsyncIterator[McpHttpApp | None]:
        if registry is None:
            try:
                registry = load_registry()
            except RegistryUnavailable as exc:
                log.warning("the MCP endpoint is off: %s", exc)
                self.unavailable = Refusal(
                    503, "The MCP endpoint is not available: no tool catalog is installed."
                )
                yield None
                return
        app = build_mcp_asgi_app(
            settings, db, registry, embedder=embedder, throttle=throttle
        )
        async with app.lifespan():
            self.app = app
            try:
                yield app
            finally:
                self.app = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.app is None:
            if scope["type"] == "http":
                await self.unavailable.send(send)
            return
        await self.app(scope, receive, send)
