"""An audited write commits with its audit row or not at all, even when the coordinator dies
in the middle of the commit.

The failure is injected where one-phase commit is weak: the worker's part of the transaction
is held at its commit (a deferred trigger on the patient's shard waits on an advisory lock the
test holds), the coordinator's backend is killed (SIGKILL: a crash, so nothing of its own
transaction can commit), then the worker is let go and the coordinator's two-phase-commit
recovery runs. With `audit_log` a Citus local table (`records.distribution`), Citus uses
two-phase commit for every transaction that writes it beside a worker: the worker's part was
only PREPAREd, and recovery rolls it back — neither the change nor its audit row. Two audited writes are crashed: the server closing an answer (the message on the
patient's shard, its audit row on the coordinator) and `book_appointment`. The control turns
`audit_log` back into a plain coordinator table for one test: the answer then commits on the
worker without its audit row — the gap this design closes. (A booking also writes the slot,
a reference table, and `find_slots` inserts its offers through intermediate results on every
worker: both were two-phase already; a single-shard write such as closing an answer was not.)
"""

from __future__ import annotations

import os
import re
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass

import psycopg
from sqlalchemy import text

from records.accounts import create_account
from records.cluster import Cluster
from records.database import Database
from server.store import Outcome, StoredEvent, append_events, create_message
from tests.tools.conftest import make_ctx, registry  # noqa: F401
from tests.tools.test_booking import clinic, offer  # noqa: F401
from tools.results import ToolResult

PATIENT = "p-a"  # of the `clinic` fixture
GATE_LOCK = 724242
GPID_NODE_MULTIPLIER = 10_000_000_000  # Citus: global pid = node id × this + pid
DEADLINE_S = 120.0  # generous; only bounds a wait that should take well under a second


def _wait_for(what: str, check: Callable[[], object]) -> object:
    deadline = time.monotonic() + DEADLINE_S
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.05)


@dataclass
class Gate:
    """Holds the worker's commit of one shard until `open()`."""

    worker: psycopg.Connection  # superuser on the worker holding the shard
    holder: psycopg.Connection  # holds the advisory lock the trigger waits on
    shard: str

    def blocked_gpid(self) -> int | None:
        """The global pid of the coordinator backend whose commit is waiting at the gate."""
        row = self.worker.execute(
            "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
            "WHERE l.locktype = 'advisory' AND l.objid = %s AND NOT l.granted",
            (GATE_LOCK,),
        ).fetchone()
        if row is None:
            return None
        match = re.search(r"gpid=(\d+)", row[0] or "")
        assert match, f"the waiting worker backend is not a Citus connection: {row[0]!r}"
        return int(match.group(1))

    def open(self) -> None:
        self.holder.rollback()

    def worker_done(self, gpid: int) -> bool:
        """The worker backend of that coordinator transaction has finished (commit/prepare/abort)."""
        return (
            self.worker.execute(
                "SELECT 1 FROM pg_stat_activity WHERE application_name LIKE %s",
                (f"%gpid={gpid}",),
            ).fetchone()
            is None
        )

    def prepared(self) -> int:
        return self.worker.execute(
            "SELECT count(*) FROM pg_prepared_xacts WHERE database = current_database()"
        ).fetchone()[0]


