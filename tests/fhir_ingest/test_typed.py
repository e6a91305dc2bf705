"""Resources read as typed structs (`fhir_ingest.typed`) agree with the checked mappers.

Each typed resource type is generated well typed (every field its checked mapper reads, of
the JSON type it accepts, with references that resolve, dangle or warn, dates that parse,
attachments that decode or not), put in a small bundle after a patient, an encounter, a
condition and an observation it can refer to, and ingested twice: through the skim (typed
structs) and through the full parse (dicts, checked mappers). The outcome — rows, warnings,
skipped counts, or the error naming entry and field — must be the same; for well-typed
resources the typed mapper must also have done the work (no detour). Then any one field of
the resource is replaced by any JSON value, and the outcomes must still agree.
"""

from __future__ import annotations

import base64
import copy
import json
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from fhir_ingest.codes import LOINC, NPI, SNOMED
from fhir_ingest.errors import BundleError
from fhir_ingest.references import BundleIndex, ReferenceData, SharedTarget
from fhir_ingest.skim import Skimmed, skim_bundle
from fhir_ingest.source import RawFile, parse_json
from fhir_ingest.transform import READ_TYPES, transform_bundle
from fhir_ingest.typed import TYPED, TYPED_SHARED
from tests.faults.test_bundle_fuzz import json_value

_SYNTHEA = "https://github.com/synthetichealth/synthea"

# no NUL: a record cannot store one, the whole bundle is refused before any mapper (test_skim.py)
_text = st.one_of(
    st.none(),
    st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=4),
    st.sampled_from(["final", "mm[Hg]", "8480-6", "Ann Smith"]),
)
_number = st.one_of(st.none(), st.integers(-1000, 1000), st.floats(allow_nan=False, allow_infinity=False))
_when = st.one_of(
    st.none(),
    st.sampled_from(["2019", "2019-07", "2019-07-14", "2019-07-14T10:00:00+02:00", "2019-07-14T10:00:00Z"]),
)
_system = st.sampled_from([LOINC, SNOMED, "http://hl7.org/fhir/sid/cvx", "urn:other"])
_coding = st.fixed_dictionaries({}, optional={"system": _system, "code": _text, "display": _text})
_concept = st.fixed_dictionaries({}, optional={"coding": st.lists(_coding, max_size=3), "text": _text})
_concepts = st.lists(_concept, max_size=3)
_period = st.fixed_dictionaries({}, optional={"start": _when, "end": _when})
_quantity = st.fixed_dictionaries({}, optional={"value": _number, "unit": _text, "code": _text})


def _refs(*references: str) -> st.SearchStrategy:
    return st.fixed_dictionaries({"reference": st.sampled_from(references)})


_encounter = _refs("urn:uuid:e-1", "Encounter/e-1")
_reason = _refs("urn:uuid:c-1", "Condition/c-1", "urn:uuid:o-1", "urn:uuid:e-1")
_result = _refs("urn:uuid:o-1", "Observation/o-1")


def _shared(resource_type: str, system: str, value: str, name: str) -> st.SearchStrategy:
    """References to a practitioner/organization/location: linked, mismatched, unknown, logical."""
    return st.one_of(
        st.fixed_dictionaries(
            {
                "reference": st.sampled_from(
                    [
                        f"{resource_type}?identifier={system}|{value}",
                        f"{resource_type}?identifier={system}|unknown",
                        f"{resource_type}/{value}",
                        f"{resource_type}/nope",
                        "urn:uuid:c-1",  # an entry of another type: no link, no warning
                    ]
                )
            },
            optional={"display": st.sampled_from([name, f"Dr. {name}", "Bob Jones", None])},
        ),
        st.fixed_dictionaries(
            {
                "identifier": st.fixed_dictionaries(
                    {}, optional={"system": st.just(system), "value": st.sampled_from([value, "nobody", ""])}
                )
            },
            optional={"display": st.sampled_from([name, "Bob Jones"])},
        ),
        st.fixed_dictionaries({"display": st.just(name)}),
    )


_practitioner = _shared("Practitioner", NPI, "111", "Ann Smith")
_organization = _shared("Organization", _SYNTHEA, "org-1", "Clinic")
_location = _shared("Location", _SYNTHEA, "loc-1", "Clinic Site")


def _b64(text: bytes) -> str:
    return base64.b64encode(text).decode()


