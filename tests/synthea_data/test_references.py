"""Every reference resolves: `urn:uuid:` inside the bundle, `#id` inside the resource, and
conditional references (`Type?identifier=system|value`) against the support bundles — exactly
what ingestion's first pass has to index."""

from __future__ import annotations

from collections import defaultdict

from .conftest import Cohort
from .fhir_walk import references


def _identifier_index(cohort: Cohort) -> dict[str, set[tuple[str, str]]]:
    index: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for bundle in (cohort.hospital, cohort.practitioners):
        for entry in bundle["entry"]:
            resource = entry["resource"]
            for identifier in resource.get("identifier", []):
                index[resource["resourceType"]].add((identifier["system"], identifier["value"]))
    return index


def test_every_reference_in_every_patient_bundle_resolves(cohort: Cohort) -> None:
    known = _identifier_index(cohort)
    unresolved = []
    conditional = 0
    for name, bundle in cohort.patients.items():
        full_urls = {entry["fullUrl"] for entry in bundle["entry"]}
        for entry in bundle["entry"]:
            resource = entry["resource"]
            contained = {c["id"] for c in resource.get("contained", [])}
            for path, ref in references(resource):
                if ref.startswith("urn:uuid:"):
                    ok = ref in full_urls
                elif ref.startswith("#"):
                    ok = ref[1:] in contained
                elif "?identifier=" in ref:
                    resource_type, _, query = ref.partition("?identifier=")
                    system, _, value = query.rpartition("|")
                    ok = (system, value) in known[resource_type]
                    conditional += 1
                else:
                    ok = False
                if not ok:
                    unresolved.append(f"{name}: {resource['resourceType']}{path} -> {ref}")
    assert not unresolved, "\n".join(unresolved[:10])
    assert conditional > 100, "patient bundles should point at practitioners/organizations conditionally"


def test_support_bundles_reference_each_other_by_identifier(cohort: Cohort) -> None:
    known = _identifier_index(cohort)
    for entry in cohort.practitioners["entry"] + cohort.hospital["entry"]:
        resource = entry["resource"]
        targets = {
            "PractitionerRole": (("practitioner", "Practitioner"), ("organization", "Organization")),
            "Location": (("managingOrganization", "Organization"),),
        }.get(resource["resourceType"], ())
        for element, target_type in targets:
            if element in resource:
                identifier = resource[element]["identifier"]
                assert (identifier["system"], identifier["value"]) in known[target_type]
        for location in resource.get("location", []):
            identifier = location["identifier"]
            assert (identifier["system"], identifier["value"]) in known["Location"]


def test_the_provenance_targets_every_other_entry(cohort: Cohort) -> None:
    for name, bundle in cohort.patients.items():
        provenance = bundle["entry"][-1]["resource"]
        targets = [t["reference"] for t in provenance["target"]]
        assert targets == [e["fullUrl"] for e in bundle["entry"][:-1]], name


def test_clinical_resources_point_at_the_patient_and_an_encounter_of_the_same_bundle(cohort: Cohort) -> None:
    for bundle in cohort.patients.values():
        patient = f"urn:uuid:{bundle['entry'][0]['resource']['id']}"
        encounters = {e["fullUrl"] for e in bundle["entry"] if e["resource"]["resourceType"] == "Encounter"}
        for entry in bundle["entry"]:
            resource = entry["resource"]
            subject = resource.get("subject") or resource.get("patient")
            if subject is not None:
                assert subject["reference"] == patient
            if "encounter" in resource and isinstance(resource["encounter"], dict):
                assert resource["encounter"]["reference"] in encounters