@contextmanager
def commit_gate(db: Database, cluster: Cluster, table: str, patient_id: str) -> Iterator[Gate]:
    """A deferred constraint trigger on `patient_id`'s shard of `table`, on its worker: a write
    there cannot finish committing (or preparing) while the test holds the advisory lock."""
    name = db.admin.url.database
    with db.admin.connect() as conn:
        port, shard = conn.execute(
            text(
                "SELECT p.nodeport, shard_name(CAST(:t AS regclass), p.shardid) "
                "FROM pg_dist_shard_placement p WHERE p.shardid = "
                "get_shard_id_for_distribution_column(CAST(:t AS regclass), CAST(:p AS text))"
            ),
            {"t": table, "p": patient_id},
        ).one()
    node = next(n for n in cluster.nodes() if n.port == port)
    worker = psycopg.connect(node.dsn(name), autocommit=True)
    holder = psycopg.connect(node.dsn(name))
    try:
        # the trigger and its function are the worker's own, never propagated
        worker.execute("SET citus.enable_manual_changes_to_shards = on")
        worker.execute("SET citus.enable_ddl_propagation = off")
        worker.execute(
            "CREATE OR REPLACE FUNCTION chartside_test_commit_gate() RETURNS trigger LANGUAGE plpgsql "
            f"AS $$ BEGIN PERFORM pg_advisory_xact_lock({GATE_LOCK}); RETURN NULL; END $$"
        )
        worker.execute(
            f"CREATE CONSTRAINT TRIGGER chartside_test_commit_gate AFTER INSERT OR UPDATE ON {shard} "
            "DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION chartside_test_commit_gate()"
        )
        holder.execute("SELECT pg_advisory_xact_lock(%s)", (GATE_LOCK,))
        yield Gate(worker, holder, shard)
    finally:
        holder.close()
        worker.execute(f"DROP TRIGGER IF EXISTS chartside_test_commit_gate ON {shard}")
        worker.execute("DROP FUNCTION IF EXISTS chartside_test_commit_gate()")
        worker.close()


def _coordinator_pid(db: Database, gpid: int) -> int:
    with db.admin.connect() as conn:
        node_id = conn.execute(text("SELECT nodeid FROM pg_dist_node WHERE groupid = 0")).scalar_one()
    assert gpid // GPID_NODE_MULTIPLIER == node_id, (
        "the blocked transaction did not come from the coordinator"
    )
    return gpid % GPID_NODE_MULTIPLIER


def _wait_until_coordinator_answers(db: Database, cluster: Cluster) -> None:
    dsn = cluster.coordinator.dsn(db.admin.url.database)

    def answers() -> bool:
        try:
            with psycopg.connect(dsn, connect_timeout=5) as conn:
                conn.execute("SELECT 1")
            return True
        except psycopg.OperationalError:
            return False

    _wait_for("the coordinator to restart after the crash", answers)
    db.dispose()  # every pooled connection died with the crash


def crash_the_coordinator_at_commit(
    db: Database, cluster: Cluster, table: str, run: Callable[[], object]
) -> int:
    """Run `run` (a tool call writing `table` for PATIENT) in a thread, kill the coordinator
    backend while the worker holds that write's commit, let the worker finish, run the
    coordinator's 2PC recovery. Returns how many transactions the worker held PREPAREd."""
    with db.admin.connect() as conn:
        # the test cluster runs with synchronous_commit = off: without a checkpoint, the crash
        # would also take the last fraction of a second of commits (the test's own setup)
        conn.execute(text("CHECKPOINT"))
    with commit_gate(db, cluster, table, PATIENT) as gate:

        def attempt() -> None:
            with suppress(Exception):  # the coordinator dies under it; the test checks what was stored
                run()

        call = threading.Thread(target=attempt)
        call.start()
        gpid = _wait_for("the tool's commit to reach the gate", gate.blocked_gpid)
        os.kill(_coordinator_pid(db, gpid), signal.SIGKILL)
        gate.open()
        _wait_for("the worker's side of the killed transaction to finish", lambda: gate.worker_done(gpid))
        prepared = gate.prepared()
        call.join()
    _wait_until_coordinator_answers(db, cluster)
    with db.admin.connect() as conn:
        conn.execute(text("SELECT recover_prepared_transactions()"))
    return prepared


def _ok_audit_rows(db: Database, tool: str) -> int:
    with db.admin.connect() as conn:
        return conn.execute(
            text(
                "SELECT count(*) FROM audit_log WHERE action = :a AND target_patient_id = :p AND outcome = 'ok'"
            ),
            {"a": f"tool:{tool}", "p": PATIENT},
        ).scalar_one()


def _count(db: Database, sql: str, **params: object) -> int:
    with db.admin.connect() as conn:
        return conn.execute(text(sql), {"p": PATIENT, **params}).scalar_one()


