"""SQLAlchemy models: the patient record, reference data, knowledge, appointments, audit.

Rules every table follows (they are checked by tests):

* A table that holds one patient's data has a `patient_id` column, and its primary key and
  every unique constraint include it, so the schema can be distributed by `patient_id`
  (Citus) with co-located tables. Row-level security is enabled and forced on each of them.
* Reference data shared by all patients (organizations, locations, practitioners, leaflets,
  departments, slots) has no `patient_id`.
* Identity tables (accounts, clinician panels) refer to patients as `bound_patient_id` /
  `panel_patient_id`: they are who-may-see-whom, not record data, and the server must read
  them before a patient is bound.
* Instants are `timestamptz` (stored UTC); FHIR `date` values are `date`.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from pgvector.sqlalchemy import Vector
from sqlalchemy import (
    BigInteger,
    Boolean,
    Date,
    DateTime,
    Float,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    MetaData,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, TSVECTOR
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

EMBEDDING_DIM = 384

NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

TZ = DateTime(timezone=True)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


def _now() -> Any:
    return text("now()")


# --------------------------------------------------------------------------------------------
# Provenance of ingested files
# --------------------------------------------------------------------------------------------


class SourceFile(Base):
    """One ingested file. The sha256 decides whether a re-ingest does anything."""

    __tablename__ = "source_files"

    path: Mapped[str] = mapped_column(Text, primary_key=True)
    sha256: Mapped[str] = mapped_column(Text)
    kind: Mapped[str] = mapped_column(Text)  # patient | hospital | practitioner
    bundle_patient_id: Mapped[str | None] = mapped_column(Text, index=True)
    size_bytes: Mapped[int] = mapped_column(BigInteger)
    ingested_at: Mapped[dt.datetime] = mapped_column(TZ, server_default=_now())
    counts: Mapped[dict] = mapped_column(JSONB, server_default=text("'{}'::jsonb"))
    skipped: Mapped[dict] = mapped_column(JSONB, server_default=text("'{}'::jsonb"))
    warnings: Mapped[list] = mapped_column(JSONB, server_default=text("'[]'::jsonb"))


class RunClaim(Base):
    """Which server process is answering which message (server.sweeper).

    Written with the claim and deleted with the final event. Holds no clinical data, only
    ids, so it is not under row-level security: a sweeper must see every process's claims
    to close the messages of a process that died mid-answer.
    """

    __tablename__ = "run_claims"

    message_id: Mapped[str] = mapped_column(Text, primary_key=True)
    run_patient_id: Mapped[str] = mapped_column(Text)
    owner: Mapped[str] = mapped_column(Text, index=True)  # the process's id (its advisory lock)
    claimed_at: Mapped[dt.datetime] = mapped_column(TZ, server_default=_now())


# --------------------------------------------------------------------------------------------
# Reference data (no patient_id)
# --------------------------------------------------------------------------------------------


class Organization(Base):
    __tablename__ = "organizations"

    id: Mapped[str] = mapped_column(Text, primary_key=True)
    identifier_system: Mapped[str | None] = mapped_column(Text)
    identifier_value: Mapped[str | None] = mapped_column(Text)
    name: Mapped[str | None] = mapped_column(Text)
    type_code: Mapped[str | None] = mapped_column(Text)
    type_display: Mapped[str | None] = mapped_column(Text)
    phone: Mapped[str | None] = mapped_column(Text)
    address: Mapped[str | None] = mapped_column(Text)
    city: Mapped[str | None] = mapped_column(Text)
    state: Mapped[str | None] = mapped_column(Text)
    postal_code: Mapped[str | None] = mapped_column(Text)
    source_path: Mapped[str | None] = mapped_column(Text)

    __table_args__ = (Index("ix_organizations_identifier", "identifier_system", "identifier_value"),)


class Location(Base):
    __tablename__ = "locations"

    id: Mapped[str] = mapped_column(Text, primary_key=True)
    identifier_system: Mapped[str | None] = mapped_column(Text)
    identifier_value: Mapped[str | None] = mapped_column(Text)
    name: Mapped[str | None] = mapped_column(Text)
    organization_id: Mapped[str | None] = mapped_column(ForeignKey("organizations.id"))
    phone: Mapped[str | None] = mapped_column(Text)
    address: Mapped[str | None] = mapped_column(Text)
    city: Mapped[str | None] = mapped_column(Text)
    state: Mapped[str | None] = mapped_column(Text)
    postal_code: Mapped[str | None] = mapped_column(Text)
    latitude: Mapped[float | None] = mapped_column(Float)
    longitude: Mapped[float | None] = mapped_column(Float)
    source_path: Mapped[str | None] = mapped_column(Text)

    __table_args__ = (Index("ix_locations_identifier", "identifier_system", "identifier_value"),)


class Practitioner(Base):
    """A practitioner, merged with its PractitionerRole (specialty, organization, location).

    The FHIR id is NOT the NPI: patient bundles find a practitioner through
    `Practitioner?identifier=http://hl7.org/fhir/sid/us-npi|<npi>`.
    """

    __tablename__ = "practitioners"

    id: Mapped[str] = mapped_column(Text, primary_key=True)
    npi: Mapped[str | None] = mapped_column(Text, index=True)
    prefix: Mapped[str | None] = mapped_column(Text)
    given: Mapped[str | None] = mapped_column(Text)
    family: Mapped[str | None] = mapped_column(Text)
    full_name: Mapped[str | None] = mapped_column(Text)
    gender: Mapped[str | None] = mapped_column(Text)
    email: Mapped[str | None] = mapped_column(Text)
    specialty_code: Mapped[str | None] = mapped_column(Text)
    specialty_display: Mapped[str | None] = mapped_column(Text)
    organization_id: Mapped[str | None] = mapped_column(ForeignKey("organizations.id"))
    location_id: Mapped[str | None] = mapped_column(ForeignKey("locations.id"))
    source_path: Mapped[str | None] = mapped_column(Text)


# --------------------------------------------------------------------------------------------
# The patient record
# --------------------------------------------------------------------------------------------


class Patient(Base):
    __tablename__ = "patients"

    patient_id: Mapped[str] = mapped_column(Text, primary_key=True)
    mrn: Mapped[str | None] = mapped_column(Text)
    prefix: Mapped[str | None] = mapped_column(Text)
    given_names: Mapped[list[str]] = mapped_column(ARRAY(Text), server_default=text("'{}'"))
    family: Mapped[str | None] = mapped_column(Text)
    suffix: Mapped[str | None] = mapped_column(Text)
    full_name: Mapped[str] = mapped_column(Text)
    gender: Mapped[str | None] = mapped_column(Text)
    birth_sex: Mapped[str | None] = mapped_column(Text)
    birth_date: Mapped[dt.date | None] = mapped_column(Date)
    deceased: Mapped[bool] = mapped_column(Boolean, server_default=text("false"))
    deceased_at: Mapped[dt.datetime | None] = mapped_column(TZ)
    race: Mapped[str | None] = mapped_column(Text)
    ethnicity: Mapped[str | None] = mapped_column(Text)
    marital_status: Mapped[str | None] = mapped_column(Text)
    language: Mapped[str | None] = mapped_column(Text)
    phone: Mapped[str | None] = mapped_column(Text)
    address: Mapped[str | None] = mapped_column(Text)
    city: Mapped[str | None] = mapped_column(Text)
    state: Mapped[str | None] = mapped_column(Text)
    postal_code: Mapped[str | None] = mapped_column(Text)
    general_practitioner_id: Mapped[str | None] = mapped_column(ForeignKey("practitioners.id"))
    managing_organization_id: Mapped[str | None] = mapped_column(ForeignKey("organizations.id"))
    source_path: Mapped[str | None] = mapped_column(Text)
    ingested_at: Mapped[dt.datetime] = mapped_column(TZ, server_default=_now())

    __table_args__ = (UniqueConstraint("patient_id", "mrn"),)


def _patient_fk() -> ForeignKey:
    """For rows the application writes. The record tables the loader writes (encounters …
    diagnostic reports) carry no key to their patient, encounter or parent row: the loader
    writes them with what they point at, in one transaction, and refuses a bundle whose
    reference does not resolve, so a per-row check could never fail (migration 0008)."""
    return ForeignKey("patients.patient_id", ondelete="CASCADE")


class Encounter(Base):
    __tablename__ = "encounters"

    patient_id: Mapped[str] = mapped_column(Text, primary_key=True)
    id: Mapped[str] = mapped_column(Text, primary_key=True)
    status: Mapped[str | None] = mapped_column(Text)
    class_code: Mapped[str | None] = mapped_column(Text)  # AMB, EMER, IMP, ...
    type_code: Mapped[str | None] = mapped_column(Text)
    type_display: Mapped[str | None] = mapped_column(Text)
    reason_code: Mapped[str | None] = mapped_column(Text)
    reason_display: Mapped[str | None] = mapped_column(Text)
    start: Mapped[dt.datetime | None] = mapped_column(TZ)
    end: Mapped[dt.datetime | None] = mapped_column(TZ)
    practitioner_id: Mapped[str | None] = mapped_column(ForeignKey("practitioners.id"))
    practitioner_name: Mapped[str | None] = mapped_column(Text)
    organization_id: Mapped[str | None] = mapped_column(ForeignKey("organizations.id"))
    organization_name: Mapped[str | None] = mapped_column(Text)
    location_id: Mapped[str | None] = mapped_column(ForeignKey("locations.id"))

    __table_args__ = (Index("ix_encounters_patient_start", "patient_id", "start"),)


class Condition(Base):
    __tablename__ = "conditions"

    patient_id: Mapped[str] = mapped_column(Text, primary_key=True)
    id: Mapped[str] = mapped_column(Text, primary_key=True)
    encounter_id: Mapped[str | None] = mapped_column(Text)
    clinical_status: Mapped[str | None] = mapped_column(Text)  # active | recurrence | relapse | resolved ...
    verification_status: Mapped[str | None] = mapped_column(Text)  # confirmed | entered-in-error ...
    category: Mapped[str | None] = mapped_column(Text)
    code_system: Mapped[str | None] = mapped_column(Text)
    code: Mapped[str | None] = mapped_column(Text)
    display: Mapped[str | None] = mapped_column(Text)
    onset: Mapped[dt.datetime | None] = mapped_column(TZ)
    abatement: Mapped[dt.datetime | None] = mapped_column(TZ)
    recorded_date: Mapped[dt.datetime | None] = mapped_column(TZ)

    __table_args__ = (Index("ix_conditions_patient_code", "patient_id", "code"),)


class MedicationRequest(Base):
    """A prescription. A `medicationReference` is resolved into the code/display columns."""

    __tablename__ = "medication_requests"

    patient_id: Mapped[str] = mapped_column(Text, primary_key=True)
    id: Mapped[str] = mapped_column(Text, primary_key=True)
    encounter_id: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str | None] = mapped_column(Text)  # active | stopped | completed | entered-in-error ...
    intent: Mapped[str | None] = mapped_column(Text)
    code_system: Mapped[str | None] = mapped_column(Text)
    code: Mapped[str | None] = mapped_column(Text)
    display: Mapped[str | None] = mapped_column(Text)
    display_normalized: Mapped[str | None] = mapped_column(Text)  # tall-man letters folded, lower case
    medication_resource_id: Mapped[str | None] = mapped_column(Text)  # set when via medicationReference
    authored_on: Mapped[dt.datetime | None] = mapped_column(TZ)
    ended_at: Mapped[dt.datetime | None] = mapped_column(TZ)  # dispenseRequest.validityPeriod.end etc.
    # why ended_at is set: validity-period-end | patient-deceased (fhir_ingest.mappers)
    ended_reason: Mapped[str | None] = mapped_column(Text)
    requester_id: Mapped[str | None] = mapped_column(ForeignKey("practitioners.id"))
    requester_name: Mapped[str | None] = mapped_column(Text)
    reason_code: Mapped[str | None] = mapped_column(Text)
    reason_display: Mapped[str | None] = mapped_column(Text)
    reason_condition_id: Mapped[str | None] = mapped_column(Text)
    dosage_text: Mapped[str | None] = mapped_column(Text)
    as_needed: Mapped[bool | None] = mapped_column(Boolean)

    __table_args__ = (Index("ix_medication_requests_patient_status", "patient_id", "status"),)


class Observation(Base):
    """Labs, vitals, surveys. Panels (e.g. blood pressure 85354-9) keep their parts as components."""

    __tablename__ = "observations"

    patient_id: Mapped[str] = mapped_column(Text, primary_key=True)
    id: Mapped[str] = mapped_column(Text, primary_key=True)
    encounter_id: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str | None] = mapped_column(Text)
    category: Mapped[str | None] = mapped_column(Text)  # laboratory | vital-signs | survey | ...
    code_system: Mapped[str | None] = mapped_column(Text)
    code: Mapped[str | None] = mapped_column(Text)
    display: Mapped[str | None] = mapped_column(Text)
    value_type: Mapped[str | None] = mapped_column(Text)  # quantity | codeable | string | components | none
    value_num: Mapped[float | None] = mapped_column(Float)
    value_unit: Mapped[str | None] = mapped_column(Text)
    value_text: Mapped[str | None] = mapped_column(Text)
    value_code: Mapped[str | None] = mapped_column(Text)
    effective: Mapped[dt.datetime | None] = mapped_column(TZ)
    issued: Mapped[dt.datetime | None] = mapped_column(TZ)
    ref_low: Mapped[float | None] = mapped_column(Float)
    ref_high: Mapped[float | None] = mapped_column(Float)
    interpretation: Mapped[str | None] = mapped_column(Text)

    __table_args__ = (Index("ix_observations_patient_code_effective", "patient_id", "code", "effective"),)


class ObservationComponent(Base):
    __tablename__ = "observation_components"

    patient_id: Mapped[str] = mapped_column(Text, primary_key=True)
    observation_id: Mapped[str] = mapped_column(Text, primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    code_system: Mapped[str | None] = mapped_column(Text)
    code: Mapped[str | None] = mapped_column(Text)
    display: Mapped[str | None] = mapped_column(Text)
    value_type: Mapped[str | None] = mapped_column(Text)
    value_num: Mapped[float | None] = mapped_column(Float)
    value_unit: Mapped[str | None] = mapped_column(Text)
    value_text: Mapped[str | None] = mapped_column(Text)
    value_code: Mapped[str | None] = mapped_column(Text)


class Allergy(Base):
    __tablename__ = "allergies"

    patient_id: Mapped[str] = mapped_column(Text, primary_key=True)
    id: Mapped[str] = mapped_column(Text, primary_key=True)
    clinical_status: Mapped[str | None] = mapped_column(Text)
    verification_status: Mapped[str | None] = mapped_column(Text)
    type: Mapped[str | None] = mapped_column(Text)  # allergy | intolerance
    categories: Mapped[list[str]] = mapped_column(ARRAY(Text), server_default=text("'{}'"))
    criticality: Mapped[str | None] = mapped_column(Text)
    code_system: Mapped[str | None] = mapped_column(Text)
    code: Mapped[str | None] = mapped_column(Text)
    display: Mapped[str | None] = mapped_column(Text)
    onset: Mapped[dt.datetime | None] = mapped_column(TZ)
    recorded_date: Mapped[dt.datetime | None] = mapped_column(TZ)


class AllergyReaction(Base):
    __tablename__ = "allergy_reactions"

    patient_id: Mapped[str] = mapped_column(Text, primary_key=True)
    allergy_id: Mapped[str] = mapped_column(Text, primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    manifestation_code: Mapped[str | None] = mapped_column(Text)
    manifestation_display: Mapped[str | None] = mapped_column(Text)
    severity: Mapped[str | None] = mapped_column(Text)


class Immunization(Base):
    __tablename__ = "immunizations"

    patient_id: Mapped[str] = mapped_column(Text, primary_key=True)
    id: Mapped[str] = mapped_column(Text, primary_key=True)
    encounter_id: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str | None] = mapped_column(Text)  # completed | not-done | entered-in-error
    status_reason: Mapped[str | None] = mapped_column(Text)
    vaccine_system: Mapped[str | None] = mapped_column(Text)
    vaccine_code: Mapped[str | None] = mapped_column(Text)  # CVX
    display: Mapped[str | None] = mapped_column(Text)
    occurrence: Mapped[dt.datetime | None] = mapped_column(TZ)
    primary_source: Mapped[bool | None] = mapped_column(Boolean)
    location_id: Mapped[str | None] = mapped_column(ForeignKey("locations.id"))


class Procedure(Base):
    __tablename__ = "procedures"

    patient_id: Mapped[str] = mapped_column(Text, primary_key=True)
    id: Mapped[str] = mapped_column(Text, primary_key=True)
    encounter_id: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str | None] = mapped_column(Text)
    code_system: Mapped[str | None] = mapped_column(Text)
    code: Mapped[str | None] = mapped_column(Text)
    display: Mapped[str | None] = mapped_column(Text)
    performed_start: Mapped[dt.datetime | None] = mapped_column(TZ)
    performed_end: Mapped[dt.datetime | None] = mapped_column(TZ)
    reason_code: Mapped[str | None] = mapped_column(Text)
    reason_display: Mapped[str | None] = mapped_column(Text)
    location_id: Mapped[str | None] = mapped_column(ForeignKey("locations.id"))


class CarePlan(Base):
    __tablename__ = "care_plans"

    patient_id: Mapped[str] = mapped_column(Text, primary_key=True)
    id: Mapped[str] = mapped_column(Text, primary_key=True)
    encounter_id: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str | None] = mapped_column(Text)
    intent: Mapped[str | None] = mapped_column(Text)
    category_code: Mapped[str | None] = mapped_column(Text)
    category_display: Mapped[str | None] = mapped_column(Text)
    period_start: Mapped[dt.datetime | None] = mapped_column(TZ)
    period_end: Mapped[dt.datetime | None] = mapped_column(TZ)
    addresses_condition_ids: Mapped[list[str]] = mapped_column(ARRAY(Text), server_default=text("'{}'"))
    # [{code, display, status}]
    activities: Mapped[list] = mapped_column(JSONB, server_default=text("'[]'::jsonb"))


class ClinicalNote(Base):
    """A DocumentReference's decoded text (line endings normalised)."""

    __tablename__ = "clinical_notes"

    patient_id: Mapped[str] = mapped_column(Text, primary_key=True)
    id: Mapped[str] = mapped_column(Text, primary_key=True)
    encounter_id: Mapped[str | None] = mapped_column(Text)
    doc_status: Mapped[str | None] = mapped_column(Text)  # current | superseded | entered-in-error
    type_code: Mapped[str | None] = mapped_column(Text)
    type_display: Mapped[str | None] = mapped_column(Text)
    date: Mapped[dt.datetime | None] = mapped_column(TZ)
    author_id: Mapped[str | None] = mapped_column(ForeignKey("practitioners.id"))
    author_name: Mapped[str | None] = mapped_column(Text)
    custodian_id: Mapped[str | None] = mapped_column(ForeignKey("organizations.id"))
    content_type: Mapped[str | None] = mapped_column(Text)
    text: Mapped[str] = mapped_column(Text)
    text_sha256: Mapped[str] = mapped_column(Text)

    __table_args__ = (Index("ix_clinical_notes_patient_date", "patient_id", "date"),)


