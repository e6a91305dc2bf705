"""One record row by its id: what a record-scoped question ("ask about this") is about.

The id comes from the user's click, so it is untrusted: the row is read with `patient_id`
as a required filter (and row-level security as the second wall), so an id of another
patient's row is simply not found — exactly like an id that does not exist. Rows marked
entered-in-error are returned with that flag set, so the caller can say so instead of
presenting them as part of the record.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, Row, Table, select

from records.models import (
    Allergy,
    AllergyReaction,
    CarePlan,
    ClinicalNote,
    Condition,
    Encounter,
    Immunization,
    MedicationRequest,
    Observation,
    ObservationComponent,
    Procedure,
)
from records.queries.common import ENTERED_IN_ERROR

# record kind (the citation kinds of `tools.results.PREFIXES`) -> (model, status column)
KINDS: dict[str, tuple[Any, str]] = {
    "condition": (Condition, "verification_status"),
    "medication": (MedicationRequest, "status"),
    "observation": (Observation, "status"),
    "allergy": (Allergy, "verification_status"),
    "encounter": (Encounter, "status"),
    "immunization": (Immunization, "status"),
    "procedure": (Procedure, "status"),
    "care_plan": (CarePlan, "status"),
    "note": (ClinicalNote, "doc_status"),
}

# record kind -> table: the one map (the panel's row viewer and the scoped-record tool use it)
TABLES: dict[str, str] = {
    "patient": "patients",
    **{kind: model.__tablename__ for kind, (model, _) in KINDS.items()},
    "appointment": "appointments",
}


@dataclass
class SingleRecord:
    kind: str
    row: Row[Any]
    components: list[Row[Any]] = field(default_factory=list)  # observation parts
    reactions: list[Row[Any]] = field(default_factory=list)  # allergy reactions
    condition_names: dict[str, str] = field(default_factory=dict)  # care plan → conditions it addresses

    @property
    def entered_in_error(self) -> bool:
        status_column = KINDS[self.kind][1]
        return getattr(self.row, status_column, None) == ENTERED_IN_ERROR


def get_record(conn: Connection, *, patient_id: str, kind: str, record_id: str) -> SingleRecord | None:
    """The row (with its parts) or None when this patient has no such row."""
    if kind not in KINDS:
        raise ValueError(f"kind {kind!r}: must be one of {', '.join(KINDS)}")
    table: Table = KINDS[kind][0].__table__
    row = conn.execute(
        select(table).where(table.c.patient_id == patient_id, table.c.id == record_id)
    ).one_or_none()
    if row is None:
        return None
    found = SingleRecord(kind, row)
    if kind == "observation":
        oc = ObservationComponent.__table__
        found.components = list(
            conn.execute(
                select(oc)
                .where(oc.c.patient_id == patient_id, oc.c.observation_id == record_id)
                .order_by(oc.c.seq)
            ).all()
        )
    elif kind == "allergy":
        ar = AllergyReaction.__table__
        found.reactions = list(
            conn.execute(
                select(ar)
                .where(ar.c.patient_id == patient_id, ar.c.allergy_id == record_id)
                .order_by(ar.c.seq)
            ).all()
        )
    elif kind == "care_plan" and row.addresses_condition_ids:
        c = Condition.__table__
        found.condition_names = {
            r.id: r.display or "(unnamed condition)"
            for r in conn.execute(
                select(c.c.id, c.c.display).where(
                    c.c.patient_id == patient_id, c.c.id.in_(list(row.addresses_condition_ids))
                )
            )
        }
    return found
