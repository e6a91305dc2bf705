"""search_leaflets / search_notes through the real registry: app role, patient scope, citations."""

from __future__ import annotations

import datetime as dt

import pytest

from knowledge.embeddings import get_embedder
from knowledge.note_index import index_notes
from tests.knowledge.helpers import add_note, add_patient, ensure_test_leaflets
from tools import search_tools
from tools.registry import Registry, ToolContext
from tools.scope import PatientScope

NOTE = """2023-05-04

# Chief Complaint
Follow-up of blood pressure.

# Medications
lisinopril 10 mg oral tablet

# Assessment and Plan
Patient is presenting with essential hypertension.

## Plan
Patient was given the following immunizations: influenza, seasonal, injectable, preservative free.
"""


@pytest.fixture(scope="session")
def embedder(settings):
    return get_embedder(settings)


@pytest.fixture()
def leaflets(db, embedder):
    ensure_test_leaflets(db, embedder)
    return db


@pytest.fixture()
def registry() -> Registry:
    return Registry(search_tools.TOOLS)


def _ctx(db, embedder, patient_id="p1") -> ToolContext:
    scope = PatientScope(patient_id=patient_id, role="patient", actor="test", conversation_id="c1")
    return ToolContext(scope=scope, db=db, embedder=embedder)


def test_tools_register_with_sections_and_no_patient_argument(registry):
    assert set(registry.names()) == {"search_leaflets", "search_notes"}
    assert registry.get("search_leaflets").section == "leaflets"
    assert registry.get("search_notes").section == "notes"
    for definition in registry.definitions():
        assert set(definition["input_schema"]["properties"]) <= {"query", "limit", "since", "until", "exact_words"}


def test_leaflet_passages_are_cited_with_title_heading_and_review_date(leaflets, embedder, registry):
    ctx = _ctx(leaflets, embedder)
    result = registry.execute(
        ctx, "search_leaflets", {"query": "How long should I fast before a cholesterol test?"}
    )
    assert result.ok and result.total >= 1
    first = result.rows[0]
    assert first["handle"] == "K1" and first["slug"] == "lipid-panel"
    assert first["reviewed"] == "2025-01-20" and first["heading_path"].endswith("Do I need to fast?")
    assert "[K1]" in result.text and "Your lipid panel (cholesterol test)" in result.text
    assert {"9", "12", "2025-01-20"} <= set(result.citations[0].facts)
    assert ctx.handles.get("K1").record_id == "lipid-panel#" + result.citations[0].record_id.split("#")[1]


def test_leaflet_search_says_plainly_when_no_leaflet_covers_it(leaflets, embedder, registry):
    result = registry.execute(
        _ctx(leaflets, embedder), "search_leaflets", {"query": "How do I renew my passport?"}
    )
    assert result.ok and result.total == 0 and result.citations == []
    assert result.text.startswith("No hospital leaflet covers this")
    assert "do not answer from general knowledge" in result.text


def test_exact_phone_number_comes_back_cited(leaflets, embedder, registry):
    result = registry.execute(_ctx(leaflets, embedder), "search_leaflets", {"query": "who is on 555-0131"})
    assert result.rows and "555-0131" in result.rows[0]["text"] and result.rows[0]["exact_match"]
    assert "555-0131" in result.citations[0].facts


def test_note_passages_carry_date_encounter_type_and_author(clean_db, embedder, registry):
    with clean_db.admin.begin() as conn:
        add_patient(conn, "p1")
        add_patient(conn, "p2")
        add_note(
            conn, "p1", "n1", NOTE, date=dt.datetime(2023, 5, 4, 9, tzinfo=dt.UTC), author="Dr. Ada Lovelace"
        )
        add_note(conn, "p2", "n2", NOTE.replace("lisinopril", "losartan"))
    index_notes(clean_db, embedder)
    ctx = _ctx(clean_db, embedder, "p1")
    result = registry.execute(ctx, "search_notes", {"query": "flu shot"})
    assert result.ok and result.rows
    row = result.rows[0]
    assert row["handle"] == "N1" and row["date"] == "2023-05-04" and row["author"] == "Dr. Ada Lovelace"
    assert "influenza" in row["text"] and row["note_type"] == "History and physical note"
    assert "note of 2023-05-04" in result.text and "Dr. Ada Lovelace" in result.text
    assert "2023-05-04" in result.citations[0].facts
    # the other patient's note is never reachable from this scope
    other = registry.execute(ctx, "search_notes", {"query": "losartan"})
    assert all("losartan" not in r["text"] for r in other.rows)


def test_note_date_window_outside_the_notes_is_explained(clean_db, embedder, registry):
    with clean_db.admin.begin() as conn:
        add_patient(conn, "p1")
        add_note(conn, "p1", "n1", NOTE, date=dt.datetime(2023, 5, 4, tzinfo=dt.UTC))
    index_notes(clean_db, embedder)
    result = registry.execute(
        _ctx(clean_db, embedder), "search_notes", {"query": "lisinopril", "since": "2024-01-01"}
    )
    assert result.ok and result.total == 0
    assert (
        "between 2024-01-01 and today" in result.text and "not evidence that it never happened" in result.text
    )


def test_bad_arguments_are_explained(leaflets, embedder, registry):
    ctx = _ctx(leaflets, embedder)
    backwards = registry.execute(
        ctx, "search_notes", {"query": "x ray", "since": "2024-02-01", "until": "2024-01-01"}
    )
    assert not backwards.ok and backwards.error_kind == "bad_argument" and "since" in backwards.text
    sneaky = registry.execute(ctx, "search_notes", {"query": "x ray", "patient_id": "p2"})
    assert not sneaky.ok and "'patient_id' is not an argument" in sneaky.text


def test_a_passage_repeated_in_several_notes_comes_back_once_with_its_dates(clean_db, embedder, registry):
    with clean_db.admin.begin() as conn:
        add_patient(conn, "p1")
        for year in (2019, 2021, 2023):
            add_note(conn, "p1", f"n{year}", NOTE, date=dt.datetime(year, 5, 4, tzinfo=dt.UTC))
    index_notes(clean_db, embedder)
    result = registry.execute(_ctx(clean_db, embedder), "search_notes", {"query": "lisinopril", "limit": 3})
    medication_rows = [r for r in result.rows if "lisinopril" in r["text"]]
    assert len(medication_rows) == 1
    assert medication_rows[0]["date"] == "2023-05-04" and medication_rows[0]["also_dates"] == [
        "2021-05-04",
        "2019-05-04",
    ]
    assert "also appears in the notes of 2021-05-04, 2019-05-04" in result.text
