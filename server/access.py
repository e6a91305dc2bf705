"""The guard in front of every `/api/patients/{patient_id}/…` handler.

In order: authenticate → rate limit → role capability → CSRF (cookie POSTs) → patient
binding. The binding is the server's, never the model's: a patient account reaches only its
own patient, a clinician or evaluator only the patients on its panel. A patient that is not
allowed and a patient that does not exist get the same 404, and both are audited with the
patient id that was asked for.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import text
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from records.audit import write_audit
from records.database import Database, patient_transaction
from server.auth import CSRF_HEADER, Principal, check_csrf, resolve_principal
from server.errors import ApiError, forbidden, not_found, unauthenticated
from server.throttle import RateLimits


@dataclass(frozen=True)
class PatientAccess:
    principal: Principal
    patient_id: str

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
) -> PatientAccess:
    patient_id = str(request.path_params.get("patient_id", ""))
    principal = resolve_principal(db, request)
    if principal is None:
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
    limits.hit("api", str(principal.account.id))
    if rate is not None:
        limits.hit(rate, str(principal.account.id))
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
    if principal.via == "session" and request.method not in ("GET", "HEAD"):
        check_csrf(request, request.headers.get(CSRF_HEADER))
    allowed = principal.account.may_see(patient_id)
    exists = allowed and _exists_and_audit(db, principal, patient_id, action)
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
    return PatientAccess(principal, patient_id)


def _exists_and_audit(db: Database, principal: Principal, patient_id: str, action: str) -> bool:
    """One transaction: is the patient there, and (if so) the "ok" audit row."""
    with patient_transaction(db.app, patient_id) as conn:
        if (
            conn.execute(text("SELECT 1 FROM patients WHERE patient_id = :p"), {"p": patient_id}).first()
            is None
        ):
            return False
        write_audit(
            conn,
            actor=principal.actor,
            role=principal.role,
            action=action,
            outcome="ok",
            target_patient_id=patient_id,
        )
        return True


async def guard_patient(
    request: Request, *, action: str, capability: str, rate: str | None = None
) -> PatientAccess:
    """Run the whole guard in one worker-thread hop (it reads the database and audits)."""
    services = request.app.state.services
    return await run_in_threadpool(
        _guard, services.db, services.rate_limits, request, action=action, capability=capability, rate=rate
    )


def _client(request: Request) -> str:
    return f"from {request.client.host}" if request.client else "from unknown"


__all__ = ["ApiError", "PatientAccess", "guard_patient"]
