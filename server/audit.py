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


def _storable(value: str) -> str:
    """PostgreSQL text cannot hold NUL; an attacker's id with one must still be audited, visibly."""
    return value.replace("\x00", "\\x00")


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
        "actor": _storable(actor[:200]),
        "role": _storable(role),
        "pid": _storable(target_patient_id[:200]) if target_patient_id else None,
        "action": _storable(action[:200]),
        "outcome": outcome,
        "detail": _storable(detail[:500]) if detail else None,
        "conv": _storable(conversation_id) if conversation_id else None,
    }
    if isinstance(target, Connection):
        target.execute(_INSERT, params)
        return
    with target.begin() as conn:
        conn.execute(_INSERT, params)
