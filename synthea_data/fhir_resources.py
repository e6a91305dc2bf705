"""A simulated record written as a Synthea patient bundle.

Shape decisions copied from real Synthea output (see ../shared/synthea-samples): a `transaction`
bundle; every entry `fullUrl: urn:uuid:<id>` with `request: {method: POST, url: <type>}`;
in-bundle references are `urn:uuid:` references; practitioners, organizations and locations are
*conditional* references into the support bundles; US Core profiles in `meta.profile`; one
note per encounter as a DocumentReference (base64, `superseded` except the newest) plus the
same text in a DiagnosticReport `presentedForm`; Claims, EOBs and a closing Provenance that
targets every entry.

Departures, on purpose: some rows are `entered-in-error` or `not-done` so queries can prove
they exclude them. Laboratory `referenceRange` and `interpretation` (real Synthea writes
neither) are written only when asked for (`reference_ranges=True`, `--reference-ranges`) or
for the hard case that needs them (`lab_crosses_reference_range`), so by default nothing
downstream can come to rely on a range real data never has.
"""

from __future__ import annotations

import base64
import datetime as dt

from synthea_data import billing
from synthea_data.clock import fhir_datetime, fhir_instant
from synthea_data.codes import Race, Report, Role
from synthea_data.model import (
    AdministrationRec,
    AllergyRec,
    CarePlanRec,
    ConditionRec,
    DeviceRec,
    ImmRec,
    MedRec,
    ObsRec,
    PatientRecord,
    ProcRec,
    Quantity,
    ReportRec,
    SupplyRec,
    Visit,
)
from synthea_data.notes import render_note
from synthea_data.providers import SYNTHEA_ID

US_CORE = "http://hl7.org/fhir/us/core/StructureDefinition"
TERMINOLOGY = "http://terminology.hl7.org/CodeSystem"
UCUM = "http://unitsofmeasure.org"

_VITAL_PROFILES = {
    "8302-2": "bodyheight",
    "29463-7": "bodyweight",
    "39156-5": "bmi",
    "85354-9": "bp",
    "8867-4": "heartrate",
    "9279-1": "resprate",
    "8310-5": "bodytemp",
}
_CATEGORY_DISPLAY = {
    "vital-signs": "Vital signs",
    "laboratory": "Laboratory",
    "survey": "Survey",
    "social-history": "Social history",
}
_INTERPRETATION = {"H": "High", "L": "Low", "N": "Normal"}
_MARITAL = {"M": "Married", "S": "Never Married", "D": "Divorced", "W": "Widowed"}


def _ref(resource_id: str, display: str | None = None) -> dict:
    ref = {"reference": f"urn:uuid:{resource_id}"}
    if display:
        ref["display"] = display
    return ref


def _entry(resource: dict) -> dict:
    return {
        "fullUrl": f"urn:uuid:{resource['id']}",
        "resource": resource,
        "request": {"method": "POST", "url": resource["resourceType"]},
    }


def _number(value: float) -> float | int:
    return value if isinstance(value, int) else float(value)


def _quantity(q: Quantity) -> dict:
    return {"value": _number(q.value), "unit": q.unit, "system": UCUM, "code": q.unit}


def _b64(text: str) -> str:
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


RANGE_CASE = "lab_crosses_reference_range"  # the hard case whose point is a range crossing


