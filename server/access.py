"""The guard in front of every `/api/patients/{patient_id}/…` handler.

In order: authenticate → rate limit → role capability → CSRF (cookie POSTs) → patient
binding. The binding is the server's, never the model's: a patient account reaches only its
own patient, a clinician or evaluator only the patients on its panel. A patient that is not
allowed and a patient that does not exist get the same 404, and both are audited with the
patient id that was asked for.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, text
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from records.audit import write_audit
from records.database import Database, set_patient
from server.auth import CSRF_HEADER, Principal, check_csrf, resolve_principal
from server.errors import ApiError, forbidden, not_found, unauthenticated
from server.principals import PrincipalCache, principal_key
from server.throttle import RateLimits


@dataclass(frozen=True)
class PatientAccess:
    principal: Principal
    patient_id: str
    loaded: Any = field(default=None, compare=False)  # what `guard_patient(then=…)` read

    @property
    def account_id(self) -> int:
        return self.principal.account.id


def _guard(
    db: Database,
    limits: RateLimits,
    request: Request,
    *,
    action: str,
    capability: str,
    rate: str | None,
    then: Callable[[Connection, Principal], Any] | None = None,
    principals: PrincipalCache | None = None,
) -> PatientAccess:
    """The guard on ONE connection and ONE transaction when access is granted: the account,
    the patient, the "ok" audit row and `then`'s rows (a request that reads used to cost two
    checkouts and transactions, which sat on the way to an answer's first event). Refusals
    are audited after that connection is back in the pool, each in its own transaction, so a
    refusal never holds two connections at once."""
    patient_id = str(request.path_params.get("patient_id", ""))
    loaded: list[Any] = []
    allowed = exists = False
    with db.app.connect() as conn:
        principal = resolve_principal(db, request, conn=conn)
        if principal is not None:
            limits.hit("api", str(principal.account.id))
            if rate is not None:
                limits.hit(rate, str(principal.account.id))
            if principal.can(capability):
                if principal.via == "session" and request.method not in ("GET", "HEAD"):
                    check_csrf(request, request.headers.get(CSRF_HEADER))
                allowed = principal.account.may_see(patient_id)
                exists = allowed and _exists_and_audit(conn, principal, patient_id, action, then, loaded)
    if principal is None:
        # per client: an anonymous flood gets 429 before it can write an audit row per request
        limits.hit("anonymous", client_key(request))
        write_audit(
            db.app,
            actor="anonymous",
            role="anonymous",
            action=action,
            outcome="unauthenticated",
            target_patient_id=patient_id or None,
            detail=_client(request),
        )
        raise unauthenticated()
    if not principal.can(capability):
        write_audit(
            db.app,
            actor=principal.actor,
            role=principal.role,
            action=action,
            outcome="forbidden",
            target_patient_id=patient_id or None,
            detail=f"role lacks {capability}",
        )
        raise forbidden()
    if not exists:
        write_audit(
            db.app,
            actor=principal.actor,
            role=principal.role,
            action=action,
            outcome="denied",
            target_patient_id=patient_id,
            detail="no such patient" if allowed else "not bound to this account",
        )
        raise not_found()
    if principals is not None:  # the answer stream's opening may start from it (server/opening.py)
        key = principal_key(request)
        if key is not None:
            principals.put(key, principal)
    return PatientAccess(principal, patient_id, loaded[0] if loaded else None)


def _exists_and_audit(
    conn: Connection,
    principal: Principal,
    patient_id: str,
    action: str,
    then: Callable[[Connection, Principal], Any] | None = None,
    loaded: list[Any] | None = None,
) -> bool:
    """In `conn`'s transaction, bound to the patient: is the patient there, and (if so) the
    "ok" audit row and `then`'s read of the handler's own rows, committed together."""
    set_patient(conn, patient_id)
    if conn.execute(text("SELECT 1 FROM patients WHERE patient_id = :p"), {"p": patient_id}).first() is None:
        conn.rollback()
        return False
    write_audit(
        conn,
        actor=principal.actor,
        role=principal.role,
        action=action,
        outcome="ok",
        target_patient_id=patient_id,
    )
    if then is not None and loaded is not None:
        loaded.append(then(conn, principal))
    conn.commit()
    return True


async def guard_patient(
    request: Request,
    *,
    action: str,
    capability: str,
    rate: str | None = None,
    then: Callable[[Connection, Principal], Any] | None = None,
) -> PatientAccess:
    """Run the whole guard in one worker-thread hop (it reads the database and audits).

    `then(conn, principal)` runs in the guard's own transaction once access is granted (its
    result is `access.loaded`): the handler's first read rides along instead of costing a
    second hop and transaction.
    """
    services = request.app.state.services
    return await run_in_threadpool(
        _guard,
        services.db,
        services.rate_limits,
        request,
        action=action,
        capability=capability,
        rate=rate,
        then=then,
        principals=getattr(services, "principals", None),
    )


def client_key(request: Request) -> str:
    """Who is on the other end, for per-client limits (the peer address)."""
    return request.client.host if request.client else "unknown"


def _client(request: Request) -> str:
    return f"from {client_key(request)}"


__all__ = ["ApiError", "PatientAccess", "guard_patient"]
