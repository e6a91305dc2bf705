"""Opening an answer stream in ONE round trip on the event loop.

What the first event of an answer truly depends on: who asks (and that they still may), the
message, and its claim (pending → running, which makes the run happen once). Through the
patient guard that was one transaction of about ten statements in a worker thread — pool
ping, BEGIN, the account, `SET LOCAL`, the patient, the "ok" audit row, the message, the
claim, `run_claims`, history, COMMIT — each a round trip that waited for the GIL behind the
event loop (`chartside bench serve` counts them).

Here, for an account this process has already authenticated (`PrincipalCache`, filled by the
guard), the same work is ONE query — BEGIN … COMMIT, several statements — on an asyncio
connection (`records.async_pool`, options from `connection_options`; `opening_sql`):

* `SET LOCAL app.patient_id`, the **revocation check** — the account row and panel as they
  are now, in this transaction: not disabled, same username, role and sandbox flag, the same
  token digest (bearer) or no session end after this session was issued (cookie), still
  bound to this patient, the patient present — and the message;
* the "ok" audit row, inserted only if that check passes and the message is the account's;
* (when this request should start the run) the claim UPDATE, itself guarded by the same
  check, which in the same statement records its `run_claims` row and makes the commit
  asynchronous (`store.claim_in` says why that is safe); the conversation's earlier turns;
  COMMIT.

Every write is conditional on the check inside the statement that makes it, so nothing has
to be decided between statements, and the first event waits for exactly one round trip
after which authorisation, the audit row and the claim are committed together.

So the cache decides nothing on its own: a revoked, disabled or re-bound account is refused
by the check in the very transaction that would have claimed, exactly as current as the
guard's own read; the stale entry is dropped and the request goes through the guard, which
refuses and audits it as before. Anything unusual — no cached account, a message that is
not there, no stream slot, a database error — also falls back to the guard (`None`), so
every refusal keeps its one audited path.
"""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool, PoolTimeout
from starlette.requests import Request

from agent.base import Turn
from records.async_pool import Prepared, connection, run_script
from records.audit import INSERT_PSYCOPG_WHERE as INSERT_AUDIT
from records.audit import audit_row
from server.access import PatientAccess
from server.auth import Principal
from server.principals import PrincipalCache, principal_key
from server.store import HISTORY_TURNS, StoredMessage
from server.throttle import RateLimits, StreamSlots
from server.trace import AUTHORISED, mark

log = logging.getLogger(__name__)

# The facts the cached principal stands for, as they are now (accounts and panels are read
# in the opening's own transaction). %(cred)s is the token digest or the session's issue time.
_STILL_ALLOWED = (
    "EXISTS (SELECT 1 FROM accounts a WHERE a.id = %(a)s AND NOT a.disabled AND a.username = %(u)s "
    "AND a.role = %(r)s AND a.evaluation_sandbox = %(sb)s AND {credential} AND {binding}) "
    "AND EXISTS (SELECT 1 FROM patients WHERE patient_id = %(p)s)"
)
_TOKEN = "a.api_token_hash = %(cred)s"
_SESSION = "(a.sessions_valid_after IS NULL OR extract(epoch FROM a.sessions_valid_after) < %(cred)s)"
_PATIENT = "a.bound_patient_id = %(p)s"
_PANEL = (
    "EXISTS (SELECT 1 FROM clinician_panels cp WHERE cp.account_id = a.id AND cp.panel_patient_id = %(p)s)"
)

