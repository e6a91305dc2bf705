"""Row-level security, the application role and its grants, as SQL the migrations apply.

The application role is not the owner of any table and has no BYPASSRLS, so the policies
below apply to it. FORCE makes them apply to the owner too (ingestion sets the patient per
bundle transaction as well), so only a superuser sees across patients.
`current_setting('app.patient_id', true)` is NULL or '' when no patient is set: zero rows.
"""

from __future__ import annotations

from collections.abc import Iterable

POLICY = "patient_isolation"
PATIENT_SETTING = "current_setting('app.patient_id', true)"

# Reference tables everyone may read.
READ_ONLY_TABLES = (
    "organizations",
    "locations",
    "practitioners",
    "leaflets",
    "leaflet_chunks",
    "departments",
)
# Patient tables the application writes to (within a patient transaction).
APP_WRITABLE_PATIENT_TABLES = ("appointments", "offered_slots", "conversations", "messages", "message_events")


def quote_ident(name: str) -> str:
    if not name.replace("_", "").isalnum():
        raise ValueError(f"unsafe identifier: {name!r}")
    return f'"{name}"'


def enable_rls_sql(table: str) -> list[str]:
    t = quote_ident(table)
    return [
        f"ALTER TABLE {t} ENABLE ROW LEVEL SECURITY",
        f"ALTER TABLE {t} FORCE ROW LEVEL SECURITY",
        f"DROP POLICY IF EXISTS {POLICY} ON {t}",
        f"CREATE POLICY {POLICY} ON {t} USING (patient_id = {PATIENT_SETTING}) "
        f"WITH CHECK (patient_id = {PATIENT_SETTING})",
    ]


SLOT_POLICY_READ = "slots_readable"
SLOT_POLICY_CLAIM = "slots_claim_own"


def grant_sql(role: str, patient_tables: Iterable[str]) -> list[str]:
    r = quote_ident(role)
    stmts = [
        "DO $$ BEGIN EXECUTE format('GRANT CONNECT ON DATABASE %I TO "
        + role
        + "', current_database()); END $$",
        f"GRANT USAGE ON SCHEMA public TO {r}",
    ]
    for table in READ_ONLY_TABLES:
        stmts.append(f"GRANT SELECT ON {quote_ident(table)} TO {r}")
    for table in patient_tables:
        stmts.append(f"GRANT SELECT ON {quote_ident(table)} TO {r}")
    for table in APP_WRITABLE_PATIENT_TABLES:
        stmts.append(f"GRANT INSERT, UPDATE ON {quote_ident(table)} TO {r}")
    stmts += [
        # booking flips a slot under a row lock; nothing else of a slot may change
        f"GRANT SELECT, UPDATE (booked_appointment_id) ON appointment_slots TO {r}",
        # accounts are read to log in; the server creates none of them (the CLI does, as owner)
        f"GRANT SELECT ON accounts, clinician_panels TO {r}",
        # audit: append-only
        f"GRANT INSERT ON audit_log TO {r}",
        f"REVOKE UPDATE, DELETE, TRUNCATE ON audit_log FROM {r}",
        f"GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO {r}",
    ]
    return stmts
