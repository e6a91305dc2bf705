"""The resources of a bundle, read as typed structs instead of located dicts.

Every resource a mapper reads but the Patient and a Medication (one or a few per bundle) is of
a type with a struct below: the ten clinical types and the four of the reference data
(Organization, Location, Practitioner, PractitionerRole). The skimming parse
(`fhir_ingest.skim`) decodes each of them with msgspec straight from the bundle's bytes into
its struct: the JSON types are checked in C while decoding, the fields no mapper reads are
skipped (never built), and the mapper reads attributes. Before, each was parsed into dicts by
orjson and every field read through a typed accessor (`Fields`) that checked its type in
Python.

Nothing about a bundle's outcome changes; the checked mappers (`fhir_ingest.mappers`) stay the
definition of it, and these are only allowed to agree with them:

* A struct declares, for every field its checked mapper reads, exactly the JSON type that
  mapper accepts there (a string, a number, an object of this shape, an array of them), or
  null. Anything else (a number where a string belongs, a string for a Coding) makes msgspec
  refuse the resource, and the skim gives the plain dict instead: the checked mapper reads it
  and names entry and field. A field it declares and the checked mapper does not always read
  (the `display` of an encounter reference) only sends more resources that way.
* A typed mapper first computes everything, with no side effect, and returns False — a detour:
  the resource is parsed into a dict (`Resolver.index.as_dict`) and mapped checked — wherever
  the checked mapper might raise: a timestamp that does not parse, a reference that does not
  resolve, a subject not checked yet in this bundle, an attachment that does not decode.
  Only then does it add its rows and record the warnings the checked mapper would have, in
  the same order.

`tests/fhir_ingest/test_typed.py` holds each typed mapper equal to its checked one — the
same rows, warnings and skipped counts, or a detour — on well-typed resources and on any one
field replaced by any JSON value; `test_skim.py` holds whole bundles (samples, generated,
mutated) equal through the skim and through the full parse.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import msgspec

from fhir_ingest.codes import (
    CLINICAL_SYSTEMS,
    LOINC,
    MEDICATION_SYSTEMS,
    NO_CODE,
    NPI,
    OBSERVATION_SYSTEMS,
    VACCINE_SYSTEMS,
    Code,
    best_code,
    codeable_at,
    normalize_drug_name,
    rank_of,
)
from fhir_ingest.dosage import frequency_phrase, sentence
from fhir_ingest.errors import BundleError
from fhir_ingest.fields import Fields
from fhir_ingest.mappers import VALUE_SYSTEMS, care_plan_row, procedure_row, reason_from_target
from fhir_ingest.notes import AttachmentError, DecodedText, decode_text
from fhir_ingest.references import EntryTarget, ReferenceData, SharedTarget
from fhir_ingest.support import (
    SharedRows,
    location_row,
    merge_role,
    name_parts,
    organization_row,
    person_name,
    practitioner_row,
)
from fhir_ingest.timestamps import TimestampError, parse_datetime_string

_ABSENT = msgspec.Raw()


class _Part(msgspec.Struct, gc=False):
    """A data type inside a resource (no cycles: not tracked by the cyclic GC)."""


class Coding(_Part):
    system: str | None = None
    code: str | None = None
    display: str | None = None


class Concept(_Part):
    """CodeableConcept."""

    coding: list[Coding] | None = None
    text: str | None = None


class Identifier(_Part):
    system: str | None = None
    value: str | None = None


class Reference(_Part):
    reference: str | None = None
    display: str | None = None
    identifier: Identifier | None = None


class Period(_Part):
    start: str | None = None
    end: str | None = None


class Quantity(_Part):
    value: float | None = None
    unit: str | None = None
    code: str | None = None


class Attachment(_Part):
    contentType: str | None = None
    data: str | None = None
    url: Any = None  # only whether it is there


class Resource(msgspec.Struct, gc=False):
    """What every typed resource has. `_raw`: the resource's own bytes, set by the skim after
    decoding (whatever a `_raw` key in the JSON held is replaced), for a detour's dict."""

    resourceType: str
    id: str | None = None
    _raw: msgspec.Raw = _ABSENT


class _Valued(_Part):
    """value[x] of an observation or a component, as `_value_columns_checked` reads it."""

    valueQuantity: Quantity | None = None
    valueCodeableConcept: Concept | None = None
    valueString: str | None = None
    valueBoolean: bool | None = None
    valueInteger: float | None = None  # the checked reader takes any number
    valueDateTime: str | None = None


class Component(_Valued):
    code: Concept | None = None


class ReferenceRange(_Part):
    low: Quantity | None = None
    high: Quantity | None = None