class DiagnosticReport(Base):
    """A report; its presentedForm text is not stored again when it equals a note's text."""

    __tablename__ = "diagnostic_reports"

    patient_id: Mapped[str] = mapped_column(Text, primary_key=True)
    id: Mapped[str] = mapped_column(Text, primary_key=True)
    encounter_id: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str | None] = mapped_column(Text)
    category: Mapped[str | None] = mapped_column(Text)
    code_system: Mapped[str | None] = mapped_column(Text)
    code: Mapped[str | None] = mapped_column(Text)
    display: Mapped[str | None] = mapped_column(Text)
    effective: Mapped[dt.datetime | None] = mapped_column(TZ)
    issued: Mapped[dt.datetime | None] = mapped_column(TZ)
    result_observation_ids: Mapped[list[str]] = mapped_column(ARRAY(Text), server_default=text("'{}'"))
    note_id: Mapped[str | None] = mapped_column(Text)  # the clinical note carrying the same text
    presented_text: Mapped[str | None] = mapped_column(Text)  # only when no note has the same text


# --------------------------------------------------------------------------------------------
# Knowledge: note chunks (patient data) and leaflets (reference data)
# --------------------------------------------------------------------------------------------


class NoteChunk(Base):
    """A section of a clinical note, embedded. Searched per patient by exact scan (no HNSW)."""

    __tablename__ = "note_chunks"

    patient_id: Mapped[str] = mapped_column(_patient_fk(), primary_key=True)
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    note_id: Mapped[str] = mapped_column(Text)
    seq: Mapped[int] = mapped_column(Integer)
    section: Mapped[str | None] = mapped_column(Text)
    heading_path: Mapped[str | None] = mapped_column(Text)
    text: Mapped[str] = mapped_column(Text)
    tsv: Mapped[Any] = mapped_column(TSVECTOR, nullable=True)
    embedding: Mapped[Any] = mapped_column(Vector(EMBEDDING_DIM), nullable=True)
    embedding_model: Mapped[str | None] = mapped_column(Text)

    __table_args__ = (
        ForeignKeyConstraint(
            ["patient_id", "note_id"], ["clinical_notes.patient_id", "clinical_notes.id"], ondelete="CASCADE"
        ),
        UniqueConstraint("patient_id", "note_id", "seq"),
        Index("ix_note_chunks_tsv", "tsv", postgresql_using="gin"),
    )