_attachment = st.fixed_dictionaries(
    {},
    optional={
        "contentType": st.sampled_from(
            ["text/plain; charset=utf-8", "text/plain", "application/pdf", "text/plain; charset=bogus", None]
        ),
        "data": st.sampled_from(
            [_b64(b"Note one.\r\n"), _b64("h\u00e9llo".encode()), _b64(b"h\xe9llo"), "not base64!", None]
        ),
        "url": st.sampled_from(["http://example.org/note", None]),
    },
)

_identifier = st.fixed_dictionaries(
    {},
    optional={
        "system": st.sampled_from([NPI, _SYNTHEA, None]),
        "value": st.sampled_from(["111", "org-9", "", None]),
    },
)
_contact = st.fixed_dictionaries(
    {}, optional={"system": st.sampled_from(["phone", "email", None]), "value": _text}
)
_address = st.fixed_dictionaries(
    {},
    optional={
        "line": st.lists(st.sampled_from(["1 Main St", "Unit 2"]), max_size=2),
        "city": _text,
        "state": _text,
        "postalCode": _text,
    },
)

_VALUES = {
    "valueQuantity": _quantity,
    "valueCodeableConcept": _concept,
    "valueString": _text,
    "valueBoolean": st.one_of(st.none(), st.booleans()),
    "valueInteger": _number,
    "valueDateTime": _when,
}

