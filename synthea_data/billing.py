"""Claim and ExplanationOfBenefit entries, shaped like Synthea's.

They carry no clinical facts the record does not already have (ingestion skips and counts
them), but they are about half of a real bundle's bytes, they reference almost everything, and
every EOB holds contained resources (`#coverage`, `#referral`): a loader that mishandles any of
that must fail on generated data as it would on real data. Prices are derived from the codes
(CRC32), not drawn from an RNG, so billing never shifts the clinical random stream.
"""

from __future__ import annotations

import zlib

from synthea_data.clock import fhir_datetime
from synthea_data.codes import Code
from synthea_data.model import MedRec, Person, Visit

CLAIM_TYPE = "http://terminology.hl7.org/CodeSystem/claim-type"
BLUE_BUTTON = "https://bluebutton.cms.gov/resources"


def price(code: Code) -> float:
    """A stable, plausible price for a billed code."""
    return round(25.0 + zlib.crc32(code.code.encode()) % 40000 / 100.0, 2)


def _type(code: str) -> dict:
    return {"coding": [{"system": CLAIM_TYPE, "code": code}]}


def _money(value: float) -> dict:
    return {"value": round(value, 2), "currency": "USD"}


def _billed_items(visit: Visit) -> list[Code]:
    items = [i.vaccine for i in visit.immunizations if i.not_done_reason is None]
    items += [p.code for p in visit.procedures]
    items += [r.code for r in visit.reports]
    return items


def encounter_claim(person: Person, visit: Visit) -> dict:
    period = {"start": fhir_datetime(visit.start), "end": fhir_datetime(visit.end)}
    items: list[dict] = [
        {
            "sequence": 1,
            "productOrService": visit.type.concept(),
            "encounter": [{"reference": f"urn:uuid:{visit.id}"}],
        }
    ]
    total = price(visit.type)
    for sequence, code in enumerate(_billed_items(visit), start=2):
        cost = price(code)
        total += cost
        items.append({"sequence": sequence, "productOrService": code.concept(), "net": _money(cost)})
    return {
        "resourceType": "Claim",
        "id": visit.claim_id,
        "status": "active",
        "type": _type("institutional"),
        "use": "claim",
        "patient": {"reference": f"urn:uuid:{person.id}", "display": person.full_name},
        "billablePeriod": period,
        "created": fhir_datetime(visit.end),
        "provider": visit.organization.reference(),
        "priority": {
            "coding": [{"system": "http://terminology.hl7.org/CodeSystem/processpriority", "code": "normal"}]
        },
        "facility": visit.organization.location_reference(),
        "insurance": [{"sequence": 1, "focal": True, "coverage": {"display": person.payer}}],
        "item": items,
        "total": _money(total),
    }


def pharmacy_claim(person: Person, visit: Visit, course: MedRec, claim_id: str) -> dict:
    return {
        "resourceType": "Claim",
        "id": claim_id,
        "status": "active",
        "type": _type("pharmacy"),
        "use": "claim",
        "patient": {"reference": f"urn:uuid:{person.id}"},
        "billablePeriod": {"start": fhir_datetime(visit.start), "end": fhir_datetime(visit.end)},
        "created": fhir_datetime(visit.end),
        "provider": visit.organization.reference(),
        "priority": {
            "coding": [{"system": "http://terminology.hl7.org/CodeSystem/processpriority", "code": "normal"}]
        },
        "prescription": {"reference": f"urn:uuid:{course.id}"},
        "insurance": [{"sequence": 1, "focal": True, "coverage": {"display": person.payer}}],
        "item": [
            {
                "sequence": 1,
                "productOrService": course.med.concept(),
                "encounter": [{"reference": f"urn:uuid:{visit.id}"}],
                "net": _money(price(course.med)),
            }
        ],
        "total": _money(price(course.med)),
    }