class Leaflet(Base):
    __tablename__ = "leaflets"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    slug: Mapped[str] = mapped_column(Text, unique=True)
    title: Mapped[str] = mapped_column(Text)
    category: Mapped[str | None] = mapped_column(Text)
    reviewed: Mapped[dt.date | None] = mapped_column(Date)
    contact: Mapped[str | None] = mapped_column(Text)
    source_path: Mapped[str] = mapped_column(Text)
    format: Mapped[str] = mapped_column(Text)  # markdown | pdf | docx
    sha256: Mapped[str] = mapped_column(Text)
    ingested_at: Mapped[dt.datetime] = mapped_column(TZ, server_default=_now())


class LeafletChunk(Base):
    __tablename__ = "leaflet_chunks"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    leaflet_id: Mapped[int] = mapped_column(ForeignKey("leaflets.id", ondelete="CASCADE"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    heading_path: Mapped[str | None] = mapped_column(Text)
    text: Mapped[str] = mapped_column(Text)  # new text of this chunk
    overlap_text: Mapped[str | None] = mapped_column(Text)  # carried from the previous chunk
    tsv: Mapped[Any] = mapped_column(TSVECTOR, nullable=True)
    embedding: Mapped[Any] = mapped_column(Vector(EMBEDDING_DIM), nullable=True)
    embedding_model: Mapped[str | None] = mapped_column(Text)

    __table_args__ = (
        UniqueConstraint("leaflet_id", "seq"),
        Index("ix_leaflet_chunks_tsv", "tsv", postgresql_using="gin"),
        Index(
            "ix_leaflet_chunks_embedding_hnsw",
            "embedding",
            postgresql_using="hnsw",
            postgresql_with={"m": 16, "ef_construction": 64},
            postgresql_ops={"embedding": "vector_cosine_ops"},
        ),
    )


# --------------------------------------------------------------------------------------------
# Appointments
# --------------------------------------------------------------------------------------------


class Department(Base):
    __tablename__ = "departments"

    id: Mapped[str] = mapped_column(Text, primary_key=True)
    organization_id: Mapped[str | None] = mapped_column(ForeignKey("organizations.id"))
    name: Mapped[str] = mapped_column(Text)
    specialty: Mapped[str] = mapped_column(Text)
    phone: Mapped[str | None] = mapped_column(Text)


class AppointmentSlot(Base):
    """Bookable time. Reference data; a booking flips `booked_appointment_id` under a row lock."""

    __tablename__ = "appointment_slots"

    id: Mapped[str] = mapped_column(Text, primary_key=True)
    department_id: Mapped[str] = mapped_column(ForeignKey("departments.id"), index=True)
    practitioner_id: Mapped[str | None] = mapped_column(ForeignKey("practitioners.id"))
    location_id: Mapped[str | None] = mapped_column(ForeignKey("locations.id"))
    starts_at: Mapped[dt.datetime] = mapped_column(TZ, index=True)
    ends_at: Mapped[dt.datetime] = mapped_column(TZ)
    booked_appointment_id: Mapped[str | None] = mapped_column(Text, unique=True)
    # set together with booked_appointment_id: the slot guard policy reads it (migration 0009)
    booked_patient_id: Mapped[str | None] = mapped_column(Text)

    __table_args__ = (
        # find_slots: free slots of a few departments in a date window (migration 0002)
        Index(
            "ix_appointment_slots_free",
            "department_id",
            "starts_at",
            postgresql_where=text("booked_appointment_id IS NULL"),
        ),
    )


class Appointment(Base):
    __tablename__ = "appointments"

    patient_id: Mapped[str] = mapped_column(_patient_fk(), primary_key=True)
    id: Mapped[str] = mapped_column(Text, primary_key=True)
    slot_id: Mapped[str] = mapped_column(ForeignKey("appointment_slots.id"))
    status: Mapped[str] = mapped_column(Text)  # booked | cancelled
    reason: Mapped[str | None] = mapped_column(Text)
    idempotency_key: Mapped[str] = mapped_column(Text)
    conversation_id: Mapped[str | None] = mapped_column(Text)
    booked_by: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[dt.datetime] = mapped_column(TZ, server_default=_now())
    cancelled_at: Mapped[dt.datetime | None] = mapped_column(TZ)

    __table_args__ = (
        UniqueConstraint("patient_id", "idempotency_key"),
        Index(
            "uq_appointments_patient_slot_booked",
            "patient_id",
            "slot_id",
            unique=True,
            postgresql_where=text("status = 'booked'"),
        ),
    )


class OfferedSlot(Base):
    """Slots `find_slots` showed in a conversation: the only ones `book_appointment` accepts."""

    __tablename__ = "offered_slots"

    patient_id: Mapped[str] = mapped_column(_patient_fk(), primary_key=True)
    conversation_id: Mapped[str] = mapped_column(Text, primary_key=True)
    slot_id: Mapped[str] = mapped_column(ForeignKey("appointment_slots.id"), primary_key=True)
    offered_at: Mapped[dt.datetime] = mapped_column(TZ, server_default=_now())


# --------------------------------------------------------------------------------------------
# Audit (append-only for the application role)
# --------------------------------------------------------------------------------------------


class AuditEvent(Base):
    """Who did what to which patient's record, allowed or not.

    Security log, not record data: it names the *target* patient (possibly one the actor was
    refused), so it carries `target_patient_id` and is not row-level-secured; the application
    role may INSERT but never UPDATE, DELETE or SELECT.
    """

    __tablename__ = "audit_log"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    at: Mapped[dt.datetime] = mapped_column(TZ, server_default=_now())
    actor: Mapped[str] = mapped_column(Text)
    role: Mapped[str] = mapped_column(Text)
    target_patient_id: Mapped[str | None] = mapped_column(Text, index=True)  # may be one the actor was denied
    action: Mapped[str] = mapped_column(Text)  # tool name, "http:GET /api/...", "login", ...
    args_digest: Mapped[str | None] = mapped_column(Text)
    outcome: Mapped[str] = mapped_column(Text)  # ok | denied | error | refused ...
    detail: Mapped[str | None] = mapped_column(Text)
    conversation_id: Mapped[str | None] = mapped_column(Text)


# --------------------------------------------------------------------------------------------
# Accounts, conversations, messages, stored events (the web service)
# --------------------------------------------------------------------------------------------


class Account(Base):
    __tablename__ = "accounts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    username: Mapped[str] = mapped_column(Text, unique=True)
    password_hash: Mapped[str | None] = mapped_column(Text)
    role: Mapped[str] = mapped_column(Text)  # patient | clinician | evaluator
    display_name: Mapped[str | None] = mapped_column(Text)
    bound_patient_id: Mapped[str | None] = mapped_column(Text)  # patient accounts only
    api_token_hash: Mapped[str | None] = mapped_column(Text, unique=True)
    created_at: Mapped[dt.datetime] = mapped_column(TZ, server_default=_now())
    disabled: Mapped[bool] = mapped_column(Boolean, server_default=text("false"))
    # sessions issued before this are refused (logout, a new password); NULL = none revoked
    sessions_valid_after: Mapped[dt.datetime | None] = mapped_column(TZ)
    # an evaluator account of an evaluation sandbox may book (records.capabilities)
    evaluation_sandbox: Mapped[bool] = mapped_column(Boolean, server_default=text("false"))


class ClinicianPanel(Base):
    __tablename__ = "clinician_panels"

    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True)
    panel_patient_id: Mapped[str] = mapped_column(Text, primary_key=True)


class Conversation(Base):
    __tablename__ = "conversations"

    patient_id: Mapped[str] = mapped_column(_patient_fk(), primary_key=True)
    id: Mapped[str] = mapped_column(Text, primary_key=True)
    account_id: Mapped[int | None] = mapped_column(ForeignKey("accounts.id"))
    role: Mapped[str] = mapped_column(Text)
    created_at: Mapped[dt.datetime] = mapped_column(TZ, server_default=_now())


class Message(Base):
    """A question and, once answered, its answer, grounding report and metrics."""

    __tablename__ = "messages"

    patient_id: Mapped[str] = mapped_column(_patient_fk(), primary_key=True)
    id: Mapped[str] = mapped_column(Text, primary_key=True)
    conversation_id: Mapped[str] = mapped_column(Text)
    account_id: Mapped[int | None] = mapped_column(ForeignKey("accounts.id"))
    question: Mapped[str] = mapped_column(Text)
    scope: Mapped[dict | None] = mapped_column(JSONB)
    status: Mapped[str] = mapped_column(
        Text, server_default=text("'pending'")
    )  # pending|running|done|error|cancelled
    answer: Mapped[str | None] = mapped_column(Text)
    metrics: Mapped[dict | None] = mapped_column(JSONB)
    created_at: Mapped[dt.datetime] = mapped_column(TZ, server_default=_now())
    finished_at: Mapped[dt.datetime | None] = mapped_column(TZ)
    # "now" pinned by an evaluator for reproducible answers; NULL = the wall clock at run time
    pinned_now: Mapped[dt.datetime | None] = mapped_column(TZ)

    __table_args__ = (
        ForeignKeyConstraint(
            ["patient_id", "conversation_id"],
            ["conversations.patient_id", "conversations.id"],
            ondelete="CASCADE",
        ),
        Index("ix_messages_patient_conversation", "patient_id", "conversation_id", "created_at"),
    )


class MessageEvent(Base):
    """Every event the agent emitted for a message, in order: a reconnect replays these."""

    __tablename__ = "message_events"

    patient_id: Mapped[str] = mapped_column(Text, primary_key=True)
    message_id: Mapped[str] = mapped_column(Text, primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    type: Mapped[str] = mapped_column(Text)
    payload: Mapped[dict] = mapped_column(JSONB)
    at: Mapped[dt.datetime] = mapped_column(TZ, server_default=_now())

    __table_args__ = (
        ForeignKeyConstraint(
            ["patient_id", "message_id"], ["messages.patient_id", "messages.id"], ondelete="CASCADE"
        ),
    )


def patient_tables() -> list[str]:
    """Every table that holds one patient's data (has a `patient_id` column)."""
    return sorted(t.name for t in Base.metadata.sorted_tables if "patient_id" in t.columns)
