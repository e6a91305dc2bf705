"""Server-rendered pages: login, the clinician's panel picker, and the chat page.

Templates are Jinja2 with autoescaping on; every value from the record is text. The chat
page's script (`static/chat.js`) streams answers; it is the only script on the site.
"""

from __future__ import annotations

import datetime as dt
from functools import partial
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from records.accounts import end_sessions
from server import record_view, store
from server.access import client_key, guard_patient
from server.auth import Principal, check_csrf, csrf_token, resolve_principal, start_session
from server.charts import sparkline
from server.errors import forbidden, unauthenticated
from server.login import attempt_login
from server.routes import ID_RE, SECTIONS


def _svc(request: Request) -> Any:
    return request.app.state.services


def _render(
    request: Request,
    name: str,
    context: dict[str, Any],
    status: int = 200,
    headers: dict[str, str] | None = None,
) -> Response:
    context = {"csrf_token": csrf_token(request), **context}
    return _svc(request).templates.TemplateResponse(
        request, name, context, status_code=status, headers=headers
    )


async def _principal(request: Request) -> Principal | None:
    return await run_in_threadpool(resolve_principal, _svc(request).db, request)


def _landing(principal: Principal) -> str:
    account = principal.account
    if account.role == "patient" and account.bound_patient_id:
        return f"/patients/{account.bound_patient_id}"
    return "/patients"


async def home(request: Request) -> Response:
    principal = await _principal(request)
    if principal is None or not principal.can("pages"):
        return RedirectResponse("/login", status_code=303)
    return RedirectResponse(_landing(principal), status_code=303)


async def login_page(request: Request) -> Response:
    principal = await _principal(request)
    if principal is not None and principal.can("pages"):
        return RedirectResponse(_landing(principal), status_code=303)
    return _render(request, "login.html", {"error": None, "username": ""})


async def login_submit(request: Request) -> Response:
    form = await request.form()
    check_csrf(request, str(form.get("csrf_token") or ""))
    username = str(form.get("username") or "").strip()[:64]
    password = str(form.get("password") or "")[:256]
    svc = _svc(request)
    result = await run_in_threadpool(
        attempt_login,
        svc.db,
        svc.rate_limits,
        username=username,
        password=password,
        client=client_key(request),
    )
    if result.account is None:
        headers = {"Retry-After": str(result.retry_after_s)} if result.retry_after_s else None
        return _render(
            request, "login.html", {"error": result.message, "username": username}, result.status, headers
        )
    account = result.account
    start_session(request, account)
    return RedirectResponse(_landing(Principal(account, "session")), status_code=303)


async def logout(request: Request) -> Response:
    form = await request.form()
    check_csrf(request, str(form.get("csrf_token") or ""))
    principal = await _principal(request)
    if principal is not None:  # copies of this cookie (other tabs, a stolen one) die too
        await run_in_threadpool(end_sessions, _svc(request).db.app, principal.account.id)
    request.session.clear()
    return RedirectResponse("/login", status_code=303)


async def panel_page(request: Request) -> Response:
    principal = await _principal(request)
    if principal is None:
        raise unauthenticated()
    if not principal.can("pages"):
        raise forbidden()
    if principal.account.role == "patient":
        return RedirectResponse(_landing(principal), status_code=303)
    patients = await run_in_threadpool(
        record_view.patient_cards, _svc(request).db, list(principal.account.panel)
    )
    return _render(request, "panel.html", {"account": principal.account, "patients": patients})


async def chat_page(request: Request) -> Response:
    access = await guard_patient(request, action="page:chat", capability="pages")
    svc = _svc(request)
    glance = await run_in_threadpool(
        partial(record_view.at_a_glance, now=dt.datetime.now(dt.UTC)), svc.db, access.patient_id
    )
    charts = {s.code: sparkline(s.points) for s in glance.labs}
    account = access.principal.account
    panel = []
    if account.role != "patient":
        panel = await run_in_threadpool(record_view.patient_cards, svc.db, list(account.panel))
    conversation_id = request.query_params.get("c")
    earlier: list[store.StoredMessage] = []
    if conversation_id and ID_RE.match(conversation_id):
        try:
            earlier = await run_in_threadpool(
                store.conversation_messages,
                svc.db,
                patient_id=access.patient_id,
                conversation_id=conversation_id,
                account_id=account.id,
            )
        except store.NotOwned:
            conversation_id = None
    else:
        conversation_id = None
    return _render(
        request,
        "chat.html",
        {
            "account": account,
            "patient_id": access.patient_id,
            "glance": glance,
            "charts": charts,
            "panel": panel,
            "conversation_id": conversation_id or "",
            "earlier": earlier,
            "sections": SECTIONS,
            "max_question_chars": svc.settings.max_question_chars,
            "offline": svc.settings.offline,
        },
    )


def page_routes() -> list[Route]:
    return [
        Route("/", home),
        Route("/login", login_page, methods=["GET"]),
        Route("/login", login_submit, methods=["POST"]),
        Route("/logout", logout, methods=["POST"]),
        Route("/patients", panel_page),
        Route("/patients/{patient_id}", chat_page),
    ]
