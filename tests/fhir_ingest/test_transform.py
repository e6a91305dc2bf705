"""Pass 1 + pass 2 on whole bundles, without a database: rows, semantics and errors."""

from __future__ import annotations

import copy
import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fhir_ingest.errors import BundleError
from fhir_ingest.references import ReferenceData
from fhir_ingest.transform import transform_bundle
from tests.fhir_ingest import synthetic as syn

UTC = dt.UTC


def support_refdata() -> ReferenceData:
    refdata = ReferenceData()
    for bundle in syn.support_bundles():
        refdata.absorb(
            transform_bundle(bundle, refdata, source_path="/s/x.json", source_dir="/s").refdata_layer
        )
    return refdata


def run(bundle: dict, refdata: ReferenceData | None = None):
    refdata = support_refdata() if refdata is None else refdata
    return transform_bundle(bundle, refdata, source_path="/s/p.json", source_dir="/s")


def by_id(rows: list[dict]) -> dict[str, dict]:
    return {r["id"]: r for r in rows}


@pytest.fixture(scope="module")
def bundle() -> dict:
    return syn.patient_bundle("t1")


@pytest.fixture(scope="module")
def result(bundle):
    return run(copy.deepcopy(bundle))


def test_support_bundles_merge_roles_into_practitioners():
    hospital, practitioners = syn.support_bundles()
    refdata = ReferenceData()
    h = transform_bundle(hospital, refdata, source_path="/s/h.json", source_dir="/s")
    assert h.kind == "hospital" and h.counts() == {"organizations": 1, "locations": 1}
    assert h.shared.locations[syn.LOC_ID]["organization_id"] == syn.ORG_ID
    refdata.absorb(h.refdata_layer)
    p = transform_bundle(practitioners, refdata, source_path="/s/p.json", source_dir="/s")
    row = p.shared.practitioners[syn.PRACT_ID]
    assert p.kind == "practitioner"
    assert (row["npi"], row["full_name"], row["specialty_display"]) == (
        syn.PRACT_NPI,
        "Dr. Gregory12 House34",
        "Cardiovascular Disease",
    )
    assert (row["organization_id"], row["location_id"]) == (syn.ORG_ID, syn.LOC_ID)


def test_patient_row(result, bundle):
    row = result.patient_row
    assert result.kind == "patient" and row["patient_id"] == bundle["entry"][0]["resource"]["id"]
    assert row["given_names"] == ["Alice12", "Marie"] and row["family"] == "Zoë O'Brien"
    assert row["full_name"] == "Alice12 Marie Zoë O'Brien"
    assert (row["mrn"], row["birth_sex"], row["race"]) == ("mrn-t1", "F", "White")
    assert row["birth_date"] == dt.date(1970, 2, 3) and row["deceased"] is False


def test_conditional_references_resolve_to_fhir_ids_not_npis(result):
    (encounter,) = result.rows["encounters"]
    assert encounter["practitioner_id"] == syn.PRACT_ID != syn.PRACT_NPI
    assert (encounter["organization_id"], encounter["location_id"]) == (syn.ORG_ID, syn.LOC_ID)
    assert encounter["start"] == dt.datetime(2020, 1, 1, 14, 0, tzinfo=UTC)  # -05:00 → UTC
    assert not result.warnings


def test_blood_pressure_components_keep_their_loinc_codes(result):
    components = {c["code"]: c["value_num"] for c in result.rows["observation_components"]}
    assert components == {"8480-6": 135.5, "8462-4": 82.0}
    bp = next(o for o in result.rows["observations"] if o["code"] == "85354-9")
    assert bp["value_type"] == "components"


def test_observation_prefers_loinc(result):
    a1c = next(o for o in result.rows["observations"] if o["value_type"] == "quantity")
    assert (a1c["code_system"], a1c["code"], a1c["value_num"], a1c["value_unit"]) == (
        "http://loinc.org",
        "4548-4",
        6.1,
        "%",
    )


def test_medication_reference_is_resolved_into_the_request(result):
    requests = result.rows["medication_requests"]
    via_ref = next(r for r in requests if r["medication_resource_id"])
    assert (via_ref["code"], via_ref["display"], via_ref["display_normalized"]) == (
        "308136",
        "amLODIPine 2.5 MG Oral Tablet",
        "amlodipine 2.5 mg oral tablet",
    )
    assert via_ref["reason_display"] == "Essential hypertension (disorder)" and via_ref["reason_condition_id"]
    assert via_ref["dosage_text"] == "1 dose, once a day" and via_ref["ended_at"] is None
    direct = next(r for r in requests if not r["medication_resource_id"])
    assert (direct["status"], direct["dosage_text"], direct["as_needed"]) == (
        "stopped",
        "Take as needed.",
        True,
    )


