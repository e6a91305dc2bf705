"""The bound patient's own names, for the agent's "does the question name someone else?" check.

Read like every tool reads: as the application role, in a transaction bound to that patient
(row-level security), through the query layer. The agent never reads the record itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from records.database import Database, patient_transaction
from records.queries.profile import get_profile


@dataclass(frozen=True)
class PatientNames:
    full_name: str
    given_names: tuple[str, ...]
    family: str | None
    prefix: str | None
    suffix: str | None
    mrn: str | None


def patient_names(db: Database, patient_id: str) -> PatientNames | None:
    """The names on the bound patient's record, or None when there is no such patient."""
    with patient_transaction(db.app, patient_id) as conn:
        row = get_profile(conn, patient_id=patient_id)
    if row is None:
        return None
    return PatientNames(
        full_name=row.full_name,
        given_names=tuple(row.given_names or ()),
        family=row.family,
        prefix=row.prefix,
        suffix=row.suffix,
        mrn=row.mrn,
    )
