"""The side-panel data and opening cited rows follow the clinical rules and the binding."""

from __future__ import annotations

import pytest

from tests.server.conftest import CANARY, A, login


@pytest.fixture()
def alice(serve, world):
    served = serve()
    with served.client() as client:
        login(client, "alice")
        yield client


def test_record_at_a_glance_applies_the_clinical_rules(alice):
    data = alice.get(f"/api/patients/{A}/record").json()
    assert data["patient"]["full_name"] == "Alice Anders"
    conditions = [c["display"] for c in data["conditions"]]
    assert "Diabetes mellitus type 2 (disorder)" in conditions
    assert "Acute bronchitis (disorder)" not in conditions  # resolved
    assert "Wrong entry (disorder)" not in conditions  # entered in error
    assert [f["display"] for f in data["findings"]] == ["Full-time employment (finding)"]
    assert [m["display"] for m in data["medications"]] == [
        "Metformin 500 MG Oral Tablet"
    ]  # stopped / ended excluded
    assert [a["display"] for a in data["allergies"]] == ["Peanut (substance)"]
    labs = {s["code"]: s for s in data["labs"]}
    a1c = labs["4548-4"]
    assert a1c["latest"]["value"] == 6.1 and a1c["latest"]["id"] == "obs-a3"  # newest valid, not last written
    assert [p["value"] for p in a1c["trend"]] == [7.2, 6.4, 6.1]  # oldest first; entered-in-error left out
    assert a1c["flag"] == "high"
    assert labs["8480-6"]["latest"]["value"] == 131.0 and labs["8462-4"]["latest"]["value"] == 82.0
    assert CANARY not in str(data)


def test_opening_a_cited_lab_row(alice):
    row = alice.get(f"/api/patients/{A}/records/observation/obs-a3").json()
    assert row["title"].startswith("Hemoglobin A1c")
    fields = dict(row["fields"])
    assert fields["Value"] == "6.1" and fields["Unit"] == "%" and fields["Taken"].startswith("2024-03-01")


def test_opening_a_blood_pressure_row_shows_components_by_code(alice):
    fields = alice.get(f"/api/patients/{A}/records/observation/obs-bp1").json()["fields"]
    assert ["Systolic", "131 mm[Hg]"] in fields and ["Diastolic", "82 mm[Hg]"] in fields


def test_opening_a_note_passage_returns_text_and_offsets(alice):
    note = alice.get(f"/api/patients/{A}/records/note/note-a1", params={"passage": "501"}).json()
    passage = note["passage"]
    assert passage["text"] == "Assessment: diabetes well controlled."
    assert note["text"][passage["start"] : passage["end"]] == passage["text"]
    assert "<img" in note["text"]  # returned as text; the page never renders it as HTML


def test_opening_a_leaflet_passage(alice):
    leaflet = alice.get(f"/api/patients/{A}/records/leaflet/11").json()
    assert leaflet["title"] == "Living with type 2 diabetes"
    assert leaflet["passage"]["heading"] == "Diet"
    by_slug = alice.get(f"/api/patients/{A}/records/leaflet/diabetes", params={"passage": "0"}).json()
    assert by_slug["passage"] == leaflet["passage"]


def test_a_search_citations_own_record_id_opens_its_passage(alice):
    """search_notes cites `<note id>#<seq>`, search_leaflets `<slug>#<seq>`: the id alone opens it."""
    note = alice.get(f"/api/patients/{A}/records/note/note-a1%231").json()
    assert note["passage"]["text"] == "Assessment: diabetes well controlled."
    assert note["text"][note["passage"]["start"] : note["passage"]["end"]] == note["passage"]["text"]
    leaflet = alice.get(f"/api/patients/{A}/records/leaflet/diabetes%230").json()
    assert leaflet["title"] == "Living with type 2 diabetes" and leaflet["passage"]["heading"] == "Diet"
    for missing in ("note/note-a1%23x", "leaflet/diabetes%237", "note/note-b1%231"):
        assert alice.get(f"/api/patients/{A}/records/{missing}").status_code == 404
    # a passage no longer indexed: the whole note still opens, without a highlighted passage
    whole = alice.get(f"/api/patients/{A}/records/note/note-a1%239").json()
    assert "passage" not in whole and whole["text"].startswith("Chief complaint")


def test_unknown_kinds_and_ids_are_not_found(alice):
    assert alice.get(f"/api/patients/{A}/records/secrets/1").status_code == 404
    assert alice.get(f"/api/patients/{A}/records/note/none").status_code == 404
    assert (
        alice.get(f"/api/patients/{A}/records/slot/slot-1").json()["title"] == "Diabetes clinic appointment"
    )


def test_search_citations_name_passages_as_id_hash_seq(alice):
    """search_notes / search_leaflets cite `<note id>#<seq>` and `<slug>#<seq>`: those open too."""
    note = alice.get(f"/api/patients/{A}/records/note/note-a1%231")
    assert note.status_code == 200, note.text
    assert note.json()["passage"]["text"] == "Assessment: diabetes well controlled."
    leaflet = alice.get(f"/api/patients/{A}/records/leaflet/diabetes%230")
    assert leaflet.status_code == 200, leaflet.text
    assert leaflet.json()["passage"]["text"].startswith("Eat regular meals.")
    missing = alice.get(f"/api/patients/{A}/records/note/note-a1%2399").json()
    assert missing["record_id"] == "note-a1" and "passage" not in missing  # the note, without a passage