@dataclass
class PendingAnswer:
    """A stored question whose answer the server is about to close."""

    db: Database
    message_id: str

    @classmethod
    def ask(cls, db: Database) -> PendingAnswer:
        account, _ = create_account(
            db, username=f"crash-{PATIENT}", role="patient", patients=[PATIENT], with_token=True
        )
        message = create_message(
            db,
            patient_id=PATIENT,
            account_id=account.id,
            role="patient",
            question="What is my latest A1C?",
            conversation_id=None,
            scope=None,
            pinned_now=None,
        )
        return cls(db, message.id)

    def close(self) -> None:
        """The server's `append_events` closing the answer: its last event, the message marked
        done and the answer's audit row, in one transaction."""
        append_events(
            self.db,
            patient_id=PATIENT,
            message_id=self.message_id,
            events=[StoredEvent(seq=1, type="done", payload={})],
            final=("done", "Your latest A1C was 6.1% [1].", None),
            outcome=Outcome(actor=f"crash-{PATIENT}", role="patient", outcome="ok", detail="answered"),
        )

    def stored(self) -> tuple[int, int]:
        """(is the message closed, how many audit rows its answer has)."""
        closed = _count(
            self.db,
            "SELECT count(*) FROM messages WHERE patient_id = :p AND id = :m AND status = 'done'",
            m=self.message_id,
        )
        audited = _count(
            self.db,
            "SELECT count(*) FROM audit_log WHERE action = 'answer' AND target_patient_id = :p "
            "AND detail LIKE :d",
            d=f"message {self.message_id}:%",
        )
        return closed, audited


@contextmanager
def audit_log_as_plain_table(db: Database) -> Iterator[None]:
    """The design before: `audit_log` an ordinary coordinator table Citus does not know."""
    with db.admin.begin() as conn:
        conn.execute(text("SELECT undistribute_table('audit_log')"))
    try:
        yield
    finally:
        with db.admin.begin() as conn:
            conn.execute(text("SELECT citus_add_local_table_to_metadata('audit_log')"))


def test_a_crash_at_commit_leaves_neither_the_answer_nor_its_audit_row(citus_db, cluster, clinic):  # noqa: F811
    answer = PendingAnswer.ask(clinic)
    prepared = crash_the_coordinator_at_commit(citus_db, cluster, "messages", answer.close)
    assert prepared == 1  # the worker's part was only prepared: two-phase commit was in use
    assert answer.stored() == (0, 0)
    assert _count(clinic, "SELECT count(*) FROM pg_prepared_xacts") == 0  # recovery resolved it
    answer.close()  # the cluster works on: closing it again commits both
    assert answer.stored() == (1, 1)


def test_a_crash_at_commit_leaves_neither_the_booking_nor_its_audit_row(citus_db, cluster, clinic, registry):  # noqa: F811
    slot = offer(registry, clinic, PATIENT, "c-crash").rows[0]["slot_id"]
    ctx = make_ctx(clinic, PATIENT, conversation_id="c-crash", message_id="m-crash")

    def book() -> ToolResult:
        return registry.execute(ctx, "book_appointment", {"slot_id": slot, "reason": "check-up"})

    prepared = crash_the_coordinator_at_commit(citus_db, cluster, "appointments", book)
    assert prepared >= 1
    booked = _count(clinic, "SELECT count(*) FROM appointments WHERE patient_id = :p")
    holder = _count(
        clinic, "SELECT count(booked_appointment_id) FROM appointment_slots WHERE id = :s", s=slot
    )
    assert (booked, holder, _ok_audit_rows(clinic, "book_appointment")) == (0, 0, 0)
    result = book()  # the slot is still free, and booking it now commits with its audit row
    assert result.ok, result.text
    assert _ok_audit_rows(clinic, "book_appointment") == 1


def test_with_a_plain_audit_table_the_answer_closes_without_its_audit_row(citus_db, cluster, clinic):  # noqa: F811
    """The control: the same crash finds the one-phase-commit gap of the design before."""
    answer = PendingAnswer.ask(clinic)
    with audit_log_as_plain_table(clinic):
        prepared = crash_the_coordinator_at_commit(citus_db, cluster, "messages", answer.close)
        stored = answer.stored()
    assert prepared == 0  # one-phase commit: the worker committed on its own
    assert stored == (1, 0)  # the answer is closed, its audit row is gone
