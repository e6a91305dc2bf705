"""The Starlette application: `create_app(settings)` and what its lifespan holds.

The lifespan owns the database engines, the one embedder (loaded once through
`tools.embedder` and handed to the agent and the `/mcp` mount), the agent and its model client, and the run manager; shutting down cancels the
runs in flight (each closes its message as cancelled). The server keeps no state that
matters outside the database — sessions are signed cookies, runs are claimed and stored in
PostgreSQL — so several processes can run behind a load balancer (rate-limit counters and
open-stream counts are per process; see `server.throttle`).
"""

from __future__ import annotations

import contextlib
import gc
import logging
import os
import secrets
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2
from sqlalchemy import exc as sa_exc
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from agent.base import Agent
from mcp_server.http import McpMount
from mcp_server.http_auth import PROTECTED_RESOURCE_PATH, protected_resource_metadata
from records.async_pool import app_pool
from records.database import Database, open_database
from records.settings import Settings
from server import closing, opening
from server.errors import ApiError
from server.formatting import appointment_when
from server.headers import GenericErrorMiddleware, SecurityHeadersMiddleware
from server.principals import PrincipalCache
from server.runs import RunManager
from server.sweeper import sweeping
from server.throttle import RateLimits, StreamSlots
from tools.embedder import load_embedder

log = logging.getLogger(__name__)

HERE = Path(__file__).parent
SESSION_COOKIE = "chartside_session"


@dataclass
class Resources:
    """What an agent factory may build an agent from."""

    settings: Settings
    db: Database
    embedder: Any = None


AgentFactory = Callable[[Resources], Agent]


@dataclass
class Services:
    settings: Settings
    db: Database
    agent: Agent
    runs: RunManager
    rate_limits: RateLimits
    stream_slots: StreamSlots
    templates: Jinja2Templates
    embedder: Any = None
    principals: PrincipalCache = field(default_factory=PrincipalCache)
    answer_pool: Any = None  # records.async_pool: the answer stream's opening (server/opening.py)
    extra: dict[str, Any] = field(default_factory=dict)


def load_secret_key(settings: Settings) -> str:
    """The configured secret, or one generated once into data_dir/secret_key (mode 0600)."""
    if settings.secret_key is not None and settings.secret_key.get_secret_value():
        return settings.secret_key.get_secret_value()
    path = settings.resolved_data_dir() / "secret_key"
    if path.exists():
        return path.read_text().strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(48)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(key)
    return key


def create_app(
    settings: Settings,
    *,
    db: Database | None = None,
    agent_factory: AgentFactory | None = None,
    extra_routes: Sequence[BaseRoute] = (),
    embedder: Any = None,
    dedicated: bool = False,
) -> Starlette:
    """The web app. `embedder`: the one to use instead of loading it in the lifespan (a
    `tools.embedder.DeferredEmbedder` lets `chartside up` serve before the model is loaded).
    `dedicated`: this process serves only this app (`chartside serve`, the benchmark): the
    answer openings' pool is opened full (no growing while first events wait) and what
    start-up allocated is frozen out of the garbage collector (`_freeze_heap`). Tests, which
    start many apps in one process, keep neither."""
    from server import pages, routes
    from server.wiring import default_agent_factory

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"), autoescape=True)
    templates = Jinja2Templates(env=env)
    templates.env.globals["static_version"] = _static_version()
    templates.env.filters["when"] = appointment_when

    given_embedder = embedder
    mcp = McpMount()  # the MCP endpoint (mcp_server.http); started below once the database is open

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        database = db or await run_in_threadpool(open_database, settings)
        embedder = given_embedder or await run_in_threadpool(load_embedder, settings)
        agent = (agent_factory or default_agent_factory)(Resources(settings, database, embedder))
        # this process's run-owner lock, and the sweep of answers a dead process left running
        stack = contextlib.AsyncExitStack()
        owner = await stack.enter_async_context(sweeping(database))
        answer_pool = app_pool(
            database,
            max_size=settings.db_pool_size,
            timeout_s=settings.db_pool_timeout_s,
            options=opening.connection_options(),
            min_size=settings.db_pool_size if dedicated else 1,
            prepared=(*opening.PREPARED, *closing.PREPARED),
        )
        await answer_pool.open(wait=False)  # connects in the background; a request meanwhile waits
        stack.push_async_callback(answer_pool.close)
        runs = RunManager(
            db=database, settings=settings, agent=agent, owner=owner.id if owner else None, pool=answer_pool
        )
        app.state.services = Services(
            settings=settings,
            db=database,
            agent=agent,
            runs=runs,
            rate_limits=RateLimits(settings),
            stream_slots=StreamSlots(settings.max_streams_per_account),
            templates=templates,
            embedder=embedder,
            answer_pool=answer_pool,
        )
        limits = app.state.services.rate_limits
        try:
            async with mcp.running(
                settings,
                database,
                embedder=embedder,
                throttle=lambda account_id: limits.hit("api", str(account_id)),
            ):
                if dedicated:
                    _freeze_heap()
                yield
        finally:
            await runs.shutdown()
            await stack.aclose()
            if db is None:
                database.dispose()

    middleware = [
        Middleware(SecurityHeadersMiddleware),
        Middleware(GenericErrorMiddleware),
        Middleware(
            SessionMiddleware,
            secret_key=load_secret_key(settings),
            session_cookie=SESSION_COOKIE,
            max_age=settings.session_max_age_s,
            same_site="lax",
            https_only=settings.secure_cookies,
        ),
    ]
    app = Starlette(
        routes=[
            *routes.api_routes(),
            *pages.page_routes(),
            Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
            Route("/mcp", endpoint=mcp),
            Route(PROTECTED_RESOURCE_PATH, _protected_resource),
            Route(f"{PROTECTED_RESOURCE_PATH}/mcp", _protected_resource),
            *extra_routes,
        ],
        middleware=middleware,
        exception_handlers={
            ApiError: _api_error,
            HTTPException: _http_error,
            sa_exc.OperationalError: _database_unavailable,
            sa_exc.InterfaceError: _database_unavailable,
            sa_exc.TimeoutError: _database_unavailable,
            sa_exc.DataError: _unstorable_input,
        },
        lifespan=lifespan,
        max_body_size=settings.max_body_bytes,
    )
    app.state.templates = templates
    return app


