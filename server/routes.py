"""The JSON + SSE API.

    POST /api/patients/{pid}/messages                 ask (JSON {question, conversation_id?, scope?, now?})
    GET  /api/patients/{pid}/messages/{mid}           the stored question/answer
    GET  /api/patients/{pid}/messages/{mid}/events    the answer as SSE (Last-Event-ID replays)
    GET  /api/patients/{pid}/conversations/{cid}      the messages of one conversation
    GET  /api/patients/{pid}/record                   the record at a glance
    GET  /api/patients/{pid}/records/{kind}/{rid}     one cited row / note passage / leaflet passage
    GET  /api/me                                      who am I, which patients
    GET  /healthz                                     database, schema revision, model mode

Every patient URL goes through `server.access.guard_patient` first.
"""

from __future__ import annotations

import datetime as dt
import re
from functools import partial
from typing import Any

import orjson
from sqlalchemy import text
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from agent import scoping
from records.audit import write_audit
from server import record_rows, record_view, store
from server.access import PatientAccess, guard_patient
from server.auth import csrf_token, resolve_principal
from server.errors import ApiError, bad_request, not_found, too_many, unauthenticated
from server.opening import open_answer
from server.question_text import QuestionError, clean_question
from server.store import StoredEvent
from server.trace import CLAIMED, FELL_BACK, ROUTED, mark

ID_RE = re.compile(r"^[0-9a-f]{32}$")
# record sections a question can be scoped to (issue 11): the tools' `section` names
SECTIONS = scoping.SECTIONS
ASK_FIELDS = {"question", "conversation_id", "scope", "now"}
EVENTS_ACTION = "http:GET events"


def services(request: Request) -> Any:
    return request.app.state.services


# --- asking ------------------------------------------------------------------------------------


async def post_message(request: Request) -> Response:
    access = await guard_patient(request, action="http:POST messages", capability="ask", rate="ask")
    body = await _json_body(request)
    settings = services(request).settings
    try:
        question = clean_question(body.get("question"), max_chars=settings.max_question_chars)
    except QuestionError as exc:
        raise bad_request(str(exc)) from None
    conversation_id = body.get("conversation_id")
    if conversation_id is not None and (
        not isinstance(conversation_id, str) or not ID_RE.match(conversation_id)
    ):
        raise bad_request("conversation_id: must be an id this service returned")
    scope = _ask_scope(body.get("scope"))
    pinned_now = _pinned_now(access, body.get("now"))
    svc = services(request)
    if scope and "record" in scope:
        await run_in_threadpool(_check_scoped_record, svc.db, access, scope["record"])
    try:
        message = await run_in_threadpool(
            store.create_message,
            svc.db,
            patient_id=access.patient_id,
            account_id=access.account_id,
            role=access.principal.role,
            question=question,
            conversation_id=conversation_id,
            scope=scope,
            pinned_now=pinned_now,
        )
    except store.NotOwned:
        raise not_found() from None
    base = f"/api/patients/{access.patient_id}/messages/{message.id}"
    return JSONResponse(
        {
            "message_id": message.id,
            "conversation_id": message.conversation_id,
            "question": message.question,
            "status": message.status,
            "events_url": f"{base}/events",
            "url": base,
        },
        status_code=201,
    )


async def _json_body(request: Request) -> dict[str, Any]:
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise ApiError(415, "unsupported_media_type", "Send the question as application/json.")
    try:
        body = orjson.loads(await request.body())
    except orjson.JSONDecodeError:
        raise bad_request("The body is not valid JSON.") from None
    if not isinstance(body, dict):
        raise bad_request("The body must be a JSON object.")
    unknown = sorted(set(body) - ASK_FIELDS)
    if unknown:
        raise bad_request(f"unknown field(s): {', '.join(unknown)[:200]}")
    return body