class Observation(_Valued, kw_only=True):
    """A Resource too (its own value[x] as a component's: msgspec allows one base with fields)."""

    resourceType: str
    id: str | None = None
    _raw: msgspec.Raw = _ABSENT
    status: str | None = None
    category: list[Concept] | None = None
    code: Concept | None = None
    subject: Reference | None = None
    encounter: Reference | None = None
    effectiveDateTime: str | None = None
    effectiveInstant: str | None = None
    effectivePeriod: Period | None = None
    issued: str | None = None
    component: list[Component] | None = None
    referenceRange: list[ReferenceRange] | None = None
    interpretation: list[Concept] | None = None


class Participant(_Part):
    individual: Reference | None = None


class EncounterLocation(_Part):
    location: Reference | None = None


class Encounter(Resource):
    status: str | None = None
    class_: Coding | None = msgspec.field(default=None, name="class")
    type: list[Concept] | None = None
    subject: Reference | None = None
    participant: list[Participant] | None = None
    period: Period | None = None
    reasonCode: list[Concept] | None = None
    reasonReference: list[Reference] | None = None
    location: list[EncounterLocation] | None = None
    serviceProvider: Reference | None = None


class Condition(Resource):
    clinicalStatus: Concept | None = None
    verificationStatus: Concept | None = None
    category: list[Concept] | None = None
    code: Concept | None = None
    subject: Reference | None = None
    encounter: Reference | None = None
    onsetDateTime: str | None = None
    onsetPeriod: Period | None = None
    abatementDateTime: str | None = None
    abatementPeriod: Period | None = None
    recordedDate: str | None = None


class Procedure(Resource):
    status: str | None = None
    code: Concept | None = None
    subject: Reference | None = None
    encounter: Reference | None = None
    performedPeriod: Period | None = None
    performedDateTime: str | None = None
    reasonCode: list[Concept] | None = None
    reasonReference: list[Reference] | None = None
    location: Reference | None = None


class DiagnosticReport(Resource):
    status: str | None = None
    category: list[Concept] | None = None
    code: Concept | None = None
    subject: Reference | None = None
    encounter: Reference | None = None
    effectiveDateTime: str | None = None
    effectiveInstant: str | None = None
    effectivePeriod: Period | None = None
    issued: str | None = None
    result: list[Reference] | None = None
    presentedForm: list[Attachment] | None = None


class Content(_Part):
    attachment: Attachment | None = None


class DocumentContext(_Part):
    encounter: list[Reference] | None = None


class DocumentReference(Resource):
    status: str | None = None
    type: Concept | None = None
    subject: Reference | None = None
    date: str | None = None
    author: list[Reference] | None = None
    custodian: Reference | None = None
    content: list[Content] | None = None
    context: DocumentContext | None = None
    code: Concept | None = None  # what a reasonReference to it reads (`mappers.reason_from_target`)


class Immunization(Resource):
    status: str | None = None
    vaccineCode: Concept | None = None
    statusReason: Concept | None = None
    patient: Reference | None = None
    encounter: Reference | None = None
    occurrenceDateTime: str | None = None
    primarySource: bool | None = None
    location: Reference | None = None


class Repeat(_Part):
    frequency: float | None = None
    period: float | None = None
    periodUnit: str | None = None


class Timing(_Part):
    repeat: Repeat | None = None


class DoseAndRate(_Part):
    doseQuantity: Quantity | None = None


class Dosage(_Part):
    text: str | None = None
    doseAndRate: list[DoseAndRate] | None = None
    timing: Timing | None = None
    asNeededBoolean: bool | None = None


class DispenseRequest(_Part):
    validityPeriod: Period | None = None


class MedicationRequest(Resource):
    status: str | None = None
    intent: str | None = None
    medicationCodeableConcept: Concept | None = None
    medicationReference: Reference | None = None
    subject: Reference | None = None
    encounter: Reference | None = None
    authoredOn: str | None = None
    requester: Reference | None = None
    reasonCode: list[Concept] | None = None
    reasonReference: list[Reference] | None = None
    dosageInstruction: list[Dosage] | None = None
    dispenseRequest: DispenseRequest | None = None


class ActivityDetail(_Part):
    code: Concept | None = None
    status: str | None = None


class Activity(_Part):
    detail: ActivityDetail | None = None


class CarePlan(Resource):
    status: str | None = None
    intent: str | None = None
    category: list[Concept] | None = None
    subject: Reference | None = None
    encounter: Reference | None = None
    period: Period | None = None
    addresses: list[Reference] | None = None
    activity: list[Activity] | None = None


class Reaction(_Part):
    severity: str | None = None
    manifestation: list[Concept] | None = None


class AllergyIntolerance(Resource):
    clinicalStatus: Concept | None = None
    verificationStatus: Concept | None = None
    type: str | None = None
    category: list[str] | None = None
    criticality: str | None = None
    code: Concept | None = None
    patient: Reference | None = None
    onsetDateTime: str | None = None
    onsetPeriod: Period | None = None
    recordedDate: str | None = None
    reaction: list[Reaction] | None = None


