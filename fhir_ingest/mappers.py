"""Pass 2 for the patient record: one FHIR resource → rows, foreign keys resolved.

Each mapper reads a resource through `Fields` (typed, located access) and appends plain
dicts to `MapContext.rows[table]`. Nothing here touches the database, so every rule is
unit-tested on hand-built resources.

Clinical semantics decided here because they are data, not presentation (DESIGN invariant 6):

* Statuses are kept verbatim, including `entered-in-error`, `not-done`, `superseded`: the
  query layer excludes them explicitly and can say why a row is not reported.
* `medication_requests.ended_at` is set from `dispenseRequest.validityPeriod.end`, and — a
  dead patient takes no medicine — an active/on-hold/draft request of a deceased patient
  ends at the time of death (`ended_reason = 'patient-deceased'`). Synthea leaves such
  requests `active` (see Denny560 in the samples). The status itself is not rewritten.
* `display_normalized` of a medication folds tall-man lettering (`amLODIPine`).
* Observation codes prefer LOINC; blood-pressure parts are components keyed by their own
  LOINC codes (8480-6 systolic, 8462-4 diastolic), never by position.
* A DiagnosticReport whose presentedForm repeats a DocumentReference's text points at that
  note (`note_id`) instead of storing the text again.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fhir_ingest.codes import (
    CLINICAL_SYSTEMS,
    LOINC,
    MEDICATION_SYSTEMS,
    OBSERVATION_SYSTEMS,
    SNOMED,
    VACCINE_SYSTEMS,
    Code,
    codeable,
    codeable_at,
    codeables,
    first_code_at,
    normalize_drug_name,
)
from fhir_ingest.dosage import describe_dosage
from fhir_ingest.fields import Fields
from fhir_ingest.notes import DecodedText, NotText, decode_attachment
from fhir_ingest.references import EntryTarget, Resolver, parse_reference

# Resource types whose rows carry the patient, and the field naming the patient.
SUBJECT_FIELD = {
    "Encounter": "subject",
    "Condition": "subject",
    "MedicationRequest": "subject",
    "Observation": "subject",
    "AllergyIntolerance": "patient",
    "Immunization": "patient",
    "Procedure": "subject",
    "CarePlan": "subject",
    "DocumentReference": "subject",
    "DiagnosticReport": "subject",
}

ACTIVE_MEDICATION_STATUSES = frozenset({"active", "on-hold", "draft"})
BIRTH_SEX_URL = "http://hl7.org/fhir/us/core/StructureDefinition/us-core-birthsex"
RACE_URL = "http://hl7.org/fhir/us/core/StructureDefinition/us-core-race"
ETHNICITY_URL = "http://hl7.org/fhir/us/core/StructureDefinition/us-core-ethnicity"
MRN_TYPE = "MR"

Row = dict[str, Any]


@dataclass
class MapContext:
    """Everything pass 2 needs for one patient bundle, and the rows it produces."""

    patient_id: str
    resolver: Resolver
    rows: dict[str, list[Row]] = field(default_factory=lambda: defaultdict(list))
    warnings: list[str] = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)
    patient_row: Row | None = None
    # DiagnosticReport rows waiting for the notes (texts are compared once all are decoded)
    report_texts: list[tuple[Row, DecodedText]] = field(default_factory=list)
    # subject reference strings already checked to name this patient (every resource repeats one)
    subjects_checked: set[str] = field(default_factory=set)

    def add(self, table: str, row: Row) -> None:
        self.rows[table].append(row)


# --------------------------------------------------------------------------------------------
# Shared helpers
# --------------------------------------------------------------------------------------------


def check_subject(r: Fields, ctx: MapContext, key: str) -> None:
    """The resource must be about the bundle's patient; anything else is an error."""
    # every resource names the same subject: a string already checked needs no located view
    value = r.data.get(key)
    if type(value) is dict:
        reference = value.get("reference")
        if type(reference) is str and reference in ctx.subjects_checked:
            return
    ref = r.obj(key)
    if ref is None or ref.string("reference") is None:
        raise r.error(key, "is required (which patient is this about?) but missing")
    reference = ref.string("reference") or ""
    if reference in ctx.subjects_checked:
        return
    try:
        parsed = parse_reference(reference)
    except ValueError as exc:
        raise ref.error("reference", str(exc)) from None
    if parsed.kind == "literal" and parsed.resource_type == "Patient" and parsed.id != ctx.patient_id:
        raise ref.error("reference", f"refers to {reference}, not this bundle's patient {ctx.patient_id}")
    target = ctx.resolver.local(ref, ("Patient",))
    if target is None or target.id != ctx.patient_id:
        raise ref.error("reference", f"refers to {reference}, not this bundle's patient {ctx.patient_id}")
    ctx.subjects_checked.add(reference)


