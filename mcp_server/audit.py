"""Audit rows for what happens around the tools: refused connections and bindings.

Tool calls are audited by `tools.registry.Registry.execute` itself (one row per call, allowed
or denied); this module records the refusals that happen before any tool runs, in the same
table and shape, so one query over `audit_log` shows every attempt on a record.
"""

from __future__ import annotations

import logging

from records.audit import write_audit
from records.database import Database

log = logging.getLogger(__name__)


def record(
    db: Database,
    *,
    actor: str,
    role: str,
    target_patient_id: str | None,
    action: str,
    outcome: str,
    detail: str | None = None,
    conversation_id: str | None = None,
) -> None:
    """Append one audit row as the application role, through the one writer (`records.audit`,
    which keeps a NUL in a client-chosen patient id storable). A failed write is logged, never
    raised: the caller is already refusing, and the refusal must reach the client either way."""
    try:
        write_audit(
            db.app,
            actor=actor,
            role=role,
            target_patient_id=target_patient_id,
            action=action,
            outcome=outcome,
            detail=detail,
            conversation_id=conversation_id,
        )
    except Exception:
        log.exception("could not write the audit row for %s (%s)", action, outcome)
