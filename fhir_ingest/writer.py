"""Writes one transformed bundle in ONE transaction: all of it, or (on any error) none of it.

Patient bundles: the patient is set for the transaction (`SET LOCAL app.patient_id`, as
`records.database` does, so row-level security checks every row written) and locked (two ingests of the same
patient take turns). A patient already in the database has its record rows deleted and
rewritten; rows that are not record data — conversations, appointments — stay, because the
patient row is updated in place rather than deleted. Clinical notes whose text did not
change are kept (only their metadata is refreshed), so their search chunks and embeddings
survive a re-ingest; changed or vanished notes are deleted with their chunks.

New patients' bundles that are ready at the same moment may be written together, in one
transaction for all of them (`write_new_patients`): the same rows in a few round trips instead
of ~25 a bundle; all of them or none, and the loader writes them one by one whenever that
fails, so a bundle the database refuses still fails alone. Only where the owner bypasses
row-level security anyway (a superuser or BYPASSRLS, as COPY needs) and not on Citus.

Each bundle commits without waiting for its own disk flush; the loader waits once at the end
of a run (`make_durable`). Bulk rows go through binary `COPY` (≈117k rows/s here, 3× SQLAlchemy inserts). PostgreSQL
refuses `COPY FROM` into a table whose row-level security applies to the writer, so when the
owner role is neither superuser nor BYPASSRLS (a managed database) the same rows go through
psycopg's pipelined `executemany` instead — slower, same result.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any

import orjson
import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb
from sqlalchemy import ARRAY, BigInteger, Boolean, Connection, Date, DateTime, Float, Integer, Text
from sqlalchemy.dialects.postgresql import JSONB

from fhir_ingest.copy_rows import EncodedRows, concat_encoded, encode, encoder_available, row_values
from fhir_ingest.references import ReferenceData, SharedTarget
from fhir_ingest.transform import PATIENT_TABLES_IN_WRITE_ORDER, BundleResult
from records.database import Database, set_patient_sql
from records.models import Base

# Children first (the order the keys once demanded). Notes are handled separately.
DELETE_ORDER = (
    "diagnostic_reports",
    "observation_components",
    "observations",
    "allergy_reactions",
    "allergies",
    "immunizations",
    "procedures",
    "care_plans",
    "medication_requests",
    "conditions",
)
_SOURCE_COLUMNS = (
    "sha256",
    "kind",
    "bundle_patient_id",
    "size_bytes",
    "ingested_at",
    "counts",
    "skipped",
    "warnings",
)
_PRACTITIONER_ROLE_COLUMNS = ("specialty_code", "specialty_display", "organization_id", "location_id")


@dataclass(frozen=True)
class SourceInfo:
    path: str
    sha256: str
    size_bytes: int


@dataclass(frozen=True)
class StoredFile:
    """A `source_files` row: what the database holds from one file."""

    path: str
    sha256: str
    kind: str
    patient_id: str | None
    counts: dict
    skipped: dict
    warnings: list
    patient_name: str | None = None


def _pg_type(sa_type: Any) -> str:
    if isinstance(sa_type, ARRAY):
        return _pg_type(sa_type.item_type) + "[]"
    for cls, name in (
        (JSONB, "jsonb"),
        (DateTime, "timestamptz"),
        (Date, "date"),
        (Boolean, "bool"),
        (BigInteger, "int8"),
        (Integer, "int4"),
        (Float, "float8"),
        (Text, "text"),
    ):
        if isinstance(sa_type, cls):
            return name
    raise TypeError(f"no COPY type for {sa_type!r}")


def table_columns(table: str) -> list[tuple[str, str]]:
    """(column, PostgreSQL type) of a table, as the models declare them."""
    return [(c.name, _pg_type(c.type)) for c in Base.metadata.tables[table].columns]


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class RecordWriter:
    """Database side of ingestion for one `Database` (the owner engine)."""

    def __init__(self, db: Database, *, use_copy: bool | None = None) -> None:
        self.db = db
        self._use_copy = use_copy
        self._bypass_rls: bool | None = None
        self._citus: bool | None = None
        self._together: bool | None = None  # `can_write_together`
        self._columns: dict[str, list[tuple[str, str]]] = {}
        self._in_session = False
        self._conn: Connection | None = None

    @contextmanager
    def session(self) -> Iterator[None]:
        """Keep one connection for a run of bundles (each bundle still its own transaction).

        Checking a connection out of the pool per bundle also pinged it first: a round trip
        and a pool lap per bundle. A connection that fails is dropped, and the next bundle
        checks out a fresh (pinged) one, so a restarted server costs one bundle, not the run.
        """
        self._in_session = True
        try:
            yield
        finally:
            self._in_session = False
            self._drop_connection()

    def _drop_connection(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with suppress(Exception):  # a broken connection may fail to close; the pool discards it
                conn.close()

    # --- reading what is already there ------------------------------------------------------

    def stored_files(self) -> dict[str, StoredFile]:
        """sha256 → stored file (a file whose checksum is here is already fully ingested)."""
        with self.db.admin.connect() as conn:
            cur = conn.connection.driver_connection.cursor()
            cur.execute(
                "SELECT s.path, s.sha256, s.kind, s.bundle_patient_id, s.counts, s.skipped, s.warnings, p.full_name "
                "FROM source_files s LEFT JOIN patients p ON p.patient_id = s.bundle_patient_id"
            )
            return {row[1]: StoredFile(*row) for row in cur.fetchall()}

    def reference_data(self) -> ReferenceData:
        """Every organization, location and practitioner, by identifier (for conditional refs)."""
        refdata = ReferenceData()
        with self.db.admin.connect() as conn:
            cur = conn.connection.driver_connection.cursor()
            cur.execute(
                "SELECT id, identifier_system, identifier_value, name, source_path FROM organizations"
            )
            for rid, system, value, name, source in cur.fetchall():
                refdata.add(SharedTarget.make("Organization", rid, name, _dir(source)), [(system, value)])
            cur.execute("SELECT id, identifier_system, identifier_value, name, source_path FROM locations")
            for rid, system, value, name, source in cur.fetchall():
                refdata.add(SharedTarget.make("Location", rid, name, _dir(source)), [(system, value)])
            cur.execute("SELECT id, npi, given, family, full_name, source_path FROM practitioners")
            for rid, npi, given, family, full, source in cur.fetchall():
                name = " ".join(p for p in (given, family) if p) or full
                refdata.add(
                    SharedTarget.make("Practitioner", rid, name, _dir(source)),
                    [("http://hl7.org/fhir/sid/us-npi", npi)],
                )
        return refdata

    def can_copy(self, cur: psycopg.Cursor) -> bool:
        if self._use_copy is None:
            self._use_copy = self._bypasses_rls(cur)
        return self._use_copy

    def _bypasses_rls(self, cur: psycopg.Cursor) -> bool:
        """Whether row-level security does not apply to the owner role (superuser or BYPASSRLS)."""
        if self._bypass_rls is None:
            cur.execute("SELECT rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = current_user")
            row = cur.fetchone()
            self._bypass_rls = bool(row and row[0])
        return self._bypass_rls

    def _on_citus(self, cur: psycopg.Cursor) -> bool:
        """Whether the database is a Citus cluster (asked once per writer)."""
        if self._citus is None:
            cur.execute("SELECT 1 FROM pg_extension WHERE extname = 'citus'")
            self._citus = cur.fetchone() is not None
        return self._citus

    def can_write_together(self) -> bool:
        """Whether `write_new_patients` may be used: rows go through COPY, row-level security
        does not apply to the owner (a transaction of several patients sets none), and the
        database is no Citus cluster (there a bundle's transaction stays one patient's, on the
        one node that holds the patient: several would make it a distributed transaction)."""
        if self._together is None:
            with self.db.admin.connect() as conn:
                cur = conn.connection.driver_connection.cursor()
                copies, bypasses = self.can_copy(cur), self._bypasses_rls(cur)
                self._together = copies and bypasses and not self._on_citus(cur)
        return self._together

    # --- writing ----------------------------------------------------------------------------

    def write(self, result: BundleResult, source: SourceInfo) -> str:
        """Write one bundle atomically. Returns "ingested" (new) or "replaced"."""
        if not self._in_session:
            with self.db.admin.begin() as conn:
                return self._write_in(conn, result, source)
        if self._conn is None:
            self._conn = self.db.admin.connect()
        try:
            with self._conn.begin():
                return self._write_in(self._conn, result, source)
        except BaseException:
            self._drop_connection()  # rolled back; whatever went wrong, the next bundle starts afresh
            raise

    def write_new_patients(self, items: Sequence[tuple[BundleResult, SourceInfo]]) -> bool:
        """Write several patient bundles in ONE transaction, all of them or none: True once
        committed; False, with nothing written, when one of their patients is in the database
        already (the caller then writes them one by one with `write`, which replaces a
        patient's rows); a database error is raised as `write` raises it, nothing written.

        The same rows as `write` gives each of them, in a few round trips for all of them
        instead of ~25 per bundle: one message to lock the patients and see that none is
        there, one pipelined statement for the patient rows and one for the `source_files`
        rows, and one COPY per table (every bundle's rows, in order). Only where
        `can_write_together()`: the patients' row-level security setting is one per
        transaction, so these transactions are the owner's that bypasses it (as COPY does).
        The bundles must be of different patients and bring no reference data of their own.
        """
        if not self._in_session:
            with self.db.admin.connect() as conn, conn.begin() as transaction:
                written = self._write_new_in(conn, items)
                if not written:
                    transaction.rollback()
                return written
        if self._conn is None:
            self._conn = self.db.admin.connect()
        try:
            with self._conn.begin() as transaction:
                written = self._write_new_in(self._conn, items)
                if not written:
                    transaction.rollback()
                return written
        except BaseException:
            self._drop_connection()
            raise

    def _write_new_in(self, conn: Connection, items: Sequence[tuple[BundleResult, SourceInfo]]) -> bool:
        cur = conn.connection.driver_connection.cursor()
        patient_ids = [result.patient_id for result, _ in items]
        if None in patient_ids or len(set(patient_ids)) != len(patient_ids):
            raise ValueError("write_new_patients takes patient bundles of different patients")
        for result, _ in items:
            if result.shared or result.refdata_layer.own_count():
                raise ValueError("write_new_patients takes no bundle that brings reference data")
        ids = sorted(patient_ids)  # type: ignore[arg-type]
        # every patient's lock, in one order whoever takes them (two such transactions never
        # wait for each other crosswise), then which of them are there: one message
        locks = "; ".join(_LOCK_SQL.format(_literal(_LOCK_PREFIX + pid)) for pid in ids)
        cur.execute(
            f"SET LOCAL synchronous_commit = off; {locks}; "
            f"SELECT patient_id FROM patients WHERE patient_id IN ({', '.join(map(_literal, ids))})"
        )
        while cur.nextset():
            pass
        if cur.fetchall():
            return False
        patients: dict[
            str, list[tuple]
        ] = {}  # statement → parameters (one statement unless the rows' keys differ)
        for result, source in items:
            assert result.patient_row is not None
            statement, params = self._patient_upsert(result.patient_row, source.path)
            patients.setdefault(statement, []).append(params)
        for statement, params_list in patients.items():
            cur.executemany(statement, params_list)
        for table in PATIENT_TABLES_IN_WRITE_ORDER:
            encoded: dict[tuple[str, ...], list[EncodedRows]] = {}
            rows: dict[tuple[str, ...], list[dict]] = {}
            for result, _ in items:
                part = result.encoded.get(table)
                if part is not None:
                    encoded.setdefault(part.columns, []).append(part)
                elif result.rows.get(table):
                    bundle_rows = result.rows[table]
                    rows.setdefault(tuple(bundle_rows[0]), []).extend(bundle_rows)
            for parts in encoded.values():
                self._copy_encoded(cur, table, concat_encoded(parts))
            for table_rows in rows.values():
                self._bulk_insert(cur, table, table_rows)
        cur.executemany(_SOURCE_SQL, [_source_params(result, source) for result, source in items])
        return True

    def _write_in(self, conn: Connection, result: BundleResult, source: SourceInfo) -> str:
        cur = conn.connection.driver_connection.cursor()
        # atomic as ever; only the wait for the disk flush moves to `make_durable()`. Both
        # settings in one message (utility commands take no parameters: the id is a literal)
        setup = "SET LOCAL synchronous_commit = off"
        # on Citus the existence check stays a statement of its own: in the setup message it
        # failed there ("executing a distributed query in a function call that may be pushed to
        # a remote node"), a distributed read beside the session settings and the lock
        combined = result.patient_id is not None and not self._on_citus(cur)
        if result.patient_id is not None:
            # SET LOCAL (not set_config): Citus forwards it to the workers (records.database);
            # then the patient's lock (two ingests of one patient take turns) and whether the
            # patient is there already, all in one message
            setup += (
                f"; {set_patient_sql(result.patient_id)}; "
                + _LOCK_SQL.format(_literal(_LOCK_PREFIX + result.patient_id))
            )
            if combined:
                setup += f"; SELECT 1 FROM patients WHERE patient_id = {_literal(result.patient_id)}"
        cur.execute(setup)
        existed = False
        if combined:
            while cur.nextset():
                pass
            existed = cur.fetchone() is not None
        elif result.patient_id is not None:
            cur.execute("SELECT 1 FROM patients WHERE patient_id = %s", (result.patient_id,))
            existed = cur.fetchone() is not None
        self._write_shared(cur, result)
        if result.patient_id is not None:
            status = self._write_patient(cur, result, source.path, existed)
        else:
            cur.execute("SELECT 1 FROM source_files WHERE path = %s", (source.path,))
            status = "replaced" if cur.fetchone() else "ingested"
        self._record_source(cur, result, source)
        return status

    def make_durable(self, path: str) -> None:
        """Wait until every bundle committed so far is on disk.

        Bundles commit with `synchronous_commit = off` (no fsync wait per bundle). A commit
        with it on waits for the WAL up to its own record, which covers every earlier commit,
        so one small synchronous write at the end of a run makes the whole run durable before
        the summary says "ingested". Until then a crash could only lose whole bundles, and
        their `source_files` rows with them, so the next run loads them again.
        """
        with self.db.admin.begin() as conn:
            cur = conn.connection.driver_connection.cursor()
            cur.execute("SET LOCAL synchronous_commit = on")
            cur.execute("UPDATE source_files SET ingested_at = ingested_at WHERE path = %s", (path,))

    def _write_shared(self, cur: psycopg.Cursor, result: BundleResult) -> None:
        """Organizations, locations, practitioners: a few statements per table, not one per row.

        On Citus these are reference tables: every statement is executed on every node (and
        serialised across them), so a support bundle's ~1,500 rows written one statement each
        took seconds on a two-worker cluster, against 0.1 s on one server (measured,
        docs/scaling.md). One statement per table (and role updates in statements of
        `_BATCH_PARAMETERS` values) cost the same on one server and a handful of round trips
        on the cluster.
        """
        shared = result.shared
        for table, rows in (
            ("organizations", shared.organizations),
            ("locations", shared.locations),
            ("practitioners", shared.practitioners),
        ):
            if rows:
                self._upsert(cur, table, list(rows.values()))
        if shared.role_updates:
            self._update_roles(cur, shared.role_updates)

    def _upsert(self, cur: psycopg.Cursor, table: str, rows: list[dict]) -> None:
        columns = [name for name, _ in self._table_columns(table) if name in rows[0]]
        types = dict(self._table_columns(table))
        updates = []
        for c in columns:
            if c == "id":
                continue
            if table == "practitioners" and c in _PRACTITIONER_ROLE_COLUMNS:
                # a practitioner bundle without roles must not erase what a role said
                updates.append(f"{_quote(c)} = COALESCE(EXCLUDED.{_quote(c)}, {table}.{_quote(c)})")
            else:
                updates.append(f"{_quote(c)} = EXCLUDED.{_quote(c)}")
        # the rows as ONE json parameter (orjson, in C), read back by `json_to_recordset` with
        # each column's type, so the statement stays short and the same whatever the number
        # of rows. A VALUES list of 20,000 placeholders cost psycopg more to split than the
        # server to run; one typed array per column (`unnest`) still cost psycopg's array
        # dumper ~20 ms of Python for a support bundle, in the process every commit waits on
        record = ", ".join(f"{_quote(c)} {types[c]}" for c in columns)
        sql = (
            f"INSERT INTO {table} ({', '.join(map(_quote, columns))}) "
            f"SELECT {', '.join(map(_quote, columns))} FROM json_to_recordset(%s::json) AS v({record}) "
            f"ON CONFLICT (id) DO UPDATE SET {', '.join(updates)}"
        )
        # (keys that are not among `columns` are ignored by json_to_recordset)
        cur.execute(sql, (orjson.dumps(rows).decode(),))

    def _update_roles(self, cur: psycopg.Cursor, role_updates: list[tuple[str, dict]]) -> None:
        """PractitionerRoles onto their practitioners: each non-null value replaces the stored
        one, later roles of the same practitioner over earlier ones (as one UPDATE per role did)."""
        merged: dict[str, dict] = {}
        for practitioner_id, role in role_updates:
            into = merged.setdefault(practitioner_id, dict.fromkeys(_PRACTITIONER_ROLE_COLUMNS))
            into.update({c: role[c] for c in _PRACTITIONER_ROLE_COLUMNS if role[c] is not None})
        names = ("id", *_PRACTITIONER_ROLE_COLUMNS)
        sets = ", ".join(f"{c} = COALESCE(v.{c}, p.{c})" for c in _PRACTITIONER_ROLE_COLUMNS)
        arrays = ", ".join(["%b::text[]"] * len(names))
        sql = (
            f"UPDATE practitioners p SET {sets} FROM unnest({arrays}) AS v({', '.join(names)}) "
            "WHERE p.id = v.id"
        )
        items = list(merged.items())
        for batch in _batches(items, len(names)):
            ids = [pid for pid, _role in batch]
            cur.execute(sql, [ids, *([role[c] for _pid, role in batch] for c in _PRACTITIONER_ROLE_COLUMNS)])

    def _write_patient(
        self, cur: psycopg.Cursor, result: BundleResult, source_path: str, existed: bool
    ) -> str:
        pid = result.patient_id
        assert pid is not None and result.patient_row is not None
        new_notes = {row["id"]: row for row in result.rows.get("clinical_notes", ())}
        kept_notes: list[dict] = []
        if existed:
            cur.execute("SELECT id, text_sha256 FROM clinical_notes WHERE patient_id = %s", (pid,))
            unchanged = {
                nid
                for nid, sha in cur.fetchall()
                if nid in new_notes and new_notes[nid]["text_sha256"] == sha
            }
            kept_notes = [new_notes[nid] for nid in unchanged]
            for table in DELETE_ORDER:
                cur.execute(f"DELETE FROM {table} WHERE patient_id = %s", (pid,))
            cur.execute(
                "DELETE FROM clinical_notes WHERE patient_id = %s AND NOT (id = ANY(%s))",
                (pid, list(unchanged)),
            )
            # kept notes point at their encounter again below (no key forbids the gap: 0008)
            cur.execute("DELETE FROM encounters WHERE patient_id = %s", (pid,))
        self._upsert_patient(cur, result.patient_row, source_path)
        kept_ids = {row["id"] for row in kept_notes}
        for table in PATIENT_TABLES_IN_WRITE_ORDER:
            encoded = result.encoded.get(table)
            if encoded is not None:
                self._copy_encoded(cur, table, encoded)
                continue
            rows = result.rows.get(table)
            if table == "clinical_notes" and rows and kept_ids:
                rows = [row for row in rows if row["id"] not in kept_ids]
            if rows:
                self._bulk_insert(cur, table, rows)
        if kept_notes:
            columns = [c for c, _ in self._table_columns("clinical_notes") if c not in ("patient_id", "id")]
            cur.executemany(
                f"UPDATE clinical_notes SET {', '.join(f'{_quote(c)} = %s' for c in columns)} "
                "WHERE patient_id = %s AND id = %s",
                [(*(row[c] for c in columns), pid, row["id"]) for row in kept_notes],
            )
        return "replaced" if existed else "ingested"

    def _upsert_patient(self, cur: psycopg.Cursor, row: dict, source_path: str) -> None:
        cur.execute(*self._patient_upsert(row, source_path))

    def _patient_upsert(self, row: dict, source_path: str) -> tuple[str, tuple]:
        """The statement upserting a patient row, and its parameters."""
        columns = [
            c
            for c, _ in self._table_columns("patients")
            if c in row and c not in ("source_path", "ingested_at")
        ]
        updates = ", ".join(f"{_quote(c)} = EXCLUDED.{_quote(c)}" for c in columns if c != "patient_id")
        # EXCLUDED.ingested_at, not now(): Citus refuses a non-IMMUTABLE function in the DO UPDATE
        # SET of an INSERT into a distributed table (the VALUES' now() is evaluated once, the same)
        return (
            f"INSERT INTO patients ({', '.join(map(_quote, columns))}, source_path, ingested_at) "
            f"VALUES ({', '.join(['%s'] * len(columns))}, %s, now()) "
            f"ON CONFLICT (patient_id) DO UPDATE SET {updates}, source_path = EXCLUDED.source_path, "
            "ingested_at = EXCLUDED.ingested_at",
            (*(row[c] for c in columns), source_path),
        )

    def _copy_encoded(self, cur: psycopg.Cursor, table: str, encoded: EncodedRows) -> None:
        columns = ", ".join(map(_quote, encoded.columns))
        with cur.copy(f"COPY {table} ({columns}) FROM STDIN (FORMAT BINARY)") as copy:
            copy.write(encoded.data)

    def _bulk_insert(self, cur: psycopg.Cursor, table: str, rows: Sequence[dict]) -> None:
        typed = [(c, t) for c, t in self._table_columns(table) if c in rows[0]]
        names = [c for c, _ in typed]
        column_list = ", ".join(map(_quote, names))
        if self.can_copy(cur):
            with cur.copy(f"COPY {table} ({column_list}) FROM STDIN (FORMAT BINARY)") as copy:
                copy.set_types([t for _, t in typed])
                values = row_values(names)
                write_row = copy.write_row
                for row in rows:
                    write_row(values(row))
        else:
            json_columns = {c for c, t in typed if t == "jsonb"}
            cur.executemany(
                f"INSERT INTO {table} ({column_list}) VALUES ({', '.join(['%s'] * len(names))})",
                [tuple(Jsonb(row[c]) if c in json_columns else row[c] for c in names) for row in rows],
            )

    def copies(self) -> bool:
        """Whether bulk rows go through COPY (see `can_copy`), asked on the session's connection."""
        if self._use_copy is None:
            with self.db.admin.connect() as conn:
                self.can_copy(conn.connection.driver_connection.cursor())
        return bool(self._use_copy)

    def _record_source(self, cur: psycopg.Cursor, result: BundleResult, source: SourceInfo) -> None:
        cur.execute(_SOURCE_SQL, _source_params(result, source))

    def _table_columns(self, table: str) -> list[tuple[str, str]]:
        if table not in self._columns:
            self._columns[table] = table_columns(table)
        return self._columns[table]


# one row per path, and one per patient: another file of this patient lets go of it (one
# statement: the row of this path is updated in place, never deleted and re-added)
_SOURCE_SQL = (
    "WITH gone AS (DELETE FROM source_files WHERE bundle_patient_id = %s AND path <> %s) "
    "INSERT INTO source_files (path, sha256, kind, bundle_patient_id, size_bytes, ingested_at, counts, "
    "skipped, warnings) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (path) DO UPDATE SET "
    + ", ".join(f"{c} = EXCLUDED.{c}" for c in _SOURCE_COLUMNS)
)


def _source_params(result: BundleResult, source: SourceInfo) -> tuple:
    return (
        result.patient_id,
        source.path,
        source.path,
        source.sha256,
        result.kind,
        result.patient_id,
        source.size_bytes,
        dt.datetime.now(dt.UTC),
        Jsonb(result.counts()),
        Jsonb(dict(result.skipped)),
        Jsonb(result.warnings),
    )


# a patient's ingests take turns: a transaction-scoped advisory lock on this key + the id
_LOCK_PREFIX = "chartside.patient:"
_LOCK_SQL = "SELECT pg_advisory_xact_lock(hashtextextended({}, 0))"


def _literal(value: str) -> str:
    """A string as an SQL literal (for the utility and multi-statement messages, which take no
    parameters)."""
    return sql.Literal(value).as_string(None)


# Clinical notes stay rows: a re-ingest keeps the notes whose text did not change, and
# writes only the others (`_write_patient`), which needs them one by one.
ENCODED_TABLES = tuple(t for t in PATIENT_TABLES_IN_WRITE_ORDER if t != "clinical_notes")


def encode_rows(result: BundleResult) -> None:
    """Turn the bulk rows of `result` into COPY bytes (in a worker, before they are sent)."""
    if not encoder_available():
        return
    for table in ENCODED_TABLES:
        rows = result.rows.get(table)
        if rows:
            typed = [(c, t) for c, t in table_columns(table) if c in rows[0]]
            result.encoded[table] = encode(typed, rows)
            del result.rows[table]


_BATCH_PARAMETERS = 20_000  # per statement (PostgreSQL's limit is 65,535)


def _batches(rows: list, width: int) -> Iterator[list]:
    """`rows` in slices of at most `_BATCH_PARAMETERS` bound values."""
    size = max(1, _BATCH_PARAMETERS // max(1, width))
    for start in range(0, len(rows), size):
        yield rows[start : start + size]


def _dir(path: str | None) -> str | None:
    if not path:
        return None
    return path.rsplit("/", 1)[0] if "/" in path else ""
