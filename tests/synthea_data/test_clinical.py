"""The generated records hang together the way a clinician would expect."""

from __future__ import annotations

import base64
import datetime as dt
import re
import statistics
from collections import defaultdict

from synthea_data.codes import CDC_RACE, Cond, Med, Obs, Vaccine

from .conftest import Cohort


def _code(resource: dict, key: str = "code") -> str:
    return resource[key]["coding"][0]["code"]


def _when(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text)


def _resources(bundle: dict, kind: str) -> list[dict]:
    return [e["resource"] for e in bundle["entry"] if e["resource"]["resourceType"] == kind]


def _medication_codes(bundle: dict, request: dict) -> str:
    if "medicationCodeableConcept" in request:
        return request["medicationCodeableConcept"]["coding"][0]["code"]
    target = request["medicationReference"]["reference"].removeprefix("urn:uuid:")
    return next(m["code"]["coding"][0]["code"] for m in _resources(bundle, "Medication") if m["id"] == target)


def test_one_note_per_encounter_repeated_in_its_diagnostic_report(cohort: Cohort) -> None:
    for name, bundle in cohort.patients.items():
        encounters = {e["id"] for e in _resources(bundle, "Encounter")}
        documents = defaultdict(list)
        for doc in _resources(bundle, "DocumentReference"):
            documents[doc["context"]["encounter"][0]["reference"].removeprefix("urn:uuid:")].append(doc)
        reports = {
            r["encounter"]["reference"].removeprefix("urn:uuid:"): r
            for r in _resources(bundle, "DiagnosticReport")
            if "presentedForm" in r
        }
        assert set(documents) == encounters == set(reports), name
        for encounter_id, docs in documents.items():
            assert len(docs) == 1
            assert (
                docs[0]["content"][0]["attachment"]["data"]
                == reports[encounter_id]["presentedForm"][0]["data"]
            )
            assert docs[0]["identifier"][0]["value"] == f"urn:uuid:{reports[encounter_id]['id']}"
        statuses = sorted((d["date"], d["status"]) for docs in documents.values() for d in docs)
        assert [s for _, s in statuses] == ["superseded"] * (len(statuses) - 1) + ["current"], name


def test_entered_in_error_rows_never_reach_a_note(cohort: Cohort) -> None:
    for bundle in cohort.patients.values():
        notes = {
            d["context"]["encounter"][0]["reference"]: base64.b64decode(
                d["content"][0]["attachment"]["data"]
            ).decode()
            for d in _resources(bundle, "DocumentReference")
        }
        for condition in _resources(bundle, "Condition"):
            if condition["verificationStatus"]["coding"][0]["code"] == "entered-in-error":
                note = notes[condition["encounter"]["reference"]]
                assert condition["code"]["text"].lower() not in note


def test_blood_pressure_is_a_component_panel(cohort: Cohort) -> None:
    panels = [o for o in cohort.resources("Observation") if _code(o) == Obs.BP_PANEL.code]
    assert panels
    for panel in panels:
        parts = {c["code"]["coding"][0]["code"]: c["valueQuantity"]["value"] for c in panel["component"]}
        assert set(parts) == {Obs.SYSTOLIC.code, Obs.DIASTOLIC.code}
        assert 40 <= parts[Obs.DIASTOLIC.code] < parts[Obs.SYSTOLIC.code] - 10 < 200
        assert "valueQuantity" not in panel


def _mdrd(creatinine: float, age: int, female: bool, black: bool) -> float:
    value = 175.0 * creatinine**-1.154 * age**-0.203
    return value * (0.742 if female else 1.0) * (1.212 if black else 1.0)