class BundleWriter:
    """Writes one PatientRecord; `cutoff` is when the record ends (death or the reference today)."""

    def __init__(self, record: PatientRecord, today: dt.date, *, reference_ranges: bool = False) -> None:
        self.record = record
        self.reference_ranges = reference_ranges or RANGE_CASE in record.marks
        self.person = record.person
        self.now = dt.datetime.combine(today, dt.time(0))
        self.cutoff = self.person.deceased_at or self.now

    def _issued(self, when: dt.datetime) -> str:
        return fhir_instant(when, self.person.millis)

    # ------------------------------------------------------------------ bundle

    def bundle(self) -> dict:
        visits = sorted(self.record.visits, key=lambda v: v.start)
        entries = [_entry(self.patient())]
        newest_note = visits[-1].id if visits else None
        for visit in visits:
            entries += self._visit_entries(visit, current=visit.id == newest_note)
        entries.append(_entry(self.provenance(entries, visits)))
        return {"resourceType": "Bundle", "type": "transaction", "entry": entries}

    def _visit_entries(self, visit: Visit, current: bool) -> list[dict]:
        person = self.person
        out = [self.encounter(visit)]
        out += [self.condition(c) for c in visit.conditions]
        out += [self.allergy(a) for a in visit.allergies]
        out += [self.observation(o, visit) for o in visit.observations]
        out += [self.procedure(p, visit) for p in visit.procedures]
        out += [self.immunization(i, visit) for i in visit.immunizations]
        out += [self.device(d) for d in visit.devices]
        out += [self.supply_delivery(d) for d in visit.supplies]
        for course in visit.prescriptions:
            if course.medication_resource_id:
                out.append(self.medication(course))
            out.append(self.medication_request(course, visit))
        out += [self.administration(a, visit) for a in visit.administrations]
        for plan in visit.care_plans:
            out += [self.care_team(plan), self.care_plan(plan)]
        out += [self.lab_report(r, visit) for r in visit.reports]
        text = render_note(
            person, visit, self.record.all_conditions, self.record.all_meds, self.record.all_allergies
        )
        out += [self.note_report(visit, text), self.document(visit, text, current)]
        out.append(billing.encounter_claim(person, visit))
        out.append(billing.explanation_of_benefit(person, visit))
        out += [
            billing.pharmacy_claim(person, visit, course, self.record.pharmacy_claim_ids[course.id])
            for course in visit.prescriptions
        ]
        return [e if "fullUrl" in e else _entry(e) for e in out]

    # ------------------------------------------------------------------ patient

    def patient(self) -> dict:
        p = self.person
        race = getattr(Race, p.race.race)
        ethnicity = Race.HISPANIC if p.race.hispanic else Race.NOT_HISPANIC
        mr = {
            "coding": [
                {"system": f"{TERMINOLOGY}/v2-0203", "code": "MR", "display": "Medical Record Number"}
            ],
            "text": "Medical Record Number",
        }
        ss = {
            "coding": [
                {"system": f"{TERMINOLOGY}/v2-0203", "code": "SS", "display": "Social Security Number"}
            ],
            "text": "Social Security Number",
        }
        identifiers = [
            {"system": SYNTHEA_ID, "value": p.id},
            {"type": mr, "system": "http://hospital.smarthealthit.org", "value": p.id},
            {"type": ss, "system": "http://hl7.org/fhir/sid/us-ssn", "value": p.ssn},
        ]
        if p.drivers_license:
            dl = {
                "coding": [
                    {"system": f"{TERMINOLOGY}/v2-0203", "code": "DL", "display": "Driver's license number"}
                ],
                "text": "Driver's license number",
            }
            identifiers.append(
                {"type": dl, "system": "urn:oid:2.16.840.1.113883.4.3.25", "value": p.drivers_license}
            )
        official = {"use": "official", "family": p.family, "given": list(p.given)}
        if p.prefix:
            official["prefix"] = [p.prefix]
        names = [official]
        if p.maiden_family:
            names.append({**official, "use": "maiden", "family": p.maiden_family})
        resource = {
            "resourceType": "Patient",
            "id": p.id,
            "meta": {"profile": [f"{US_CORE}/us-core-patient"]},
            "text": {
                "status": "generated",
                "div": '<div xmlns="http://www.w3.org/1999/xhtml">Generated by chartside synthea_data in the shape of '
                '<a href="https://github.com/synthetichealth/synthea">Synthea</a> output.</div>',
            },
            "extension": [
                {
                    "url": f"{US_CORE}/us-core-race",
                    "extension": [
                        {"url": "ombCategory", "valueCoding": race.coding()},
                        {"url": "text", "valueString": race.display},
                    ],
                },
                {
                    "url": f"{US_CORE}/us-core-ethnicity",
                    "extension": [
                        {"url": "ombCategory", "valueCoding": ethnicity.coding()},
                        {"url": "text", "valueString": ethnicity.display},
                    ],
                },
                {
                    "url": "http://hl7.org/fhir/StructureDefinition/patient-mothersMaidenName",
                    "valueString": p.mothers_maiden,
                },
                {"url": f"{US_CORE}/us-core-birthsex", "valueCode": "F" if p.female else "M"},
                {
                    "url": "http://hl7.org/fhir/StructureDefinition/patient-birthPlace",
                    "valueAddress": {"city": p.birthplace.city, "state": "Massachusetts", "country": "US"},
                },
            ],
            "identifier": identifiers,
            "name": names,
            "telecom": [{"system": "phone", "value": p.phone, "use": "home"}],
            "gender": p.gender,
            "birthDate": p.birth_date.isoformat(),
        }
        if p.deceased_at is not None:
            resource["deceasedDateTime"] = fhir_datetime(p.deceased_at)
        resource.update(
            {
                "address": [
                    {
                        "extension": [
                            {
                                "url": "http://hl7.org/fhir/StructureDefinition/geolocation",
                                "extension": [
                                    {"url": "latitude", "valueDecimal": round(p.latitude, 6)},
                                    {"url": "longitude", "valueDecimal": round(p.longitude, 6)},
                                ],
                            }
                        ],
                        "line": [p.line],
                        "city": p.town.city,
                        "state": "MA",
                        "postalCode": p.town.postal_code,
                        "country": "US",
                    }
                ],
                "maritalStatus": {
                    "coding": [
                        {
                            "system": f"{TERMINOLOGY}/v3-MaritalStatus",
                            "code": p.marital,
                            "display": _MARITAL[p.marital],
                        }
                    ],
                    "text": _MARITAL[p.marital],
                },
                "multipleBirthBoolean": False,
                "communication": [
                    {
                        "language": {
                            "coding": [
                                {
                                    "system": "urn:ietf:bcp:47",
                                    "code": "en-US",
                                    "display": "English (United States)",
                                }
                            ],
                            "text": "English (United States)",
                        }
                    }
                ],
            }
        )
        return resource

    # ------------------------------------------------------------------ encounter-level

    def encounter(self, visit: Visit) -> dict:
        period = {"start": fhir_datetime(visit.start), "end": fhir_datetime(visit.end)}
        resource = {
            "resourceType": "Encounter",
            "id": visit.id,
            "meta": {"profile": [f"{US_CORE}/us-core-encounter"]},
            "identifier": [{"use": "official", "system": SYNTHEA_ID, "value": visit.id}],
            "status": "finished",
            "class": {"system": f"{TERMINOLOGY}/v3-ActCode", "code": visit.klass},
            "type": [visit.type.concept()],
            "subject": _ref(self.person.id, self.person.full_name),
            "participant": [
                {
                    "type": [
                        {
                            "coding": [
                                {
                                    "system": f"{TERMINOLOGY}/v3-ParticipationType",
                                    "code": "PPRF",
                                    "display": "primary performer",
                                }
                            ],
                            "text": "primary performer",
                        }
                    ],
                    "period": period,
                    "individual": visit.practitioner.reference(),
                }
            ],
            "period": period,
        }
        if visit.reason is not None:
            resource["reasonCode"] = [{"coding": [visit.reason.coding()]}]
        if visit.discharged_home:
            disposition = {
                "system": "http://www.nubc.org/patient-discharge",
                "code": "01",
                "display": "Discharged to home care or self care (routine discharge)",
            }
            resource["hospitalization"] = {
                "dischargeDisposition": {"coding": [disposition], "text": disposition["display"]}
            }
        resource["location"] = [{"location": visit.organization.location_reference()}]
        resource["serviceProvider"] = visit.organization.reference()
        return resource

    def condition(self, c: ConditionRec) -> dict:
        resource: dict = {
            "resourceType": "Condition",
            "id": c.id,
            "meta": {"profile": [f"{US_CORE}/us-core-condition-encounter-diagnosis"]},
        }
        abated = c.abatement is not None and c.abatement <= self.cutoff
        if not c.entered_in_error:
            status = "resolved" if abated else "recurrence" if c.recurrence else "active"
            resource["clinicalStatus"] = {
                "coding": [{"system": f"{TERMINOLOGY}/condition-clinical", "code": status}]
            }
        resource["verificationStatus"] = {
            "coding": [
                {
                    "system": f"{TERMINOLOGY}/condition-ver-status",
                    "code": "entered-in-error" if c.entered_in_error else "confirmed",
                }
            ]
        }
        resource["category"] = [
            {
                "coding": [
                    {
                        "system": f"{TERMINOLOGY}/condition-category",
                        "code": "encounter-diagnosis",
                        "display": "Encounter Diagnosis",
                    }
                ]
            }
        ]
        resource["code"] = c.code.concept()
        resource["subject"] = _ref(self.person.id)
        resource["encounter"] = _ref(c.visit_id)
        resource["onsetDateTime"] = fhir_datetime(c.onset)
        if abated and not c.entered_in_error:
            resource["abatementDateTime"] = fhir_datetime(c.abatement)
        resource["recordedDate"] = fhir_datetime(c.onset)
        return resource

    def allergy(self, a: AllergyRec) -> dict:
        resource = {
            "resourceType": "AllergyIntolerance",
            "id": a.id,
            "meta": {"profile": [f"{US_CORE}/us-core-allergyintolerance"]},
            "clinicalStatus": {
                "coding": [{"system": f"{TERMINOLOGY}/allergyintolerance-clinical", "code": "active"}]
            },
            "verificationStatus": {
                "coding": [{"system": f"{TERMINOLOGY}/allergyintolerance-verification", "code": "confirmed"}]
            },
            "type": "allergy",
            "category": [a.category],
            "criticality": a.criticality,
            "code": a.substance.concept(),
            "patient": _ref(self.person.id),
            "recordedDate": fhir_datetime(a.recorded),
        }
        if a.reactions:
            reactions = []
            for manifestation, severity in a.reactions:
                reaction = {"manifestation": [manifestation.concept()]}
                if severity:
                    reaction["severity"] = severity
                reactions.append(reaction)
            resource["reaction"] = reactions
        return resource

    def observation(self, o: ObsRec, visit: Visit) -> dict:
        if o.category == "vital-signs":
            profiles = (
                [f"http://hl7.org/fhir/StructureDefinition/{_VITAL_PROFILES[o.code.code]}"]
                if o.code.code in _VITAL_PROFILES
                else []
            )
            profiles.append("http://hl7.org/fhir/StructureDefinition/vitalsigns")
        elif o.category == "laboratory":
            profiles = [f"{US_CORE}/us-core-observation-lab"]
        elif o.category == "social-history":
            profiles = [f"{US_CORE}/us-core-smokingstatus"]
        else:
            profiles = [f"{US_CORE}/us-core-observation-survey"]
        resource: dict = {
            "resourceType": "Observation",
            "id": o.id,
            "meta": {"profile": profiles},
            "status": "entered-in-error" if o.entered_in_error else "final",
            "category": [
                {
                    "coding": [
                        {
                            "system": f"{TERMINOLOGY}/observation-category",
                            "code": o.category,
                            "display": _CATEGORY_DISPLAY[o.category],
                        }
                    ]
                }
            ],
            "code": o.code.concept(),
            "subject": _ref(self.person.id),
            "encounter": _ref(visit.id),
            "effectiveDateTime": fhir_datetime(o.effective),
            "issued": self._issued(o.effective),
        }
        if o.quantity is not None:
            resource["valueQuantity"] = _quantity(o.quantity)
        elif o.concept is not None:
            resource["valueCodeableConcept"] = o.concept.concept()
        if o.components:
            resource["component"] = [
                {"code": code.concept(), "valueQuantity": _quantity(q)} for code, q in o.components
            ]
        interpretation = o.interpretation
        if (
            self.reference_ranges
            and interpretation is not None
            and o.reference_range is not None
            and o.quantity is not None
        ):
            low, high = o.reference_range
            bound = {}
            if low is not None:
                bound["low"] = _quantity(Quantity(low, o.quantity.unit))
            if high is not None:
                bound["high"] = _quantity(Quantity(high, o.quantity.unit))
            resource["interpretation"] = [
                {
                    "coding": [
                        {
                            "system": f"{TERMINOLOGY}/v3-ObservationInterpretation",
                            "code": interpretation,
                            "display": _INTERPRETATION[interpretation],
                        }
                    ]
                }
            ]
            resource["referenceRange"] = [bound]
        return resource

    def procedure(self, p: ProcRec, visit: Visit) -> dict:
        resource = {
            "resourceType": "Procedure",
            "id": p.id,
            "meta": {"profile": [f"{US_CORE}/us-core-procedure"]},
            "status": "completed",
            "code": p.code.concept(),
            "subject": _ref(self.person.id),
            "encounter": _ref(visit.id),
            "performedPeriod": {"start": fhir_datetime(p.start), "end": fhir_datetime(p.end)},
            "location": visit.organization.location_reference(),
        }
        if p.reason is not None:
            resource["reasonReference"] = [_ref(p.reason.id, p.reason.code.display)]
        return resource

    def immunization(self, i: ImmRec, visit: Visit) -> dict:
        resource: dict = {
            "resourceType": "Immunization",
            "id": i.id,
            "meta": {"profile": [f"{US_CORE}/us-core-immunization"]},
            "status": "not-done" if i.not_done_reason else "completed",
        }
        if i.not_done_reason:
            code, display = i.not_done_reason
            resource["statusReason"] = {
                "coding": [
                    {
                        "system": "http://terminology.hl7.org/CodeSystem/v3-ActReason",
                        "code": code,
                        "display": display,
                    }
                ],
                "text": display,
            }
        resource.update(
            {
                "vaccineCode": i.vaccine.concept(),
                "patient": _ref(self.person.id),
                "encounter": _ref(visit.id),
                "occurrenceDateTime": fhir_datetime(i.when),
                "primarySource": True,
                "location": visit.organization.location_reference(),
            }
        )
        return resource

    def device(self, d: DeviceRec) -> dict:
        made = d.start - dt.timedelta(days=20)
        expires = d.start + dt.timedelta(days=365 * 25)
        hrf = f"(01){d.device_identifier}(11){made:%y%m%d}(17){expires:%y%m%d}(10){d.lot}(21){d.serial}"
        return {
            "resourceType": "Device",
            "id": d.id,
            "meta": {"profile": [f"{US_CORE}/us-core-implantable-device"]},
            "udiCarrier": [{"deviceIdentifier": d.device_identifier, "carrierHRF": hrf}],
            "status": "active",
            "distinctIdentifier": d.device_identifier,
            "manufactureDate": fhir_datetime(made),
            "expirationDate": fhir_datetime(expires),
            "lotNumber": d.lot,
            "serialNumber": d.serial,
            "deviceName": [{"name": d.code.display, "type": "user-friendly-name"}],
            "type": d.code.concept(),
            "patient": _ref(self.person.id),
        }

    def supply_delivery(self, d: SupplyRec) -> dict:
        return {
            "resourceType": "SupplyDelivery",
            "id": d.id,
            "status": "completed",
            "patient": _ref(self.person.id),
            "type": {
                "coding": [
                    {"system": f"{TERMINOLOGY}/supply-item-type", "code": "device", "display": "Device"}
                ]
            },
            "suppliedItem": {"quantity": {"value": d.quantity}, "itemCodeableConcept": d.code.concept()},
            "occurrenceDateTime": fhir_datetime(d.when),
        }

    def medication(self, course: MedRec) -> dict:
        return {
            "resourceType": "Medication",
            "id": course.medication_resource_id,
            "meta": {"profile": [f"{US_CORE}/us-core-medication"]},
            "code": course.med.concept(),
            "status": "active",
        }

    def medication_request(self, course: MedRec, visit: Visit) -> dict:
        category = "outpatient" if course.medication_resource_id else "community"
        resource: dict = {
            "resourceType": "MedicationRequest",
            "id": course.id,
            "meta": {"profile": [f"{US_CORE}/us-core-medicationrequest"]},
            "status": course.status(self.now, self.person.deceased_at),
            "intent": "order",
            "category": [
                {
                    "coding": [
                        {
                            "system": f"{TERMINOLOGY}/medicationrequest-category",
                            "code": category,
                            "display": category.capitalize(),
                        }
                    ],
                    "text": category.capitalize(),
                }
            ],
        }
        if course.medication_resource_id:
            resource["medicationReference"] = _ref(course.medication_resource_id)
        else:
            resource["medicationCodeableConcept"] = course.med.concept()
        resource.update(
            {
                "subject": _ref(self.person.id),
                "encounter": _ref(visit.id),
                "authoredOn": fhir_datetime(course.authored),
                "requester": course.requester.reference(),
            }
        )
        if course.reason is not None:
            resource["reasonReference"] = [_ref(course.reason.id, course.reason.code.display)]
        if course.as_needed:
            resource["dosageInstruction"] = [
                {"sequence": 1, "text": "Take as needed.", "asNeededBoolean": True}
            ]
        else:
            dosage: dict = {"sequence": 1}
            if course.instruction is not None:
                dosage["text"] = course.instruction.display + "\n"
                dosage["additionalInstruction"] = [course.instruction.concept()]
            dosage.update(
                {
                    "timing": {"repeat": {"frequency": course.frequency, "period": 1.0, "periodUnit": "d"}},
                    "asNeededBoolean": False,
                    "doseAndRate": [
                        {
                            "type": {
                                "coding": [
                                    {
                                        "system": f"{TERMINOLOGY}/dose-rate-type",
                                        "code": "ordered",
                                        "display": "Ordered",
                                    }
                                ]
                            },
                            "doseQuantity": {"value": 1.0},
                        }
                    ],
                }
            )
            resource["dosageInstruction"] = [dosage]
        return resource

    def administration(self, a: AdministrationRec, visit: Visit) -> dict:
        resource = {
            "resourceType": "MedicationAdministration",
            "id": a.id,
            "status": "completed",
            "medicationCodeableConcept": a.med.concept(),
            "subject": _ref(self.person.id),
            "context": _ref(visit.id),
            "effectiveDateTime": fhir_datetime(a.when),
        }
        if a.reason is not None:
            resource["reasonReference"] = [_ref(a.reason.id)]
        return resource

    def _plan_done(self, plan: CarePlanRec) -> bool:
        return plan.end is not None and plan.end <= self.cutoff

    def care_team(self, plan: CarePlanRec) -> dict:
        done = self._plan_done(plan)
        period = {"start": fhir_datetime(plan.start)}
        if done:
            period["end"] = fhir_datetime(plan.end)
        resource = {
            "resourceType": "CareTeam",
            "id": plan.care_team_id,
            "meta": {"profile": [f"{US_CORE}/us-core-careteam"]},
            "status": "inactive" if done else "active",
            "subject": _ref(self.person.id),
            "encounter": _ref(plan.visit_id),
            "period": period,
            "participant": [
                {"role": [Role.PATIENT.concept()], "member": _ref(self.person.id, self.person.full_name)},
                {"role": [Role.HEALTHCARE_PROFESSIONAL.concept()], "member": plan.practitioner.reference()},
                {"role": [Role.HEALTHCARE_SERVICES.concept()], "member": plan.organization.reference()},
            ],
        }
        if plan.addresses is not None:
            resource["reasonCode"] = [plan.addresses.code.concept()]
        resource["managingOrganization"] = [plan.organization.reference()]
        return resource

    def care_plan(self, plan: CarePlanRec) -> dict:
        done = self._plan_done(plan)
        items = "".join(f"<li>{a.display}</li>" for a in plan.activities)
        reason = f"<br/>Care plan is meant to treat {plan.addresses.code.display}." if plan.addresses else ""
        period = {"start": fhir_datetime(plan.start)}
        if done:
            period["end"] = fhir_datetime(plan.end)
        resource: dict = {
            "resourceType": "CarePlan",
            "id": plan.id,
            "meta": {"profile": [f"{US_CORE}/us-core-careplan"]},
            "text": {
                "status": "generated",
                "div": f'<div xmlns="http://www.w3.org/1999/xhtml">Care Plan for {plan.category.display}.{reason}'
                f"<br/>Activities: <ul>{items}</ul></div>",
            },
            "status": "completed" if done else "active",
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
                plan.category.concept(),
            ],
            "subject": _ref(self.person.id),
            "encounter": _ref(plan.visit_id),
            "period": period,
            "careTeam": [_ref(plan.care_team_id)],
        }
        if plan.addresses is not None:
            resource["addresses"] = [_ref(plan.addresses.id)]
        activity_status = "completed" if done else "in-progress"
        resource["activity"] = [
            {
                "detail": {
                    "code": a.concept(),
                    **({"reasonReference": [_ref(plan.addresses.id)]} if plan.addresses else {}),
                    "status": activity_status,
                    "location": {"display": plan.organization.name},
                }
            }
            for a in plan.activities
        ]
        return resource

    def lab_report(self, report: ReportRec, visit: Visit) -> dict:
        resource: dict = {"resourceType": "DiagnosticReport", "id": report.id}
        survey = report.code in (Report.PHQ2, Report.PHQ9)
        if not survey:
            resource["meta"] = {"profile": [f"{US_CORE}/us-core-diagnosticreport-lab"]}
        resource["status"] = "final"
        if not survey:
            resource["category"] = [
                {"coding": [{"system": f"{TERMINOLOGY}/v2-0074", "code": "LAB", "display": "Laboratory"}]}
            ]
        resource.update(
            {
                "code": report.code.concept(),
                "subject": _ref(self.person.id),
                "encounter": _ref(visit.id),
                "effectiveDateTime": fhir_datetime(report.effective),
                "issued": self._issued(report.effective),
            }
        )
        if not survey:
            resource["performer"] = [visit.organization.reference()]
        resource["result"] = [_ref(o.id, o.code.display) for o in report.results]
        return resource

    # ------------------------------------------------------------------ the note, twice

    @staticmethod
    def _note_codes() -> list[dict]:
        return [Report.HISTORY_AND_PHYSICAL.coding(), Report.EVALUATION_PLAN.coding()]

    def note_report(self, visit: Visit, text: str) -> dict:
        return {
            "resourceType": "DiagnosticReport",
            "id": visit.note_report_id,
            "meta": {"profile": [f"{US_CORE}/us-core-diagnosticreport-note"]},
            "status": "final",
            "category": [{"coding": self._note_codes()}],
            "code": {"coding": self._note_codes()},
            "subject": _ref(self.person.id),
            "encounter": _ref(visit.id),
            "effectiveDateTime": fhir_datetime(visit.start),
            "issued": self._issued(visit.start),
            "performer": [visit.practitioner.reference()],
            "presentedForm": [{"contentType": "text/plain; charset=utf-8", "data": _b64(text)}],
        }

    def document(self, visit: Visit, text: str, current: bool) -> dict:
        period = {"start": fhir_datetime(visit.start), "end": fhir_datetime(visit.end)}
        return {
            "resourceType": "DocumentReference",
            "id": visit.note_id,
            "meta": {"profile": [f"{US_CORE}/us-core-documentreference"]},
            "identifier": [{"system": "urn:ietf:rfc:3986", "value": f"urn:uuid:{visit.note_report_id}"}],
            "status": "current" if current else "superseded",
            "type": {"coding": self._note_codes()},
            "category": [
                {
                    "coding": [
                        {
                            "system": "http://hl7.org/fhir/us/core/CodeSystem/us-core-documentreference-category",
                            "code": "clinical-note",
                            "display": "Clinical Note",
                        }
                    ]
                }
            ],
            "subject": _ref(self.person.id),
            "date": self._issued(visit.start),
            "author": [visit.practitioner.reference()],
            "custodian": visit.organization.reference(),
            "content": [
                {
                    "attachment": {"contentType": "text/plain; charset=utf-8", "data": _b64(text)},
                    "format": {
                        "system": "http://ihe.net/fhir/ihe.formatcode.fhir/CodeSystem/formatcode",
                        "code": "urn:ihe:iti:xds:2017:mimeTypeSufficient",
                        "display": "mimeType Sufficient",
                    },
                }
            ],
            "context": {"encounter": [_ref(visit.id)], "period": period},
        }

    # ------------------------------------------------------------------ provenance

    def provenance(self, entries: list[dict], visits: list[Visit]) -> dict:
        last = max((v.end for v in visits), default=self.cutoff)
        pcp, clinic = self.person.pcp, self.person.clinic

        def agent(system: str, code: str, display: str) -> dict:
            return {
                "type": {"coding": [{"system": system, "code": code, "display": display}], "text": display},
                "who": pcp.reference(),
                "onBehalfOf": clinic.reference(),
            }

        return {
            "resourceType": "Provenance",
            "id": self.record.provenance_id,
            "meta": {"profile": [f"{US_CORE}/us-core-provenance"]},
            "target": [{"reference": e["fullUrl"]} for e in entries],
            "recorded": self._issued(last),
            "agent": [
                agent(f"{TERMINOLOGY}/provenance-participant-type", "author", "Author"),
                agent(
                    "http://hl7.org/fhir/us/core/CodeSystem/us-core-provenance-participant-type",
                    "transmitter",
                    "Transmitter",
                ),
            ],
        }