def encounter_id(r: Fields, ctx: MapContext, key: str = "encounter") -> str | None:
    return ctx.resolver.local_id_at(r, key, ("Encounter",))


def status_code(cc: Fields | None) -> str | None:
    """`clinicalStatus`/`verificationStatus`: the code of the first coding."""
    return codeable(cc).code if cc is not None else None


def first_code(items: list[Fields]) -> str | None:
    return codeable(items[0]).code if items else None


def reason_from_target(ctx: MapContext, target: EntryTarget | None) -> Code:
    """The code of a resource a `reasonReference` points at (usually a Condition)."""
    if target is None:
        return Code()
    resource = ctx.resolver.index.as_dict(target.entry)
    code = resource.get("code")
    if not isinstance(code, dict):
        return Code()
    return codeable(
        Fields(code, target.entry, "resource.code", f"{target.resource_type}/{target.id}"), CLINICAL_SYSTEMS
    )


REASON_TYPES = ("Condition", "Observation", "Procedure", "DiagnosticReport", "DocumentReference")


def reason(r: Fields, ctx: MapContext) -> tuple[Code, str | None]:
    """(reason code, id of the Condition it refers to) from reasonCode or reasonReference."""
    refs = r.objs("reasonReference")
    target = ctx.resolver.local(refs[0], REASON_TYPES) if refs else None
    codes = r.objs("reasonCode")
    code = codeable(codes[0], CLINICAL_SYSTEMS) if codes else reason_from_target(ctx, target)
    condition_id = target.id if target is not None and target.resource_type == "Condition" else None
    return code, condition_id


def effective(r: Fields) -> Any:
    """effectiveDateTime | effectiveInstant | effectivePeriod.start."""
    value = r.instant("effectiveDateTime")
    if value is None:
        value = r.instant("effectiveInstant")
    if value is None:
        value = r.period("effectivePeriod")[0]
    return value


# --------------------------------------------------------------------------------------------
# Patient
# --------------------------------------------------------------------------------------------


def _extension(r: Fields, url: str) -> Fields | None:
    for ext in r.objs("extension"):
        if ext.data.get("url") == url:
            return ext
    return None


def _category_text(ext: Fields | None) -> str | None:
    """us-core race/ethnicity: the `text` sub-extension, else the ombCategory display."""
    if ext is None:
        return None
    omb = None
    for sub in ext.objs("extension"):
        url = sub.data.get("url")
        if url == "text":
            return sub.string("valueString")
        if url == "ombCategory" and omb is None:
            coding = sub.obj("valueCoding")
            omb = coding.string("display") if coding else None
    return omb