def test_creatinine_and_egfr_agree_by_the_mdrd_equation(cohort: Cohort) -> None:
    checked = 0
    for bundle in cohort.patients.values():
        patient = bundle["entry"][0]["resource"]
        female = patient["gender"] == "female"
        black = patient["extension"][0]["extension"][0]["valueCoding"]["code"] == "2054-5"
        born = dt.date.fromisoformat(patient["birthDate"])
        observations = {o["id"]: o for o in _resources(bundle, "Observation")}
        for report in _resources(bundle, "DiagnosticReport"):
            results = [
                observations[r["reference"].removeprefix("urn:uuid:")] for r in report.get("result", [])
            ]
            values = {_code(o): o["valueQuantity"]["value"] for o in results if "valueQuantity" in o}
            if Obs.EGFR.code not in values:
                continue
            day = _when(report["effectiveDateTime"]).date()
            age = day.year - born.year - ((day.month, day.day) < (born.month, born.day))
            expected = _mdrd(values[Obs.CREATININE.code], age, female, black)
            assert abs(expected - values[Obs.EGFR.code]) / expected < 0.03, (expected, values)
            checked += 1
    assert checked >= 10


def test_interpretation_flags_follow_the_reference_range(cohort: Cohort) -> None:
    flagged = defaultdict(int)
    for obs in cohort.resources("Observation"):
        if "referenceRange" not in obs:
            continue
        value, bounds = obs["valueQuantity"]["value"], obs["referenceRange"][0]
        assert all(b["unit"] == obs["valueQuantity"]["unit"] for b in bounds.values())
        expected = "N"
        if "low" in bounds and value < bounds["low"]["value"]:
            expected = "L"
        if "high" in bounds and value > bounds["high"]["value"]:
            expected = "H"
        assert obs["interpretation"][0]["coding"][0]["code"] == expected, obs["id"]
        flagged[expected] += 1
    assert flagged["N"] and flagged["H"] and flagged["L"]


def test_values_are_physiologically_plausible(cohort: Cohort) -> None:
    limits = {
        Obs.HBA1C.code: (4.0, 14.0),
        Obs.GLUCOSE.code: (55, 400),
        Obs.BMI.code: (12, 60),
        Obs.HEART_RATE.code: (40, 150),
        Obs.HEMOGLOBIN.code: (7, 19),
        Obs.EGFR.code: (15, 140),
        Obs.TOTAL_CHOLESTEROL.code: (100, 350),
        Obs.TEMPERATURE.code: (35.0, 41.0),
    }
    for obs in cohort.resources("Observation"):
        if obs["status"] == "entered-in-error" or "valueQuantity" not in obs:
            continue
        bounds = limits.get(_code(obs))
        if bounds:
            assert bounds[0] <= obs["valueQuantity"]["value"] <= bounds[1], (
                obs["code"]["text"],
                obs["valueQuantity"],
            )


def test_results_trend_over_years(cohort: Cohort) -> None:
    """A diabetic's HbA1c moves (diagnosis, treatment, interruption), it is not noise around a constant."""
    series = [
        o["valueQuantity"]["value"]
        for o in _resources(cohort.bundle_of(1), "Observation")
        if _code(o) == Obs.HBA1C.code and o["status"] == "final"
    ]
    assert len(series) >= 8
    assert max(series) - min(series) > 2.0
    assert statistics.pstdev(series) > 0.5