class HumanName(_Part):
    use: str | None = None
    text: str | None = None
    family: str | None = None
    given: list[str] | None = None
    prefix: list[str] | None = None


class Address(_Part):
    line: list[str] | None = None
    city: str | None = None
    state: str | None = None
    postalCode: str | None = None


class ContactPoint(_Part):
    system: str | None = None
    value: str | None = None


class Position(_Part):
    latitude: float | None = None
    longitude: float | None = None


class _Named(Resource):
    """What pass 1 reads of an Organization, Location or Practitioner (`index_shared`)."""

    identifier: list[Identifier] | None = None
    telecom: list[ContactPoint] | None = None


class Organization(_Named):
    name: str | None = None
    type: list[Concept] | None = None
    address: list[Address] | Address | None = None  # the checked reader takes either


class Location(_Named):
    name: str | None = None
    address: list[Address] | Address | None = None
    position: Position | None = None
    managingOrganization: Reference | None = None


class Practitioner(_Named):
    name: list[HumanName] | None = None
    gender: str | None = None


class PractitionerRole(Resource):
    practitioner: Reference | None = None
    organization: Reference | None = None
    specialty: list[Concept] | None = None
    code: list[Concept] | None = None
    location: list[Reference] | None = None


# --------------------------------------------------------------------------------------------
# Reading the parts
# --------------------------------------------------------------------------------------------

_FAILED: Any = object()  # a value the checked reader would refuse: the mapper detours


_code = partial(tuple.__new__, Code)  # `Code(*values)` without NamedTuple's Python-level __new__


def concept(c: Concept | None, prefer: tuple[str, ...] = ()) -> Code:
    """`codes.codeable` on a typed CodeableConcept."""
    if c is None:
        return NO_CODE
    codings = c.coding
    if not codings:
        return _code((None, None, c.text))
    chosen = codings[0]
    if prefer and len(codings) > 1:
        rank = rank_of(prefer)
        best = len(prefer)
        for item in codings:
            r = rank.get(item.system, best)
            if r < best:
                best, chosen = r, item
    display = chosen.display
    return _code((chosen.system, chosen.code, c.text if display is None else display))


def concepts(items: list[Concept] | None, prefer: tuple[str, ...] = ()) -> Code:
    """`codes.codeables` on typed CodeableConcepts."""
    return best_code(items, concept, prefer)


def instant(value: str | None) -> Any:
    """`Fields.instant` on a typed string: None, the datetime, or `_FAILED` where it raises."""
    if value is None:
        return None
    try:
        return parse_datetime_string(value)[0]
    except TimestampError:
        return _FAILED


def period(p: Period | None) -> tuple[Any, Any]:
    """`Fields.period` (both ends are read); `_FAILED` in either place where it would raise."""
    if p is None:
        return None, None
    start, end = instant(p.start), instant(p.end)
    if start is _FAILED or end is _FAILED:
        return _FAILED, _FAILED
    return start, end


def effective(s: Observation | DiagnosticReport) -> Any:
    """`mappers.effective`: effectiveDateTime | effectiveInstant | effectivePeriod.start."""
    value = instant(s.effectiveDateTime)
    if value is None:
        value = instant(s.effectiveInstant)
    if value is None:
        value = period(s.effectivePeriod)[0]
    return value


def _status(c: Concept | None) -> str | None:
    return concept(c).code if c is not None else None


def _first_code(items: list[Concept] | None) -> str | None:
    return concept(items[0]).code if items else None


# (value_type, value_num, value_unit, value_text, value_code)
Values = tuple[str | None, float | None, str | None, str | None, str | None]
_NO_VALUE: Values = (None, None, None, None, None)


def value_columns(s: _Valued | Observation) -> Values | None:
    """`mappers.value_columns` as a tuple (the same order of value[x] choices); None where it
    would raise (a valueDateTime that does not parse)."""
    quantity = s.valueQuantity
    if quantity is not None:
        return "quantity", quantity.value, quantity.unit or quantity.code, None, None
    c = s.valueCodeableConcept
    if c is not None:
        code = concept(c, VALUE_SYSTEMS)
        return "codeable", None, None, code.display, code.code
    if s.valueString is not None:
        return "string", None, None, s.valueString, None
    if s.valueBoolean is not None:
        return "boolean", None, None, str(s.valueBoolean).lower(), None
    if s.valueInteger is not None:
        return "integer", s.valueInteger, None, None, None
    if s.valueDateTime is not None:
        moment = instant(s.valueDateTime)
        return None if moment is _FAILED else ("datetime", None, None, moment.isoformat(), None)
    return _NO_VALUE


# --------------------------------------------------------------------------------------------
# The mappers
# --------------------------------------------------------------------------------------------