def map_patient(r: Fields, ctx: MapContext) -> None:
    names = r.objs("name")
    name = next((n for n in names if n.data.get("use") == "official"), names[0] if names else None)
    given = name.strs("given") if name else []
    family = name.string("family") if name else None
    prefix = " ".join(name.strs("prefix")) or None if name else None
    suffix = " ".join(name.strs("suffix")) or None if name else None
    full_name = (name.string("text") if name else None) or " ".join([*given, *([family] if family else [])])

    mrn = None
    for ident in r.objs("identifier"):
        ident_type = ident.obj("type")
        if ident_type is not None and codeable(ident_type).code == MRN_TYPE:
            mrn = ident.string("value")
            break

    birth_sex_ext = _extension(r, BIRTH_SEX_URL)
    deceased_at = r.instant("deceasedDateTime")
    deceased = deceased_at is not None or bool(r.boolean("deceasedBoolean"))

    phone = None
    for telecom in r.objs("telecom"):
        if telecom.data.get("system") == "phone":
            phone = telecom.string("value")
            break
    address = r.first("address")
    language = None
    communication = r.first("communication")
    if communication is not None:
        lang = codeable_at(communication, "language")
        language = lang.display or lang.code
    marital = codeable_at(r, "maritalStatus")

    gp_id = None
    for gp in r.objs("generalPractitioner"):
        gp_id = ctx.resolver.shared(gp, "Practitioner")
        if gp_id:
            break

    ctx.patient_row = {
        "patient_id": ctx.patient_id,
        "mrn": mrn,
        "prefix": prefix,
        "given_names": given,
        "family": family,
        "suffix": suffix,
        "full_name": full_name or f"(no name recorded: Patient/{ctx.patient_id})",
        "gender": r.string("gender"),
        "birth_sex": birth_sex_ext.string("valueCode") if birth_sex_ext else None,
        "birth_date": r.date("birthDate"),
        "deceased": deceased,
        "deceased_at": deceased_at,
        "race": _category_text(_extension(r, RACE_URL)),
        "ethnicity": _category_text(_extension(r, ETHNICITY_URL)),
        "marital_status": marital.display or marital.code,
        "language": language,
        "phone": phone,
        "address": ", ".join(address.strs("line")) or None if address else None,
        "city": address.string("city") if address else None,
        "state": address.string("state") if address else None,
        "postal_code": address.string("postalCode") if address else None,
        "general_practitioner_id": gp_id,
        "managing_organization_id": ctx.resolver.shared(r.obj("managingOrganization"), "Organization"),
    }


# --------------------------------------------------------------------------------------------
# Clinical resources
# --------------------------------------------------------------------------------------------


def map_encounter(r: Fields, ctx: MapContext) -> None:
    participant_ref = None
    for participant in r.objs("participant"):
        individual = participant.obj("individual")
        if individual is not None:
            participant_ref = individual
            break
    provider = r.obj("serviceProvider")
    location = r.first("location")
    location_ref = location.obj("location") if location else None
    enc_type = codeables(r.objs("type"), CLINICAL_SYSTEMS)
    reason_code, _ = reason(r, ctx)
    enc_class = r.obj("class")
    start, end = r.period("period")
    ctx.add(
        "encounters",
        {
            "patient_id": ctx.patient_id,
            "id": r.data["id"],
            "status": r.string("status"),
            "class_code": enc_class.string("code") if enc_class else None,
            "type_code": enc_type.code,
            "type_display": enc_type.display,
            "reason_code": reason_code.code,
            "reason_display": reason_code.display,
            "start": start,
            "end": end,
            "practitioner_id": ctx.resolver.shared(participant_ref, "Practitioner"),
            "practitioner_name": participant_ref.string("display") if participant_ref else None,
            "organization_id": ctx.resolver.shared(provider, "Organization"),
            "organization_name": provider.string("display") if provider else None,
            "location_id": ctx.resolver.shared(location_ref, "Location"),
        },
    )


