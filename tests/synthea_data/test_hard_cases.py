"""The deliberate traps are where the manifest says, whatever the seed, and they are really traps."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from synthea_data.codes import LOINC, RXNORM, Allergen, Cond, Med, Obs
from synthea_data.generator import generate_cohort
from synthea_data.hard_cases import HARD_CASES, SCENARIO_PATIENTS, find_case, load_manifest

from .conftest import Cohort, load_cohort


def _when(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text)


def _by_id(bundle: dict) -> dict[str, dict]:
    return {e["resource"]["id"]: e["resource"] for e in bundle["entry"]}


def _medication_code(request: dict, resources: dict[str, dict]) -> dict:
    if "medicationCodeableConcept" in request:
        return request["medicationCodeableConcept"]["coding"][0]
    return resources[request["medicationReference"]["reference"].removeprefix("urn:uuid:")]["code"]["coding"][
        0
    ]


def check_hard_cases(cohort: Cohort) -> None:
    manifest = cohort.manifest
    assert {c["key"] for c in manifest["hard_cases"]} == {c.key for c in HARD_CASES}
    for case in HARD_CASES:
        entry = find_case(manifest, case.key)
        assert entry["patient_index"] == case.patient_index
        assert set(entry["resources"]) == set(case.roles), f"{case.key}: roles {sorted(entry['resources'])}"
        bundle = cohort.patients[entry["file"]]
        assert bundle["entry"][0]["resource"]["id"] == entry["patient_id"]
        resources = _by_id(bundle)
        for role, resource_id in entry["resources"].items():
            assert resource_id in resources, f"{case.key}.{role} -> {resource_id} is not in {entry['file']}"
        CHECKS[case.key]({role: resources[rid] for role, rid in entry["resources"].items()}, resources)


def _penicillin(r: dict, resources: dict) -> None:
    allergy, prescription, reason = r["allergy"], r["prescription"], r["reason_condition"]
    assert allergy["code"]["coding"][0] == {**Allergen.PENICILLIN.coding()}
    assert allergy["clinicalStatus"]["coding"][0]["code"] == "active"
    assert allergy["reaction"], "the penicillin allergy records its reactions"
    code = _medication_code(prescription, resources)
    assert code["system"] == RXNORM and "amoxicillin" in code["display"].lower()
    assert _when(prescription["authoredOn"]) > _when(allergy["recordedDate"])
    assert prescription["reasonReference"][0]["reference"] == f"urn:uuid:{reason['id']}"


def _no_reaction(r: dict, resources: dict) -> None:
    assert "reaction" not in r["allergy"]
    assert r["allergy"]["code"]["coding"][0]["code"] == Allergen.LATEX.code


def _crossing(r: dict, resources: dict) -> None:
    normal, above, high = r["normal_observation"], r["first_above_range"], r["high_observation"]
    assert above["valueQuantity"]["value"] > above["referenceRange"][0]["high"]["value"]
    assert above["interpretation"][0]["coding"][0]["code"] == "H"
    assert (
        _when(normal["effectiveDateTime"])
        < _when(above["effectiveDateTime"])
        <= _when(high["effectiveDateTime"])
    )
    for obs in (normal, above, high):
        assert obs["code"]["coding"][0] == {
            "system": LOINC,
            "code": Obs.HBA1C.code,
            "display": Obs.HBA1C.display,
        }
    upper = normal["referenceRange"][0]["high"]["value"]
    assert normal["valueQuantity"]["value"] <= upper < high["valueQuantity"]["value"]
    assert high["valueQuantity"]["value"] >= 6.5
    assert _when(normal["effectiveDateTime"]) < _when(high["effectiveDateTime"])
    assert normal["interpretation"][0]["coding"][0]["code"] == "N"
    assert high["interpretation"][0]["coding"][0]["code"] == "H"


def _restart(r: dict, resources: dict) -> None:
    stopped, restarted = r["stopped_request"], r["restarted_request"]
    assert stopped["status"] == "stopped" and restarted["status"] == "active"
    assert (
        _medication_code(stopped, resources)["code"]
        == _medication_code(restarted, resources)["code"]
        == Med.METFORMIN.code
    )
    assert restarted["medicationReference"]["reference"] == f"urn:uuid:{r['medication']['id']}"
    assert _when(restarted["authoredOn"]) - _when(stopped["authoredOn"]) > dt.timedelta(days=300)


def _entered_in_error(r: dict, resources: dict) -> None:
    condition, prescription, wrong, right = (
        r["condition"],
        r["prescription"],
        r["observation"],
        r["corrected_observation"],
    )
    assert condition["verificationStatus"]["coding"][0]["code"] == "entered-in-error"
    assert "clinicalStatus" not in condition
    assert prescription["status"] == "entered-in-error"
    assert wrong["status"] == "entered-in-error" and right["status"] == "final"
    assert wrong["code"] == right["code"]
    assert _when(wrong["effectiveDateTime"]) > _when(right["effectiveDateTime"]), (
        "the wrong value must be the newest"
    )
    assert wrong["valueQuantity"]["value"] > right["valueQuantity"]["value"]
    live_diabetes = [
        c
        for c in resources.values()
        if c["resourceType"] == "Condition"
        and c["code"]["coding"][0]["code"] == Cond.T2DM.code
        and c["verificationStatus"]["coding"][0]["code"] != "entered-in-error"
    ]
    assert not live_diabetes, "the patient must not really have diabetes"


def _not_done(r: dict, resources: dict) -> None:
    immunization = r["immunization"]
    assert immunization["status"] == "not-done"
    assert immunization["statusReason"]["coding"][0]["code"]


def _deceased(r: dict, resources: dict) -> None:
    patient, request, admission = r["patient"], r["active_request"], r["inpatient_encounter"]
    death = _when(patient["deceasedDateTime"])
    assert request["status"] == "active" and _when(request["authoredOn"]) < death
    assert admission["class"]["code"] == "IMP" and _when(admission["period"]["end"]) < death
    for resource in resources.values():
        if resource["resourceType"] == "Encounter":
            assert _when(resource["period"]["start"]) <= death


def _recurring(r: dict, resources: dict) -> None:
    first, again = r["first_episode"], r["recurrence"]
    assert first["code"]["coding"][0]["code"] == again["code"]["coding"][0]["code"] == Cond.DEPRESSION.code
    assert first["clinicalStatus"]["coding"][0]["code"] == "resolved"
    assert again["clinicalStatus"]["coding"][0]["code"] == "recurrence"
    assert "abatementDateTime" not in again
    assert _when(first["abatementDateTime"]) < _when(again["onsetDateTime"])
    assert r["stopped_request"]["status"] == "stopped" and r["restarted_request"]["status"] == "active"


def _unusual_name(r: dict, resources: dict) -> None:
    name = r["patient"]["name"][0]
    assert len(name["given"]) >= 2
    assert any(not part.isascii() for part in name["given"])
    assert "'" in name["family"]


def _emergency(r: dict, resources: dict) -> None:
    encounter, administration = r["emergency_encounter"], r["administration"]
    assert encounter["class"]["code"] == "EMER"
    assert administration["context"]["reference"] == f"urn:uuid:{encounter['id']}"


CHECKS = {
    "penicillin_allergy_with_amoxicillin": _penicillin,
    "allergy_without_reaction": _no_reaction,
    "lab_crosses_reference_range": _crossing,
    "medication_stopped_then_restarted": _restart,
    "entered_in_error_rows": _entered_in_error,
    "immunization_not_done": _not_done,
    "deceased_with_active_medication": _deceased,
    "condition_resolved_then_recurring": _recurring,
    "unusual_name": _unusual_name,
    "emergency_visit": _emergency,
}


def test_every_hard_case_has_a_check() -> None:
    assert set(CHECKS) == {case.key for case in HARD_CASES}


def test_hard_cases_of_the_shared_cohort(cohort: Cohort) -> None:
    check_hard_cases(cohort)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(min_value=0, max_value=10**9))
def test_hard_cases_hold_for_any_seed(tmp_path_factory, seed: int) -> None:
    folder = tmp_path_factory.mktemp("seed") / "cohort"
    generate_cohort(folder, patients=SCENARIO_PATIENTS, seed=seed)
    check_hard_cases(load_cohort(folder))


def test_a_small_cohort_lists_only_the_cases_it_has(tmp_path: Path) -> None:
    generate_cohort(tmp_path / "two", patients=2, seed=3)
    manifest = load_manifest(tmp_path / "two")
    assert {c["patient_index"] for c in manifest["hard_cases"]} == {0, 1}
    with pytest.raises(KeyError, match="unusual_name"):
        find_case(manifest, "unusual_name")
