"""Row counts straight from the database (owner connection, bypassing the loader's report)."""

from __future__ import annotations

from sqlalchemy import text

from records.database import Database

RECORD_TABLES = (
    "patients",
    "encounters",
    "conditions",
    "medication_requests",
    "observations",
    "observation_components",
    "allergies",
    "allergy_reactions",
    "immunizations",
    "procedures",
    "care_plans",
    "clinical_notes",
    "diagnostic_reports",
)
ALL_TABLES = (*RECORD_TABLES, "organizations", "locations", "practitioners", "source_files")


def table_counts(db: Database, tables=ALL_TABLES) -> dict[str, int]:
    with db.admin.connect() as conn:
        return {t: conn.execute(text(f'SELECT count(*) FROM "{t}"')).scalar_one() for t in tables}


def patient_counts(db: Database, patient_id: str) -> dict[str, int]:
    with db.admin.connect() as conn:
        return {
            t: conn.execute(
                text(f'SELECT count(*) FROM "{t}" WHERE patient_id = :p'), {"p": patient_id}
            ).scalar_one()
            for t in RECORD_TABLES
        }


def scalar(db: Database, sql: str, **params):
    with db.admin.connect() as conn:
        return conn.execute(text(sql), params).scalar()


def execute(db: Database, sql: str, **params) -> None:
    with db.admin.begin() as conn:
        conn.execute(text(sql), params)
