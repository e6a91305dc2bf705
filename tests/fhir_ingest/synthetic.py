"""Small bundles shaped like Synthea's output, built in code so tests run without the samples.

`patient_bundle()` returns a transaction bundle with one of every resource the loader maps
(and a Claim/Provenance it must skip), wired with urn:uuid references and conditional
references to the organization/location/practitioner of `support_bundles()`.
"""

from __future__ import annotations

import base64
import copy
import json
import uuid
from pathlib import Path
from typing import Any

NPI_SYSTEM = "http://hl7.org/fhir/sid/us-npi"
SYNTHEA = "https://github.com/synthetichealth/synthea"

ORG_ID = "org-0001"
LOC_ID = "loc-0001"
PRACT_ID = "pract-0001"  # the FHIR id; NOT the NPI
PRACT_NPI = "9999000042"
PRACT_NAME = ("Dr.", "Gregory12", "House34")
NOTE_TEXT = "Patient seen.\r\n# Plan\r\nContinue amLODIPine.\r\n"


def _id(name: str, seed: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"{seed}/{name}"))


def b64(text: str, charset: str = "utf-8") -> str:
    return base64.b64encode(text.encode(charset)).decode("ascii")


def entry(resource: dict, *, request: bool = True) -> dict:
    e: dict[str, Any] = {"fullUrl": f"urn:uuid:{resource['id']}", "resource": resource}
    if request:
        e["request"] = {"method": "POST", "url": resource["resourceType"]}
    return e


def cc(system: str, code: str, display: str) -> dict:
    return {"coding": [{"system": system, "code": code, "display": display}], "text": display}


def practitioner_ref() -> dict:
    return {
        "reference": f"Practitioner?identifier={NPI_SYSTEM}|{PRACT_NPI}",
        "display": " ".join(PRACT_NAME),
    }


def organization_ref() -> dict:
    return {"reference": f"Organization?identifier={SYNTHEA}|{ORG_ID}", "display": "General Hospital"}


def location_ref() -> dict:
    return {"reference": f"Location?identifier={SYNTHEA}|{LOC_ID}", "display": "General Hospital"}


def support_bundles() -> tuple[dict, dict]:
    """(hospitalInformation, practitionerInformation) batch bundles."""
    org = {
        "resourceType": "Organization",
        "id": ORG_ID,
        "identifier": [{"system": SYNTHEA, "value": ORG_ID}],
        "name": "General Hospital",
        "type": [
            cc("http://terminology.hl7.org/CodeSystem/organization-type", "prov", "Healthcare Provider")
        ],
        "telecom": [{"system": "phone", "value": "5550100"}],
        "address": [{"line": ["1 Main St"], "city": "Boston", "state": "MA", "postalCode": "02100"}],
    }
    loc = {
        "resourceType": "Location",
        "id": LOC_ID,
        "identifier": [{"system": SYNTHEA, "value": LOC_ID}],
        "name": "General Hospital",
        "address": {"line": ["1 Main St"], "city": "Boston", "state": "MA", "postalCode": "02100"},
        "position": {"latitude": 42.36, "longitude": -71.06},
        "managingOrganization": {
            "identifier": {"system": SYNTHEA, "value": ORG_ID},
            "display": "General Hospital",
        },
    }
    pract = {
        "resourceType": "Practitioner",
        "id": PRACT_ID,
        "identifier": [{"system": NPI_SYSTEM, "value": PRACT_NPI}],
        "name": [{"family": PRACT_NAME[2], "given": [PRACT_NAME[1]], "prefix": [PRACT_NAME[0]]}],
        "telecom": [{"system": "email", "value": "house@example.com"}],
        "gender": "male",
    }
    role = {
        "resourceType": "PractitionerRole",
        "id": "role-0001",
        "practitioner": {
            "identifier": {"system": NPI_SYSTEM, "value": PRACT_NPI},
            "display": " ".join(PRACT_NAME),
        },
        "organization": {"identifier": {"system": SYNTHEA, "value": ORG_ID}, "display": "General Hospital"},
        "specialty": [cc("http://nucc.org/provider-taxonomy", "207RC0000X", "Cardiovascular Disease")],
        "location": [{"identifier": {"system": SYNTHEA, "value": LOC_ID}, "display": "General Hospital"}],
    }
    hospital = {"resourceType": "Bundle", "type": "batch", "entry": [entry(org), entry(loc)]}
    practitioners = {"resourceType": "Bundle", "type": "batch", "entry": [entry(pract), entry(role)]}
    return hospital, practitioners