def _ask_scope(raw: Any) -> dict[str, Any] | None:
    """{"section": name} or {"record": {"kind": k, "id": id}} (issue 11), validated here."""
    try:
        parsed = scoping.AskScope.parse(raw)
    except scoping.ScopeError as exc:
        raise bad_request(str(exc)) from None
    return None if parsed is None else parsed.as_json()


def _check_scoped_record(db: Any, access: PatientAccess, record: dict[str, str]) -> None:
    """The selected row must be the bound patient's: another patient's id is the same 404 as a
    missing one, and the refusal is audited with the kind and id that were asked for."""
    found = record_rows.open_record(
        db, patient_id=access.patient_id, kind=record["kind"], record_id=record["id"]
    )
    if found is not None:
        return
    write_audit(
        db.app,
        actor=access.principal.actor,
        role=access.principal.role,
        action="http:POST messages scope",
        outcome="denied",
        target_patient_id=access.patient_id,
        detail=f"scoped record {record['kind']}/{record['id']} is not in this patient's record",
    )
    raise not_found()


def _pinned_now(access: PatientAccess, raw: Any) -> dt.datetime | None:
    if raw is None:
        return None
    if not access.principal.can("pin_now"):
        raise bad_request("now: only evaluator accounts may pin the time")
    try:
        value = dt.datetime.fromisoformat(str(raw))
    except ValueError:
        raise bad_request("now: must be an ISO 8601 date-time with a UTC offset") from None
    if value.tzinfo is None:
        raise bad_request("now: must be an ISO 8601 date-time with a UTC offset")
    return value


async def get_message(request: Request) -> Response:
    access = await guard_patient(request, action="http:GET message", capability="ask")
    message = await _load_message(request, access)
    return JSONResponse(_message_json(message))


def _message_json(message: store.StoredMessage) -> dict[str, Any]:
    return {
        "message_id": message.id,
        "conversation_id": message.conversation_id,
        "question": message.question,
        "scope": message.scope,
        "status": message.status,
        "answer": message.answer,
        "metrics": message.metrics,
        "created_at": message.created_at.isoformat(),
        "events": message.last_seq,
        "events_url": f"/api/patients/{message.patient_id}/messages/{message.id}/events",
    }


async def _load_message(request: Request, access: PatientAccess) -> store.StoredMessage:
    mid = request.path_params["message_id"]
    if not ID_RE.match(mid):
        raise not_found()
    message = await run_in_threadpool(
        store.load_message,
        services(request).db,
        patient_id=access.patient_id,
        message_id=mid,
        account_id=access.account_id,
    )
    if message is None:
        raise not_found()
    return message


async def get_conversation(request: Request) -> Response:
    access = await guard_patient(request, action="http:GET conversation", capability="ask")
    cid = request.path_params["conversation_id"]
    if not ID_RE.match(cid):
        raise not_found()
    try:
        messages = await run_in_threadpool(
            store.conversation_messages,
            services(request).db,
            patient_id=access.patient_id,
            conversation_id=cid,
            account_id=access.account_id,
        )
    except store.NotOwned:
        raise not_found() from None
    return JSONResponse({"conversation_id": cid, "messages": [_message_json(m) for m in messages]})


# --- streaming ---------------------------------------------------------------------------------


def _after_seq(request: Request) -> int:
    raw = request.headers.get("last-event-id") or request.query_params.get("after") or "0"
    if not raw.isdigit() or len(raw) > 9:
        raise bad_request("Last-Event-ID: must be an event id this stream sent")
    return int(raw)


class _ReleasingResponse(Response):
    """Wraps a streaming response so the account's stream slot is freed however it ends, and
    its `first_sent` called (`_sse` calls it once the first event is out)."""

    def __init__(self, inner: Response, release: Any, first_sent: Any) -> None:
        self.inner = inner
        self.release = release
        self.first_sent = first_sent
        self.background = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await self.inner(scope, receive, send)
        finally:
            self.first_sent()
            self.release()


