"""One audit row per access to a patient URL, allowed or denied.

The application role may insert into `audit_log` but never read, change or delete it; the
row names the *requested* patient even when the request was refused, which is the point.
"""

from __future__ import annotations

from sqlalchemy import Connection, Engine, text

_INSERT = text(
    "INSERT INTO audit_log (actor, role, target_patient_id, action, outcome, detail, conversation_id) "
    "VALUES (:actor, :role, :pid, :action, :outcome, :detail, :conv)"
)


def write_audit(
    target: Engine | Connection,
    *,
    actor: str,
    role: str,
    action: str,
    outcome: str,
    target_patient_id: str | None = None,
    detail: str | None = None,
    conversation_id: str | None = None,
) -> None:
    """Raises when the row cannot be written: access that cannot be audited is not granted.

    Given a connection, the row joins that transaction; given an engine, it commits alone.
    """
    params = {
        "actor": actor[:200],
        "role": role,
        "pid": target_patient_id[:200] if target_patient_id else None,
        "action": action[:200],
        "outcome": outcome,
        "detail": detail[:500] if detail else None,
        "conv": conversation_id,
    }
    if isinstance(target, Connection):
        target.execute(_INSERT, params)
        return
    with target.begin() as conn:
        conn.execute(_INSERT, params)