class _Read:
    """One typed resource being mapped: the bundle's context, and the warnings its shared
    references will record once the mapper knows it will not detour."""

    __slots__ = ("ctx", "pending", "resolver")

    def __init__(self, ctx: Any, resolver: Any = None) -> None:
        self.ctx = ctx
        self.resolver = ctx.resolver if resolver is None else resolver
        self.pending: list[tuple[str, str, str]] = []

    def local(self, ref: Reference | None, expected: tuple[str, ...]) -> EntryTarget | bool | None:
        """`Resolver.local`: the target, None, or False where it would raise."""
        return self.resolver.local_target(None if ref is None else ref.reference, expected)

    def local_id(self, ref: Reference | None, expected: tuple[str, ...]) -> Any:
        target = self.local(ref, expected)
        return _FAILED if target is False else None if target is None else target.id

    def shared(self, ref: Reference | None, resource_type: str, where: str) -> Any:
        """`Resolver.shared`, its warning kept for later; `_FAILED` where it would raise."""
        found = self.resolver.shared_pending(ref, resource_type, where)
        if found is False:
            return _FAILED
        target_id, warning = found
        if warning is not None:
            self.pending.append(warning)
        return target_id

    def reason(self, codes: list[Concept] | None, refs: list[Reference] | None) -> Any:
        """`mappers.reason`: (reason code, Condition id), or `_FAILED`."""
        target = self.local(refs[0], _REASON_TYPES) if refs else None
        if target is False:
            return _FAILED
        if codes:
            code = concept(codes[0], CLINICAL_SYSTEMS)
        elif target is None:
            code = NO_CODE
        else:
            code = self.code_of(target)
            if code is _FAILED:
                return _FAILED
        return code, (target.id if target is not None and target.resource_type == "Condition" else None)

    def code_of(self, target: EntryTarget) -> Any:
        """`mappers.reason_from_target`: the code of the resource a reasonReference names."""
        resource = self.resolver.index.resource(target)
        if type(resource) is not dict:
            return concept(resource.code, CLINICAL_SYSTEMS)
        try:
            return reason_from_target(self.ctx, target)
        except BundleError:
            return _FAILED

    def commit(self, table: str, row: dict) -> bool:
        for warning in self.pending:
            self.resolver.warn(*warning)
        self.ctx.add(table, row)
        return True


_REASON_TYPES = ("Condition", "Observation", "Procedure", "DiagnosticReport", "DocumentReference")


def _subject_checked(ref: Reference | None, ctx: Any) -> bool:
    """`mappers.check_subject` passes at once (a subject string this bundle already checked)."""
    return ref is not None and ref.reference in ctx.subjects_checked


def map_observation(s: Observation, entry: int, ctx: Any) -> bool:
    if not _subject_checked(s.subject, ctx):
        return False
    values = value_columns(s)
    if values is None:
        return False
    components = s.component
    value_type = values[0]
    if value_type is None:
        value_type = "components" if components else "none"
    low = high = None
    if s.referenceRange:
        first = s.referenceRange[0]
        low = first.low.value if first.low is not None else None
        high = first.high.value if first.high is not None else None
    when, issued = effective(s), instant(s.issued)
    if when is _FAILED or issued is _FAILED:
        return False
    parts = []
    patient_id, obs_id = ctx.patient_id, s.id
    for seq, component in enumerate(components or ()):
        part = value_columns(component)
        if part is None:
            return False
        pc = concept(component.code, OBSERVATION_SYSTEMS)
        parts.append(
            {
                "patient_id": patient_id,
                "observation_id": obs_id,
                "seq": seq,
                "code_system": pc.system,
                "code": pc.code,
                "display": pc.display,
                "value_num": part[1],
                "value_unit": part[2],
                "value_text": part[3],
                "value_code": part[4],
                "value_type": part[0] or "none",
            }
        )
    encounter = ctx.resolver.local_target(s.encounter.reference if s.encounter else None, ("Encounter",))
    if encounter is False:
        return False
    c = concept(s.code, OBSERVATION_SYSTEMS)
    interpretation = concepts(s.interpretation)
    rows = ctx.rows
    rows["observations"].append(
        {
            "patient_id": patient_id,
            "id": obs_id,
            "encounter_id": None if encounter is None else encounter.id,
            "status": s.status,
            "category": _first_code(s.category),
            "code_system": c.system,
            "code": c.code,
            "display": c.display,
            "value_num": values[1],
            "value_unit": values[2],
            "value_text": values[3],
            "value_code": values[4],
            "value_type": value_type,
            "effective": when,
            "issued": issued,
            "ref_low": low,
            "ref_high": high,
            "interpretation": interpretation.code or interpretation.display,
        }
    )
    if parts:
        rows["observation_components"].extend(parts)
    return True


