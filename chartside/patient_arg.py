"""`--patient ID` for every command: resolve it with the shared rule or exit 2 with the reason."""

from __future__ import annotations

from chartside.console import fail
from records.database import Database
from records.patients import USAGE_ERROR, PatientNotResolved, ResolvedPatient, resolve_patient


def patient_or_exit(db: Database, given: str | None, *, option: str = "--patient") -> ResolvedPatient:
    """The resolved patient; otherwise a one-line error naming what was given, exit code 2."""
    try:
        return resolve_patient(db, given, option=option)
    except PatientNotResolved as exc:
        raise fail(str(exc), code=USAGE_ERROR) from None


__all__ = ["ResolvedPatient", "patient_or_exit"]