_MESSAGE = (
    "SELECT m.id, m.patient_id, m.conversation_id, m.account_id, m.question, m.scope, m.status, "
    "m.answer, m.metrics, m.pinned_now, m.created_at, "
    "COALESCE((SELECT max(seq) FROM message_events e WHERE e.patient_id = %(p)s AND e.message_id = m.id), 0) "
    "AS last_seq FROM messages m WHERE m.patient_id = %(p)s AND m.id = %(m)s AND m.account_id = %(a)s"
)
_CLAIM = (
    "UPDATE messages SET status = 'running' WHERE patient_id = %(p)s AND id = %(m)s "
    "AND account_id = %(a)s AND status = 'pending' AND {allowed} RETURNING id"
)
# `store._history`, keyed by the message instead of its (not yet read) conversation and time
_HISTORY = (
    "SELECT h.question, h.answer FROM messages h JOIN messages m ON m.patient_id = h.patient_id "
    "AND m.conversation_id = h.conversation_id AND h.created_at < m.created_at "
    "WHERE m.patient_id = %(p)s AND m.id = %(m)s AND h.patient_id = %(p)s AND h.status = 'done' "
    "AND h.answer IS NOT NULL ORDER BY h.created_at DESC LIMIT %(n)s"
)
_RUN_CLAIM = "INSERT INTO run_claims (message_id, run_patient_id, owner) SELECT id, %(p)s, %(o)s FROM claimed"


def connection_options() -> dict[str, Any]:
    """How the pool's connections are opened (`records.async_pool.app_pool(options=…)`): each
    round trip is ONE multi-statement query (the simple query protocol, parameters bound on
    the client by psycopg's `ClientCursor`, which quotes them as literals), so the
    transaction is opened by its own BEGIN (autocommit off would cost a round trip of its own)."""
    return {"autocommit": True, "cursor_factory": psycopg.AsyncClientCursor}


_MINE = "EXISTS (SELECT 1 FROM messages WHERE patient_id = %(p)s AND id = %(m)s AND account_id = %(a)s)"


@dataclass(frozen=True)
class _Statements:
    """The opening's statements for one kind of principal (credential × binding), each
    prepared on every connection of the pool (`PREPARED`): see `opening_sql`."""

    allowed: Prepared
    audit: Prepared
    claim: Prepared
    claim_noted: Prepared  # the claim that also records its run_claims row (a server with an owner id)


def _statements(via: str, binding: str) -> _Statements:
    allowed = _STILL_ALLOWED.format(
        credential=_TOKEN if via == "token" else _SESSION,
        binding=_PATIENT if binding == "patient" else _PANEL,
    )

    def claim(noted: str) -> str:
        return (
            f"WITH claimed AS ({_CLAIM.format(allowed=allowed)}){noted}, "
            "quick AS (SELECT set_config('synchronous_commit', 'off', true) FROM claimed) "
            "SELECT id, (SELECT count(*) FROM quick) AS quick FROM claimed"
        )

    name = f"chartside_open_{via}_{binding}"
    return _Statements(
        allowed=Prepared(f"{name}_allowed", f"SELECT {allowed} AS allowed"),
        audit=Prepared(f"{name}_audit", INSERT_AUDIT.format(condition=f"{allowed} AND {_MINE}")),
        claim=Prepared(f"{name}_claim", claim("")),
        claim_noted=Prepared(f"{name}_claim_noted", claim(f", noted AS ({_RUN_CLAIM} RETURNING 1)")),
    )


_BY_PRINCIPAL = {(via, b): _statements(via, b) for via in ("token", "session") for b in ("patient", "panel")}
_MESSAGE_STATEMENT = Prepared("chartside_open_message", _MESSAGE)
_HISTORY_STATEMENT = Prepared("chartside_open_history", _HISTORY)
PREPARED = (
    _MESSAGE_STATEMENT,
    _HISTORY_STATEMENT,
    *(p for s in _BY_PRINCIPAL.values() for p in (s.allowed, s.audit, s.claim, s.claim_noted)),
)


def _for(principal: Principal) -> _Statements:
    return _BY_PRINCIPAL[(principal.via, "patient" if principal.role == "patient" else "panel")]


@dataclass(frozen=True)
class Opened:
    """What the guard's `then=load` would have returned: the message, and the turns of a won claim."""

    access: PatientAccess
    message: StoredMessage
    turns: list[Turn] | None
    slot: bool  # whether a stream slot is held for the account (the caller releases it)


