"""Reference data: Organization, Location, Practitioner and PractitionerRole → rows.

These come from Synthea's support bundles (`hospitalInformation*`, `practitionerInformation*`,
batch bundles loaded before the patients) or inline in `collection` bundles. They are shared
by every patient, so they carry no `patient_id` and are upserted, never deleted.

A PractitionerRole is not a table of its own: it adds specialty, organization and location
to its practitioner (a records reader asks "who is my cardiologist?", not for a role id).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fhir_ingest.codes import NPI, Code, codeables
from fhir_ingest.fields import Fields
from fhir_ingest.references import ReferenceData, Resolver, SharedTarget

Row = dict[str, Any]
SHARED_RESOURCE_TYPES = frozenset({"Organization", "Location", "Practitioner", "PractitionerRole"})


@dataclass
class SharedRows:
    organizations: dict[str, Row] = field(default_factory=dict)
    locations: dict[str, Row] = field(default_factory=dict)
    practitioners: dict[str, Row] = field(default_factory=dict)
    # roles whose practitioner is not in this bundle: (practitioner_id, role columns)
    role_updates: list[tuple[str, Row]] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        out = {
            "organizations": len(self.organizations),
            "locations": len(self.locations),
            "practitioners": len(self.practitioners),
        }
        if self.role_updates:
            out["practitioner_roles"] = len(self.role_updates)
        return {k: v for k, v in out.items() if v}

    def __bool__(self) -> bool:
        return bool(self.organizations or self.locations or self.practitioners or self.role_updates)


def identifiers(r: Fields) -> list[tuple[str | None, str]]:
    out = []
    for ident in r.objs("identifier"):
        value = ident.string("value")
        if value:
            out.append((ident.string("system"), value))
    return out


def practitioner_name(r: Fields) -> tuple[str | None, str | None, str | None, str | None]:
    """(prefix, given, family, full name) of the official (else first) name."""
    names = r.objs("name")
    name = next((n for n in names if n.data.get("use") == "official"), names[0] if names else None)
    if name is None:
        return None, None, None, None
    prefix = name.strs("prefix")
    given = name.strs("given")
    family = name.string("family")
    return name_parts(prefix, given, family, name.string("text"))


def name_parts(
    prefix: list[str], given: list[str], family: str | None, text: str | None
) -> tuple[str | None, str | None, str | None, str | None]:
    """`practitioner_name` from a HumanName's fields, read already."""
    prefixes = " ".join(prefix) or None
    givens = " ".join(given) or None
    return prefixes, givens, family, text or " ".join(p for p in (prefixes, givens, family) if p) or None


def person_name(given: str | None, family: str | None, full: str | None) -> str | None:
    """The name a reference's display is compared with: without title."""
    return " ".join(p for p in (given, family) if p) or full


def target_name(resource_type: str, r: Fields) -> str | None:
    """The name a reference's display is compared with (without title for people)."""
    if resource_type == "Practitioner":
        _, given, family, full = practitioner_name(r)
        return person_name(given, family, full)
    return r.string("name")


def index_shared(r: Fields, refdata: ReferenceData, source_dir: str | None) -> None:
    """Pass 1: make an Organization/Location/Practitioner findable by its identifiers."""
    resource_type = r.data["resourceType"]
    target = SharedTarget.make(resource_type, r.data["id"], target_name(resource_type, r), source_dir)
    refdata.add(target, identifiers(r))


Address = tuple[str | None, str | None, str | None, str | None]  # line(s), city, state, postal code


def _address(r: Fields, key: str = "address") -> Address:
    value = r.data.get(key)
    if isinstance(value, list):
        address = r.first(key)
    else:
        address = r.obj(key)
    if address is None:
        return None, None, None, None
    return (
        ", ".join(address.strs("line")) or None,
        address.string("city"),
        address.string("state"),
        address.string("postalCode"),
    )


def _telecom(r: Fields, system: str) -> str | None:
    for telecom in r.objs("telecom"):
        if telecom.data.get("system") == system:
            return telecom.string("value")
    return None


def map_organization(r: Fields, rows: SharedRows, resolver: Resolver, source_path: str) -> None:
    idents = identifiers(r)
    org_type = codeables(r.objs("type"))
    address = _address(r)
    rows.organizations[r.data["id"]] = organization_row(
        r.data["id"], idents, r.string("name"), org_type, _telecom(r, "phone"), address, source_path
    )


