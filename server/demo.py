"""Demo accounts for `make run`: three patients, one clinician with a panel (and, when asked, an evaluator).

The passwords are deterministic so the README and the terminal can print them; they are for
the demo cohort only (`chartside users add` makes real accounts with chosen passwords). The
evaluator is created only when asked (`chartside up --evaluator`), with a random token that
is printed once: a token published in a README is everybody's. Idempotent: accounts that
already exist are left alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import text

from records.accounts import AccountError, create_account, new_api_token
from records.database import Database
from server.record_view import patient_cards

DEMO_PATIENT_ACCOUNTS = 3
CLINICIAN_PANEL_SIZE = 8
DEMO_PASSWORD_PREFIX = "demo-"


@dataclass(frozen=True)
class DemoCredential:
    username: str
    password: str
    role: str
    patients: tuple[str, ...]
    names: tuple[str, ...]
    token: str | None = None


def demo_password(username: str) -> str:
    return f"{DEMO_PASSWORD_PREFIX}{username}"


def ingested_patient_ids(db: Database) -> list[str]:
    """Every patient in the database, in a stable order (living patients first).

    `source_files` is not under row-level security, so this works for a non-superuser owner
    too; the superuser fallback covers databases filled without provenance rows.
    """
    with db.admin.connect() as conn:
        ids = list(
            conn.execute(
                text(
                    "SELECT DISTINCT bundle_patient_id FROM source_files "
                    "WHERE bundle_patient_id IS NOT NULL ORDER BY 1"
                )
            ).scalars()
        )
        if not ids:
            ids = list(conn.execute(text("SELECT patient_id FROM patients ORDER BY 1")).scalars())
    cards = patient_cards(db, ids)
    return [c["patient_id"] for c in cards if not c["deceased"]] + [
        c["patient_id"] for c in cards if c["deceased"]
    ]


def create_demo_accounts(
    db: Database, preferred: Sequence[str] = (), *, evaluator: bool = False
) -> list[DemoCredential]:
    """Create (or find) the demo accounts; returns their credentials for printing.

    `preferred` patients (e.g. the generator's hard cases) come first, so the demo accounts
    and the clinician's panel show the records that exercise the hard rules. Living patients
    still come before deceased ones. Returns [] when no patient has been ingested yet.
    """
    ids = ingested_patient_ids(db)
    if not ids:
        return []
    if preferred:
        living = {c["patient_id"] for c in patient_cards(db, ids) if not c["deceased"]}
        rank = {pid: i for i, pid in enumerate(preferred)}
        ids.sort(key=lambda pid: (pid not in living, rank.get(pid, len(rank))))  # stable
    names = {c["patient_id"]: c["full_name"] for c in patient_cards(db, ids)}
    plan: list[tuple[str, str, tuple[str, ...], str | None]] = []
    for i, pid in enumerate(ids[:DEMO_PATIENT_ACCOUNTS], start=1):
        plan.append((f"patient{i}", "patient", (pid,), None))
    plan.append(("clinician", "clinician", tuple(ids[:CLINICIAN_PANEL_SIZE]), None))
    if evaluator:  # read-only (records.capabilities); a fresh token, shown once
        plan.append(("evaluator", "evaluator", tuple(ids), new_api_token()))
    out = []
    for username, role, patients, token in plan:
        try:
            create_account(
                db,
                username=username,
                role=role,
                password=demo_password(username),
                patients=list(patients),
                display_name=names.get(patients[0]) if role == "patient" else f"Demo {role}",
                token=token,
            )
        except AccountError as exc:
            if "already taken" not in str(exc):
                raise
            token = None  # it exists: its token was shown when it was made (`users token` renews it)
        out.append(
            DemoCredential(
                username=username,
                password=demo_password(username),
                role=role,
                patients=patients,
                names=tuple(names.get(p, p) for p in patients),
                token=token,
            )
        )
    return out
