"""Helpers for the ingestion fault tests: a generated cohort and a content digest of the database.

The digest is what "nothing half-written" is checked against: for every patient, every
patient table's rows (as JSON, minus the ingestion timestamps), hashed in a stable order,
plus the reference tables and the record of ingested files.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from sqlalchemy import text

from records.database import Database, patient_transaction
from records.models import Base, patient_tables

VOLATILE = ("ingested_at",)  # set to now() by the database on every write
SHARED_TABLES = ("organizations", "locations", "practitioners", "source_files")


def cohort(out_dir: Path, patients: int = 3, seed: int = 5) -> tuple[list[Path], list[Path]]:
    """(support bundles, patient bundles) of a deterministic generated cohort."""
    from synthea_data.generator import generate_cohort

    files = generate_cohort(out_dir, patients=patients, seed=seed, overwrite=True)
    support = [f for f in files if "Information" in f.name]
    return support, [f for f in files if f not in support]


def bundle_patient_id(bundle: dict) -> str | None:
    for entry in bundle.get("entry", []):
        resource = entry.get("resource") if isinstance(entry, dict) else None
        if isinstance(resource, dict) and resource.get("resourceType") == "Patient":
            return resource.get("id")
    return None


def _rows_digest(conn, table: str, patient_id: str | None = None) -> tuple[int, str]:
    """Row count and hash; with `patient_id`, that patient's rows only (explicitly: the owner
    of the embedded server is a superuser, which row-level security does not filter)."""
    drop = " ".join(f"- '{c}'" for c in VOLATILE)
    where = "WHERE t.patient_id = :p" if patient_id else ""
    rows = conn.execute(
        text(f'SELECT (to_jsonb(t) {drop})::text AS r FROM "{table}" t {where} ORDER BY 1'), {"p": patient_id}
    ).scalars()
    digest = hashlib.sha256()
    count = 0
    for row in rows:
        digest.update(row.encode())
        count += 1
    return count, digest.hexdigest()[:16]


def patient_ids(db: Database) -> list[str]:
    with db.admin.connect() as conn:
        ids = conn.execute(
            text("SELECT bundle_patient_id FROM source_files WHERE bundle_patient_id IS NOT NULL")
        ).scalars()
        return sorted(set(ids))


def patient_digest(db: Database, patient_id: str) -> dict[str, tuple[int, str]]:
    with patient_transaction(db.admin, patient_id) as conn:
        return {t: _rows_digest(conn, t, patient_id) for t in patient_tables()}


def database_digest(db: Database, extra_patients: tuple[str, ...] = ()) -> dict[str, object]:
    """Everything ingestion can write, per patient and shared."""
    out: dict[str, object] = {}
    for pid in sorted(set(patient_ids(db)) | set(extra_patients)):
        out[pid] = patient_digest(db, pid)
    with db.admin.connect() as conn:
        for table in SHARED_TABLES:
            out[table] = _rows_digest(conn, table)
    return out


def write_bundle(path: Path, bundle: dict) -> Path:
    path.write_text(json.dumps(bundle, ensure_ascii=False))
    return path


def every_table() -> list[str]:
    return [t.name for t in Base.metadata.sorted_tables]
