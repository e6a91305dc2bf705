"""Open what an answer cites: one record row, a note passage, or a leaflet passage.

A citation carries a kind and a record id. Patient rows are read in the bound patient's
transaction, so an id of another patient's row simply is not there (the same "not found" as a
missing one). Leaflets and slots are reference data, shown to anyone who may ask.
Everything is returned as plain strings; the page shows them with textContent, so a note that
contains markup or a leaflet with an image link stays inert text.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import Connection, text

from records.database import Database, patient_transaction
from records.queries.appointments import get_appointment
from records.queries.single import TABLES

# kind -> (title column, [(column, label)]); the kind's table is `records.queries.single.TABLES`
PATIENT_KINDS: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "patient": (
        "full_name",
        [
            ("birth_date", "Born"),
            ("gender", "Gender"),
            ("mrn", "MRN"),
            ("city", "City"),
            ("deceased_at", "Died"),
        ],
    ),
    "condition": (
        "display",
        [
            ("clinical_status", "Status"),
            ("verification_status", "Verification"),
            ("onset", "Onset"),
            ("abatement", "Resolved"),
            ("recorded_date", "Recorded"),
            ("code", "SNOMED CT"),
        ],
    ),
    "medication": (
        "display",
        [
            ("status", "Status"),
            ("dosage_text", "Dosage"),
            ("authored_on", "Prescribed"),
            ("ended_at", "Ended"),
            ("requester_name", "Prescriber"),
            ("reason_display", "Reason"),
            ("code", "RxNorm"),
        ],
    ),
    "observation": (
        "display",
        [
            ("value_num", "Value"),
            ("value_unit", "Unit"),
            ("value_text", "Result"),
            ("effective", "Taken"),
            ("category", "Category"),
            ("status", "Status"),
            ("ref_low", "Reference low"),
            ("ref_high", "Reference high"),
            ("interpretation", "Interpretation"),
            ("code", "LOINC"),
        ],
    ),
    "allergy": (
        "display",
        [
            ("clinical_status", "Status"),
            ("verification_status", "Verification"),
            ("type", "Type"),
            ("criticality", "Criticality"),
            ("onset", "Onset"),
            ("recorded_date", "Recorded"),
        ],
    ),
    "encounter": (
        "type_display",
        [
            ("start", "Start"),
            ("end", "End"),
            ("class_code", "Class"),
            ("reason_display", "Reason"),
            ("practitioner_name", "Clinician"),
            ("organization_name", "Organisation"),
        ],
    ),
    "immunization": (
        "display",
        [("status", "Status"), ("occurrence", "Given"), ("status_reason", "Reason"), ("vaccine_code", "CVX")],
    ),
    "procedure": (
        "display",
        [
            ("status", "Status"),
            ("performed_start", "Performed"),
            ("reason_display", "Reason"),
            ("code", "SNOMED CT"),
        ],
    ),
    "care_plan": (
        "category_display",
        [("status", "Status"), ("period_start", "Started"), ("period_end", "Ended")],
    ),
    "appointment": (
        "reason",
        [("status", "Status"), ("slot_id", "Slot"), ("created_at", "Booked at"), ("booked_by", "Booked by")],
    ),
}
NOTE_KINDS = ("note",)
REFERENCE_KINDS = ("leaflet", "slot")
KINDS = tuple(PATIENT_KINDS) + NOTE_KINDS + REFERENCE_KINDS


def _fmt(value: Any) -> str:
    if isinstance(value, dt.datetime):
        if (value.hour, value.minute) == (0, 0):
            return value.date().isoformat()
        # the zone as the answers name it ("09:00–09:30 UTC"), so a dialog and its answer agree
        offset = value.utcoffset()
        if offset is None:
            zone = ""
        else:
            minutes = int(offset.total_seconds() // 60)
            sign = "+" if minutes >= 0 else "-"
            zone = " UTC" + (f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}" if minutes else "")
        return value.strftime("%Y-%m-%d %H:%M") + zone
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)


def _fields(row: dict[str, Any], columns: list[tuple[str, str]]) -> list[list[str]]:
    return [[label, _fmt(row[col])] for col, label in columns if row.get(col) not in (None, "", [])]


def open_record(
    db: Database, *, patient_id: str, kind: str, record_id: str, passage: str | None = None
) -> dict[str, Any] | None:
    """The cited thing as {kind, record_id, title, fields, text?, passage?}; None = not found.

    The search tools cite passages as `<note id>#<seq>` and `<leaflet slug>#<seq>` (the
    position of the chunk in its note or leaflet), so a citation's own record id opens the
    cited passage; `passage=` (a chunk id or position) is the older, explicit form.
    """
    base, anchor = record_id, None
    if kind in ("note", "leaflet") and "#" in record_id:
        base, _, anchor = record_id.partition("#")
        if not anchor.isdigit():
            return None
    if kind in PATIENT_KINDS or kind in NOTE_KINDS:
        with patient_transaction(db.app, patient_id) as conn:
            if kind == "note":
                return _note(conn, patient_id, base, passage, seq=int(anchor) if anchor is not None else None)
            if kind == "appointment":
                return _appointment(conn, patient_id, record_id)
            return _patient_row(conn, patient_id, kind, record_id)
    if kind == "leaflet":  # begin(), not connect(): a read that rolls back costs the pooled
        with db.app.begin() as conn:  # connection its prepared statements (psycopg drops them)
            return _leaflet(conn, base, anchor if anchor is not None else passage)
    if kind == "slot":
        with db.app.begin() as conn:
            return _slot(conn, record_id)
    return None


def _patient_row(conn: Connection, patient_id: str, kind: str, record_id: str) -> dict[str, Any] | None:
    title_col, columns = PATIENT_KINDS[kind]
    table = TABLES[kind]
    key = "patient_id" if kind == "patient" else "id"
    row = conn.execute(
        text(f'SELECT * FROM "{table}" WHERE patient_id = :p AND {key} = :id'),
        {"p": patient_id, "id": record_id},
    ).one_or_none()
    if row is None:
        return None
    data = dict(row._mapping)
    out: dict[str, Any] = {
        "kind": kind,
        "record_id": record_id,
        "title": _fmt(data.get(title_col) or kind.replace("_", " ").title()),
        "fields": _fields(data, columns),
    }
    if kind == "observation":
        components = conn.execute(
            text(
                "SELECT display, value_num, value_unit, value_text FROM observation_components "
                "WHERE patient_id = :p AND observation_id = :id ORDER BY seq"
            ),
            {"p": patient_id, "id": record_id},
        ).all()
        for c in components:
            value = (
                f"{c.value_num:g} {c.value_unit or ''}".strip() if c.value_num is not None else c.value_text
            )
            if value:
                out["fields"].append([c.display or "Component", value])
    if kind == "allergy":
        for r in conn.execute(
            text(
                "SELECT manifestation_display, severity FROM allergy_reactions "
                "WHERE patient_id = :p AND allergy_id = :id ORDER BY seq"
            ),
            {"p": patient_id, "id": record_id},
        ):
            out["fields"].append(
                ["Reaction", " — ".join(v for v in (r.manifestation_display, r.severity) if v)]
            )
    if kind == "care_plan":
        for activity in data.get("activities") or []:
            out["fields"].append(["Activity", _fmt(activity.get("display") or activity.get("code") or "")])
    return out


def _appointment(conn: Connection, patient_id: str, appointment_id: str) -> dict[str, Any] | None:
    """A booking as the patient needs it: when, where, with whom (not just a slot id)."""
    row = get_appointment(conn, patient_id=patient_id, appointment_id=appointment_id)
    if row is None:
        return None
    data = dict(row._mapping)
    data["place"] = ", ".join(v for v in (row.location_name, row.location_address, row.location_city) if v)
    return {
        "kind": "appointment",
        "record_id": appointment_id,
        "title": f"{row.department_name} appointment",
        "fields": _fields(
            data,
            [
                ("status", "Status"),
                ("starts_at", "Starts"),
                ("ends_at", "Ends"),
                ("organization_name", "Clinic"),
                ("practitioner_name", "Clinician"),
                ("place", "Place"),
                ("reason", "Reason"),
                ("created_at", "Booked at"),
                ("booked_by", "Booked by"),
            ],
        ),
    }


def _note(
    conn: Connection, patient_id: str, note_id: str, passage: str | None, *, seq: int | None = None
) -> dict[str, Any] | None:
    note = conn.execute(
        text(
            "SELECT id, type_display, date, author_name, text FROM clinical_notes "
            "WHERE patient_id = :pid AND id = :id"
        ),
        {"pid": patient_id, "id": note_id},
    ).one_or_none()
    if note is None:
        return None
    out: dict[str, Any] = {
        "kind": "note",
        "record_id": note_id,
        "title": note.type_display or "Clinical note",
        "fields": _fields(dict(note._mapping), [("date", "Date"), ("author_name", "Author")]),
        "text": note.text,
    }
    chunk = None
    if seq is not None:  # a citation's own anchor: the chunk's position in the note
        chunk = conn.execute(
            text(
                "SELECT seq, heading_path, text FROM note_chunks "
                "WHERE patient_id = :pid AND note_id = :n AND seq = :s"
            ),
            {"pid": patient_id, "n": note_id, "s": seq},
        ).one_or_none()
    elif passage is not None and passage.isdigit():
        # a passage is a note chunk: by its id, or by its position in the note
        chunk = conn.execute(
            text(
                "SELECT seq, heading_path, text FROM note_chunks WHERE patient_id = :pid AND note_id = :n "
                "AND (id = :p OR seq = :p) ORDER BY (id = :p) DESC LIMIT 1"
            ),
            {"pid": patient_id, "n": note_id, "p": int(passage)},
        ).one_or_none()
    if chunk is not None:
        start = note.text.find(chunk.text)
        out["passage"] = {
            "heading": chunk.heading_path,
            "text": chunk.text,
            "start": start if start >= 0 else None,
            "end": start + len(chunk.text) if start >= 0 else None,
        }
    return out


def _leaflet(conn: Connection, record_id: str, passage: str | None) -> dict[str, Any] | None:
    if record_id.isdigit():
        where, params = "c.id = :id", {"id": int(record_id)}
    else:
        seq = int(passage) if passage and passage.isdigit() else 0
        where, params = "l.slug = :slug AND c.seq = :seq", {"slug": record_id, "seq": seq}
    row = conn.execute(
        text(
            "SELECT l.title, l.slug, l.category, l.reviewed, l.contact, c.seq, c.heading_path, c.text "
            f"FROM leaflet_chunks c JOIN leaflets l ON l.id = c.leaflet_id WHERE {where}"
        ),
        params,
    ).one_or_none()
    if row is None:
        return None
    return {
        "kind": "leaflet",
        "record_id": record_id,
        "title": row.title,
        "fields": _fields(
            dict(row._mapping), [("category", "Category"), ("reviewed", "Reviewed"), ("contact", "Contact")]
        ),
        "passage": {"heading": row.heading_path, "text": row.text, "start": None, "end": None},
    }


def _slot(conn: Connection, slot_id: str) -> dict[str, Any] | None:
    row = conn.execute(
        text(
            "SELECT s.starts_at, s.ends_at, d.name AS department, d.specialty, p.full_name AS clinician, "
            "s.booked_appointment_id IS NOT NULL AS taken FROM appointment_slots s "
            "JOIN departments d ON d.id = s.department_id "
            "LEFT JOIN practitioners p ON p.id = s.practitioner_id WHERE s.id = :id"
        ),
        {"id": slot_id},
    ).one_or_none()
    if row is None:
        return None
    data = dict(row._mapping)
    data["taken"] = "yes" if row.taken else "no"
    return {
        "kind": "slot",
        "record_id": slot_id,
        "title": f"{row.department} appointment",
        "fields": _fields(
            data,
            [
                ("starts_at", "Starts"),
                ("ends_at", "Ends"),
                ("specialty", "Specialty"),
                ("clinician", "Clinician"),
                ("taken", "Taken"),
            ],
        ),
    }
