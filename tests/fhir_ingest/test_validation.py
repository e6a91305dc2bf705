"""Opt-in FHIR R4B validation (fhir.resources) reports entry and field."""

from __future__ import annotations

import pytest

from fhir_ingest.errors import BundleError
from fhir_ingest.validation import validate_bundle
from tests.fhir_ingest import synthetic as syn


def test_a_valid_bundle_passes():
    validate_bundle(syn.patient_bundle("v"))
    for bundle in syn.support_bundles():
        validate_bundle(bundle)


def test_an_invalid_field_is_located():
    bundle = syn.patient_bundle("v")
    i, resource = syn.find(bundle, "Encounter")
    resource["status"] = 5
    with pytest.raises(BundleError) as caught:
        validate_bundle(bundle)
    assert (caught.value.entry, caught.value.field) == (i, "resource.status")
    assert "R4B" in caught.value.message