async def open_answer(
    pool: AsyncConnectionPool,
    cache: PrincipalCache,
    limits: RateLimits,
    slots: StreamSlots,
    request: Request,
    *,
    patient_id: str,
    message_id: str,
    after: int,
    claim: bool,
    owner: str | None,
    action: str,
) -> Opened | None:
    """The guard and `then=load` of the events route, in one round trip; None → use the guard.

    `claim`: whether this request should claim a pending message (no live run here and a
    valid Last-Event-ID). The stream slot is taken first (a claim needs one); it is kept
    when the stream will run, released otherwise."""
    key = principal_key(request)
    principal = cache.get(key) if key is not None else None
    if principal is None or not principal.can("ask") or not principal.account.may_see(patient_id):
        return None
    account = principal.account
    limits.hit("api", str(account.id))  # as the guard: a 429 before any database work
    if not slots.acquire(account.id):
        return None  # the guard answers 429 (and audits the access as it always has)
    mark(AUTHORISED)  # in process: the cached principal, its rate limit and stream slot
    keep_slot = False
    try:
        opened = await _transaction(pool, principal, key, patient_id, message_id, claim, owner, action)
        if opened is None:
            cache.drop(key)  # assert: the check failed or the message is not this account's
            return None
        message, turns = opened
        keep_slot = not (message.finished and message.last_seq <= after)
        return Opened(PatientAccess(principal, patient_id, (message, turns)), message, turns, keep_slot)
    except (psycopg.Error, PoolTimeout, OSError) as exc:
        log.info("answer opening fell back to the guard: %r", exc)
        return None
    finally:
        if not keep_slot:
            slots.release(account.id)


async def _transaction(
    pool: AsyncConnectionPool,
    principal: Principal,
    key: tuple[Any, ...],
    patient_id: str,
    message_id: str,
    claim: bool,
    owner: str | None,
    action: str,
) -> tuple[StoredMessage, list[Turn] | None] | None:
    """The opening's ONE round trip: a multi-statement query from BEGIN to COMMIT whose every
    write is conditional on the access check it carries, so nothing needs deciding between
    statements (`opening_sql`)."""
    account = principal.account
    params = {
        "a": account.id,
        "u": account.username,
        "r": account.role,
        "sb": account.evaluation_sandbox,
        "cred": key[1] if key[0] == "token" else key[2],
        "p": patient_id,
        "m": message_id,
        "n": HISTORY_TURNS,
        "o": owner,
        **audit_row(
            actor=principal.actor,
            role=principal.role,
            action=action,
            outcome="ok",
            target_patient_id=patient_id,
        ),
    }
    async with connection(pool) as conn:  # the round trip
        results = await run_script(conn, opening_sql(principal, claim=claim, owner=owner), params)
    allowed_now, row = bool(results[0] and results[0][0][0]), next(iter(results[1]), None)
    if not allowed_now or row is None:
        return None  # nothing was written: every write above is conditional on both
    won = claim and bool(results[2])
    history = results[3] if won else []
    turns = [Turn(question=q, answer=a) for q, a in reversed(history)] if won else None
    return StoredMessage(*row), turns  # `_MESSAGE` selects the fields in StoredMessage's order


def opening_sql(principal: Principal, *, claim: bool, owner: str | None) -> str:
    return _opening_sql(_for(principal), claim, owner is not None)


@functools.cache
def _opening_sql(prepared: _Statements, claim: bool, noted: bool) -> str:
    """BEGIN … COMMIT as one query; its result sets: the access check, the message, and with
    `claim` the claim (one row if won) and the history. Between BEGIN, `SET LOCAL` and COMMIT,
    statements the pool's connections have prepared (`PREPARED`), run by `EXECUTE`.

    * the "ok" audit row is inserted only when the check passes and the message is the
      account's (a refusal writes nothing here and goes to the guard, which audits it);
    * the claim UPDATE carries the check itself, so a credential revoked a moment ago can never
      claim; a won claim (`claimed`) records its `run_claims` row and turns off the commit's
      wait for its disk flush (`store.claim_in` says why that is safe) in the same statement.
    """
    statements = [
        "BEGIN",
        "SET LOCAL app.patient_id = %(p)s",
        prepared.allowed.call(),
        _MESSAGE_STATEMENT.call(),
        prepared.audit.call(),
    ]
    if claim:
        statements += [
            (prepared.claim_noted if noted else prepared.claim).call(),
            _HISTORY_STATEMENT.call(),
        ]
    return "; ".join([*statements, "COMMIT"])
