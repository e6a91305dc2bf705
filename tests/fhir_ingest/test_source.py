"""Finding files (support bundles first) and JSON syntax errors that say where."""

from __future__ import annotations

import json

import pytest

from fhir_ingest.errors import BundleError
from fhir_ingest.source import discover, parse_json, read_file
from tests.fhir_ingest import synthetic as syn


def test_folders_are_searched_recursively_and_support_bundles_come_first(tmp_path):
    files = syn.write_cohort(tmp_path / "run" / "fhir", seeds=("a",))
    (tmp_path / "run" / "notes.txt").write_text("not a bundle")
    extra = syn.write_json(tmp_path / "aaa_first_alphabetically.json", syn.patient_bundle("x"))
    found, missing = discover([tmp_path, files[2], tmp_path / "nope"])
    names = [p.name for p in found]
    assert names[0].startswith("hospitalInformation") and names[1].startswith("practitionerInformation")
    assert set(names[2:]) == {extra.name, files[2].name}  # the explicit duplicate is listed once
    assert missing == [tmp_path / "nope"]


def test_truncated_json_names_line_column_and_entry(tmp_path):
    text = json.dumps(syn.patient_bundle("t"), indent=1)
    path = tmp_path / "truncated.json"
    path.write_text(text[: len(text) * 2 // 3])
    with pytest.raises(BundleError) as caught:
        parse_json(read_file(path))
    err = caught.value
    assert "truncated JSON" in err.message and "line" in err.message
    assert err.entry is not None and err.entry > 0 and err.field == "(JSON syntax)"


def test_invalid_json_in_the_middle(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"resourceType": "Bundle", "entry": [{"resource": {"resourceType": "Patient",, }}]}')
    with pytest.raises(BundleError, match="invalid JSON") as caught:
        parse_json(read_file(path))
    assert caught.value.entry == 0