def test_contained_medication(bundle):
    b = copy.deepcopy(bundle)
    _, request = syn.find(b, "MedicationRequest")
    request["contained"] = [
        {"resourceType": "Medication", "id": "m", "code": syn.cc("rx", "1", "Inline Drug")}
    ]
    request["medicationReference"] = {"reference": "#m"}
    rows = by_id(run(b).rows["medication_requests"])
    assert rows[request["id"]]["display"] == "Inline Drug"


def test_entered_in_error_and_not_done_are_kept_with_their_status(result):
    assert sorted(c["verification_status"] for c in result.rows["conditions"]) == [
        "confirmed",
        "entered-in-error",
    ]
    assert sorted(i["status"] for i in result.rows["immunizations"]) == ["completed", "not-done"]


def test_note_is_decoded_once_and_the_report_points_at_it(result):
    (note,) = result.rows["clinical_notes"]
    assert note["text"] == syn.NOTE_TEXT.replace("\r\n", "\n")
    assert note["author_id"] == syn.PRACT_ID and note["custodian_id"] == syn.ORG_ID
    reports = result.rows["diagnostic_reports"]
    narrative = next(r for r in reports if r["code"] == "34117-2")
    assert narrative["note_id"] == note["id"] and narrative["presented_text"] is None
    lab = next(r for r in reports if r["code"] == "4548-4")
    assert len(lab["result_observation_ids"]) == 1 and lab["note_id"] is None


def test_report_text_without_a_matching_note_is_stored_on_the_report(bundle):
    b = copy.deepcopy(bundle)
    _, report = syn.find(b, "DiagnosticReport")
    report["presentedForm"][0]["data"] = syn.b64("A different text")
    narrative = next(r for r in run(b).rows["diagnostic_reports"] if r["code"] == "34117-2")
    assert narrative["note_id"] is None and narrative["presented_text"] == "A different text"


def test_allergy_reactions_one_row_per_manifestation(result):
    reactions = result.rows["allergy_reactions"]
    assert [r["seq"] for r in reactions] == [0, 1]
    assert {r["severity"] for r in reactions} == {"moderate"}
    (allergy,) = result.rows["allergies"]
    assert allergy["categories"] == ["medication"] and allergy["criticality"] == "high"


def test_procedure_reason_and_care_plan(result):
    (procedure,) = result.rows["procedures"]
    assert procedure["reason_code"] == "59621000" and procedure["location_id"] == syn.LOC_ID
    (plan,) = result.rows["care_plans"]
    assert plan["category_code"] == "443402002" and len(plan["addresses_condition_ids"]) == 1
    assert plan["activities"] == [
        {"code": "386463000", "display": "Prescribed activity", "status": "in-progress"}
    ]


def test_unmapped_resources_are_counted_not_stored(result):
    assert dict(result.skipped) == {"Claim": 1, "Provenance": 1}
    assert result.counts()["patients"] == 1


def test_deceased_patient_active_medications_end_at_death():
    b = syn.patient_bundle("dead", deceased_at="2021-03-04T05:06:07-08:00")
    result = run(b)
    died = dt.datetime(2021, 3, 4, 13, 6, 7, tzinfo=UTC)
    assert result.patient_row["deceased"] and result.patient_row["deceased_at"] == died
    active = next(r for r in result.rows["medication_requests"] if r["status"] == "active")
    assert (active["ended_at"], active["ended_reason"], active["status"]) == (
        died,
        "patient-deceased",
        "active",
    )
    stopped = next(r for r in result.rows["medication_requests"] if r["status"] == "stopped")
    assert stopped["ended_at"] is None


def test_deceased_without_a_date_still_ends_active_medications():
    b = syn.patient_bundle("dead2")
    b["entry"][0]["resource"]["deceasedBoolean"] = True
    result = run(b)
    assert result.patient_row["deceased"] is True and result.patient_row["deceased_at"] is None
    active = next(r for r in result.rows["medication_requests"] if r["status"] == "active")
    assert (active["ended_at"], active["ended_reason"]) == (None, "patient-deceased")


def test_unresolvable_conditional_reference_is_a_warning_and_an_empty_link(bundle):
    result = run(copy.deepcopy(bundle), ReferenceData())  # no support bundles loaded
    (encounter,) = result.rows["encounters"]
    assert encounter["practitioner_id"] is None and encounter["practitioner_name"] == "Dr. Gregory12 House34"
    assert result.unresolved_references > 0
    assert any(f"us-npi|{syn.PRACT_NPI}" in w for w in result.warnings)


def test_collection_bundle_with_inline_shared_resources():
    hospital, practitioners = syn.support_bundles()
    b = syn.patient_bundle("col")
    inline = [e["resource"] for e in hospital["entry"] + practitioners["entry"]]
    b["type"] = "collection"
    b["entry"] = [syn.entry(r, request=False) for r in [e["resource"] for e in b["entry"]] + inline]
    _, encounter = syn.find(b, "Encounter")
    encounter["participant"][0]["individual"] = {"reference": f"urn:uuid:{syn.PRACT_ID}"}
    result = run(b, ReferenceData())
    assert result.kind == "patient" and not result.warnings
    enc = result.rows["encounters"][0]
    assert (enc["practitioner_id"], enc["organization_id"]) == (syn.PRACT_ID, syn.ORG_ID)
    assert result.shared.practitioners[syn.PRACT_ID]["specialty_display"] == "Cardiovascular Disease"