def map_condition(r: Fields, ctx: MapContext) -> None:
    code = codeable_at(r, "code", CLINICAL_SYSTEMS)
    onset = r.instant("onsetDateTime") or r.period("onsetPeriod")[0]
    abatement = r.instant("abatementDateTime") or r.period("abatementPeriod")[1]
    ctx.add(
        "conditions",
        {
            "patient_id": ctx.patient_id,
            "id": r.data["id"],
            "encounter_id": encounter_id(r, ctx),
            "clinical_status": status_code(r.obj("clinicalStatus")),
            "verification_status": status_code(r.obj("verificationStatus")),
            "category": first_code_at(r, "category"),
            "code_system": code.system,
            "code": code.code,
            "display": code.display,
            "onset": onset,
            "abatement": abatement,
            "recorded_date": r.instant("recordedDate"),
        },
    )


def _medication_code(r: Fields, ctx: MapContext) -> tuple[Code, str | None]:
    """medicationCodeableConcept, or the Medication that medicationReference points at."""
    concept = r.obj("medicationCodeableConcept")
    if concept is not None:
        return codeable(concept, MEDICATION_SYSTEMS), None
    ref = r.obj("medicationReference")
    if ref is None:
        raise r.error(
            "medication[x]", "is required (medicationCodeableConcept or medicationReference) but missing"
        )
    reference = ref.string("reference") or ""
    if reference.startswith("#"):
        medication = ctx.resolver.contained(r, ref, "Medication")
        return codeable_at(medication, "code", MEDICATION_SYSTEMS), None
    target = ctx.resolver.local(ref, ("Medication",))
    if target is None:
        display = ref.string("display")
        return Code(None, None, display), None
    resource = ctx.resolver.index.resource(target)
    med = Fields(resource, target.entry, "resource", f"Medication/{target.id}")
    return codeable_at(med, "code", MEDICATION_SYSTEMS), target.id


def map_medication_request(r: Fields, ctx: MapContext) -> None:
    code, medication_id = _medication_code(r, ctx)
    reason_code, reason_condition = reason(r, ctx)
    requester = r.obj("requester")
    dosage = r.first("dosageInstruction")
    dispense = r.obj("dispenseRequest")
    validity_end = dispense.period("validityPeriod")[1] if dispense else None
    ctx.add(
        "medication_requests",
        {
            "patient_id": ctx.patient_id,
            "id": r.data["id"],
            "encounter_id": encounter_id(r, ctx),
            "status": r.string("status"),
            "intent": r.string("intent"),
            "code_system": code.system,
            "code": code.code,
            "display": code.display,
            "display_normalized": normalize_drug_name(code.display),
            "medication_resource_id": medication_id,
            "authored_on": r.instant("authoredOn"),
            "ended_at": validity_end,
            "ended_reason": "validity-period-end" if validity_end else None,
            "requester_id": ctx.resolver.shared(requester, "Practitioner"),
            "requester_name": requester.string("display") if requester else None,
            "reason_code": reason_code.code,
            "reason_display": reason_code.display,
            "reason_condition_id": reason_condition,
            "dosage_text": describe_dosage(dosage) if dosage else None,
            "as_needed": dosage.boolean("asNeededBoolean") if dosage else None,
        },
    )


# a valueCodeableConcept's preferred systems (a finding's SNOMED code before a LOINC answer)
VALUE_SYSTEMS = (SNOMED, LOINC)


def value_columns(r: Fields) -> Row:
    """value[x] of an observation or component → the value_* columns."""
    quantity = r.obj("valueQuantity")
    if quantity is not None:
        return {
            "value_type": "quantity",
            "value_num": quantity.number("value"),
            "value_unit": quantity.string("unit") or quantity.string("code"),
        }
    concept = r.obj("valueCodeableConcept")
    if concept is not None:
        c = codeable(concept, VALUE_SYSTEMS)
        return {"value_type": "codeable", "value_text": c.display, "value_code": c.code}
    if r.has("valueString"):
        return {"value_type": "string", "value_text": r.string("valueString")}
    if r.has("valueBoolean"):
        return {"value_type": "boolean", "value_text": str(r.boolean("valueBoolean")).lower()}
    if r.has("valueInteger"):
        return {"value_type": "integer", "value_num": r.number("valueInteger")}
    if r.has("valueDateTime"):
        moment = r.instant("valueDateTime")
        return {"value_type": "datetime", "value_text": moment.isoformat() if moment else None}
    return {"value_type": None}