def map_encounter(s: Encounter, entry: int, ctx: Any) -> bool:
    if not _subject_checked(s.subject, ctx):
        return False
    read = _Read(ctx)
    participant_ref, where = None, ""
    for i, participant in enumerate(s.participant or ()):
        if participant.individual is not None:
            participant_ref, where = participant.individual, f"resource.participant[{i}].individual"
            break
    location_ref = s.location[0].location if s.location else None
    reason = read.reason(s.reasonCode, s.reasonReference)
    start, end = period(s.period)
    encounter_type = concepts(s.type, CLINICAL_SYSTEMS)
    if reason is _FAILED or start is _FAILED:
        return False
    reason_code = reason[0]
    practitioner = read.shared(participant_ref, "Practitioner", where)
    organization = read.shared(s.serviceProvider, "Organization", "resource.serviceProvider")
    location = read.shared(location_ref, "Location", "resource.location[0].location")
    if practitioner is _FAILED or organization is _FAILED or location is _FAILED:
        return False
    provider = s.serviceProvider
    return read.commit(
        "encounters",
        {
            "patient_id": ctx.patient_id,
            "id": s.id,
            "status": s.status,
            "class_code": s.class_.code if s.class_ is not None else None,
            "type_code": encounter_type.code,
            "type_display": encounter_type.display,
            "reason_code": reason_code.code,
            "reason_display": reason_code.display,
            "start": start,
            "end": end,
            "practitioner_id": practitioner,
            "practitioner_name": participant_ref.display if participant_ref is not None else None,
            "organization_id": organization,
            "organization_name": provider.display if provider is not None else None,
            "location_id": location,
        },
    )


def map_condition(s: Condition, entry: int, ctx: Any) -> bool:
    if not _subject_checked(s.subject, ctx):
        return False
    # `instant(…) or period(…)`: the period is read only when the dateTime is absent
    onset = instant(s.onsetDateTime)
    if onset is None:
        onset = period(s.onsetPeriod)[0]
    abatement = instant(s.abatementDateTime)
    if abatement is None:
        abatement = period(s.abatementPeriod)[1]
    recorded = instant(s.recordedDate)
    encounter = ctx.resolver.local_target(s.encounter.reference if s.encounter else None, ("Encounter",))
    if onset is _FAILED or abatement is _FAILED or recorded is _FAILED or encounter is False:
        return False
    code = concept(s.code, CLINICAL_SYSTEMS)
    ctx.add(
        "conditions",
        {
            "patient_id": ctx.patient_id,
            "id": s.id,
            "encounter_id": None if encounter is None else encounter.id,
            "clinical_status": _status(s.clinicalStatus),
            "verification_status": _status(s.verificationStatus),
            "category": _first_code(s.category),
            "code_system": code.system,
            "code": code.code,
            "display": code.display,
            "onset": onset,
            "abatement": abatement,
            "recorded_date": recorded,
        },
    )
    return True


def map_procedure(s: Procedure, entry: int, ctx: Any) -> bool:
    if not _subject_checked(s.subject, ctx):
        return False
    read = _Read(ctx)
    start, end = period(s.performedPeriod)
    if start is None:
        start = instant(s.performedDateTime)
    reason = read.reason(s.reasonCode, s.reasonReference)
    encounter = read.local_id(s.encounter, ("Encounter",))
    if start is _FAILED or end is _FAILED or reason is _FAILED or encounter is _FAILED:
        return False
    location = read.shared(s.location, "Location", "resource.location")
    if location is _FAILED:
        return False
    return read.commit(
        "procedures",
        procedure_row(
            ctx.patient_id,
            s.id,
            encounter,
            s.status,
            concept(s.code, CLINICAL_SYSTEMS),
            (start, end),
            reason[0],
            location,
        ),
    )


def map_immunization(s: Immunization, entry: int, ctx: Any) -> bool:
    if not _subject_checked(s.patient, ctx):
        return False
    read = _Read(ctx)
    encounter = read.local_id(s.encounter, ("Encounter",))
    occurrence = instant(s.occurrenceDateTime)
    if encounter is _FAILED or occurrence is _FAILED:
        return False
    location = read.shared(s.location, "Location", "resource.location")
    if location is _FAILED:
        return False
    vaccine, status_reason = concept(s.vaccineCode, VACCINE_SYSTEMS), concept(s.statusReason)
    return read.commit(
        "immunizations",
        {
            "patient_id": ctx.patient_id,
            "id": s.id,
            "encounter_id": encounter,
            "status": s.status,
            "status_reason": status_reason.display or status_reason.code,
            "vaccine_system": vaccine.system,
            "vaccine_code": vaccine.code,
            "display": vaccine.display,
            "occurrence": occurrence,
            "primary_source": s.primarySource,
            "location_id": location,
        },
    )