def organization_row(
    rid: str,
    idents: list[tuple[str | None, str]],
    name: str | None,
    org_type: Code,
    phone: str | None,
    address: Address,
    source_path: str,
) -> Row:
    """One `organizations` row (`fhir_ingest.typed` makes the same)."""
    return {
        "id": rid,
        "identifier_system": idents[0][0] if idents else None,
        "identifier_value": idents[0][1] if idents else None,
        "name": name,
        "type_code": org_type.code,
        "type_display": org_type.display,
        "phone": phone,
        "address": address[0],
        "city": address[1],
        "state": address[2],
        "postal_code": address[3],
        "source_path": source_path,
    }


def map_location(r: Fields, rows: SharedRows, resolver: Resolver, source_path: str) -> None:
    idents = identifiers(r)
    address = _address(r)
    position = r.obj("position")
    rows.locations[r.data["id"]] = location_row(
        r.data["id"],
        idents,
        r.string("name"),
        resolver.shared(r.obj("managingOrganization"), "Organization"),
        _telecom(r, "phone"),
        address,
        (position.number("latitude"), position.number("longitude")) if position else (None, None),
        source_path,
    )


def location_row(
    rid: str,
    idents: list[tuple[str | None, str]],
    name: str | None,
    organization_id: str | None,
    phone: str | None,
    address: Address,
    position: tuple[float | None, float | None],
    source_path: str,
) -> Row:
    """One `locations` row (`fhir_ingest.typed` makes the same)."""
    return {
        "id": rid,
        "identifier_system": idents[0][0] if idents else None,
        "identifier_value": idents[0][1] if idents else None,
        "name": name,
        "organization_id": organization_id,
        "phone": phone,
        "address": address[0],
        "city": address[1],
        "state": address[2],
        "postal_code": address[3],
        "latitude": position[0],
        "longitude": position[1],
        "source_path": source_path,
    }


def map_practitioner(r: Fields, rows: SharedRows, resolver: Resolver, source_path: str) -> None:
    npi = next((value for system, value in identifiers(r) if system == NPI), None)
    names = practitioner_name(r)
    rows.practitioners[r.data["id"]] = practitioner_row(
        r.data["id"], npi, names, r.string("gender"), _telecom(r, "email"), source_path
    )


def practitioner_row(
    rid: str,
    npi: str | None,
    names: tuple[str | None, str | None, str | None, str | None],
    gender: str | None,
    email: str | None,
    source_path: str,
) -> Row:
    """One `practitioners` row (`fhir_ingest.typed` makes the same); a role fills the rest."""
    prefix, given, family, full = names
    return {
        "id": rid,
        "npi": npi,
        "prefix": prefix,
        "given": given,
        "family": family,
        "full_name": full,
        "gender": gender,
        "email": email,
        "specialty_code": None,
        "specialty_display": None,
        "organization_id": None,
        "location_id": None,
        "source_path": source_path,
    }


def map_practitioner_role(r: Fields, rows: SharedRows, resolver: Resolver, source_path: str) -> None:
    """Merge specialty/organization/location into the practitioner the role names."""
    practitioner_id = resolver.shared(r.obj("practitioner"), "Practitioner")
    if practitioner_id is None:
        return  # already reported as an unresolved reference
    specialty = codeables(r.objs("specialty")) if r.objs("specialty") else codeables(r.objs("code"))
    locations = r.objs("location")
    organization_id = resolver.shared(r.obj("organization"), "Organization")
    location_id = resolver.shared(locations[0], "Location") if locations else None
    merge_role(rows, practitioner_id, specialty, organization_id, location_id)


def merge_role(
    rows: SharedRows,
    practitioner_id: str,
    specialty: Code,
    organization_id: str | None,
    location_id: str | None,
) -> None:
    """A PractitionerRole's columns onto its practitioner's row, or kept for the stored one."""
    role = {
        "specialty_code": specialty.code,
        "specialty_display": specialty.display,
        "organization_id": organization_id,
        "location_id": location_id,
    }
    row = rows.practitioners.get(practitioner_id)
    if row is None:
        rows.role_updates.append((practitioner_id, role))
        return
    for key, value in role.items():
        if value is not None and row.get(key) is None:
            row[key] = value


SHARED_MAPPERS = {
    "Organization": map_organization,
    "Location": map_location,
    "Practitioner": map_practitioner,
    "PractitionerRole": map_practitioner_role,
}
