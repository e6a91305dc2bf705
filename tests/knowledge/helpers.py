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


_leaflet_snapshot: dict[str, list[dict]] = {}


def ensure_test_leaflets(db, embedder) -> None:
    """The shipped corpus, indexed. Embedding it costs seconds and other tests wipe or change
    it, so the first ingestion's rows are kept in memory and restored whenever the stored
    leaflets differ (the real ingestion then finds every checksum unchanged and does nothing)."""
    from knowledge.leaflet_store import ensure_leaflets

    with db.admin.begin() as conn:
        stored = {(r.slug, r.sha256) for r in conn.execute(text("SELECT slug, sha256 FROM leaflets"))}
        wanted = {(r["slug"], r["sha256"]) for r in _leaflet_snapshot.get("leaflets", [])}
        if _leaflet_snapshot and stored != wanted:
            conn.execute(text("DELETE FROM leaflets"))  # chunks cascade
            conn.execute(
                text(
                    "INSERT INTO leaflets (id, slug, title, category, reviewed, contact, source_path, format, sha256) "
                    "VALUES (:id, :slug, :title, :category, :reviewed, :contact, :source_path, :format, :sha256)"
                ),
                _leaflet_snapshot["leaflets"],
            )
            conn.execute(
                text(
                    "INSERT INTO leaflet_chunks (id, leaflet_id, seq, heading_path, text, overlap_text, tsv, embedding, "
                    "embedding_model) VALUES (:id, :leaflet_id, :seq, :heading_path, :text, :overlap_text, "
                    "CAST(:tsv AS tsvector), CAST(:embedding AS vector), :embedding_model)"
                ),
                _leaflet_snapshot["chunks"],
            )
            conn.execute(
                text(
                    "SELECT setval(pg_get_serial_sequence('leaflets', 'id'), (SELECT max(id) FROM leaflets))"
                )
            )
            conn.execute(
                text(
                    "SELECT setval(pg_get_serial_sequence('leaflet_chunks', 'id'), (SELECT max(id) FROM leaflet_chunks))"
                )
            )
    ensure_leaflets(db, embedder)
    if not _leaflet_snapshot:
        with db.admin.connect() as conn:
            _leaflet_snapshot["leaflets"] = [
                dict(r._mapping)
                for r in conn.execute(
                    text(
                        "SELECT id, slug, title, category, reviewed, contact, source_path, format, sha256 FROM leaflets"
                    )
                )
            ]
            _leaflet_snapshot["chunks"] = [
                dict(r._mapping)
                for r in conn.execute(
                    text(
                        "SELECT id, leaflet_id, seq, heading_path, text, overlap_text, tsv::text AS tsv, "
                        "embedding::text AS embedding, embedding_model FROM leaflet_chunks"
                    )
                )
            ]
