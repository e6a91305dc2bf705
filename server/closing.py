"""A run's event writes in ONE round trip on the event loop (the opening's asyncio pool).

`store.append_events` writes a batch of events — and, closing a message, its final status,
the end of its `run_claims` row and the answer's audit row — as one transaction through the
engine in a writer thread: BEGIN, `SET LOCAL app.patient_id`, the events, the message, the
claim, the message's conversation (for the audit row), the audit row, COMMIT, each a round
trip and a SQLAlchemy execution, and a thread that takes the GIL from the event loop while
other answers are opening (`chartside bench serve` measured a third of an answer's server CPU
there).

Here the same transaction is ONE multi-statement query (`write_sql`), parameters bound on the
client as in `server.opening` (the pool's `connection_options`): the same statements, in the
same order, with the same durability (the commit waits for its flush: this pool's connections
keep `synchronous_commit` on; only the opening's claim turns it off, for its own transaction).
The audit row's conversation is the run's message's, known in memory instead of read back.

Any failure is the caller's to handle: `RunManager` then writes the same batch through
`store.append_events_resuming`, which retries on a fresh connection and resumes after a
commit whose reply was lost (the events this query may already have stored come back as its
own duplicates), so nothing changes in how failures end.
"""

from __future__ import annotations

import functools
from typing import Any

import orjson
from psycopg_pool import AsyncConnectionPool

from records.async_pool import Prepared, connection, run_script
from records.audit import INSERT_PSYCOPG_WHERE as INSERT_AUDIT
from records.audit import audit_row
from server import store
from server.store import StoredEvent

_EVENT_ROW = "(%(p)s, %(m)s, %(s{i})s, %(t{i})s, %(d{i})s::jsonb)"
_FINISH = Prepared(
    "chartside_close_message",
    "UPDATE messages SET status = %(status)s, answer = %(answer)s, metrics = %(metrics)s::jsonb, "
    "finished_at = now() WHERE patient_id = %(p)s AND id = %(m)s",
)
_UNCLAIM = Prepared("chartside_close_claim", "DELETE FROM run_claims WHERE message_id = %(m)s")
_AUDIT = Prepared("chartside_close_audit", INSERT_AUDIT.format(condition="true"))
PREPARED = (_FINISH, _UNCLAIM, _AUDIT)  # on every connection of the pool (`app_pool(prepared=…)`)


@functools.cache
def write_sql(events: int, *, final: bool, outcome: bool) -> str:
    """BEGIN … COMMIT as one query: `events` rows, then with `final` the message's status and
    its claim's end, then with `outcome` the answer's audit row (`store.append_events`' order).
    The events' INSERT has as many rows as the batch; the other statements are prepared."""
    statements = ["BEGIN", "SET LOCAL app.patient_id = %(p)s"]
    if events:
        rows = ", ".join(_EVENT_ROW.format(i=i) for i in range(events))
        statements.append(
            f"INSERT INTO message_events (patient_id, message_id, seq, type, payload) VALUES {rows}"
        )
    if final:
        statements += [_FINISH.call(), _UNCLAIM.call()]
    if outcome:
        statements.append(_AUDIT.call())
    return "; ".join([*statements, "COMMIT"])


async def write_events(
    pool: AsyncConnectionPool,
    *,
    patient_id: str,
    message_id: str,
    conversation_id: str,
    events: list[StoredEvent],
    final: tuple[str, str | None, dict[str, Any] | None] | None = None,
    outcome: store.Outcome | None = None,
) -> None:
    """`store.append_events` for the run of a message of `conversation_id`, in one round trip."""
    params: dict[str, Any] = {"p": patient_id, "m": message_id}
    for i, event in enumerate(events):
        params[f"s{i}"], params[f"t{i}"] = event.seq, event.type
        params[f"d{i}"] = orjson.dumps(event.payload).decode()
    if final is not None:
        status, answer, metrics = final
        params.update(
            status=status,
            answer=answer,
            metrics=orjson.dumps(metrics).decode() if metrics is not None else None,
        )
    if outcome is not None:
        params.update(audit_row(**store.answer_audit(outcome, patient_id, message_id, conversation_id)))
    query = write_sql(len(events), final=final is not None, outcome=outcome is not None)
    async with connection(pool) as conn:
        await run_script(conn, query, params)