# --- bad input: error names entry and field -------------------------------------------------


def corrupted(mutate) -> dict:
    b = syn.patient_bundle("bad")
    mutate(b)
    return b


def expect_error(b: dict, entry: int | None, field: str, words: str) -> BundleError:
    with pytest.raises(BundleError) as caught:
        run(b)
    err = caught.value
    assert (err.entry, err.field) == (entry, field), str(err)
    assert words in err.message, str(err)
    return err


def test_missing_resource_type():
    i, _ = syn.find(syn.patient_bundle("bad"), "Observation")
    b = corrupted(lambda b: b["entry"][i]["resource"].pop("resourceType"))
    expect_error(b, i, "resource.resourceType", "missing")


def test_wrong_json_types():
    i, _ = syn.find(syn.patient_bundle("bad"), "Observation", 1)
    b = corrupted(lambda b: b["entry"][i]["resource"]["valueQuantity"].update(value="six"))
    err = expect_error(b, i, "resource.valueQuantity.value", "expected a number")
    assert err.resource.startswith("Observation/")
    j, _ = syn.find(syn.patient_bundle("bad"), "Condition")
    b = corrupted(lambda b: b["entry"][j]["resource"].update(onsetDateTime=20200101))
    expect_error(b, j, "resource.onsetDateTime", "got int")
    b = corrupted(lambda b: b["entry"][j]["resource"].update(code="hypertension"))
    expect_error(b, j, "resource.code", "expected an object")


def test_subject_that_is_not_the_bundle_patient():
    i, _ = syn.find(syn.patient_bundle("bad"), "Condition")
    b = corrupted(lambda b: b["entry"][i]["resource"].update(subject={"reference": "Patient/someone-else"}))
    expect_error(b, i, "resource.subject.reference", "not this bundle's patient")
    k, _ = syn.find(syn.patient_bundle("bad"), "Encounter")
    b = corrupted(lambda b: b["entry"][i]["resource"].update(subject={"reference": b["entry"][k]["fullUrl"]}))
    expect_error(b, i, "resource.subject.reference", "is a Encounter")
    b = corrupted(lambda b: b["entry"][i]["resource"].pop("subject"))
    expect_error(b, i, "resource.subject", "required")


def test_dangling_urn_uuid():
    i, _ = syn.find(syn.patient_bundle("bad"), "Procedure")
    b = corrupted(
        lambda b: b["entry"][i]["resource"].update(
            encounter={"reference": "urn:uuid:00000000-0000-0000-0000-000000000000"}
        )
    )
    expect_error(b, i, "resource.encounter.reference", "dangling")


def test_two_patients_in_one_bundle():
    other = syn.patient_bundle("other")["entry"][0]
    b = corrupted(lambda b: b["entry"].append(other))
    expect_error(b, len(b["entry"]) - 1, "resource.resourceType", "second Patient")


def test_clinical_resource_without_a_patient():
    b = corrupted(lambda b: b["entry"].pop(0))
    with pytest.raises(BundleError, match="without a Patient"):
        run(b)


# --- rows fit the schema; entry order does not matter ---------------------------------------

# columns the database fills itself (server defaults) or the writer sets
NOT_FROM_MAPPERS = {"patients": {"source_path", "ingested_at"}}


def test_every_mapped_row_matches_its_table(result):
    from records.models import Base

    tables = dict(result.rows)
    tables["patients"] = [result.patient_row]
    assert set(tables) >= {"encounters", "observations", "clinical_notes", "allergy_reactions"}
    for name, rows in tables.items():
        columns = {c.name for c in Base.metadata.tables[name].columns}
        expected = columns - NOT_FROM_MAPPERS.get(name, set())
        for row in rows:
            assert set(row) == expected, (name, set(row) ^ expected)


def row_key(row: dict) -> tuple:
    return (row.get("id"), row.get("observation_id"), row.get("allergy_id"), row.get("seq"))


@given(st.randoms(use_true_random=False))
@settings(max_examples=25, deadline=None)
def test_entry_order_does_not_change_the_rows(rng):
    bundle = syn.patient_bundle("order")
    shuffled = copy.deepcopy(bundle)
    rng.shuffle(shuffled["entry"])
    refdata = support_refdata()
    a, b = run(bundle, refdata), run(shuffled, refdata)
    assert a.patient_row == b.patient_row
    for table in set(a.rows) | set(b.rows):
        assert sorted(a.rows[table], key=row_key) == sorted(b.rows[table], key=row_key), table