_FIELDS = {
    "Observation": {
        "status": _text,
        "category": _concepts,
        "code": _concept,
        **_VALUES,
        "component": st.lists(st.fixed_dictionaries({}, optional={"code": _concept, **_VALUES}), max_size=3),
        "referenceRange": st.lists(
            st.fixed_dictionaries({}, optional={"low": _quantity, "high": _quantity}), max_size=2
        ),
        "interpretation": _concepts,
        "effectiveDateTime": _when,
        "effectiveInstant": _when,
        "effectivePeriod": _period,
        "issued": _when,
        "encounter": _encounter,
    },
    "Encounter": {
        "status": _text,
        "class": _coding,
        "type": _concepts,
        "participant": st.lists(
            st.fixed_dictionaries({}, optional={"individual": _practitioner}), max_size=2
        ),
        "period": _period,
        "reasonCode": _concepts,
        "reasonReference": st.lists(_reason, max_size=2),
        "location": st.lists(st.fixed_dictionaries({}, optional={"location": _location}), max_size=2),
        "serviceProvider": _organization,
    },
    "Condition": {
        "clinicalStatus": _concept,
        "verificationStatus": _concept,
        "category": _concepts,
        "code": _concept,
        "encounter": _encounter,
        "onsetDateTime": _when,
        "onsetPeriod": _period,
        "abatementDateTime": _when,
        "abatementPeriod": _period,
        "recordedDate": _when,
    },
    "Procedure": {
        "status": _text,
        "code": _concept,
        "encounter": _encounter,
        "performedPeriod": _period,
        "performedDateTime": _when,
        "reasonCode": _concepts,
        "reasonReference": st.lists(_reason, max_size=2),
        "location": _location,
    },
    "Immunization": {
        "status": _text,
        "vaccineCode": _concept,
        "statusReason": _concept,
        "encounter": _encounter,
        "occurrenceDateTime": _when,
        "primarySource": st.one_of(st.none(), st.booleans()),
        "location": _location,
    },
    "DocumentReference": {
        "status": _text,
        "type": _concept,
        "date": _when,
        "author": st.lists(_practitioner, max_size=2),
        "custodian": _organization,
        "content": st.lists(st.fixed_dictionaries({}, optional={"attachment": _attachment}), max_size=2),
        "context": st.fixed_dictionaries({}, optional={"encounter": st.lists(_encounter, max_size=2)}),
    },
    "DiagnosticReport": {
        "status": _text,
        "category": _concepts,
        "code": _concept,
        "encounter": _encounter,
        "effectiveDateTime": _when,
        "effectiveInstant": _when,
        "effectivePeriod": _period,
        "issued": _when,
        "result": st.lists(_result, max_size=3),
        "presentedForm": st.lists(_attachment, max_size=2),
    },
    "MedicationRequest": {
        "status": _text,
        "intent": _text,
        "medicationCodeableConcept": _concept,
        "medicationReference": st.one_of(
            _refs("urn:uuid:m-1", "Medication/m-1", "urn:uuid:c-1"),
            st.fixed_dictionaries({}, optional={"display": _text}),
        ),
        "encounter": _encounter,
        "authoredOn": _when,
        "requester": _practitioner,
        "reasonCode": _concepts,
        "reasonReference": st.lists(_reason, max_size=2),
        "dosageInstruction": st.lists(
            st.fixed_dictionaries(
                {},
                optional={
                    "text": _text,
                    "doseAndRate": st.lists(
                        st.fixed_dictionaries({}, optional={"doseQuantity": _quantity}), max_size=2
                    ),
                    "timing": st.fixed_dictionaries(
                        {},
                        optional={
                            "repeat": st.fixed_dictionaries(
                                {},
                                optional={
                                    "frequency": _number,
                                    "period": _number,
                                    "periodUnit": st.sampled_from(["d", "h", "wk", "x", None]),
                                },
                            )
                        },
                    ),
                    "asNeededBoolean": st.one_of(st.none(), st.booleans()),
                },
            ),
            max_size=2,
        ),
        "dispenseRequest": st.fixed_dictionaries({}, optional={"validityPeriod": _period}),
        "contained": st.just([{"resourceType": "Medication", "id": "med", "code": {"text": "contained"}}]),
    },
    "CarePlan": {
        "status": _text,
        "intent": _text,
        "category": _concepts,
        "encounter": _encounter,
        "period": _period,
        "addresses": st.lists(_refs("urn:uuid:c-1", "Condition/c-1", "urn:uuid:o-1"), max_size=2),
        "activity": st.lists(
            st.fixed_dictionaries(
                {},
                optional={"detail": st.fixed_dictionaries({}, optional={"code": _concept, "status": _text})},
            ),
            max_size=3,
        ),
    },
    "AllergyIntolerance": {
        "clinicalStatus": _concept,
        "verificationStatus": _concept,
        "type": _text,
        "category": st.lists(st.sampled_from(["food", "medication", "environment"]), max_size=2),
        "criticality": _text,
        "code": _concept,
        "onsetDateTime": _when,
        "onsetPeriod": _period,
        "recordedDate": _when,
        "reaction": st.lists(
            st.fixed_dictionaries({}, optional={"severity": _text, "manifestation": _concepts}), max_size=2
        ),
    },
    # reference data (support bundles; inline in collection bundles)
    "Organization": {
        "identifier": st.lists(_identifier, max_size=2),
        "name": _text,
        "type": _concepts,
        "telecom": st.lists(_contact, max_size=2),
        "address": st.one_of(st.lists(_address, max_size=2), _address),
    },
    "Location": {
        "identifier": st.lists(_identifier, max_size=2),
        "name": _text,
        "telecom": st.lists(_contact, max_size=2),
        "address": st.one_of(st.lists(_address, max_size=2), _address),
        "position": st.fixed_dictionaries({}, optional={"latitude": _number, "longitude": _number}),
        "managingOrganization": _organization,
    },
    "Practitioner": {
        "identifier": st.lists(_identifier, max_size=2),
        "name": st.lists(
            st.fixed_dictionaries(
                {},
                optional={
                    "use": st.sampled_from(["official", "usual", None]),
                    "text": st.sampled_from(["Ann Smith", "", None]),
                    "family": st.sampled_from(["Smith", "Jones", None]),
                    "given": st.lists(st.sampled_from(["Ann", "Bo", ""]), max_size=2),
                    "prefix": st.lists(st.sampled_from(["Dr.", "Ms."]), max_size=2),
                },
            ),
            max_size=2,
        ),
        "gender": _text,
        "telecom": st.lists(_contact, max_size=2),
    },
    "PractitionerRole": {
        "practitioner": _practitioner,
        "organization": _organization,
        "specialty": _concepts,
        "code": _concepts,
        "location": st.lists(_location, max_size=2),
    },
}
assert set(_FIELDS) == set(TYPED) | set(TYPED_SHARED)


def _resources(rtype: str, full: bool = False) -> st.SearchStrategy:
    """Resources of `rtype`; `full`: every field present (so that, say, all three shared
    references of an encounter warn at once, and their order shows)."""
    subject = "patient" if rtype in ("Immunization", "AllergyIntolerance") else "subject"
    required = {"resourceType": st.just(rtype), "id": st.just("x-1")}
    if rtype not in TYPED_SHARED:
        required[subject] = st.fixed_dictionaries({"reference": st.just("urn:uuid:p-1")})
    if full:
        return st.fixed_dictionaries({**required, **_FIELDS[rtype]})
    return st.fixed_dictionaries(required, optional=_FIELDS[rtype])