async def message_events(request: Request) -> Response:
    """The answer as SSE (`_events`), counted in `RunManager.first_events` until its first
    event is sent or the request ends, so that closing writes let it go first."""
    mark(ROUTED)
    sent = services(request).runs.first_events.begin()
    try:
        response = await _events(request, sent)
    except BaseException:
        sent()
        raise
    if not isinstance(response, _ReleasingResponse):
        sent()
    return response


async def _events(request: Request, sent: Any) -> Response:
    """The answer as SSE. On the way to its first event, for an account this process has seen:
    one round trip on the event loop (`server.opening`: the revocation check, the message, the
    audit row, its claim and history, committed together). Otherwise, and whenever
    that path declines, the guard's one worker-thread hop and one transaction doing the same
    (`_guarded_open`). The per-message start lock is held around either, so a second reader
    in this process follows the run this one starts."""
    mid = request.path_params["message_id"]
    pid = str(request.path_params.get("patient_id", ""))
    svc = services(request)
    slots = svc.stream_slots
    try:
        after, bad_after = _after_seq(request), None
    except ApiError as exc:  # reported after the guard, as before: access is checked (and audited) first
        after, bad_after = 0, exc
    slot: list[int] = []  # the account whose stream slot `load` took

    async with svc.runs.opening(pid, mid) as live:
        opened = None
        if bad_after is None and svc.answer_pool is not None and ID_RE.match(mid):
            opened = await open_answer(
                svc.answer_pool,
                svc.principals,
                svc.rate_limits,
                slots,
                request,
                patient_id=pid,
                message_id=mid,
                after=after,
                claim=not live,
                owner=svc.runs.owner,
                action=EVENTS_ACTION,
            )
        if opened is not None:
            access = opened.access
            if opened.slot:
                slot.append(access.account_id)
        else:
            mark(FELL_BACK)
            access = await _guarded_open(request, svc, pid, mid, after, bad_after, live, slot)
        mark(CLAIMED)
        loaded, run = access.loaded, None
        if loaded is not None and loaded[1] is not None:  # claimed: this process runs it
            run = svc.runs.adopt(
                loaded[0],
                loaded[1],
                actor=access.principal.actor,
                role=access.principal.role,
                writes=access.principal.account.write_mode,
            )
    if bad_after is not None:
        raise bad_after
    if loaded is None:
        raise not_found()
    message = loaded[0]
    if message.finished and message.last_seq <= after:
        return Response(status_code=204)  # nothing left to send; EventSource stops reconnecting
    if not slot:
        raise too_many(f"At most {slots.limit} answers can stream at once for one account.", 5)
    try:
        events = svc.runs.events(
            message,
            actor=access.principal.actor,
            role=access.principal.role,
            after_seq=after,
            writes=access.principal.account.write_mode,
            live=run,
        )
        response = EventSourceResponse(
            _sse(events, sent), ping=svc.settings.stream_ping_s, headers={"X-Accel-Buffering": "no"}
        )
    except BaseException:
        slots.release(access.account_id)
        raise
    return _ReleasingResponse(response, lambda: slots.release(access.account_id), sent)


async def _guarded_open(
    request: Request,
    svc: Any,
    pid: str,
    mid: str,
    after: int,
    bad_after: ApiError | None,
    live: bool,
    slot: list[int],
) -> PatientAccess:
    """The opening through the patient guard (`server.opening` falls back here): ONE worker-
    thread hop and ONE transaction holding the guard's audit row, the message and — for a
    pending message that no run of this process owns — its claim."""
    slots = svc.stream_slots

    def load(conn: Any, principal: Any) -> tuple[store.StoredMessage, list | None] | None:
        if not ID_RE.match(mid):
            return None
        message = store.message_in(conn, patient_id=pid, message_id=mid, account_id=principal.account.id)
        if message is None or bad_after is not None or (message.finished and message.last_seq <= after):
            return (message, None) if message is not None else None
        if not slots.acquire(principal.account.id):
            return message, None
        slot.append(principal.account.id)
        turns = (
            store.claim_in(conn, message, svc.runs.owner)
            if message.status == "pending" and not live
            else None
        )
        return message, turns

    try:
        return await guard_patient(request, action=EVENTS_ACTION, capability="ask", then=load)
    except BaseException:
        for account in slot:
            slots.release(account)
        raise


