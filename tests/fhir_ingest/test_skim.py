"""The skimming parse (`fhir_ingest.skim`) must change nothing but the speed.

Every bundle — real samples, generated ones, and hypothesis' mutations of them (wrong types,
dropped and retyped entries, bent references, truncation, invalid UTF-8) — gives the same
outcome through the skim as through the full orjson parse: the same rows, counts, skipped
types and warnings, or the same error naming the same entry and field.
"""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fhir_ingest.errors import BundleError
from fhir_ingest.references import ReferenceData
from fhir_ingest.skim import Skimmed, skim_bundle
from fhir_ingest.source import RawFile, may_hold_escaped_nul, parse_json, support_rank
from fhir_ingest.transform import READ_TYPES, transform_bundle
from fhir_ingest.typed import TYPED, TYPED_SHARED
from tests.faults.ingest_support import cohort
from tests.faults.test_bundle_fuzz import json_value, mutated


def _raw(data: bytes, name: str = "bundle.json") -> RawFile:
    return RawFile(path=Path(name), data=data, sha256="")


def _outcome(parse, raw: RawFile, refdata: ReferenceData) -> tuple:
    """What ingestion makes of the bytes: the rows and report, or the error message."""
    try:
        result = transform_bundle(parse(raw), refdata, source_path=str(raw.path), source_dir="d")
    except BundleError as exc:
        return ("error", str(exc))
    return (
        "ok",
        result.kind,
        result.patient_id,
        result.patient_row,
        dict(result.rows),
        result.shared,
        result.resources,
        dict(result.skipped),
        result.warnings,
        result.unresolved_references,
    )


def _skim(raw: RawFile) -> object:
    return skim_bundle(raw, READ_TYPES)


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> tuple[list[Path], list[Path], ReferenceData]:
    support, patients = cohort(tmp_path_factory.mktemp("skim-cohort"), patients=2, seed=21)
    refdata = ReferenceData()
    for path in support:
        raw = _raw(path.read_bytes(), str(path))
        refdata.absorb(transform_bundle(parse_json(raw), refdata, source_path=str(path)).refdata_layer)
    return support, patients, refdata


def test_generated_bundles_skip_what_no_mapper_reads(generated):
    _support, patients, refdata = generated
    raw = _raw(patients[0].read_bytes())
    skimmed = _skim(raw)
    assert isinstance(skimmed, Skimmed)  # the skim's own path, not the full parse
    full = orjson.loads(raw.data)
    types = [e["resource"]["resourceType"] for e in full["entry"]]
    assert {"Claim", "ExplanationOfBenefit"} <= set(types)  # the test needs something to skip
    index = skimmed.index
    assert len(index.resources) == len(full["entry"])
    read = {i: (rtype, resource) for i, rtype, resource in skimmed.read}
    for i, original in enumerate(full["entry"]):
        resource = original["resource"]
        rtype = resource["resourceType"]
        assert index.by_type_id[(rtype, resource["id"])].entry == i
        if original.get("fullUrl"):
            assert index.by_full_url[original["fullUrl"]].entry == i
        if rtype in TYPED or rtype in TYPED_SHARED:  # its struct, holding its own bytes
            assert type(read[i][1]) is {**TYPED, **TYPED_SHARED}[rtype][0]
            assert orjson.loads(memoryview(read[i][1]._raw)) == resource
        elif rtype in READ_TYPES:
            assert read[i][1] == resource
        else:
            assert i not in read and index.resources[i] is None  # only counted
    assert sum(skimmed.unread.values()) == len(full["entry"]) - len(read)
    assert _outcome(_skim, raw, refdata) == _outcome(parse_json, raw, refdata)


def test_the_samples_give_the_same_rows(samples_dir):
    files = sorted(samples_dir.rglob("*.json"), key=support_rank)
    full_refdata, skim_refdata = ReferenceData(), ReferenceData()
    for path in files:
        raw = _raw(path.read_bytes(), str(path))
        full = _outcome(parse_json, raw, full_refdata)
        assert full[0] == "ok", full
        assert _outcome(_skim, raw, skim_refdata) == full, path.name
        for refdata in (full_refdata, skim_refdata):
            refdata.absorb(transform_bundle(parse_json(raw), refdata, source_path=str(path)).refdata_layer)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mutated_bundles_give_the_same_outcome(generated, data):
    _support, patients, refdata = generated
    name, raw_bytes, what = data.draw(mutated(patients))
    raw = _raw(raw_bytes, name)
    assert _outcome(_skim, raw, refdata) == _outcome(parse_json, raw, refdata), what


def _claim_bundle(generated, claim_text: str) -> bytes:
    """A generated bundle whose first Claim carries `claim_text` (raw JSON) in a new field."""
    _support, patients, _refdata = generated
    doc = json.loads(patients[0].read_text())
    index = next(i for i, e in enumerate(doc["entry"]) if e["resource"]["resourceType"] == "Claim")
    doc["entry"][index]["resource"]["note"] = "PLACEHOLDER"
    return (
        json.dumps(doc, ensure_ascii=False).encode().replace(b'"PLACEHOLDER"', claim_text.encode("latin-1"))
    )


@pytest.mark.parametrize(
    ("claim_text", "message"),
    [
        ('"caf\xe9"', "invalid UTF-8"),  # a latin-1 byte inside a resource nothing reads
        ('"a\\u0000b"', "NUL character"),
        ('"a\x01b"', "invalid JSON"),
        ("[1, 2,]", "invalid JSON"),
    ],
)
def test_bad_bytes_in_a_skipped_resource_are_still_refused(generated, claim_text, message):
    raw = _raw(_claim_bundle(generated, claim_text))
    with pytest.raises(BundleError) as skimmed:
        transform_bundle(_skim(raw), generated[2], source_path="b.json")
    with pytest.raises(BundleError) as full:
        parse_json(raw)
    assert str(skimmed.value) == str(full.value)
    assert message in str(skimmed.value)
    assert skimmed.value.entry is not None


def test_fields_fhir_does_not_define_take_the_full_parse(generated):  # (in an entry, not a resource)
    _support, patients, refdata = generated
    doc = json.loads(patients[0].read_text())
    doc["entry"][3]["whatever"] = {"x": "é"}
    doc["custom"] = 1
    raw = _raw(json.dumps(doc).encode())
    assert _skim(raw) == orjson.loads(raw.data)  # the full parse, unchanged
    assert _outcome(_skim, raw, refdata)[0] == "ok"


def _holds_nul(value: object) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_holds_nul(k) or _holds_nul(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_holds_nul(v) for v in value)
    return False


@given(value=json_value, ensure_ascii=st.booleans())
def test_the_nul_pre_check_is_exact(value, ensure_ascii):
    """It decides whether the parsed strings are walked for a NUL: a miss would store one."""
    doc = {"a\\b": value, "text": "\\u0000 is six characters here, not a NUL"}
    data = json.dumps(doc, ensure_ascii=ensure_ascii).encode()
    assert may_hold_escaped_nul(data) == _holds_nul(doc)