_any_resource = st.tuples(st.sampled_from(sorted(_FIELDS)), st.booleans()).flatmap(lambda t: _resources(*t))

_CONTEXT = [
    {"resourceType": "Patient", "id": "p-1"},
    {
        "resourceType": "Encounter",
        "id": "e-1",
        "subject": {"reference": "urn:uuid:p-1"},
        "period": {"start": "2019-07-14T10:00:00+02:00"},
    },
    {
        "resourceType": "Condition",
        "id": "c-1",
        "subject": {"reference": "urn:uuid:p-1"},
        "code": {"coding": [{"system": SNOMED, "code": "44054006", "display": "Diabetes"}]},
    },
    {
        "resourceType": "Medication",
        "id": "m-1",
        "code": {
            "coding": [{"system": "http://www.nlm.nih.gov/research/umls/rxnorm", "code": "314076"}],
            "text": "lisinopril",
        },
    },
    {
        "resourceType": "Observation",
        "id": "o-1",
        "subject": {"reference": "urn:uuid:p-1"},
        "code": {"coding": [{"system": LOINC, "code": "4548-4", "display": "HbA1c"}], "text": "A1c"},
        "valueQuantity": {"value": 6.1, "unit": "%"},
    },
]


def _refdata() -> ReferenceData:
    refdata = ReferenceData()
    refdata.add(SharedTarget("Practitioner", "111", "Ann Smith"), [(NPI, "111")])
    refdata.add(SharedTarget("Organization", "org-1", "Clinic"), [(_SYNTHEA, "org-1")])
    refdata.add(SharedTarget("Location", "loc-1", "Clinic Site"), [(_SYNTHEA, "loc-1")])
    return refdata


def _bundle(resource: dict, ensure_ascii: bool) -> bytes:
    entries = [{"fullUrl": f"urn:uuid:{r['id']}", "resource": r} for r in [*_CONTEXT, resource]]
    return json.dumps(
        {"resourceType": "Bundle", "type": "collection", "entry": entries}, ensure_ascii=ensure_ascii
    ).encode()


@contextmanager
def _detours():
    """The entries read again as dicts (`BundleIndex.as_dict` on a typed resource)."""
    seen: list[int] = []
    original = BundleIndex.as_dict

    def as_dict(self, entry):
        if type(self.resources[entry]) is not dict:
            seen.append(entry)
        return original(self, entry)

    with mock.patch.object(BundleIndex, "as_dict", as_dict):
        yield seen


def _outcome(parse, raw: RawFile) -> tuple:
    try:
        result = transform_bundle(parse(raw), _refdata(), source_path="b.json", source_dir="d")
    except BundleError as exc:
        return ("error", str(exc), exc.entry, exc.field)
    return (
        "ok",
        result.kind,
        result.patient_row,
        dict(result.rows),
        result.shared,
        result.refdata_layer.__reduce__()[1][1],  # the bundle's own targets, names and identifiers
        result.resources,
        dict(result.skipped),
        result.warnings,
        result.unresolved_references,
    )


_TESTED = len(_CONTEXT)  # the entry of the resource under test


def _both(resource: dict, ensure_ascii: bool = True) -> tuple[tuple, tuple, str]:
    """(outcome through the skim, through the full parse, how the skim's mapping read the
    resource under test: "typed", "detour" (typed, then read again as a dict) or "dict")."""
    raw = RawFile(path=Path("b.json"), data=_bundle(resource, ensure_ascii), sha256="")
    decoded = []

    def skim(raw: RawFile) -> object:
        skimmed = skim_bundle(raw, READ_TYPES)
        decoded.append(
            isinstance(skimmed, Skimmed)
            and any(i == _TESTED and type(r) is not dict for i, _, r in skimmed.read)
        )
        return skimmed

    with _detours() as detoured:
        typed = _outcome(skim, raw)
    how = "dict" if not decoded or not decoded[0] else "detour" if _TESTED in detoured else "typed"
    return typed, _outcome(parse_json, raw), how


@settings(max_examples=600, deadline=None)
@given(_any_resource, st.booleans())
def test_a_well_typed_resource_is_mapped_typed_with_the_checked_rows(resource, ensure_ascii):
    typed, checked, how = _both(resource, ensure_ascii)
    assert typed == checked
    # taken, not a detour; a dangling reference, a date that does not parse, bad base64: the
    # checked mapper names it
    assert how == ("typed" if checked[0] == "ok" else "detour")


