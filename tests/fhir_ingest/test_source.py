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


# --- issue 18 item 7: bytes a record cannot hold, located ---------------------------------------


def _condition_index(bundle: dict) -> int:
    return next(i for i, e in enumerate(bundle["entry"]) if e["resource"]["resourceType"] == "Condition")


def _bad_bundle(tmp_path, replace: bytes):
    bundle = syn.patient_bundle("bad")
    index = _condition_index(bundle)
    bundle["entry"][index]["resource"]["code"]["text"] = "MARKER"
    data = json.dumps(bundle, indent=1).encode().replace(b"MARKER", replace)
    path = tmp_path / "bad.json"
    path.write_bytes(data)
    return path, index


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        (b"Diab\xffetes", "invalid UTF-8 (byte ff)"),
        (b"Diab\xed\xa0\x80etes", "invalid UTF-8 (byte ed)"),  # an encoded surrogate
        (b"Diab\x00etes", "a NUL byte inside the JSON"),
    ],
)
def test_undecodable_or_nul_bytes_name_the_entry_and_field(tmp_path, raw, words):
    path, index = _bad_bundle(tmp_path, raw)
    with pytest.raises(BundleError) as caught:
        parse_json(read_file(path))
    error = caught.value
    assert words in error.message
    assert "surrogates not allowed at line 1, column 1" not in str(error)
    assert error.entry == index and error.field == "text"


def test_an_escaped_nul_names_the_entry_resource_and_field_path(tmp_path):
    path, index = _bad_bundle(tmp_path, b"Diab\\u0000etes")
    with pytest.raises(BundleError) as caught:
        parse_json(read_file(path))
    error = caught.value
    assert error.entry == index and error.field == "code.text"
    assert error.resource and error.resource.startswith("Condition/")
    assert "NUL" in error.message


def test_an_ingest_of_such_a_file_writes_nothing_and_reports_where(tmp_path, clean_db):
    from fhir_ingest.loader import ingest_paths

    path, index = _bad_bundle(tmp_path, b"Diab\\u0000etes")
    report = ingest_paths(clean_db, [path])
    (failed,) = [f for f in report.files if f.error]
    assert f"entry {index}" in failed.error and "field code.text" in failed.error
    from sqlalchemy import text

    with clean_db.admin.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM source_files")).scalar_one() == 0