def test_treatment_fits_the_diagnoses(cohort: Cohort) -> None:
    treats = {
        Cond.T2DM.code: {Med.METFORMIN.code, Med.INSULIN_70_30.code},
        Cond.HYPERTENSION.code: {
            Med.LISINOPRIL_10.code,
            Med.LOSARTAN_50.code,
            Med.HCTZ_25.code,
            Med.AMLODIPINE_5.code,
        },
        Cond.ASTHMA.code: {Med.ALBUTEROL_INHALER.code},
        Cond.HYPERLIPIDEMIA.code: {Med.SIMVASTATIN_20.code, Med.ATORVASTATIN_40.code},
    }
    checked = 0
    for name, bundle in cohort.patients.items():
        active_meds = {
            _medication_codes(bundle, r)
            for r in _resources(bundle, "MedicationRequest")
            if r["status"] == "active"
        }
        conditions = {c["id"]: c for c in _resources(bundle, "Condition")}
        for condition in conditions.values():
            status = condition.get("clinicalStatus", {}).get("coding", [{}])[0].get("code")
            drugs = treats.get(_code(condition))
            if drugs and status in ("active", "recurrence"):
                assert active_meds & drugs, f"{name}: active {condition['code']['text']} but none of {drugs}"
                checked += 1
        for request in _resources(bundle, "MedicationRequest"):
            for reason in request.get("reasonReference", []):
                condition = conditions[reason["reference"].removeprefix("urn:uuid:")]
                assert _when(condition["onsetDateTime"]) <= _when(request["authoredOn"])
    assert checked >= 3


def test_acute_illnesses_resolve_and_chronic_ones_persist(cohort: Cohort) -> None:
    acute = {
        Cond.VIRAL_PHARYNGITIS.code,
        Cond.VIRAL_SINUSITIS.code,
        Cond.ACUTE_BRONCHITIS.code,
        Cond.OTITIS_MEDIA.code,
    }
    seen_acute = seen_chronic = 0
    for condition in cohort.resources("Condition"):
        if "abatementDateTime" in condition:
            assert _when(condition["abatementDateTime"]) > _when(condition["onsetDateTime"])
            assert condition["clinicalStatus"]["coding"][0]["code"] == "resolved"
        if _code(condition) in acute:
            seen_acute += 1
        if (
            _code(condition) in (Cond.HYPERTENSION.code, Cond.T2DM.code)
            and "abatementDateTime" not in condition
        ):
            seen_chronic += 1
    assert seen_acute >= 5 and seen_chronic >= 2


def test_medication_statuses_and_forms(cohort: Cohort) -> None:
    statuses = {r["status"] for r in cohort.resources("MedicationRequest")}
    assert {"active", "stopped", "completed", "entered-in-error"} <= statuses
    by_reference = [r for r in cohort.resources("MedicationRequest") if "medicationReference" in r]
    assert by_reference, "some prescriptions are written via medicationReference to a Medication entry"
    displays = {
        r["medicationCodeableConcept"]["text"]
        for r in cohort.resources("MedicationRequest")
        if "medicationCodeableConcept" in r
    }
    assert any(re.search(r"[a-z][A-Z]{3,}", d) for d in displays), (
        "a tall-man display (e.g. amLODIPine) must occur"
    )


def test_encounter_kinds_cover_a_real_practice(cohort: Cohort) -> None:
    kinds = {(e["class"]["code"], e["type"][0]["coding"][0]["code"]) for e in cohort.resources("Encounter")}
    classes = {c for c, _ in kinds}
    types = {t for _, t in kinds}
    assert {"AMB", "EMER", "IMP"} <= classes
    assert {
        "162673000",
        "390906007",
        "702927004",
        "185345009",
    } <= types  # wellness, follow-up, urgent care, symptom
    for encounter in cohort.resources("Encounter"):
        assert encounter["participant"][0]["individual"]["reference"].startswith("Practitioner?identifier=")
        assert encounter["serviceProvider"]["reference"].startswith("Organization?identifier=")


def test_immunizations(cohort: Cohort) -> None:
    given = defaultdict(set)
    for imm in cohort.resources("Immunization"):
        if imm["status"] == "completed":
            given[_code(imm, "vaccineCode")].add(imm["occurrenceDateTime"][:4])
    assert len(given[Vaccine.INFLUENZA.code]) >= 8, "influenza is given year after year"
    assert given[Vaccine.TD.code] | given[Vaccine.TDAP.code]
    assert given[Vaccine.COVID_PFIZER.code] | given[Vaccine.COVID_MODERNA.code]
    assert any(i["status"] == "not-done" for i in cohort.resources("Immunization"))


