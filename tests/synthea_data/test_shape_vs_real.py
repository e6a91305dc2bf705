"""Generated bundles look like the real Synthea bundles in ../shared/synthea-samples: the same
resource types, the same elements on each, the same note layout and encounter classes."""

from __future__ import annotations

import base64
import json
import re
from collections import defaultdict
from pathlib import Path

import pytest

from .conftest import Cohort

pytestmark = pytest.mark.samples

# Elements the generator adds on purpose (see synthea_data.fhir_resources): lab reference ranges and
# interpretation flags, and the reason an immunization was not given.
DELIBERATE_EXTRAS = {
    "Observation": {"referenceRange", "interpretation"},
    "Immunization": {"statusReason"},
}


def _real_bundles(samples_dir: Path):
    for path in sorted(samples_dir.glob("*/*.json")):
        bundle = json.loads(path.read_text(encoding="utf-8"))
        if bundle.get("type") == "transaction":
            yield path, bundle


def _headings(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("#")]


def test_resource_types_and_elements_match_real_output(cohort: Cohort, samples_dir: Path) -> None:
    real_keys: dict[str, set[str]] = defaultdict(set)
    for _, bundle in _real_bundles(samples_dir):
        for entry in bundle["entry"]:
            real_keys[entry["resource"]["resourceType"]].update(entry["resource"])
    for resource in cohort.resources():
        kind = resource["resourceType"]
        assert kind in real_keys, f"real Synthea patient bundles have no {kind}"
        extra = set(resource) - real_keys[kind] - DELIBERATE_EXTRAS.get(kind, set())
        assert not extra, f"{kind}/{resource['id']} has elements real Synthea never writes: {sorted(extra)}"


def test_support_bundles_match_real_ones(cohort: Cohort, samples_dir: Path) -> None:
    real_keys: dict[str, set[str]] = defaultdict(set)
    for path in samples_dir.glob("*/*Information*.json"):
        for entry in json.loads(path.read_text(encoding="utf-8"))["entry"]:
            real_keys[entry["resource"]["resourceType"]].update(entry["resource"])
    for bundle in (cohort.hospital, cohort.practitioners):
        for entry in bundle["entry"]:
            resource = entry["resource"]
            assert set(resource) <= real_keys[resource["resourceType"]], resource["resourceType"]


def test_notes_use_synthea_s_section_layout(cohort: Cohort, samples_dir: Path) -> None:
    real_layouts = set()
    for _, bundle in _real_bundles(samples_dir):
        for entry in bundle["entry"]:
            if entry["resource"]["resourceType"] == "DocumentReference":
                text = base64.b64decode(entry["resource"]["content"][0]["attachment"]["data"]).decode("utf-8")
                real_layouts.add(tuple(_headings(text)))
    for resource in cohort.resources("DocumentReference"):
        attachment = resource["content"][0]["attachment"]
        assert attachment["contentType"] == "text/plain; charset=utf-8"
        text = base64.b64decode(attachment["data"]).decode("utf-8")
        assert tuple(_headings(text)) in real_layouts, _headings(text)
        assert re.match(r"^\n\d{4}-\d{2}-\d{2}\n\n# Chief Complaint\n", text)


def test_encounter_classes_and_types_are_ones_synthea_uses(cohort: Cohort, samples_dir: Path) -> None:
    real = set()
    for _, bundle in _real_bundles(samples_dir):
        for entry in bundle["entry"]:
            if entry["resource"]["resourceType"] == "Encounter":
                real.add(entry["resource"]["class"]["code"])
    generated = {e["class"]["code"] for e in cohort.resources("Encounter")}
    assert generated <= real
    assert {"AMB", "EMER", "IMP"} <= generated