def explanation_of_benefit(person: Person, visit: Visit) -> dict:
    practitioner = visit.practitioner.reference(display=False)
    period = {"start": fhir_datetime(visit.start), "end": fhir_datetime(visit.end)}
    place = {
        "coding": [
            {
                "system": "http://terminology.hl7.org/CodeSystem/ex-serviceplace",
                "code": "21" if visit.klass == "IMP" else "19",
                "display": "Inpatient Hospital" if visit.klass == "IMP" else "Off Campus-Outpatient Hospital",
            }
        ]
    }
    category = {
        "coding": [
            {
                "system": f"{BLUE_BUTTON}/variables/line_cms_type_srvc_cd",
                "code": "1",
                "display": "Medical care",
            }
        ]
    }
    items = [
        {
            "sequence": 1,
            "category": category,
            "productOrService": visit.type.concept(),
            "servicedPeriod": period,
            "locationCodeableConcept": place,
            "encounter": [{"reference": f"urn:uuid:{visit.id}"}],
        }
    ]
    total = price(visit.type)
    for sequence, code in enumerate(_billed_items(visit), start=2):
        cost = price(code)
        total += cost
        items.append(
            {
                "sequence": sequence,
                "informationSequence": [sequence - 1],
                "category": category,
                "productOrService": code.concept(),
                "servicedPeriod": period,
                "locationCodeableConcept": place,
                "net": _money(cost),
                "adjudication": [
                    {
                        "category": {
                            "coding": [
                                {
                                    "system": f"{BLUE_BUTTON}/codesystem/adjudication",
                                    "code": f"{BLUE_BUTTON}/variables/line_prvdr_pmt_amt",
                                    "display": "Line Provider Payment Amount",
                                }
                            ]
                        },
                        "amount": _money(cost * 0.8),
                    }
                ],
            }
        )
    return {
        "resourceType": "ExplanationOfBenefit",
        "id": visit.eob_id,
        "contained": [
            {
                "resourceType": "ServiceRequest",
                "id": "referral",
                "status": "completed",
                "intent": "order",
                "subject": {"reference": f"urn:uuid:{person.id}"},
                "requester": practitioner,
                "performer": [practitioner],
            },
            {
                "resourceType": "Coverage",
                "id": "coverage",
                "status": "active",
                "type": {"text": person.payer},
                "beneficiary": {"reference": f"urn:uuid:{person.id}"},
                "payor": [{"display": person.payer}],
            },
        ],
        "identifier": [
            {"system": f"{BLUE_BUTTON}/variables/clm_id", "value": visit.claim_id},
            {"system": f"{BLUE_BUTTON}/identifier/claim-group", "value": "99999999999"},
        ],
        "status": "active",
        "type": _type("institutional"),
        "use": "claim",
        "patient": {"reference": f"urn:uuid:{person.id}"},
        "billablePeriod": period,
        "created": fhir_datetime(visit.end),
        "insurer": {"display": person.payer},
        "provider": practitioner,
        "referral": {"reference": "#referral"},
        "facility": visit.organization.location_reference(),
        "claim": {"reference": f"urn:uuid:{visit.claim_id}"},
        "outcome": "complete",
        "careTeam": [
            {
                "sequence": 1,
                "provider": practitioner,
                "role": {
                    "coding": [
                        {
                            "system": "http://terminology.hl7.org/CodeSystem/claimcareteamrole",
                            "code": "primary",
                            "display": "Primary Care Practitioner",
                        }
                    ]
                },
            }
        ],
        "insurance": [{"focal": True, "coverage": {"reference": "#coverage", "display": person.payer}}],
        "item": items,
        "total": [
            {
                "category": {
                    "coding": [
                        {
                            "system": "http://terminology.hl7.org/CodeSystem/adjudication",
                            "code": "submitted",
                            "display": "Submitted Amount",
                        }
                    ],
                    "text": "Submitted Amount",
                },
                "amount": _money(total),
            }
        ],
        "payment": {"amount": _money(total * 0.8)},
    }
