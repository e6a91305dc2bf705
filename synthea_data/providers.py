"""The simulated provider network and its two support bundles.

Real Synthea writes organizations/locations to `hospitalInformation<seed>.json` and
practitioners/roles to `practitionerInformation<seed>.json` (both `batch` bundles with
`ifNoneExist`), and patient bundles point at them only through *conditional references*
(`Practitioner?identifier=http://hl7.org/fhir/sid/us-npi|<NPI>`,
`Organization?identifier=https://github.com/synthetichealth/synthea|<id>`,
`Location?identifier=…`). The generated cohort does exactly the same, so ingestion resolves
generated and real data through one code path.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from synthea_data.ids import IdSource, rng_for
from synthea_data.names import FAMILY, FEMALE_GIVEN, MALE_GIVEN, TOWNS, Town, numbered, street_address

SYNTHEA_ID = "https://github.com/synthetichealth/synthea"
NPI = "http://hl7.org/fhir/sid/us-npi"
US_CORE = "http://hl7.org/fhir/us/core/StructureDefinition"
UTILIZATION = "http://synthetichealth.github.io/synthea/utilization-{}-extension"
NUCC = "http://nucc.org/provider-taxonomy"

# (name, kind): fictional provider names in the style of the CMS data Synthea draws from.
_ORGANIZATIONS = (
    ("BRIGHAMWOOD GENERAL HOSPITAL", "hospital"),
    ("RIVERBEND MEDICAL CENTER", "hospital"),
    ("HARBORVIEW FAMILY MEDICINE PC", "clinic"),
    ("MAPLE STREET PRIMARY CARE", "clinic"),
    ("NORTHGATE INTERNAL MEDICINE ASSOCIATES", "clinic"),
    ("PIONEER VALLEY HEALTH CENTER", "clinic"),
    ("CITYWIDE URGENT CARE LLC", "urgent"),
    ("BAYSTATE WALK-IN URGENT CARE", "urgent"),
)


@dataclass
class Organization:
    id: str
    location_id: str
    name: str
    kind: str  # hospital | clinic | urgent
    phone: str
    line: str
    town: Town

    def reference(self) -> dict:
        return {"reference": f"Organization?identifier={SYNTHEA_ID}|{self.id}", "display": self.name}

    def location_reference(self) -> dict:
        return {"reference": f"Location?identifier={SYNTHEA_ID}|{self.location_id}", "display": self.name}


@dataclass
class Practitioner:
    id: str
    role_id: str
    npi: str
    given: str
    family: str
    gender: str
    organization: Organization

    @property
    def name(self) -> str:
        return f"Dr. {self.given} {self.family}"

    def reference(self, display: bool = True) -> dict:
        ref = {"reference": f"Practitioner?identifier={NPI}|{self.npi}"}
        if display:
            ref["display"] = self.name
        return ref


@dataclass
class Utilization:
    """What the patients used, tallied while generating: Synthea's utilization extensions."""

    encounters: Counter = field(default_factory=Counter)
    procedures: Counter = field(default_factory=Counter)
    labs: Counter = field(default_factory=Counter)
    prescriptions: Counter = field(default_factory=Counter)

    def merge(self, other: Utilization) -> None:
        self.encounters.update(other.encounters)
        self.procedures.update(other.procedures)
        self.labs.update(other.labs)
        self.prescriptions.update(other.prescriptions)