def map_observation(r: Fields, ctx: MapContext) -> None:
    code = codeable_at(r, "code", OBSERVATION_SYSTEMS)
    values = value_columns(r)
    components = r.objs("component")
    if values["value_type"] is None:
        values["value_type"] = "components" if components else "none"
    ref_range = r.first("referenceRange")
    low = ref_range.obj("low") if ref_range else None
    high = ref_range.obj("high") if ref_range else None
    interpretation = codeables(r.objs("interpretation"))
    obs_id = r.data["id"]
    ctx.add(
        "observations",
        {
            "patient_id": ctx.patient_id,
            "id": obs_id,
            "encounter_id": encounter_id(r, ctx),
            "status": r.string("status"),
            "category": first_code_at(r, "category"),
            "code_system": code.system,
            "code": code.code,
            "display": code.display,
            "value_num": None,
            "value_unit": None,
            "value_text": None,
            "value_code": None,
            **values,
            "effective": effective(r),
            "issued": r.instant("issued"),
            "ref_low": low.number("value") if low else None,
            "ref_high": high.number("value") if high else None,
            "interpretation": interpretation.code or interpretation.display,
        },
    )
    for seq, component in enumerate(components):
        c_code = codeable_at(component, "code", OBSERVATION_SYSTEMS)
        c_values = value_columns(component)
        if c_values["value_type"] is None:
            c_values["value_type"] = "none"
        ctx.add(
            "observation_components",
            {
                "patient_id": ctx.patient_id,
                "observation_id": obs_id,
                "seq": seq,
                "code_system": c_code.system,
                "code": c_code.code,
                "display": c_code.display,
                "value_num": None,
                "value_unit": None,
                "value_text": None,
                "value_code": None,
                **c_values,
            },
        )


def map_allergy(r: Fields, ctx: MapContext) -> None:
    code = codeable_at(r, "code")
    allergy_id = r.data["id"]
    ctx.add(
        "allergies",
        {
            "patient_id": ctx.patient_id,
            "id": allergy_id,
            "clinical_status": status_code(r.obj("clinicalStatus")),
            "verification_status": status_code(r.obj("verificationStatus")),
            "type": r.string("type"),
            "categories": r.strs("category"),
            "criticality": r.string("criticality"),
            "code_system": code.system,
            "code": code.code,
            "display": code.display,
            "onset": r.instant("onsetDateTime") or r.period("onsetPeriod")[0],
            "recorded_date": r.instant("recordedDate"),
        },
    )
    seq = 0
    for reaction in r.objs("reaction"):
        severity = reaction.string("severity")
        manifestations = reaction.objs("manifestation") or [None]
        for manifestation in manifestations:
            m = codeable(manifestation, CLINICAL_SYSTEMS)
            ctx.add(
                "allergy_reactions",
                {
                    "patient_id": ctx.patient_id,
                    "allergy_id": allergy_id,
                    "seq": seq,
                    "manifestation_code": m.code,
                    "manifestation_display": m.display,
                    "severity": severity,
                },
            )
            seq += 1


def map_immunization(r: Fields, ctx: MapContext) -> None:
    vaccine = codeable_at(r, "vaccineCode", VACCINE_SYSTEMS)
    status_reason = codeable_at(r, "statusReason")
    ctx.add(
        "immunizations",
        {
            "patient_id": ctx.patient_id,
            "id": r.data["id"],
            "encounter_id": encounter_id(r, ctx),
            "status": r.string("status"),
            "status_reason": status_reason.display or status_reason.code,
            "vaccine_system": vaccine.system,
            "vaccine_code": vaccine.code,
            "display": vaccine.display,
            "occurrence": r.instant("occurrenceDateTime"),
            "primary_source": r.boolean("primarySource"),
            "location_id": ctx.resolver.shared(r.obj("location"), "Location"),
        },
    )


