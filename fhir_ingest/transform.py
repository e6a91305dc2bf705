"""One parsed bundle → everything to write, with no database involved (pass 1 then pass 2).

Works the same for Synthea's `transaction` patient bundles, its `batch` support bundles and
`collection` bundles (no `request` on entries, organizations and practitioners inline):
shared resources found in the bundle are indexed first, so references to them resolve
whichever order the entries come in.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import msgspec

from fhir_ingest.codes import name_tokens
from fhir_ingest.copy_rows import EncodedRows
from fhir_ingest.errors import BundleError
from fhir_ingest.fields import Fields
from fhir_ingest.mappers import (
    MAPPERS,
    RESOLVED_INTO_OTHERS,
    SUBJECT_FIELD,
    MapContext,
    Row,
    check_subject,
    end_medications_at_death,
    link_report_texts,
    map_patient,
)
from fhir_ingest.notes import clear_cache as clear_note_cache
from fhir_ingest.references import ReferenceData, Resolver, index_bundle, parse_reference
from fhir_ingest.skim import Skimmed
from fhir_ingest.support import SHARED_MAPPERS, SHARED_RESOURCE_TYPES, SharedRows, index_shared
from fhir_ingest.timestamps import clear_cache as clear_timestamp_cache
from fhir_ingest.typed import SHARED_TYPED_MAPPERS, TYPED_MAPPERS
from fhir_ingest.typed import index_shared as index_shared_typed

PATIENT_TABLES_IN_WRITE_ORDER = (
    "encounters",
    "conditions",
    "medication_requests",
    "observations",
    "observation_components",
    "allergies",
    "allergy_reactions",
    "immunizations",
    "procedures",
    "care_plans",
    "clinical_notes",
    "diagnostic_reports",
)

# indexed by identifier in pass 1 (a PractitionerRole only points at them)
INDEXED_SHARED_TYPES = frozenset({"Organization", "Location", "Practitioner"})

# Resource types that pass 1 or pass 2 read beyond their type and id; the others (Claim,
# ExplanationOfBenefit, Provenance, …) are only indexed and counted (`fhir_ingest.skim`).
READ_TYPES = frozenset({"Patient", *MAPPERS, *SHARED_RESOURCE_TYPES, *RESOLVED_INTO_OTHERS})


@dataclass
class BundleResult:
    """What one bundle becomes: rows for the patient tables and/or the reference tables."""

    kind: str  # patient | hospital | practitioner
    patient_id: str | None
    patient_row: Row | None
    rows: dict[str, list[Row]]
    shared: SharedRows
    refdata_layer: ReferenceData
    resources: int
    skipped: Counter = field(default_factory=Counter)
    warnings: list[str] = field(default_factory=list)
    unresolved_references: int = 0
    # tables whose rows a worker process already encoded for COPY (`RecordWriter.encode_rows`)
    encoded: dict[str, EncodedRows] = field(default_factory=dict)

    def counts(self) -> dict[str, int]:
        """Rows per table (the patient row included)."""
        counts = {"patients": 1} if self.patient_row is not None else {}
        for table in PATIENT_TABLES_IN_WRITE_ORDER:
            if self.rows.get(table):
                counts[table] = len(self.rows[table])
            elif table in self.encoded:
                counts[table] = self.encoded[table].count
        counts.update(self.shared.counts())
        return counts


def transform_bundle(
    data: object, refdata: ReferenceData, *, source_path: str, source_dir: str | None = None
) -> BundleResult:
    """Pass 1 (index entries and shared resources) and pass 2 (map to rows). Raises BundleError."""
    # the parse caches serve one bundle (where strings repeat); emptied here so memory stays
    # bounded and a benchmark's later rounds cannot profit from the strings of earlier ones
    parse_reference.cache_clear()
    name_tokens.cache_clear()
    clear_timestamp_cache()
    clear_note_cache()
    if type(data) is Skimmed:  # indexed by the skim
        index, entries, unread = data.index, data.read, Counter(data.unread)
    else:
        index = index_bundle(data)
        entries, unread = [], Counter()
        for i, resource in enumerate(index.resources):
            rtype = resource["resourceType"]
            if rtype in READ_TYPES:
                entries.append((i, rtype, resource))
            else:
                unread[rtype] += 1
    if len(index.patients) > 1:
        first, second = index.patients[:2]
        raise BundleError(
            f"a second Patient (the first is Patient/{first.id} at entry {first.entry}); "
            "one bundle must hold one patient's record",
            entry=second.entry,
            field="resource.resourceType",
            resource=f"Patient/{second.id}",
        )
    # what something reads: a located view of each dict, or the typed struct the skim made
    # (`fhir_ingest.typed`); the others (Claim, ExplanationOfBenefit, … half of a Synthea
    # bundle, skimmed to their type and id) are only counted
    read: list[tuple[int, str, Fields | msgspec.Struct]] = [
        (i, rtype, Fields(r, i, "resource", f"{rtype}/{r['id']}") if type(r) is dict else r)
        for i, rtype, r in entries
    ]

    layer = refdata.overlay()
    for _, rtype, f in read:
        if rtype in INDEXED_SHARED_TYPES:
            if type(f) is Fields:
                index_shared(f, layer, source_dir)
            else:
                index_shared_typed(f, layer, source_dir)
    resolver = Resolver(index, layer, source_dir)

    shared = SharedRows()
    roles = [item for item in read if item[1] == "PractitionerRole"]  # after the others
    for i, rtype, f in [item for item in read if item[1] in INDEXED_SHARED_TYPES] + roles:
        if type(f) is not Fields:
            if SHARED_TYPED_MAPPERS[rtype](f, shared, resolver, source_path):
                continue
            f = Fields(index.as_dict(i), i, "resource", f"{rtype}/{f.id}")  # a detour, as below
        SHARED_MAPPERS[rtype](f, shared, resolver, source_path)

    skipped: Counter = Counter(unread)
    if not index.patients:
        for i, rtype, f in read:
            if rtype in MAPPERS:
                raise BundleError(
                    f"a {rtype} in a bundle without a Patient: whose record is it?",
                    entry=i,
                    field=f"resource.{SUBJECT_FIELD[rtype]}",
                    resource=f.resource if type(f) is Fields else f"{rtype}/{f.id}",
                )
            if rtype not in SHARED_RESOURCE_TYPES:
                skipped[rtype] += 1
        if not shared:
            raise BundleError(
                "the bundle holds no Patient, Organization, Location or Practitioner: nothing to ingest"
            )
        kind = "practitioner" if shared.practitioners or shared.role_updates else "hospital"
        return BundleResult(
            kind=kind,
            patient_id=None,
            patient_row=None,
            rows={},
            shared=shared,
            refdata_layer=layer,
            resources=len(index.resources),
            skipped=skipped,
            warnings=resolver.warnings(),
            unresolved_references=resolver.unresolved_count,
        )

    patient_entry = index.patients[0]
    ctx = MapContext(patient_id=patient_entry.id, resolver=resolver, skipped=unread)
    patient = next(f for i, _, f in read if i == patient_entry.entry)
    assert type(patient) is Fields  # "Patient" is read, as a dict
    map_patient(patient, ctx)
    for i, rtype, f in read:
        mapper = MAPPERS.get(rtype)
        if mapper is not None:
            if type(f) is not Fields:
                if TYPED_MAPPERS[rtype](f, i, ctx):
                    continue
                # a detour: the typed mapper found something the checked one may refuse
                f = Fields(index.as_dict(i), i, "resource", f"{rtype}/{f.id}")
            check_subject(f, ctx, SUBJECT_FIELD[rtype])
            mapper(f, ctx)
        elif rtype != "Patient" and rtype not in SHARED_RESOURCE_TYPES and rtype not in RESOLVED_INTO_OTHERS:
            ctx.skipped[rtype] += 1
    link_report_texts(ctx)
    end_medications_at_death(ctx)
    return BundleResult(
        kind="patient",
        patient_id=ctx.patient_id,
        patient_row=ctx.patient_row,
        rows=dict(ctx.rows),
        shared=shared,
        refdata_layer=layer,
        resources=len(index.resources),
        skipped=ctx.skipped,
        warnings=ctx.warnings + resolver.warnings(),
        unresolved_references=resolver.unresolved_count,
    )