class Network:
    """Organizations with one location each and two or three practitioners each."""

    def __init__(self, seed: int) -> None:
        rng = rng_for(seed, "network")
        ids = IdSource(rng)
        self.home_location_id = ids.uuid()
        self.organizations: list[Organization] = []
        self.practitioners: list[Practitioner] = []
        used_npis: set[str] = set()
        for name, kind in _ORGANIZATIONS:
            town = rng.choice(TOWNS)
            org = Organization(
                id=ids.uuid(),
                location_id=ids.uuid(),
                name=name,
                kind=kind,
                phone=f"{rng.choice(('508', '617', '781', '978', '413'))}{ids.digits(7)}",
                line=street_address(rng).upper(),
                town=town,
            )
            self.organizations.append(org)
            for _ in range(3 if kind != "urgent" else 2):
                gender = rng.choice(("male", "female"))
                npi = "9999" + ids.digits(6)
                while npi in used_npis:
                    npi = "9999" + ids.digits(6)
                used_npis.add(npi)
                self.practitioners.append(
                    Practitioner(
                        id=ids.uuid(),
                        role_id=ids.uuid(),
                        npi=npi,
                        given=numbered(rng, rng.choice(MALE_GIVEN if gender == "male" else FEMALE_GIVEN)),
                        family=numbered(rng, rng.choice(FAMILY)),
                        gender=gender,
                        organization=org,
                    )
                )

    def of_kind(self, kind: str) -> list[Organization]:
        return [o for o in self.organizations if o.kind == kind]

    def staff(self, org: Organization) -> list[Practitioner]:
        return [p for p in self.practitioners if p.organization is org]

    def pick(self, rng: random.Random, kind: str) -> tuple[Organization, Practitioner]:
        org = rng.choice(self.of_kind(kind))
        return org, rng.choice(self.staff(org))

    # ------------------------------------------------------------------ support bundles

    def hospital_bundle(self, usage: Utilization) -> dict:
        entries = []
        for org in self.organizations:
            extensions = [
                {"url": UTILIZATION.format(what), "valueInteger": counter[org.id]}
                for what, counter in (
                    ("encounters", usage.encounters),
                    ("procedures", usage.procedures),
                    ("labs", usage.labs),
                    ("prescriptions", usage.prescriptions),
                )
            ]
            address = {
                "line": [org.line],
                "city": org.town.city.upper(),
                "state": "MA",
                "postalCode": org.town.postal_code,
                "country": "US",
            }
            entries.append(
                _batch_entry(
                    {
                        "resourceType": "Organization",
                        "id": org.id,
                        "meta": {"profile": [f"{US_CORE}/us-core-organization"]},
                        "extension": extensions,
                        "identifier": [{"system": SYNTHEA_ID, "value": org.id}],
                        "active": True,
                        "type": [
                            {
                                "coding": [
                                    {
                                        "system": "http://terminology.hl7.org/CodeSystem/organization-type",
                                        "code": "prov",
                                        "display": "Healthcare Provider",
                                    }
                                ],
                                "text": "Healthcare Provider",
                            }
                        ],
                        "name": org.name,
                        "telecom": [{"system": "phone", "value": org.phone}],
                        "address": [address],
                    },
                    if_none_exist=f"identifier={SYNTHEA_ID}|{org.id}",
                )
            )
            entries.append(
                _batch_entry(
                    {
                        "resourceType": "Location",
                        "id": org.location_id,
                        "meta": {"profile": [f"{US_CORE}/us-core-location"]},
                        "identifier": [{"system": SYNTHEA_ID, "value": org.location_id}],
                        "status": "active",
                        "name": org.name,
                        "telecom": [{"system": "phone", "value": org.phone}],
                        "address": address,
                        "position": {"longitude": org.town.longitude, "latitude": org.town.latitude},
                        "managingOrganization": {
                            "identifier": {"system": SYNTHEA_ID, "value": org.id},
                            "display": org.name,
                        },
                    },
                    if_none_exist=f"identifier={SYNTHEA_ID}|{org.location_id}",
                )
            )
        # Synthea ends the file with an identifier-less "Patient's Home" location.
        entries.append(
            _batch_entry(
                {
                    "resourceType": "Location",
                    "id": self.home_location_id,
                    "status": "active",
                    "description": "Patient's Home",
                    "mode": "kind",
                    "physicalType": {
                        "coding": [
                            {
                                "system": "http://terminology.hl7.org/CodeSystem/location-physical-type",
                                "code": "ho",
                                "display": "House",
                            }
                        ]
                    },
                }
            )
        )
        return {"resourceType": "Bundle", "type": "batch", "entry": entries}

    def practitioner_bundle(self, usage: Utilization) -> dict:
        people, roles = [], []
        for p in self.practitioners:
            org = p.organization
            email = {
                "extension": [{"url": f"{US_CORE}/us-core-direct", "valueBoolean": True}],
                "system": "email",
                "value": f"{p.given}.{p.family}@example.com",
                "use": "work",
            }
            people.append(
                _batch_entry(
                    {
                        "resourceType": "Practitioner",
                        "id": p.id,
                        "meta": {"profile": [f"{US_CORE}/us-core-practitioner"]},
                        "extension": [
                            {"url": UTILIZATION.format("encounters"), "valueInteger": usage.encounters[p.id]}
                        ],
                        "identifier": [{"system": NPI, "value": p.npi}],
                        "active": True,
                        "name": [{"family": p.family, "given": [p.given], "prefix": ["Dr."]}],
                        "telecom": [email],
                        "address": [
                            {
                                "line": [org.line],
                                "city": org.town.city.upper(),
                                "state": "MA",
                                "postalCode": org.town.postal_code,
                                "country": "US",
                            }
                        ],
                        "gender": p.gender,
                    },
                    if_none_exist=f"identifier={NPI}|{p.npi}",
                )
            )
            general_practice = {
                "coding": [{"system": NUCC, "code": "208D00000X", "display": "General Practice"}],
                "text": "General Practice",
            }
            roles.append(
                _batch_entry(
                    {
                        "resourceType": "PractitionerRole",
                        "id": p.role_id,
                        "meta": {"profile": [f"{US_CORE}/us-core-practitionerrole"]},
                        "practitioner": {"identifier": {"system": NPI, "value": p.npi}, "display": p.name},
                        "organization": {
                            "identifier": {"system": SYNTHEA_ID, "value": org.id},
                            "display": org.name,
                        },
                        "code": [general_practice],
                        "specialty": [general_practice],
                        "location": [
                            {
                                "identifier": {"system": SYNTHEA_ID, "value": org.location_id},
                                "display": org.name,
                            }
                        ],
                        "telecom": [{"system": "phone", "value": org.phone}, email],
                    }
                )
            )
        return {"resourceType": "Bundle", "type": "batch", "entry": people + roles}


def _batch_entry(resource: dict, if_none_exist: str | None = None) -> dict:
    request = {"method": "POST", "url": resource["resourceType"]}
    if if_none_exist:
        request["ifNoneExist"] = if_none_exist
    return {"fullUrl": f"urn:uuid:{resource['id']}", "resource": resource, "request": request}