def map_procedure(r: Fields, ctx: MapContext) -> None:
    code = codeable_at(r, "code", CLINICAL_SYSTEMS)
    start, end = r.period("performedPeriod")
    if start is None:
        start = r.instant("performedDateTime")
    reason_code, _ = reason(r, ctx)
    ctx.add(
        "procedures",
        procedure_row(
            ctx.patient_id,
            r.data["id"],
            encounter_id(r, ctx),
            r.string("status"),
            code,
            (start, end),
            reason_code,
            ctx.resolver.shared(r.obj("location"), "Location"),
        ),
    )


def procedure_row(
    patient_id: str,
    rid: str,
    encounter: str | None,
    status: str | None,
    code: Code,
    performed: tuple[Any, Any],
    reason_code: Code,
    location: str | None,
) -> Row:
    """One `procedures` row (`fhir_ingest.typed` makes the same)."""
    return {
        "patient_id": patient_id,
        "id": rid,
        "encounter_id": encounter,
        "status": status,
        "code_system": code.system,
        "code": code.code,
        "display": code.display,
        "performed_start": performed[0],
        "performed_end": performed[1],
        "reason_code": reason_code.code,
        "reason_display": reason_code.display,
        "location_id": location,
    }


def map_care_plan(r: Fields, ctx: MapContext) -> None:
    category = codeables(r.objs("category"), CLINICAL_SYSTEMS)
    start, end = r.period("period")
    addresses = [
        target.id
        for ref in r.objs("addresses")
        if (target := ctx.resolver.local(ref, ("Condition",))) is not None
    ]
    activities = []
    for activity in r.objs("activity"):
        detail = activity.obj("detail")
        if detail is None:
            continue
        c = codeable_at(detail, "code", CLINICAL_SYSTEMS)
        activities.append({"code": c.code, "display": c.display, "status": detail.string("status")})
    ctx.add(
        "care_plans",
        care_plan_row(
            ctx.patient_id,
            r.data["id"],
            encounter_id(r, ctx),
            (r.string("status"), r.string("intent")),
            category,
            (start, end),
            addresses,
            activities,
        ),
    )


def care_plan_row(
    patient_id: str,
    rid: str,
    encounter: str | None,
    status_intent: tuple[str | None, str | None],
    category: Code,
    period: tuple[Any, Any],
    addresses: list[str],
    activities: list[Row],
) -> Row:
    """One `care_plans` row (`fhir_ingest.typed` makes the same)."""
    return {
        "patient_id": patient_id,
        "id": rid,
        "encounter_id": encounter,
        "status": status_intent[0],
        "intent": status_intent[1],
        "category_code": category.code,
        "category_display": category.display,
        "period_start": period[0],
        "period_end": period[1],
        "addresses_condition_ids": addresses,
        "activities": activities,
    }


def map_document_reference(r: Fields, ctx: MapContext) -> None:
    content = r.first("content")
    attachment = content.obj("attachment") if content else None
    if attachment is None:
        ctx.warnings.append(
            f"entry {r.entry} ({r.resource}): DocumentReference has no attachment; note not stored"
        )
        ctx.skipped["DocumentReference (no text)"] += 1
        return
    decoded = decode_attachment(attachment)
    if isinstance(decoded, NotText):
        ctx.warnings.append(f"entry {r.entry} ({r.resource}): {decoded.reason}; note not stored")
        ctx.skipped["DocumentReference (no text)"] += 1
        return
    doc_type = codeable_at(r, "type", (LOINC,))
    author = r.first("author")
    context = r.obj("context")
    enc = None
    if context is not None:
        encounters = context.objs("encounter")
        enc = ctx.resolver.local_id(encounters[0], ("Encounter",)) if encounters else None
    custodian = r.obj("custodian")
    ctx.add(
        "clinical_notes",
        {
            "patient_id": ctx.patient_id,
            "id": r.data["id"],
            "encounter_id": enc,
            "doc_status": r.string("status"),
            "type_code": doc_type.code,
            "type_display": doc_type.display,
            "date": r.instant("date"),
            "author_id": ctx.resolver.shared(author, "Practitioner"),
            "author_name": author.string("display") if author else None,
            "custodian_id": ctx.resolver.shared(custodian, "Organization"),
            "content_type": decoded.content_type,
            "text": decoded.text,
            "text_sha256": decoded.sha256,
        },
    )