def _decoded(attachment: Attachment) -> Any:
    """`notes.decode_attachment` on a typed attachment (`_FAILED` where it would raise)."""
    try:
        return decode_text(attachment.contentType, attachment.data, attachment.url is not None)
    except AttachmentError:
        return _FAILED


def map_document_reference(s: DocumentReference, entry: int, ctx: Any) -> bool:
    if not _subject_checked(s.subject, ctx):
        return False
    attachment = s.content[0].attachment if s.content else None
    label = f"DocumentReference/{s.id}"
    if attachment is None:
        ctx.warnings.append(f"entry {entry} ({label}): DocumentReference has no attachment; note not stored")
        ctx.skipped["DocumentReference (no text)"] += 1
        return True
    decoded = _decoded(attachment)
    if decoded is _FAILED:
        return False
    if type(decoded) is not DecodedText:
        ctx.warnings.append(f"entry {entry} ({label}): {decoded.reason}; note not stored")
        ctx.skipped["DocumentReference (no text)"] += 1
        return True
    read = _Read(ctx)
    encounters = s.context.encounter if s.context is not None else None
    encounter = read.local_id(encounters[0], ("Encounter",)) if encounters else None
    date = instant(s.date)
    author = s.author[0] if s.author else None
    if encounter is _FAILED or date is _FAILED:
        return False
    author_id = read.shared(author, "Practitioner", "resource.author[0]")
    custodian = read.shared(s.custodian, "Organization", "resource.custodian")
    if author_id is _FAILED or custodian is _FAILED:
        return False
    doc_type = concept(s.type, (LOINC,))
    return read.commit(
        "clinical_notes",
        {
            "patient_id": ctx.patient_id,
            "id": s.id,
            "encounter_id": encounter,
            "doc_status": s.status,
            "type_code": doc_type.code,
            "type_display": doc_type.display,
            "date": date,
            "author_id": author_id,
            "author_name": author.display if author is not None else None,
            "custodian_id": custodian,
            "content_type": decoded.content_type,
            "text": decoded.text,
            "text_sha256": decoded.sha256,
        },
    )


def map_diagnostic_report(s: DiagnosticReport, entry: int, ctx: Any) -> bool:
    if not _subject_checked(s.subject, ctx):
        return False
    resolver = ctx.resolver
    results = []
    for ref in s.result or ():
        target = resolver.local_target(ref.reference, ("Observation",))
        if target is False:
            return False
        if target is not None:
            results.append(target.id)
    encounter = resolver.local_target(s.encounter.reference if s.encounter else None, ("Encounter",))
    when, issued = effective(s), instant(s.issued)
    decoded = _decoded(s.presentedForm[0]) if s.presentedForm else None
    if encounter is False or when is _FAILED or issued is _FAILED or decoded is _FAILED:
        return False
    code = concept(s.code, OBSERVATION_SYSTEMS)
    row = {
        "patient_id": ctx.patient_id,
        "id": s.id,
        "encounter_id": None if encounter is None else encounter.id,
        "status": s.status,
        "category": _first_code(s.category),
        "code_system": code.system,
        "code": code.code,
        "display": code.display,
        "effective": when,
        "issued": issued,
        "result_observation_ids": results,
        "note_id": None,
        "presented_text": None,
    }
    if decoded is not None:
        if type(decoded) is DecodedText:
            ctx.report_texts.append((row, decoded))
        else:
            ctx.warnings.append(
                f"entry {entry} (DiagnosticReport/{s.id}): presentedForm {decoded.reason}; not stored"
            )
    ctx.add("diagnostic_reports", row)
    return True


def _medication(s: MedicationRequest, ctx: Any) -> Any:
    """`mappers._medication_code`: (code, Medication id), or `_FAILED` (no medication[x], a
    contained one, a reference that does not resolve, a Medication the checked reader refuses)."""
    if s.medicationCodeableConcept is not None:
        return concept(s.medicationCodeableConcept, MEDICATION_SYSTEMS), None
    ref = s.medicationReference
    if ref is None or (ref.reference or "").startswith("#"):
        return _FAILED
    resolver = ctx.resolver
    target = resolver.local_target(ref.reference, ("Medication",))
    if target is False:
        return _FAILED
    if target is None:
        return Code(None, None, ref.display), None
    medication = Fields(
        resolver.index.as_dict(target.entry), target.entry, "resource", f"Medication/{target.id}"
    )
    try:
        return codeable_at(medication, "code", MEDICATION_SYSTEMS), target.id
    except BundleError:
        return _FAILED


