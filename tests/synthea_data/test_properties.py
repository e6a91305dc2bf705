"""Invariants that must hold for any patient of any cohort, not just the shared test cohort."""

from __future__ import annotations

import datetime as dt

from fhir.resources.R4B import get_fhir_model_class
from hypothesis import given, settings
from hypothesis import strategies as st

from synthea_data import codes
from synthea_data.clock import REFERENCE_TODAY
from synthea_data.generator import generate_patient
from synthea_data.providers import Network, Utilization

from .fhir_walk import codings, references

TIME_FIELDS = ("effectiveDateTime", "onsetDateTime", "authoredOn", "occurrenceDateTime", "recordedDate")


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**40), index=st.integers(min_value=0, max_value=500))
def test_any_patient_is_valid_resolvable_coded_and_in_the_past(seed: int, index: int) -> None:
    network = Network(seed)
    generated, _ = generate_patient(seed, index, network)
    bundle = generated.bundle
    support = (
        network.hospital_bundle(Utilization())["entry"] + network.practitioner_bundle(Utilization())["entry"]
    )
    identifiers = {
        (e["resource"]["resourceType"], i["system"], i["value"])
        for e in support
        for i in e["resource"].get("identifier", [])
    }
    full_urls = {e["fullUrl"] for e in bundle["entry"]}
    patient = bundle["entry"][0]["resource"]
    end = dt.datetime.fromisoformat(patient["deceasedDateTime"]) if "deceasedDateTime" in patient else None
    today = dt.datetime.combine(REFERENCE_TODAY, dt.time(0), tzinfo=dt.UTC)
    encounters = 0
    for entry in bundle["entry"]:
        resource = entry["resource"]
        get_fhir_model_class(resource["resourceType"]).model_validate(resource)
        encounters += resource["resourceType"] == "Encounter"
        for _, coding in codings(resource):
            if coding["system"] in codes.CHECKED_SYSTEMS:
                assert codes.lookup(coding["system"], coding["code"]) is not None, coding
        contained = {c["id"] for c in resource.get("contained", [])}
        for path, ref in references(resource):
            if ref.startswith("urn:uuid:"):
                assert ref in full_urls, (path, ref)
            elif ref.startswith("#"):
                assert ref[1:] in contained
            else:
                kind, _, query = ref.partition("?identifier=")
                system, _, value = query.rpartition("|")
                assert (kind, system, value) in identifiers, ref
        for field in TIME_FIELDS:
            if field in resource:
                moment = dt.datetime.fromisoformat(resource[field])
                assert moment < today, (
                    f"{resource['resourceType']}.{field} {resource[field]} is in the future"
                )
                if end is not None and resource["resourceType"] != "AllergyIntolerance":
                    assert moment <= end, f"{resource['resourceType']}.{field} after death"
    notes = sum(1 for e in bundle["entry"] if e["resource"]["resourceType"] == "DocumentReference")
    assert notes == encounters >= 1