def _freeze_heap() -> None:
    """Move every object start-up left (modules, the app, pools, models) out of the garbage
    collector's generations (`gc.freeze`): a full collection then scans only what requests
    allocate. Measured by `chartside bench serve` ("GC ms / round": 51 → 4 ms): each full
    collection walked the whole start-up heap in the middle of answers' first events. No
    `gc.collect()` first: it took ~1 s on a loaded machine, on the way to serving, and what it
    would free (start-up's own cyclic garbage) is a bounded, one-time amount."""
    gc.freeze()


async def _protected_resource(request: Request) -> Response:
    """RFC 9728 metadata of `/mcp` (what an MCP client reads after a 401)."""
    headers = {k.lower(): v for k, v in request.headers.items()}
    return JSONResponse(protected_resource_metadata(headers, request.url.scheme))


def _static_version() -> str:
    """Cache-busting suffix for static URLs: changes whenever a static file changes."""
    newest = max((p.stat().st_mtime_ns for p in (HERE / "static").iterdir()), default=0)
    return format(newest, "x")[-8:]


def _wants_html(request: Request) -> bool:
    return not request.url.path.startswith("/api/") and "text/html" in request.headers.get("accept", "")


def _error_response(
    request: Request, status: int, code: str, message: str, headers: dict[str, str]
) -> Response:
    if _wants_html(request):
        templates: Jinja2Templates = request.app.state.templates
        return templates.TemplateResponse(
            request, "error.html", {"status": status, "message": message}, status_code=status, headers=headers
        )
    return JSONResponse({"error": code, "message": message}, status_code=status, headers=headers)


async def _api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    if exc.status == 401 and _wants_html(request):
        from starlette.responses import RedirectResponse

        return RedirectResponse("/login", status_code=303)
    return _error_response(request, exc.status, exc.code, exc.message, exc.headers)


GENERIC = {
    400: ("bad_request", "Bad request."),
    404: ("not_found", "Not found."),
    405: ("method_not_allowed", "Method not allowed."),
    413: ("too_large", "The request is too large."),
}


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    code, message = GENERIC.get(exc.status_code, ("error", "The request could not be handled."))
    return _error_response(request, exc.status_code, code, message, dict(exc.headers or {}))


async def _unstorable_input(request: Request, exc: Exception) -> Response:
    """A value the database cannot hold or compare reached a query (a NUL in a path parameter,
    text where a number belongs): the request is bad, not the server. 400, one log line.

    Every handler gets this from one place; patient ids never get here, because the access
    guard refuses (and audits) an id that names no patient before any record query runs.
    """
    log.info("unstorable input on %s %s: %s", request.method, request.url.path, type(exc.orig).__name__)
    return _error_response(
        request, 400, "bad_request", "The request contains characters or values that are not allowed.", {}
    )


DB_RETRY_AFTER_S = 5


async def _database_unavailable(request: Request, exc: Exception) -> Response:
    """The database is down, unreachable or every pooled connection is busy: say so (503).

    Nothing was decided or written for this request (it failed before or inside its own
    transaction), so asking again shortly is safe.
    """
    busy = isinstance(exc, sa_exc.TimeoutError)
    log.warning(
        "database %s on %s %s: %s", "busy" if busy else "unavailable", request.method, request.url.path, exc
    )
    message = (
        "The service is busy right now. Please try again in a few seconds."
        if busy
        else "The record database is unavailable right now. Please try again in a minute."
    )
    return _error_response(
        request, 503, "busy" if busy else "unavailable", message, {"Retry-After": str(DB_RETRY_AFTER_S)}
    )