def map_diagnostic_report(r: Fields, ctx: MapContext) -> None:
    code = codeable_at(r, "code", OBSERVATION_SYSTEMS)
    results = [
        target.id
        for ref in r.objs("result")
        if (target := ctx.resolver.local(ref, ("Observation",))) is not None
    ]
    row: Row = {
        "patient_id": ctx.patient_id,
        "id": r.data["id"],
        "encounter_id": encounter_id(r, ctx),
        "status": r.string("status"),
        "category": first_code_at(r, "category"),
        "code_system": code.system,
        "code": code.code,
        "display": code.display,
        "effective": effective(r),
        "issued": r.instant("issued"),
        "result_observation_ids": results,
        "note_id": None,
        "presented_text": None,
    }
    form = r.first("presentedForm")
    if form is not None:
        decoded = decode_attachment(form)
        if isinstance(decoded, DecodedText):
            ctx.report_texts.append((row, decoded))
        else:
            ctx.warnings.append(f"entry {r.entry} ({r.resource}): presentedForm {decoded.reason}; not stored")
    ctx.add("diagnostic_reports", row)


MAPPERS: dict[str, Callable[[Fields, MapContext], None]] = {
    "Encounter": map_encounter,
    "Condition": map_condition,
    "MedicationRequest": map_medication_request,
    "Observation": map_observation,
    "AllergyIntolerance": map_allergy,
    "Immunization": map_immunization,
    "Procedure": map_procedure,
    "CarePlan": map_care_plan,
    "DocumentReference": map_document_reference,
    "DiagnosticReport": map_diagnostic_report,
}

# Read while mapping other resources (Medication into its request), so neither mapped nor skipped.
RESOLVED_INTO_OTHERS = frozenset({"Medication"})


# --------------------------------------------------------------------------------------------
# Steps after every resource is mapped
# --------------------------------------------------------------------------------------------


def link_report_texts(ctx: MapContext) -> None:
    """A report's presentedForm equal to a note's text points at the note (stored once)."""
    notes_by_sha: dict[str, list[Row]] = defaultdict(list)
    for note in ctx.rows.get("clinical_notes", ()):
        notes_by_sha[note["text_sha256"]].append(note)
    for row, decoded in ctx.report_texts:
        candidates = notes_by_sha.get(decoded.sha256)
        if not candidates:
            row["presented_text"] = decoded.text
            continue
        same_encounter = [n for n in candidates if n["encounter_id"] == row["encounter_id"]]
        row["note_id"] = (same_encounter or candidates)[0]["id"]


def end_medications_at_death(ctx: MapContext) -> None:
    """A deceased patient's still-active requests end at death (status kept as recorded)."""
    patient = ctx.patient_row
    if patient is None or not patient["deceased"]:
        return
    died = patient["deceased_at"]
    for row in ctx.rows.get("medication_requests", ()):
        if row["status"] not in ACTIVE_MEDICATION_STATUSES:
            continue
        if died is None:
            if row["ended_at"] is None:
                row["ended_reason"] = "patient-deceased"
        elif row["ended_at"] is None or row["ended_at"] > died:
            row["ended_at"] = died
            row["ended_reason"] = "patient-deceased"
