"""The one audit writer: every row of `audit_log` — tool calls, web requests, MCP bindings —
is written here, with one sanitising rule.

The application role may insert into `audit_log` but never read, change or delete it; a row
names the *requested* patient even when the request was refused, which is the point. So a
value an attacker chose (a patient id, a username) must still be storable: PostgreSQL text
cannot hold NUL, which is written visibly as the four characters `\\x00`, and long values are
cut to a bounded length, instead of the INSERT failing and the attempt going unrecorded.
"""

from __future__ import annotations

import psycopg
from sqlalchemy import Connection, Engine, text

_INSERT = text(
    "INSERT INTO audit_log (actor, role, target_patient_id, action, args_digest, outcome, detail, "
    "conversation_id) VALUES (:actor, :role, :pid, :action, :digest, :outcome, :detail, :conv)"
)
SHORT, LONG = 200, 500  # ids and names; free-text detail


def storable(value: str | None, limit: int = SHORT) -> str | None:
    """A value PostgreSQL text can hold: NUL made visible, cut to `limit` characters."""
    if value is None:
        return None
    return value[:limit].replace("\x00", "\\x00")


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
    args_digest: str | None = None,
) -> None:
    """Append one row. Raises when it cannot be written: access that cannot be audited is not
    granted (callers that are refusing anyway may log instead, see `mcp_server.audit`).

    Given a connection, the row joins that transaction; given an engine, it commits alone.
    """
    params = audit_row(
        actor=actor,
        role=role,
        action=action,
        outcome=outcome,
        target_patient_id=target_patient_id,
        detail=detail,
        conversation_id=conversation_id,
        args_digest=args_digest,
    )
    if isinstance(target, Connection):
        target.execute(_INSERT, params)
        return
    with target.begin() as conn:
        conn.execute(_INSERT, params)


# the same row for a raw psycopg connection (the answer stream's opening, server/opening.py),
# written only when `{condition}` holds (`.format(condition=…)`): the opening's one round trip
# writes its "ok" row only if the access check in that same query passed
INSERT_PSYCOPG_WHERE = (
    "INSERT INTO audit_log (actor, role, target_patient_id, action, args_digest, outcome, detail, "
    "conversation_id) SELECT %(actor)s, %(role)s, %(pid)s, %(action)s, %(digest)s, %(outcome)s, "
    "%(detail)s, %(conv)s WHERE {condition}"
)


_INSERT_AND_COMMIT = INSERT_PSYCOPG_WHERE.format(condition="true") + "; COMMIT"


def write_audit_and_commit(conn: Connection, **row: str | None) -> None:
    """Append one row (`write_audit`'s arguments) to `conn`'s open transaction and COMMIT it,
    in ONE round trip: the row and the COMMIT as one simple query, bound by psycopg's
    `ClientCursor` (it quotes the values as literals).

    For a transaction whose work must not stand without its audit row (a tool call): if the
    row cannot be written the COMMIT never runs, the error is raised and the caller's
    transaction rolls back, exactly as `write_audit` and then a commit would. Afterwards the
    connection is idle, and SQLAlchemy's own commit of the block finds nothing left to do.
    """
    params = audit_row(**row)  # type: ignore[arg-type]
    with psycopg.ClientCursor(conn.connection.driver_connection) as cur:
        cur.execute(_INSERT_AND_COMMIT, params)


def audit_row(
    *,
    actor: str,
    role: str,
    action: str,
    outcome: str,
    target_patient_id: str | None = None,
    detail: str | None = None,
    conversation_id: str | None = None,
    args_digest: str | None = None,
) -> dict[str, str | None]:
    """The parameters of one row, sanitised (`storable`): for `_INSERT` and `INSERT_PSYCOPG_WHERE`."""
    return {
        "actor": storable(actor),
        "role": storable(role),
        "pid": storable(target_patient_id) if target_patient_id else None,
        "action": storable(action),
        "digest": storable(args_digest),
        "outcome": storable(outcome),
        "detail": storable(detail, LONG) if detail else None,
        "conv": storable(conversation_id) if conversation_id else None,
    }