def _places(node, out):
    """Every (container, key) inside a JSON value, the resource's own fields included."""
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in items:
        out.append((node, key))
        _places(value, out)
    return out


_odd = st.sampled_from(
    [
        "2020-02-30",
        "2019-07-14T10:00:00",
        "urn:uuid:elsewhere",
        "Patient/p-1",
        "urn:uuid:e-1",
        "#med",
        "#other",
    ]
)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_any_resource, st.data())
def test_a_resource_with_one_bad_field_agrees_with_the_checked_mapper(resource, data):
    resource = copy.deepcopy(resource)
    places = [(c, k) for c, k in _places(resource, []) if k not in ("resourceType", "id")]
    assume(places)
    container, key = data.draw(st.sampled_from(places))
    container[key] = data.draw(st.one_of(json_value, _odd, st.just({}), st.just([{}])))
    typed, checked, _ = _both(resource, data.draw(st.booleans()))
    assert typed == checked


@settings(max_examples=300, deadline=None)
@given(_any_resource, st.data())
def test_a_resource_with_a_field_removed_or_added_agrees(resource, data):
    resource = copy.deepcopy(resource)
    if data.draw(st.booleans()) and len(resource) > 3:
        del resource[
            data.draw(st.sampled_from(sorted(k for k in resource if k not in ("resourceType", "id"))))
        ]
    else:
        resource[data.draw(st.text(max_size=12))] = data.draw(json_value)
    typed, checked, _ = _both(resource)
    assert typed == checked


def test_a_synthea_resource_of_each_typed_kind_is_read_typed(samples_dir):
    """The typed path must take real Synthea resources (else it is only a detour)."""
    from fhir_ingest.source import read_file

    path = next(p for p in sorted(samples_dir.rglob("*.json")) if "Information" not in p.name)
    skimmed = skim_bundle(read_file(path), READ_TYPES)
    kinds = {type(r).__name__ for _, _, r in skimmed.read if type(r) is not dict}
    assert kinds == set(TYPED) & {rtype for _, rtype, _ in skimmed.read}
    for support in sorted(samples_dir.rglob("*Information*.json")):
        skimmed = skim_bundle(read_file(support), READ_TYPES)
        kinds = {type(r).__name__ for _, _, r in skimmed.read}
        assert kinds <= set(TYPED_SHARED) and kinds, support.name


def _variants(resource_type: str, system: str, value: str, name: str) -> list[dict | None]:
    """A shared reference each way it can end: linked, or left empty with each kind of warning."""
    return [
        None,
        {"reference": f"{resource_type}?identifier={system}|{value}", "display": name},
        {"reference": f"{resource_type}?identifier={system}|{value}", "display": "Bob Jones"},
        {"reference": f"{resource_type}?identifier={system}|unknown"},
        {"reference": f"{resource_type}/nope"},
        {"identifier": {"system": system, "value": "nobody"}},
        {"display": name},
    ]


def test_every_combination_of_an_encounters_shared_references_warns_in_the_checked_order():
    import itertools

    for practitioner, organization, location in itertools.product(
        _variants("Practitioner", NPI, "111", "Ann Smith"),
        _variants("Organization", _SYNTHEA, "org-1", "Clinic"),
        _variants("Location", _SYNTHEA, "loc-1", "Clinic Site"),
    ):
        encounter = {"resourceType": "Encounter", "id": "x-1", "subject": {"reference": "urn:uuid:p-1"}}
        if practitioner is not None:
            encounter["participant"] = [{}, {"individual": practitioner}]
        if organization is not None:
            encounter["serviceProvider"] = organization
        if location is not None:
            encounter["location"] = [{"location": location}]
        typed, checked, how = _both(encounter)
        assert (typed, how) == (checked, "typed"), encounter


def test_every_combination_of_a_notes_shared_references_warns_in_the_checked_order():
    import itertools

    for author, custodian in itertools.product(
        _variants("Practitioner", NPI, "111", "Ann Smith"),
        _variants("Organization", _SYNTHEA, "org-1", "Clinic"),
    ):
        note = {
            "resourceType": "DocumentReference",
            "id": "x-1",
            "subject": {"reference": "urn:uuid:p-1"},
            "content": [{"attachment": {"contentType": "text/plain", "data": _b64(b"A note.")}}],
        }
        if author is not None:
            note["author"] = [author, {"display": "second author, not read"}]
        if custodian is not None:
            note["custodian"] = custodian
        typed, checked, how = _both(note)
        assert (typed, how) == (checked, "typed"), note