def test_allergies_with_and_without_reactions(cohort: Cohort) -> None:
    allergies = list(cohort.resources("AllergyIntolerance"))
    substances = {_code(a) for a in allergies}
    assert {"7984", "762952008", "111088007"} <= substances  # penicillin, peanut, latex
    assert any("reaction" in a for a in allergies) and any("reaction" not in a for a in allergies)


def test_demographics(cohort: Cohort) -> None:
    patients = [b["entry"][0]["resource"] for b in cohort.patients.values()]
    for patient in patients:
        urls = [e["url"] for e in patient["extension"]]
        assert "http://hl7.org/fhir/us/core/StructureDefinition/us-core-race" in urls
        assert "http://hl7.org/fhir/us/core/StructureDefinition/us-core-ethnicity" in urls
        race = patient["extension"][0]["extension"][0]["valueCoding"]
        assert race["system"] == CDC_RACE
        assert all(any(ch.isdigit() for ch in part) for part in patient["name"][0]["given"])
    assert any("deceasedDateTime" in p for p in patients)
    assert any(len(p["name"][0]["given"]) > 1 for p in patients)
    assert any(
        not p["name"][0]["family"].isascii() or not "".join(p["name"][0]["given"]).isascii() for p in patients
    )


def test_every_bundle_carries_billing_and_provenance(cohort: Cohort) -> None:
    for bundle in cohort.patients.values():
        encounters = len(_resources(bundle, "Encounter"))
        eobs = _resources(bundle, "ExplanationOfBenefit")
        assert len(eobs) == encounters
        assert len(_resources(bundle, "Claim")) == encounters + len(_resources(bundle, "MedicationRequest"))
        assert all({c["id"] for c in eob["contained"]} == {"coverage", "referral"} for eob in eobs)
        assert len(_resources(bundle, "Provenance")) == 1


def _notes_by_encounter(bundle: dict) -> dict[str, str]:
    return {
        d["context"]["encounter"][0]["reference"].removeprefix("urn:uuid:"): base64.b64decode(
            d["content"][0]["attachment"]["data"]
        ).decode()
        for d in _resources(bundle, "DocumentReference")
    }


def test_notes_agree_with_the_structured_record(cohort: Cohort) -> None:
    """Numbers and drugs a note mentions are the ones in the structured rows of the same patient."""
    mentioned_a1c = 0
    for bundle in cohort.patients.values():
        notes = _notes_by_encounter(bundle)
        observations = _resources(bundle, "Observation")
        requests = _resources(bundle, "MedicationRequest")
        for encounter in _resources(bundle, "Encounter"):
            note = notes[encounter["id"]]
            start = _when(encounter["period"]["start"])
            if "Hemoglobin A1c today is " in note:
                value = float(note.split("Hemoglobin A1c today is ")[1].split(" %")[0])
                here = [
                    o["valueQuantity"]["value"]
                    for o in observations
                    if o["encounter"]["reference"].endswith(encounter["id"]) and _code(o) == Obs.HBA1C.code
                ]
                assert value in here
                mentioned_a1c += 1
            listed = note.split("# Medications\n")[1].split("\n")[0]
            if listed != "No Active Medications.":
                prescribed_before = {
                    (r.get("medicationCodeableConcept") or {}).get("text", "").lower()
                    for r in requests
                    if r["status"] != "entered-in-error" and _when(r["authoredOn"]) < start
                } | {
                    next(
                        m["code"]["text"].lower()
                        for m in _resources(bundle, "Medication")
                        if m["id"] == r["medicationReference"]["reference"][9:]
                    )
                    for r in requests
                    if "medicationReference" in r
                    and r["status"] != "entered-in-error"
                    and _when(r["authoredOn"]) < start
                }
                for drug in listed.split("; "):
                    assert drug in prescribed_before, (
                        f"note of {encounter['id']} lists {drug!r} never prescribed before"
                    )
    assert mentioned_a1c >= 3
