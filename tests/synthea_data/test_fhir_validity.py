"""Every generated resource is valid FHIR R4 (checked with fhir.resources' R4B models) and every
bundle has real Synthea's envelope."""

from __future__ import annotations

import re

import pytest
from fhir.resources.R4B import get_fhir_model_class
from pydantic import ValidationError

from .conftest import Cohort

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")

# Required bindings fhir.resources does not enforce (it checks structure and datatypes, not codes).
STATUS_CODES = {
    "Encounter": {
        "planned",
        "arrived",
        "triaged",
        "in-progress",
        "onleave",
        "finished",
        "cancelled",
        "entered-in-error",
        "unknown",
    },
    "Observation": {
        "registered",
        "preliminary",
        "final",
        "amended",
        "corrected",
        "cancelled",
        "entered-in-error",
        "unknown",
    },
    "MedicationRequest": {
        "active",
        "on-hold",
        "cancelled",
        "completed",
        "entered-in-error",
        "stopped",
        "draft",
        "unknown",
    },
    "Immunization": {"completed", "entered-in-error", "not-done"},
    "Procedure": {
        "preparation",
        "in-progress",
        "not-done",
        "on-hold",
        "stopped",
        "completed",
        "entered-in-error",
        "unknown",
    },
    "DiagnosticReport": {
        "registered",
        "partial",
        "preliminary",
        "final",
        "amended",
        "corrected",
        "appended",
        "cancelled",
        "entered-in-error",
        "unknown",
    },
    "DocumentReference": {"current", "superseded", "entered-in-error"},
    "CarePlan": {"draft", "active", "on-hold", "revoked", "completed", "entered-in-error", "unknown"},
    "CareTeam": {"proposed", "active", "suspended", "inactive", "entered-in-error"},
    "MedicationAdministration": {
        "in-progress",
        "not-done",
        "on-hold",
        "completed",
        "entered-in-error",
        "stopped",
        "unknown",
    },
}


def _all_bundles(cohort: Cohort):
    yield "hospital", cohort.hospital
    yield "practitioners", cohort.practitioners
    yield from cohort.patients.items()


def test_every_resource_validates_against_the_r4_models(cohort: Cohort) -> None:
    failures = []
    checked = 0
    for name, bundle in _all_bundles(cohort):
        get_fhir_model_class("Bundle").model_validate({k: v for k, v in bundle.items() if k != "entry"})
        for number, entry in enumerate(bundle["entry"]):
            resource = entry["resource"]
            try:
                get_fhir_model_class(resource["resourceType"]).model_validate(resource)
            except ValidationError as exc:
                failures.append(f"{name} entry {number} ({resource['resourceType']}): {exc}")
            checked += 1
    assert not failures, "\n".join(failures[:5])
    assert checked > 1000


def test_the_validator_is_strict_enough_to_catch_a_broken_resource(cohort: Cohort) -> None:
    """Guard against a vacuous check: a mangled generated Observation must be rejected."""
    observation = dict(next(cohort.resources("Observation")))
    observation["effectiveDateTime"] = "yesterday afternoon"
    with pytest.raises(ValidationError):
        get_fhir_model_class("Observation").model_validate(observation)


def test_status_codes_are_from_their_value_sets(cohort: Cohort) -> None:
    for resource in cohort.resources():
        allowed = STATUS_CODES.get(resource["resourceType"])
        if allowed is not None:
            assert resource["status"] in allowed, (
                f"{resource['resourceType']}/{resource['id']}: {resource['status']}"
            )


def test_patient_bundles_have_synthea_s_transaction_envelope(cohort: Cohort) -> None:
    for name, bundle in cohort.patients.items():
        assert bundle["type"] == "transaction", name
        first = bundle["entry"][0]["resource"]
        assert first["resourceType"] == "Patient"
        assert name.endswith(f"_{first['id']}.json")
        assert bundle["entry"][-1]["resource"]["resourceType"] == "Provenance"
        ids = set()
        for entry in bundle["entry"]:
            resource = entry["resource"]
            assert UUID.match(resource["id"]), f"{name}: id {resource['id']!r} is not a uuid"
            assert entry["fullUrl"] == f"urn:uuid:{resource['id']}"
            assert entry["request"] == {"method": "POST", "url": resource["resourceType"]}
            assert resource["id"] not in ids, f"{name}: duplicate id {resource['id']}"
            ids.add(resource["id"])


def test_support_bundles_are_batches_with_if_none_exist(cohort: Cohort) -> None:
    for bundle, kinds in (
        (cohort.hospital, {"Organization", "Location"}),
        (cohort.practitioners, {"Practitioner", "PractitionerRole"}),
    ):
        assert bundle["type"] == "batch"
        assert {e["resource"]["resourceType"] for e in bundle["entry"]} == kinds
        for entry in bundle["entry"]:
            resource = entry["resource"]
            assert entry["request"]["method"] == "POST"
            if resource.get("identifier"):
                identifier = resource["identifier"][0]
                assert (
                    entry["request"]["ifNoneExist"]
                    == f"identifier={identifier['system']}|{identifier['value']}"
                )


def test_file_names_follow_synthea(cohort: Cohort) -> None:
    pattern = re.compile(r"^[^\W\d_][^_]*\d+_[^_]+\d+_[0-9a-f-]{36}\.json$")
    for name in cohort.patients:
        assert pattern.match(name), name
    assert cohort.manifest["support_bundles"] == [
        f"hospitalInformation{cohort.manifest['seed']}.json",
        f"practitionerInformation{cohort.manifest['seed']}.json",
    ]
