"""Distribute the schema on a Citus coordinator (run by `chartside db upgrade` after migrations).

Nothing happens on a plain PostgreSQL server: the step runs only when the `citus` extension is
installed in the database. It is idempotent (a table Citus already knows is left alone), so
every upgrade may run it.

* **Patient tables** (every table with `patient_id`, `records.models.patient_tables`) are
  distributed by `patient_id` and co-located with `patients`: one patient's whole record,
  notes, conversations and appointments live in one shard group, so every tool transaction is
  a single-shard router transaction.
* **Shared tables** (`REFERENCE_TABLES`) are Citus reference tables, a copy on every node:
  they are small, read by almost every request (joined from patient shards: encounters →
  practitioners, appointments → slots, find_slots → departments and locations) and written
  rarely. Distributing them by their own key was measured against this (docs/scaling.md):
  a join from a patient shard to a table distributed by another key is not a router query.
* **`audit_log` is a Citus local table** (`citus_add_local_table_to_metadata`: it stays on the
  coordinator, but Citus executes every write to it). That is what makes an audited write
  atomic across the cluster: Citus turns on two-phase commit for a transaction as soon as it
  modifies a table through its local executor, so a transaction that writes a patient's shard
  on a worker *and* its audit row prepares the worker first and commits it only once the
  coordinator's own commit (audit row and Citus's commit record together) is durable. As a
  plain local table, a single-worker write was committed on the worker before the coordinator
  committed the audit row (Citus's one-phase commit), so a coordinator failure in between left
  a change without its audit row (`tests/citus/test_audit_atomicity.py` shows both). Read-only
  worker connections are never prepared, so a read tool call pays nothing for it.
* **Coordinator-local**: `source_files` (ingestion bookkeeping: a bundle committed on a worker
  whose `source_files` row was lost is ingested again by the next run, replace-on-change),
  `run_claims` (which server process answers which message, read across patients by
  `server.sweeper`) and `alembic_version`.

The patient setting must reach the workers, where the row-level security policies of the
shards run: `citus.propagate_set_commands = 'local'` is set for the database, and
`records.database.patient_transaction` issues `SET LOCAL app.patient_id` (which Citus forwards
to every worker the transaction uses) rather than `set_config(…, true)` (a function call,
which it does not forward). `tests/citus/test_rls_on_workers.py` proves both halves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy import Connection, text

from records.models import Base, patient_tables

COLOCATION_ANCHOR = "patients"
DISTRIBUTION_COLUMN = "patient_id"
# small, shared, read on every request: a full copy on every node (joins stay on the shard)
REFERENCE_TABLES = (
    "organizations",
    "locations",
    "practitioners",
    "departments",
    "appointment_slots",
    "leaflets",
    "leaflet_chunks",
    "accounts",
    "clinician_panels",
)
# Reference tables the application role writes (booking claims a slot; logout stamps an
# account). Citus serialises every write to a reference table by also locking, on the first
# worker, each reference table it points at by foreign key — through `lock_shard_resources`,
# which demands modify rights on those tables. The app role may only read departments,
# practitioners and locations, so each booking failed with "permission denied for table
# organizations" (measured). These tables keep no foreign keys to other reference tables on
# Citus; their writer of record is the owner (slot generation), which resolves the ids itself.
APP_WRITTEN_REFERENCE_TABLES = ("appointment_slots", "accounts")
# on the coordinator, written through Citus (two-phase commit with the worker writes beside them)
CITUS_LOCAL_TABLES = ("audit_log",)
# bookkeeping that never joins patient data on the request path (plain tables)
COORDINATOR_LOCAL_TABLES = (
    "source_files",
    "run_claims",  # ids only, read across patients by server.sweeper
    "alembic_version",
)


class DistributionError(RuntimeError):
    """The cluster cannot hold the schema as planned (a message naming what to do)."""


@dataclass
class DistributionReport:
    distributed: list[str] = field(default_factory=list)
    reference: list[str] = field(default_factory=list)
    citus_local: list[str] = field(default_factory=list)
    already: list[str] = field(default_factory=list)
    dropped_keys: list[str] = field(default_factory=list)  # "table.constraint" not re-created

    @property
    def changed(self) -> bool:
        return bool(self.distributed or self.reference or self.citus_local)


def citus_installed(conn: Connection) -> bool:
    return conn.execute(text("SELECT 1 FROM pg_extension WHERE extname = 'citus'")).first() is not None


def _known(conn: Connection) -> dict[str, str]:
    """Tables Citus already manages → their kind ('distributed', 'reference', …)."""
    rows = conn.execute(text("SELECT table_name::text, citus_table_type FROM citus_tables"))
    return {name: kind for name, kind in rows}


def _ordered(names: set[str]) -> list[str]:
    """In foreign-key order (a referenced table is handled before the tables that point at it)."""
    return [t.name for t in Base.metadata.sorted_tables if t.name in names]


def _foreign_keys(conn: Connection, tables: set[str]) -> list[tuple[str, str, str]]:
    """(table, constraint, definition) of every foreign key from one of `tables`."""
    rows = conn.execute(
        text(
            "SELECT src.relname, c.conname, pg_get_constraintdef(c.oid) FROM pg_constraint c "
            "JOIN pg_class src ON src.oid = c.conrelid JOIN pg_namespace n ON n.oid = src.relnamespace "
            "WHERE c.contype = 'f' AND n.nspname = 'public' AND src.relname = ANY(:t) ORDER BY 1, 2"
        ),
        {"t": sorted(tables)},
    )
    return [(t, name, definition) for t, name, definition in rows]


def _target(definition: str) -> str:
    """The referenced table of a `FOREIGN KEY (…) REFERENCES t(…)` definition."""
    return definition.split(" REFERENCES ", 1)[1].split("(", 1)[0].strip().strip('"')


def distribute(conn: Connection) -> DistributionReport:
    """Make every table of the schema what docs/scaling.md says it is. Idempotent."""
    report = DistributionReport()
    if not citus_installed(conn):
        return report
    database = conn.execute(text("SELECT current_database()")).scalar_one()
    # the patient setting (SET LOCAL) must travel with every transaction to the workers
    conn.execute(text(f"ALTER DATABASE \"{database}\" SET citus.propagate_set_commands = 'local'"))
    conn.execute(text("SET LOCAL citus.propagate_set_commands = 'local'"))
    # DDL and the data copy of create_distributed_table in one transaction: sequential mode
    conn.execute(text("SET LOCAL citus.multi_shard_modify_mode = 'sequential'"))
    existing = set(
        conn.execute(text("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")).scalars()
    )
    known = _known(conn)
    todo = (set(REFERENCE_TABLES) | set(patient_tables()) | set(CITUS_LOCAL_TABLES)) & existing - set(known)
    if not todo:
        report.already = sorted(known)
        return report
    _require_coordinator_in_metadata(conn)
    # Citus wants each end of a foreign key distributed before the key exists (a local table
    # pointing at a new reference table would be converted to a "Citus local" table, which
    # cannot hold our RLS policies): drop the keys, distribute, then re-create them, which
    # Citus propagates to every shard. All in this one transaction.
    keys = _foreign_keys(conn, todo)
    for table, name, _ in keys:
        conn.execute(text(f'ALTER TABLE "{table}" DROP CONSTRAINT "{name}"'))
    for table in _new(_ordered(set(REFERENCE_TABLES)), existing, known, report):
        conn.execute(text("SELECT create_reference_table(:t)"), {"t": table})
        report.reference.append(table)
    patients = [COLOCATION_ANCHOR] + [t for t in _ordered(set(patient_tables())) if t != COLOCATION_ANCHOR]
    for table in _new(patients, existing, known, report):
        colocate = "none" if table == COLOCATION_ANCHOR else COLOCATION_ANCHOR
        conn.execute(
            text("SELECT create_distributed_table(:t, :col, colocate_with => :with)"),
            {"t": table, "col": DISTRIBUTION_COLUMN, "with": colocate},
        )
        report.distributed.append(table)
    for table in _new(CITUS_LOCAL_TABLES, existing, known, report):
        # the table stays where it is (its shard is the table itself, on the coordinator)
        conn.execute(text("SELECT citus_add_local_table_to_metadata(:t)"), {"t": table})
        report.citus_local.append(table)
    for table, name, definition in keys:
        if table in APP_WRITTEN_REFERENCE_TABLES and _target(definition) in REFERENCE_TABLES:
            report.dropped_keys.append(f"{table}.{name}")
            continue
        conn.execute(text(f'ALTER TABLE "{table}" ADD CONSTRAINT "{name}" {definition}'))
    return report


def _new(
    tables: Sequence[str], existing: set[str], known: dict[str, str], report: DistributionReport
) -> list[str]:
    """Those of `tables` that exist and Citus does not manage yet, in order; the ones it
    already manages are noted in the report."""
    report.already.extend(t for t in tables if t in existing and t in known)
    return [t for t in tables if t in existing and t not in known]


def _require_coordinator_in_metadata(conn: Connection) -> None:
    """A Citus local table lives on the coordinator as a node of the cluster (group 0)."""
    if conn.execute(text("SELECT 1 FROM pg_dist_node WHERE groupid = 0")).first() is None:
        raise DistributionError(
            "the coordinator is not in the Citus metadata, so `audit_log` cannot become a Citus "
            "local table: run SELECT citus_set_coordinator_host('<host the workers reach it by>', "
            "<port>) on the coordinator (`chartside cluster up` does), then `chartside db upgrade`"
        )


def placement(conn: Connection) -> dict[str, str]:
    """Every public table → how it is held: 'distributed', 'reference', 'citus local' (on the
    coordinator, written through Citus) or 'local' (a plain table Citus does not know)."""
    known = _known(conn) if citus_installed(conn) else {}
    names = conn.execute(text("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")).scalars()
    kinds = {"local": "citus local"}
    return {name: kinds.get(known[name], known[name]) if name in known else "local" for name in sorted(names)}