def patient_bundle(seed: str = "p1", *, given: str = "Alice12", deceased_at: str | None = None) -> dict:
    """One patient's transaction bundle with every mapped resource type."""
    pid = _id("patient", seed)
    enc = _id("encounter", seed)
    cond = _id("condition", seed)
    med = _id("medication", seed)
    subject = {"reference": f"urn:uuid:{pid}"}
    encounter_ref = {"reference": f"urn:uuid:{enc}"}
    patient: dict[str, Any] = {
        "resourceType": "Patient",
        "id": pid,
        "extension": [
            {"url": "http://hl7.org/fhir/us/core/StructureDefinition/us-core-birthsex", "valueCode": "F"},
            {
                "url": "http://hl7.org/fhir/us/core/StructureDefinition/us-core-race",
                "extension": [{"url": "text", "valueString": "White"}],
            },
        ],
        "identifier": [
            {
                "type": cc("http://terminology.hl7.org/CodeSystem/v2-0203", "MR", "Medical Record Number"),
                "system": "http://hospital.smarthealthit.org",
                "value": f"mrn-{seed}",
            }
        ],
        "name": [{"use": "official", "family": "Zoë O'Brien", "given": [given, "Marie"], "prefix": ["Ms."]}],
        "gender": "female",
        "birthDate": "1970-02-03",
        "address": [{"line": ["2 Side St"], "city": "Boston", "state": "MA", "postalCode": "02101"}],
    }
    if deceased_at:
        patient["deceasedDateTime"] = deceased_at
    encounter = {
        "resourceType": "Encounter",
        "id": enc,
        "status": "finished",
        "class": {"system": "http://terminology.hl7.org/CodeSystem/v3-ActCode", "code": "AMB"},
        "type": [cc("http://snomed.info/sct", "185349003", "Encounter for check up")],
        "subject": subject,
        "participant": [{"individual": practitioner_ref()}],
        "period": {"start": "2020-01-01T09:00:00-05:00", "end": "2020-01-01T09:30:00-05:00"},
        "location": [{"location": location_ref()}],
        "serviceProvider": organization_ref(),
    }
    condition = {
        "resourceType": "Condition",
        "id": cond,
        "clinicalStatus": cc("http://terminology.hl7.org/CodeSystem/condition-clinical", "active", "Active"),
        "verificationStatus": cc(
            "http://terminology.hl7.org/CodeSystem/condition-ver-status", "confirmed", "Confirmed"
        ),
        "category": [
            cc("http://terminology.hl7.org/CodeSystem/condition-category", "encounter-diagnosis", "Dx")
        ],
        "code": cc("http://snomed.info/sct", "59621000", "Essential hypertension (disorder)"),
        "subject": subject,
        "encounter": encounter_ref,
        "onsetDateTime": "2020-01-01T09:00:00-05:00",
        "recordedDate": "2020-01-01T09:00:00-05:00",
    }
    error_condition = copy.deepcopy(condition)
    error_condition["id"] = _id("condition-error", seed)
    error_condition["verificationStatus"] = cc(
        "http://terminology.hl7.org/CodeSystem/condition-ver-status", "entered-in-error", "Entered in Error"
    )
    bp = {
        "resourceType": "Observation",
        "id": _id("bp", seed),
        "status": "final",
        "category": [
            cc("http://terminology.hl7.org/CodeSystem/observation-category", "vital-signs", "Vital signs")
        ],
        "code": cc("http://loinc.org", "85354-9", "Blood pressure panel"),
        "subject": subject,
        "encounter": encounter_ref,
        "effectiveDateTime": "2020-01-01T09:05:00-05:00",
        "issued": "2020-01-01T09:05:00.123-05:00",
        # diastolic first: components are keyed by LOINC, never by position
        "component": [
            {
                "code": cc("http://loinc.org", "8462-4", "Diastolic Blood Pressure"),
                "valueQuantity": {"value": 82, "unit": "mm[Hg]", "system": "http://unitsofmeasure.org"},
            },
            {
                "code": cc("http://loinc.org", "8480-6", "Systolic Blood Pressure"),
                "valueQuantity": {"value": 135.5, "unit": "mm[Hg]", "system": "http://unitsofmeasure.org"},
            },
        ],
    }
    a1c = {
        "resourceType": "Observation",
        "id": _id("a1c", seed),
        "status": "final",
        "category": [
            cc("http://terminology.hl7.org/CodeSystem/observation-category", "laboratory", "Laboratory")
        ],
        "code": {
            "coding": [
                {"system": "http://snomed.info/sct", "code": "43396009", "display": "HbA1c measurement"},
                {"system": "http://loinc.org", "code": "4548-4", "display": "Hemoglobin A1c"},
            ]
        },
        "subject": subject,
        "encounter": encounter_ref,
        "effectiveDateTime": "2020-01-01T09:10:00-05:00",
        "valueQuantity": {"value": 6.1, "unit": "%"},
    }
    medication = {
        "resourceType": "Medication",
        "id": med,
        "code": cc("http://www.nlm.nih.gov/research/umls/rxnorm", "308136", "amLODIPine 2.5 MG Oral Tablet"),
        "status": "active",
    }
    med_request_ref = {
        "resourceType": "MedicationRequest",
        "id": _id("medreq-ref", seed),
        "status": "active",
        "intent": "order",
        "medicationReference": {"reference": f"urn:uuid:{med}"},
        "subject": subject,
        "encounter": encounter_ref,
        "authoredOn": "2020-01-01T09:20:00-05:00",
        "requester": practitioner_ref(),
        "reasonReference": [{"reference": f"urn:uuid:{cond}"}],
        "dosageInstruction": [
            {
                "sequence": 1,
                "timing": {"repeat": {"frequency": 1, "period": 1.0, "periodUnit": "d"}},
                "asNeededBoolean": False,
                "doseAndRate": [{"doseQuantity": {"value": 1.0}}],
            }
        ],
    }
    med_request_cc = {
        "resourceType": "MedicationRequest",
        "id": _id("medreq-cc", seed),
        "status": "stopped",
        "intent": "order",
        "medicationCodeableConcept": cc(
            "http://www.nlm.nih.gov/research/umls/rxnorm", "313782", "Acetaminophen 325 MG Oral Tablet"
        ),
        "subject": subject,
        "encounter": encounter_ref,
        "authoredOn": "2019-06-01T09:20:00-05:00",
        "requester": practitioner_ref(),
        "dosageInstruction": [{"sequence": 1, "text": "Take as needed.", "asNeededBoolean": True}],
    }
    allergy = {
        "resourceType": "AllergyIntolerance",
        "id": _id("allergy", seed),
        "clinicalStatus": cc(
            "http://terminology.hl7.org/CodeSystem/allergyintolerance-clinical", "active", "Active"
        ),
        "verificationStatus": cc(
            "http://terminology.hl7.org/CodeSystem/allergyintolerance-verification", "confirmed", "Confirmed"
        ),
        "type": "allergy",
        "category": ["medication"],
        "criticality": "high",
        "code": cc("http://www.nlm.nih.gov/research/umls/rxnorm", "7980", "Penicillin G"),
        "patient": subject,
        "recordedDate": "2010-05-05T10:00:00+00:00",
        "reaction": [
            {
                "manifestation": [
                    cc("http://snomed.info/sct", "247472004", "Wheal (finding)"),
                    cc("http://snomed.info/sct", "271807003", "Eruption of skin (disorder)"),
                ],
                "severity": "moderate",
            }
        ],
    }
    immunization = {
        "resourceType": "Immunization",
        "id": _id("immunization", seed),
        "status": "completed",
        "vaccineCode": cc("http://hl7.org/fhir/sid/cvx", "140", "Influenza, seasonal, injectable"),
        "patient": subject,
        "encounter": encounter_ref,
        "occurrenceDateTime": "2020-01-01T09:15:00-05:00",
        "primarySource": True,
        "location": location_ref(),
    }
    not_given = copy.deepcopy(immunization)
    not_given["id"] = _id("immunization-not-done", seed)
    not_given["status"] = "not-done"
    procedure = {
        "resourceType": "Procedure",
        "id": _id("procedure", seed),
        "status": "completed",
        "code": cc("http://snomed.info/sct", "430193006", "Medication reconciliation"),
        "subject": subject,
        "encounter": encounter_ref,
        "performedPeriod": {"start": "2020-01-01T09:16:00-05:00", "end": "2020-01-01T09:20:00-05:00"},
        "reasonReference": [
            {"reference": f"urn:uuid:{cond}", "display": "Essential hypertension (disorder)"}
        ],
        "location": location_ref(),
    }
    care_plan = {
        "resourceType": "CarePlan",
        "id": _id("careplan", seed),
        "status": "active",
        "intent": "order",
        "category": [
            {
                "coding": [
                    {
                        "system": "http://hl7.org/fhir/us/core/CodeSystem/careplan-category",
                        "code": "assess-plan",
                    }
                ]
            },
            cc("http://snomed.info/sct", "443402002", "Lifestyle education regarding hypertension"),
        ],
        "subject": subject,
        "encounter": encounter_ref,
        "period": {"start": "2020-01-01T09:00:00-05:00"},
        "addresses": [{"reference": f"urn:uuid:{cond}"}],
        "activity": [
            {
                "detail": {
                    "code": cc("http://snomed.info/sct", "386463000", "Prescribed activity"),
                    "status": "in-progress",
                }
            }
        ],
    }
    note_id = _id("note", seed)
    report_id = _id("report", seed)
    note = {
        "resourceType": "DocumentReference",
        "id": note_id,
        "status": "current",
        "type": cc("http://loinc.org", "34117-2", "History and physical note"),
        "subject": subject,
        "date": "2020-01-01T09:00:00.238-05:00",
        "author": [practitioner_ref()],
        "custodian": organization_ref(),
        "content": [{"attachment": {"contentType": "text/plain; charset=utf-8", "data": b64(NOTE_TEXT)}}],
        "context": {"encounter": [encounter_ref]},
    }
    report = {
        "resourceType": "DiagnosticReport",
        "id": report_id,
        "status": "final",
        "category": [cc("http://loinc.org", "34117-2", "History and physical note")],
        "code": cc("http://loinc.org", "34117-2", "History and physical note"),
        "subject": subject,
        "encounter": encounter_ref,
        "effectiveDateTime": "2020-01-01T09:00:00-05:00",
        "issued": "2020-01-01T09:00:00.238-05:00",
        "performer": [practitioner_ref()],
        # the same note with LF line endings: stored once, the report points at the note
        "presentedForm": [
            {"contentType": "text/plain; charset=utf-8", "data": b64(NOTE_TEXT.replace("\r\n", "\n"))}
        ],
    }
    lab_report = {
        "resourceType": "DiagnosticReport",
        "id": _id("lab-report", seed),
        "status": "final",
        "category": [cc("http://terminology.hl7.org/CodeSystem/v2-0074", "LAB", "Laboratory")],
        "code": cc("http://loinc.org", "4548-4", "Hemoglobin A1c"),
        "subject": subject,
        "encounter": encounter_ref,
        "effectiveDateTime": "2020-01-01T09:10:00-05:00",
        "result": [{"reference": f"urn:uuid:{a1c['id']}", "display": "Hemoglobin A1c"}],
    }
    claim = {
        "resourceType": "Claim",
        "id": _id("claim", seed),
        "status": "active",
        "type": cc("http://terminology.hl7.org/CodeSystem/claim-type", "professional", "Professional"),
        "use": "claim",
        "patient": subject,
        "created": "2020-01-01T09:30:00-05:00",
        "provider": organization_ref(),
        "priority": cc("http://terminology.hl7.org/CodeSystem/processpriority", "normal", "Normal"),
        "contained": [
            {
                "resourceType": "Coverage",
                "id": "coverage",
                "status": "active",
                "beneficiary": subject,
                "payor": [{"display": "NO_INSURANCE"}],
            }
        ],
        "insurance": [{"sequence": 1, "focal": True, "coverage": {"reference": "#coverage"}}],
    }
    provenance = {
        "resourceType": "Provenance",
        "id": _id("provenance", seed),
        "target": [{"reference": f"urn:uuid:{pid}"}],
        "recorded": "2020-01-02T00:00:00Z",
        "agent": [{"who": organization_ref()}],
    }
    resources = [
        patient,
        encounter,
        condition,
        error_condition,
        bp,
        a1c,
        report,  # before its note: the loader must not depend on entry order
        note,
        lab_report,
        medication,
        med_request_ref,
        med_request_cc,
        allergy,
        immunization,
        not_given,
        procedure,
        care_plan,
        claim,
        provenance,
    ]
    return {"resourceType": "Bundle", "type": "transaction", "entry": [entry(r) for r in resources]}


def write_json(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False), encoding="utf-8")
    return path


def write_cohort(folder: Path, seeds: tuple[str, ...] = ("p1", "p2")) -> list[Path]:
    """Support bundles plus one patient bundle per seed, named like Synthea's files."""
    hospital, practitioners = support_bundles()
    files = [
        write_json(folder / "hospitalInformation1700000000000.json", hospital),
        write_json(folder / "practitionerInformation1700000000000.json", practitioners),
    ]
    for seed in seeds:
        bundle = patient_bundle(seed, given=f"Pat{seed}")
        pid = bundle["entry"][0]["resource"]["id"]
        files.append(write_json(folder / f"Pat{seed}_Tester_{pid}.json", bundle))
    return files


def find(bundle: dict, resource_type: str, index: int = 0) -> tuple[int, dict]:
    """(entry index, resource) of the index-th resource of a type."""
    hits = [
        (i, e["resource"])
        for i, e in enumerate(bundle["entry"])
        if e["resource"]["resourceType"] == resource_type
    ]
    return hits[index]
