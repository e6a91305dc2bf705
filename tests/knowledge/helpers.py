"""Rows for knowledge tests: patients and clinical notes written directly (ingestion is another package)."""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import json
from pathlib import Path

from sqlalchemy import Connection, text


def add_patient(conn: Connection, patient_id: str, name: str = "Test Patient") -> None:
    conn.execute(
        text("INSERT INTO patients (patient_id, full_name) VALUES (:p, :n) ON CONFLICT DO NOTHING"),
        {"p": patient_id, "n": name},
    )


def add_note(
    conn: Connection,
    patient_id: str,
    note_id: str,
    body: str,
    *,
    date: dt.datetime | None = None,
    author: str | None = "Dr. Test",
    status: str = "current",
) -> None:
    conn.execute(
        text(
            "INSERT INTO clinical_notes (patient_id, id, doc_status, type_display, date, author_name, text, "
            "text_sha256) VALUES (:p, :id, :status, 'History and physical note', :date, :author, :text, :sha)"
        ),
        {
            "p": patient_id,
            "id": note_id,
            "status": status,
            "date": date or dt.datetime(2024, 1, 1, tzinfo=dt.UTC),
            "author": author,
            "text": body,
            "sha": hashlib.sha256(body.encode()).hexdigest(),
        },
    )


def sample_note_bundles(samples_dir: Path) -> list[Path]:
    return sorted(p for p in samples_dir.rglob("*.json") if "Information" not in p.name)


def load_sample_notes(conn: Connection, bundle: Path) -> str:
    """One real Synthea bundle's DocumentReferences → patients + clinical_notes rows. Returns the patient id."""
    data = json.loads(bundle.read_text(encoding="utf-8"))
    resources = [e["resource"] for e in data["entry"]]
    patient = next(r for r in resources if r["resourceType"] == "Patient")
    name = patient.get("name", [{}])[0]
    add_patient(conn, patient["id"], " ".join([*name.get("given", []), name.get("family", "")]).strip())
    for doc in (r for r in resources if r["resourceType"] == "DocumentReference"):
        body = base64.b64decode(doc["content"][0]["attachment"]["data"]).decode("utf-8")
        add_note(
            conn,
            patient["id"],
            doc["id"],
            body.replace("\r\n", "\n"),
            date=dt.datetime.fromisoformat(doc["date"]),
            author=(doc.get("author") or [{}])[0].get("display"),
            status=doc.get("docStatus") or "current",
        )
    return patient["id"]