def _dosage_text(dosage: Dosage) -> str | None:
    """`dosage.describe_dosage` on a typed Dosage."""
    if dosage.text:
        return dosage.text
    dose = None
    for dose_rate in dosage.doseAndRate or ():
        quantity = dose_rate.doseQuantity
        if quantity is not None and quantity.value is not None:
            dose = (quantity.value or 0.0, quantity.unit)
            break
    repeat = dosage.timing.repeat if dosage.timing is not None else None
    phrase = None if repeat is None else frequency_phrase(repeat.frequency, repeat.period, repeat.periodUnit)
    return sentence(dose, phrase, dosage.asNeededBoolean)


def map_medication_request(s: MedicationRequest, entry: int, ctx: Any) -> bool:
    if not _subject_checked(s.subject, ctx):
        return False
    read = _Read(ctx)
    medication = _medication(s, ctx)
    reason = read.reason(s.reasonCode, s.reasonReference)
    dispense = s.dispenseRequest
    validity_end = period(dispense.validityPeriod)[1] if dispense is not None else None
    encounter = read.local_id(s.encounter, ("Encounter",))
    authored = instant(s.authoredOn)
    if _FAILED in (medication, reason, validity_end, encounter, authored):
        return False
    requester = read.shared(s.requester, "Practitioner", "resource.requester")
    if requester is _FAILED:
        return False
    (code, medication_id), (reason_code, reason_condition) = medication, reason
    dosage = s.dosageInstruction[0] if s.dosageInstruction else None
    return read.commit(
        "medication_requests",
        {
            "patient_id": ctx.patient_id,
            "id": s.id,
            "encounter_id": encounter,
            "status": s.status,
            "intent": s.intent,
            "code_system": code.system,
            "code": code.code,
            "display": code.display,
            "display_normalized": normalize_drug_name(code.display),
            "medication_resource_id": medication_id,
            "authored_on": authored,
            "ended_at": validity_end,
            "ended_reason": "validity-period-end" if validity_end else None,
            "requester_id": requester,
            "requester_name": s.requester.display if s.requester is not None else None,
            "reason_code": reason_code.code,
            "reason_display": reason_code.display,
            "reason_condition_id": reason_condition,
            "dosage_text": _dosage_text(dosage) if dosage is not None else None,
            "as_needed": dosage.asNeededBoolean if dosage is not None else None,
        },
    )


def map_care_plan(s: CarePlan, entry: int, ctx: Any) -> bool:
    if not _subject_checked(s.subject, ctx):
        return False
    resolver = ctx.resolver
    start, end = period(s.period)
    addresses = []
    for ref in s.addresses or ():
        target = resolver.local_target(ref.reference, ("Condition",))
        if target is False:
            return False
        if target is not None:
            addresses.append(target.id)
    encounter = resolver.local_target(s.encounter.reference if s.encounter else None, ("Encounter",))
    if start is _FAILED or encounter is False:
        return False
    activities = []
    for activity in s.activity or ():
        detail = activity.detail
        if detail is not None:
            c = concept(detail.code, CLINICAL_SYSTEMS)
            activities.append({"code": c.code, "display": c.display, "status": detail.status})
    ctx.add(
        "care_plans",
        care_plan_row(
            ctx.patient_id,
            s.id,
            None if encounter is None else encounter.id,
            (s.status, s.intent),
            concepts(s.category, CLINICAL_SYSTEMS),
            (start, end),
            addresses,
            activities,
        ),
    )
    return True


def map_allergy(s: AllergyIntolerance, entry: int, ctx: Any) -> bool:
    if not _subject_checked(s.patient, ctx):
        return False
    onset = instant(s.onsetDateTime)
    if onset is None:
        onset = period(s.onsetPeriod)[0]
    recorded = instant(s.recordedDate)
    if onset is _FAILED or recorded is _FAILED:
        return False
    code, allergy_id, patient_id = concept(s.code), s.id, ctx.patient_id
    ctx.add(
        "allergies",
        {
            "patient_id": patient_id,
            "id": allergy_id,
            "clinical_status": _status(s.clinicalStatus),
            "verification_status": _status(s.verificationStatus),
            "type": s.type,
            "categories": s.category or [],
            "criticality": s.criticality,
            "code_system": code.system,
            "code": code.code,
            "display": code.display,
            "onset": onset,
            "recorded_date": recorded,
        },
    )
    seq = 0
    for reaction in s.reaction or ():
        for manifestation in reaction.manifestation or (None,):
            m = concept(manifestation, CLINICAL_SYSTEMS)
            ctx.add(
                "allergy_reactions",
                {
                    "patient_id": patient_id,
                    "allergy_id": allergy_id,
                    "seq": seq,
                    "manifestation_code": m.code,
                    "manifestation_display": m.display,
                    "severity": reaction.severity,
                },
            )
            seq += 1
    return True


# --------------------------------------------------------------------------------------------
# Reference data (support bundles, and collection bundles that carry it inline)
# --------------------------------------------------------------------------------------------


def _identifiers(s: _Named) -> list[tuple[str | None, str]]:
    return [(ident.system, ident.value) for ident in s.identifier or () if ident.value]