async def _sse(batches: Any, first_sent: Any) -> Any:
    """Each batch of events (`RunManager.events`) as one body chunk: one write, not one each."""
    async for batch in batches:
        yield b"".join(_encode(event) for event in batch)
        first_sent()  # resumed once the chunk has been handed to the server (idempotent)


def _encode(event: StoredEvent) -> bytes:
    return ServerSentEvent(
        data=orjson.dumps(event.payload).decode(), event=event.type, id=str(event.seq)
    ).encode()


# --- the record --------------------------------------------------------------------------------


async def get_record(request: Request) -> Response:
    access = await guard_patient(request, action="http:GET record", capability="read_record")
    # the panel's clock: the wall clock, or (evaluators only) the instant `?now=` pins
    now = _pinned_now(access, request.query_params.get("now")) or dt.datetime.now(dt.UTC)
    glance = await run_in_threadpool(
        partial(record_view.at_a_glance, now=now), services(request).db, access.patient_id
    )
    return JSONResponse(glance.as_json())


async def open_cited(request: Request) -> Response:
    access = await guard_patient(request, action="http:GET cited record", capability="read_record")
    kind, record_id = request.path_params["kind"], request.path_params["record_id"]
    if kind not in record_rows.KINDS or len(record_id) > 200:
        raise not_found()
    found = await run_in_threadpool(
        record_rows.open_record,
        services(request).db,
        patient_id=access.patient_id,
        kind=kind,
        record_id=record_id,
        passage=request.query_params.get("passage"),
    )
    if found is None:
        raise not_found()
    return JSONResponse(found)


# --- who am I, health --------------------------------------------------------------------------


async def me(request: Request) -> Response:
    principal = await run_in_threadpool(resolve_principal, services(request).db, request)
    if principal is None:
        raise unauthenticated()
    account = principal.account
    body: dict[str, Any] = {
        "username": account.username,
        "role": account.role,
        "patients": list(account.patient_ids),
    }
    if principal.via == "session":
        # same-origin readers only (no CORS): lets a cookie-authenticated script send X-CSRF-Token
        body["csrf_token"] = csrf_token(request)
    return JSONResponse(body)


def _health(svc: Any) -> tuple[int, dict[str, Any]]:
    body: dict[str, Any] = {
        "model": "offline" if svc.settings.offline else "claude",
        "embedder": "loaded" if svc.embedder is not None else "absent",
        "agent": type(svc.agent).__name__,
        "runs_in_progress": svc.runs.running(),
    }
    try:
        # begin(), not connect(): a read that rolls back drops the connection's prepared statements
        with svc.db.app.begin() as conn:
            body["schema_revision"] = conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
        body["database"] = "ok"
    except Exception:
        body["database"] = "unreachable"
        return 503, {"status": "unavailable", **body}
    return 200, {"status": "ok", **body}


async def healthz(request: Request) -> Response:
    status, body = await run_in_threadpool(_health, services(request))
    return JSONResponse(body, status_code=status)


def api_routes() -> list[Route]:
    p = "/api/patients/{patient_id}"
    return [
        Route("/healthz", healthz),
        Route("/api/me", me),
        Route(f"{p}/messages", post_message, methods=["POST"]),
        Route(f"{p}/messages/{{message_id}}", get_message),
        Route(f"{p}/messages/{{message_id}}/events", message_events),
        Route(f"{p}/conversations/{{conversation_id}}", get_conversation),
        Route(f"{p}/record", get_record),
        Route(f"{p}/records/{{kind}}/{{record_id}}", open_cited),
    ]