def test_a_blood_pressure_is_read_typed_with_its_parts_by_loinc():
    bp = {
        "resourceType": "Observation",
        "id": "x-1",
        "status": "final",
        "category": [
            {
                "coding": [
                    {
                        "system": "http://terminology.hl7.org/CodeSystem/observation-category",
                        "code": "vital-signs",
                    }
                ]
            }
        ],
        "code": {"coding": [{"system": LOINC, "code": "85354-9", "display": "Blood pressure panel"}]},
        "subject": {"reference": "urn:uuid:p-1"},
        "encounter": {"reference": "urn:uuid:e-1"},
        "effectiveDateTime": "2019-07-14T10:00:00+02:00",
        "issued": "2019-07-14T10:00:00.123+02:00",
        "component": [
            {
                "code": {"coding": [{"system": LOINC, "code": "8462-4"}]},
                "valueQuantity": {"value": 80.5, "unit": "mm[Hg]"},
            },
            {
                "code": {"coding": [{"system": LOINC, "code": "8480-6"}]},
                "valueQuantity": {"value": 120, "unit": "mm[Hg]"},
            },
        ],
    }
    typed, checked, how = _both(bp)
    assert (typed, how) == (checked, "typed")
    rows = typed[3]
    (row,) = [r for r in rows["observations"] if r["id"] == "x-1"]
    assert (row["value_type"], row["category"], row["code"], row["encounter_id"]) == (
        "components",
        "vital-signs",
        "85354-9",
        "e-1",
    )
    parts = [
        (p["code"], p["value_num"]) for p in rows["observation_components"] if p["observation_id"] == "x-1"
    ]
    assert parts == [("8462-4", 80.5), ("8480-6", 120.0)]  # kept by code, whatever their order


def test_a_number_too_large_for_a_double_where_nothing_reads_is_skipped_not_refused():
    """The known difference (`fhir_ingest.skim`): msgspec skips an undeclared field without
    converting its number; a resource read again as a dict is refused, naming its entry."""
    observation = {
        "resourceType": "Observation",
        "id": "x-1",
        "subject": {"reference": "urn:uuid:p-1"},
        "meta": {"versionId": "OVERFLOW"},
        "status": "final",
    }
    data = _bundle(observation, True).replace(b'"OVERFLOW"', b"1e400")
    raw = RawFile(path=Path("b.json"), data=data, sha256="")
    full = _outcome(parse_json, raw)
    assert full[0] == "error" and "infinity" in full[1]
    skimmed = _outcome(lambda r: skim_bundle(r, READ_TYPES), raw)
    assert skimmed[0] == "ok"
    assert [r["status"] for r in skimmed[3]["observations"] if r["id"] == "x-1"] == ["final"]
    # the same resource with a date that makes the typed mapper detour: read as a dict, refused
    detoured = _outcome(
        lambda r: skim_bundle(r, READ_TYPES),
        RawFile(
            path=Path("b.json"), data=data.replace(b'"status": "final"', b'"issued": "2019-13"'), sha256=""
        ),
    )
    assert detoured[0] == "error" and "infinity" in detoured[1] and detoured[2] == _TESTED


def test_every_combination_of_a_roles_references_warns_in_the_checked_order():
    import itertools

    for practitioner, organization, location in itertools.product(
        _variants("Practitioner", NPI, "111", "Ann Smith"),
        _variants("Organization", _SYNTHEA, "org-1", "Clinic"),
        _variants("Location", _SYNTHEA, "loc-1", "Clinic Site"),
    ):
        role = {"resourceType": "PractitionerRole", "id": "x-1", "specialty": [{"text": "Cardiology"}]}
        for key, value in (("practitioner", practitioner), ("organization", organization)):
            if value is not None:
                role[key] = value
        if location is not None:
            role["location"] = [location, {"reference": "Location/not-read"}]
        typed, checked, how = _both(role)
        assert (typed, how) == (checked, "typed"), role


def test_a_practitioners_official_name_is_the_one_read_whatever_its_place():
    names = [
        {"use": "usual", "family": "Jones", "given": ["Bo"]},
        {"use": "official", "family": "Smith", "given": ["Ann"]},
    ]
    typed, checked, how = _both({"resourceType": "Practitioner", "id": "x-1", "name": names})
    assert (typed, how) == (checked, "typed")
    assert typed[4].practitioners["x-1"]["family"] == "Smith"