def _person(s: Practitioner) -> tuple[str | None, str | None, str | None, str | None]:
    """`support.practitioner_name`."""
    names = s.name
    if not names:
        return None, None, None, None
    name = next((n for n in names if n.use == "official"), names[0])
    return name_parts(name.prefix or [], name.given or [], name.family, name.text)


def _telecom(s: _Named, system: str) -> str | None:
    for telecom in s.telecom or ():
        if telecom.system == system:
            return telecom.value
    return None


def _address(s: Organization | Location) -> tuple[str | None, str | None, str | None, str | None]:
    address = s.address
    if type(address) is list:
        address = address[0] if address else None
    if address is None:
        return None, None, None, None
    return ", ".join(address.line or ()) or None, address.city, address.state, address.postalCode


def index_shared(s: _Named, refdata: ReferenceData, source_dir: str | None) -> None:
    """`support.index_shared` (pass 1)."""
    if type(s) is Practitioner:
        _, given, family, full = _person(s)
        name = person_name(given, family, full)
    else:
        name = s.name
    refdata.add(SharedTarget.make(s.resourceType, s.id, name, source_dir), _identifiers(s))


def map_organization(s: Organization, rows: SharedRows, resolver: Any, source_path: str) -> bool:
    rows.organizations[s.id] = organization_row(
        s.id, _identifiers(s), s.name, concepts(s.type), _telecom(s, "phone"), _address(s), source_path
    )
    return True


def map_location(s: Location, rows: SharedRows, resolver: Any, source_path: str) -> bool:
    found = resolver.shared_pending(s.managingOrganization, "Organization", "resource.managingOrganization")
    if found is False:
        return False
    organization_id, warning = found
    if warning is not None:
        resolver.warn(*warning)
    position = s.position
    rows.locations[s.id] = location_row(
        s.id,
        _identifiers(s),
        s.name,
        organization_id,
        _telecom(s, "phone"),
        _address(s),
        (position.latitude, position.longitude) if position is not None else (None, None),
        source_path,
    )
    return True


def map_practitioner(s: Practitioner, rows: SharedRows, resolver: Any, source_path: str) -> bool:
    npi = next((value for system, value in _identifiers(s) if system == NPI), None)
    rows.practitioners[s.id] = practitioner_row(
        s.id, npi, _person(s), s.gender, _telecom(s, "email"), source_path
    )
    return True


def map_practitioner_role(s: PractitionerRole, rows: SharedRows, resolver: Any, source_path: str) -> bool:
    found = resolver.shared_pending(s.practitioner, "Practitioner", "resource.practitioner")
    if found is False:
        return False
    practitioner_id, warning = found
    if practitioner_id is None:  # no link: its warning, and nothing else is read
        if warning is not None:
            resolver.warn(*warning)
        return True
    read = _Read(None, resolver)
    if warning is not None:
        read.pending.append(warning)
    organization_id = read.shared(s.organization, "Organization", "resource.organization")
    location_id = read.shared(s.location[0], "Location", "resource.location[0]") if s.location else None
    if organization_id is _FAILED or location_id is _FAILED:
        return False
    for pending in read.pending:
        resolver.warn(*pending)
    merge_role(rows, practitioner_id, concepts(s.specialty or s.code), organization_id, location_id)
    return True


TYPED_SHARED = {
    "Organization": (Organization, map_organization),
    "Location": (Location, map_location),
    "Practitioner": (Practitioner, map_practitioner),
    "PractitionerRole": (PractitionerRole, map_practitioner_role),
}


TypedMapper = Callable[[Any, int, Any], bool]

# resource type → (struct, mapper); the skim decodes these types into their struct
TYPED: dict[str, tuple[type[msgspec.Struct], TypedMapper]] = {
    "Observation": (Observation, map_observation),
    "Encounter": (Encounter, map_encounter),
    "Condition": (Condition, map_condition),
    "Procedure": (Procedure, map_procedure),
    "Immunization": (Immunization, map_immunization),
    "DocumentReference": (DocumentReference, map_document_reference),
    "DiagnosticReport": (DiagnosticReport, map_diagnostic_report),
    "MedicationRequest": (MedicationRequest, map_medication_request),
    "CarePlan": (CarePlan, map_care_plan),
    "AllergyIntolerance": (AllergyIntolerance, map_allergy),
}
DECODERS = {
    rtype: msgspec.json.Decoder(struct).decode
    for rtype, (struct, _) in (*TYPED.items(), *TYPED_SHARED.items())
}
TYPED_MAPPERS = {rtype: mapper for rtype, (_, mapper) in TYPED.items()}
SHARED_TYPED_MAPPERS = {rtype: mapper for rtype, (_, mapper) in TYPED_SHARED.items()}
