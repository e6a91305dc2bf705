"""Which patient an operator means: the one resolution rule every command shares.

A command line names a patient by its full id or by a unique prefix of it. Anything else —
an empty string, an id nobody has, a prefix several ids share, a character PostgreSQL text
cannot hold — is an error that names what was given, never a silent "no allergies" about a
patient who does not exist. Commands turn `PatientNotResolved` into exit code 2
(`chartside.console.fail(..., code=USAGE_ERROR)`).

The lookup reads `patients` as the owner role (an operator holding the database credentials
may name any patient); what the command then does with the id runs under row-level security.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import text

from records.database import Database

USAGE_ERROR = 2  # the exit code of every "which patient?" failure
MAX_MATCHES_SHOWN = 5


class PatientNotResolved(ValueError):
    """The given id names no patient, or several: the message says which and what to do."""


@dataclass(frozen=True)
class ResolvedPatient:
    patient_id: str
    full_name: str | None


def _escape_like(value: str) -> str:
    return value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def resolve_patient(db: Database, given: str | None, *, option: str = "--patient") -> ResolvedPatient:
    """The patient whose id is `given`, or whose id alone starts with `given`.

    Raises `PatientNotResolved` naming `option` and the value for an empty, unknown or
    ambiguous id.
    """
    value = (given or "").strip()
    if not value:
        raise PatientNotResolved(f"{option} is empty: give a patient id (or a unique prefix of one)")
    if "\x00" in value or len(value) > 200:
        raise PatientNotResolved(f"{option} {given!r}: not a patient id")
    with db.admin.connect() as conn:
        exact = conn.execute(
            text("SELECT patient_id, full_name FROM patients WHERE patient_id = :g"), {"g": value}
        ).first()
        if exact is not None:
            return ResolvedPatient(exact.patient_id, exact.full_name)
        rows = conn.execute(
            text(
                "SELECT patient_id, full_name FROM patients WHERE patient_id LIKE :p ESCAPE '\\' "
                "ORDER BY patient_id LIMIT :n"
            ),
            {"p": _escape_like(value) + "%", "n": MAX_MATCHES_SHOWN + 1},
        ).all()
        total = conn.execute(text("SELECT count(*) FROM patients")).scalar_one() if not rows else None
    if len(rows) == 1:
        return ResolvedPatient(rows[0].patient_id, rows[0].full_name)
    if not rows:
        hint = (
            "the database has no patients yet (run `chartside up` or `chartside ingest`)"
            if total == 0
            else f"{total} patients exist; `chartside db status` shows where the database is"
        )
        raise PatientNotResolved(f"{option} {given!r}: no patient with that id or id prefix; {hint}")
    shown = ", ".join(r.patient_id for r in rows[:MAX_MATCHES_SHOWN])
    more = " …" if len(rows) > MAX_MATCHES_SHOWN else ""
    raise PatientNotResolved(
        f"{option} {given!r}: matches several patients ({shown}{more}); give more of the id"
    )
