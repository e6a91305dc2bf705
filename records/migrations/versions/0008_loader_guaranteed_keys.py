"""Drop the foreign keys inside one patient's record, which the loader guarantees itself

The foreign keys that check a record row against its patient, its encounter, or its parent
observation or allergy were checked once per row (a trigger and an index lookup with a row
lock each): on the sample folder they were about 40 % of the database's work during an ingest
(`chartside bench ingest`, issue 21). Every one of those rows is written by the loader, in the
same transaction as the rows it points at, and the loader refuses a bundle whose reference
does not resolve inside the bundle ("dangling reference", naming the entry and field), so the
check could never fail. `tests/fhir_ingest/test_integrity.py` holds that: every reference the
loader writes resolves, on generated bundles and on the samples.

Kept: the keys to shared rows (practitioners, organizations, locations — written by other
bundles), and every key the application's own writes rely on (appointments, conversations,
messages, note chunks). Nothing deletes a patient row; a re-ingest deletes a patient's record
rows explicitly, children first (`fhir_ingest.writer.DELETE_ORDER`).

Frozen SQL: this revision imports nothing from live code.

Revision ID: 0008
Revises: 0009
Create Date: 2026-12-01
"""

from __future__ import annotations

from alembic import op

revision = "0008"
down_revision = "0009"
branch_labels = None
depends_on = None

_TO_PATIENT = "FOREIGN KEY (patient_id) REFERENCES patients(patient_id) ON DELETE CASCADE"
_TO_ENCOUNTER = "FOREIGN KEY (patient_id, encounter_id) REFERENCES encounters(patient_id, id)"

# (table, constraint, definition) as revision 0001 created them
KEYS = (
    *(
        (table, f"fk_{table}_patient_id_patients", _TO_PATIENT)
        for table in (
            "encounters",
            "conditions",
            "medication_requests",
            "observations",
            "allergies",
            "immunizations",
            "procedures",
            "care_plans",
            "clinical_notes",
            "diagnostic_reports",
        )
    ),
    *(
        (table, f"fk_{table}_patient_id_encounters", _TO_ENCOUNTER)
        for table in (
            "conditions",
            "medication_requests",
            "observations",
            "immunizations",
            "procedures",
            "care_plans",
            "clinical_notes",
            "diagnostic_reports",
        )
    ),
    (
        "observation_components",
        "fk_observation_components_patient_id_observations",
        "FOREIGN KEY (patient_id, observation_id) REFERENCES observations(patient_id, id) ON DELETE CASCADE",
    ),
    (
        "allergy_reactions",
        "fk_allergy_reactions_patient_id_allergies",
        "FOREIGN KEY (patient_id, allergy_id) REFERENCES allergies(patient_id, id) ON DELETE CASCADE",
    ),
)


def upgrade() -> None:
    for table, name, _definition in KEYS:
        op.execute(f'ALTER TABLE "{table}" DROP CONSTRAINT IF EXISTS "{name}"')


def downgrade() -> None:
    for table, name, definition in KEYS:
        op.execute(f'ALTER TABLE "{table}" ADD CONSTRAINT "{name}" {definition}')
