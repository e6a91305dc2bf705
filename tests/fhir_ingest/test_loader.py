"""Loading into PostgreSQL: atomic per bundle, idempotent, replacing a changed patient in place."""

from __future__ import annotations

import copy

import psycopg
import pytest
from sqlalchemy import text

from fhir_ingest.loader import ingest_paths
from fhir_ingest.references import ReferenceData
from fhir_ingest.transform import transform_bundle
from fhir_ingest.writer import RecordWriter
from records.database import patient_transaction
from tests.fhir_ingest import synthetic as syn
from tests.fhir_ingest.dbutil import RECORD_TABLES, execute, patient_counts, scalar, table_counts


def pid_of(bundle: dict) -> str:
    return bundle["entry"][0]["resource"]["id"]


def expected_counts(bundle: dict) -> dict[str, int]:
    """Rows the bundle should produce, from the pure transform (support data loaded)."""
    refdata = ReferenceData()
    for support in syn.support_bundles():
        refdata.absorb(transform_bundle(support, refdata, source_path="/s", source_dir="/").refdata_layer)
    counts = transform_bundle(copy.deepcopy(bundle), refdata, source_path="/p", source_dir="/").counts()
    return {t: counts.get(t, 0) for t in RECORD_TABLES}


@pytest.mark.parametrize("use_copy", [True, False], ids=["copy", "insert"])
def test_folder_load_then_reload_changes_nothing(clean_db, tmp_path, use_copy):
    files = syn.write_cohort(tmp_path / "fhir", seeds=("a", "b"))
    report = ingest_paths(clean_db, [tmp_path], use_copy=use_copy)
    assert report.ok, [f.error for f in report.failures]
    assert [(f.path.name, f.kind, f.status) for f in report.files[:2]] == [
        (files[0].name, "hospital", "ingested"),
        (files[1].name, "practitioner", "ingested"),
    ]
    assert {f.status for f in report.files[2:]} == {"ingested"}
    assert report.patients_written == 2 and not report.warnings
    counts = table_counts(clean_db)
    assert counts["patients"] == 2 and counts["source_files"] == 4
    for name, table_rows in report.rows_by_table().items():
        assert counts[name] == table_rows, name
    for f in report.files[2:]:
        bundle = syn.patient_bundle(f.path.name.split("_")[0][3:], given=f.path.name.split("_")[0])
        assert patient_counts(clean_db, f.patient_id) == expected_counts(bundle)

    again = ingest_paths(clean_db, [tmp_path], use_copy=use_copy)
    assert again.ok and {f.status for f in again.files} == {"unchanged"}
    assert table_counts(clean_db) == counts
    assert [f.counts for f in again.files] == [f.counts for f in report.files]


def test_rows_are_isolated_per_patient_for_the_app_role(clean_db, tmp_path):
    syn.write_cohort(tmp_path, seeds=("a", "b"))
    report = ingest_paths(clean_db, [tmp_path])
    patients = [f.patient_id for f in report.files if f.kind == "patient"]
    with patient_transaction(clean_db.app, patients[0]) as conn:
        seen = conn.execute(text("SELECT DISTINCT patient_id FROM observations")).scalars().all()
    assert seen == [patients[0]]
    with clean_db.app.connect() as conn:  # no patient bound: nothing at all
        assert conn.execute(text("SELECT count(*) FROM observations")).scalar_one() == 0


@pytest.mark.parametrize("use_copy", [True, False], ids=["copy", "insert"])
def test_changed_bundle_replaces_that_patients_rows_in_place(clean_db, tmp_path, use_copy):
    files = syn.write_cohort(tmp_path, seeds=("a", "b"))
    ingest_paths(clean_db, [tmp_path], use_copy=use_copy)
    bundle = syn.patient_bundle("a", given="Pata")
    pid, other = pid_of(bundle), pid_of(syn.patient_bundle("b", given="Patb"))
    other_before = patient_counts(clean_db, other)
    note_id = syn.find(bundle, "DocumentReference")[1]["id"]
    # data that is not record data, attached to the patient: must survive a re-ingest
    execute(clean_db, "INSERT INTO conversations (patient_id, id, role) VALUES (:p, 'c1', 'patient')", p=pid)
    execute(
        clean_db,
        "INSERT INTO note_chunks (patient_id, note_id, seq, text) VALUES (:p, :n, 0, 'chunk')",
        p=pid,
        n=note_id,
    )

    # v2: one observation fewer (and its report's result), a new condition; the note is unchanged
    v2 = copy.deepcopy(bundle)
    i, a1c = syn.find(v2, "Observation", 1)
    del v2["entry"][i]
    _, lab = syn.find(v2, "DiagnosticReport", 1)
    lab.pop("result")
    _, condition = syn.find(v2, "Condition")
    extra = copy.deepcopy(condition)
    extra["id"] = "new-condition"
    v2["entry"].append(syn.entry(extra))
    syn.write_json(files[2], v2)

    report = ingest_paths(clean_db, [tmp_path], use_copy=use_copy)
    statuses = {f.path.name: f.status for f in report.files}
    assert statuses[files[2].name] == "replaced"
    assert statuses[files[3].name] == statuses[files[0].name] == "unchanged"
    assert patient_counts(clean_db, pid) == expected_counts(v2)
    assert patient_counts(clean_db, other) == other_before
    assert scalar(clean_db, "SELECT count(*) FROM observations WHERE id = :i", i=a1c["id"]) == 0
    assert scalar(clean_db, "SELECT count(*) FROM conversations WHERE patient_id = :p", p=pid) == 1
    assert scalar(clean_db, "SELECT count(*) FROM note_chunks WHERE note_id = :n", n=note_id) == 1
    assert scalar(clean_db, "SELECT encounter_id FROM clinical_notes WHERE id = :n", n=note_id) is not None
    assert scalar(clean_db, "SELECT count(*) FROM source_files WHERE bundle_patient_id = :p", p=pid) == 1

    # v3: the note's text changes, so its old chunks go with it
    _, note = syn.find(v2, "DocumentReference")
    note["content"][0]["attachment"]["data"] = syn.b64("Rewritten note")
    syn.write_json(files[2], v2)
    assert ingest_paths(clean_db, [files[2]], use_copy=use_copy).files[0].status == "replaced"
    assert scalar(clean_db, "SELECT count(*) FROM note_chunks WHERE note_id = :n", n=note_id) == 0
    assert scalar(clean_db, "SELECT text FROM clinical_notes WHERE id = :n", n=note_id) == "Rewritten note"


def test_a_bad_bundle_writes_nothing_and_the_others_go_on(clean_db, tmp_path):
    files = syn.write_cohort(tmp_path, seeds=("a", "b", "c"))
    broken = syn.patient_bundle("b", given="Patb")
    i, procedure = syn.find(broken, "Procedure")
    procedure["encounter"] = {"reference": "urn:uuid:00000000-0000-0000-0000-00000000dead"}
    syn.write_json(files[3], broken)

    report = ingest_paths(clean_db, [tmp_path])
    assert not report.ok
    (failed,) = report.failures
    assert failed.path == files[3]
    assert failed.error.startswith(str(files[3]))
    assert f"entry {i} (Procedure/{procedure['id']})" in failed.error
    assert "field resource.encounter.reference" in failed.error and "dangling" in failed.error
    assert patient_counts(clean_db, pid_of(broken)) == dict.fromkeys(RECORD_TABLES, 0)
    assert scalar(clean_db, "SELECT count(*) FROM source_files WHERE path = :p", p=str(files[3])) == 0
    assert {f.status for f in report.files if f is not failed} == {"ingested"}


def test_a_database_failure_midway_leaves_the_previous_version(clean_db, tmp_path, monkeypatch):
    files = syn.write_cohort(tmp_path, seeds=("a",))
    ingest_paths(clean_db, [tmp_path])
    bundle = syn.patient_bundle("a", given="Pata")
    pid = pid_of(bundle)
    before = table_counts(clean_db)
    sha_before = scalar(clean_db, "SELECT sha256 FROM source_files WHERE bundle_patient_id = :p", p=pid)

    v2 = copy.deepcopy(bundle)
    del v2["entry"][syn.find(v2, "Immunization")[0]]
    syn.write_json(files[2], v2)
    original = RecordWriter._bulk_insert

    def fail_on_observations(self, cur, table, rows):
        if table == "observations":  # encounters and conditions are already written by now
            raise psycopg.errors.DiskFull("could not extend file: No space left on device")
        return original(self, cur, table, rows)

    monkeypatch.setattr(RecordWriter, "_bulk_insert", fail_on_observations)
    report = ingest_paths(clean_db, [files[2]])
    assert not report.ok and "nothing was written" in report.failures[0].error
    assert "No space left" in report.failures[0].error
    assert table_counts(clean_db) == before
    assert (
        scalar(clean_db, "SELECT sha256 FROM source_files WHERE bundle_patient_id = :p", p=pid) == sha_before
    )

    monkeypatch.setattr(RecordWriter, "_bulk_insert", original)
    assert ingest_paths(clean_db, [files[2]]).files[0].status == "replaced"
    assert patient_counts(clean_db, pid)["immunizations"] == before["immunizations"] - 1


def test_patient_loaded_before_its_support_bundles_gets_warnings_not_wrong_links(clean_db, tmp_path):
    patient_file = syn.write_json(tmp_path / "only_patient.json", syn.patient_bundle("a"))
    report = ingest_paths(clean_db, [patient_file])
    assert report.ok and report.files[0].warnings
    assert scalar(clean_db, "SELECT count(*) FROM encounters WHERE practitioner_id IS NOT NULL") == 0
    stored = scalar(clean_db, "SELECT warnings FROM source_files WHERE path = :p", p=str(patient_file))
    assert stored == report.files[0].warnings


def test_support_bundle_reload_keeps_role_data_and_validate_mode(clean_db, tmp_path):
    syn.write_cohort(tmp_path, seeds=("a",))
    report = ingest_paths(clean_db, [tmp_path], validate=True)
    assert report.ok and report.validated and all(f.validation_seconds > 0 for f in report.files)
    assert scalar(clean_db, "SELECT specialty_display FROM practitioners WHERE id = :i", i=syn.PRACT_ID) == (
        "Cardiovascular Disease"
    )
    # a practitioner bundle without its roles must not erase what the roles said
    _, practitioners = syn.support_bundles()
    practitioners["entry"] = practitioners["entry"][:1]
    path = syn.write_json(tmp_path / "practitionerInformation1700000000001.json", practitioners)
    assert ingest_paths(clean_db, [path]).files[0].status == "ingested"
    assert scalar(clean_db, "SELECT specialty_display FROM practitioners WHERE id = :i", i=syn.PRACT_ID) == (
        "Cardiovascular Disease"
    )


def test_missing_path_is_reported(clean_db, tmp_path):
    report = ingest_paths(clean_db, [tmp_path / "nowhere"])
    assert not report.ok and "no such file or folder" in report.failures[0].error


def dump(db, tables=RECORD_TABLES) -> dict[str, list[tuple]]:
    """Every row of the record tables except load timestamps, sorted: the database's content."""
    out = {}
    with db.admin.connect() as conn:
        for t in tables:
            rows = conn.execute(text(f'SELECT * FROM "{t}"')).mappings().all()
            out[t] = sorted(
                tuple((k, str(v)) for k, v in row.items() if k not in ("ingested_at", "source_path"))
                for row in rows
            )
    return out


def test_worker_processes_give_the_same_database_as_one_process(clean_db, tmp_path):
    syn.write_cohort(tmp_path, seeds=("a", "b", "c", "d", "e"))
    sequential = ingest_paths(clean_db, [tmp_path], workers=0)
    expected = dump(clean_db)
    from tests.conftest import wipe

    wipe(clean_db)
    parallel = ingest_paths(clean_db, [tmp_path], workers=2)
    assert parallel.ok and [f.status for f in parallel.files] == [f.status for f in sequential.files]
    assert [f.path for f in parallel.files] == [f.path for f in sequential.files]
    assert dump(clean_db) == expected


def test_reference_data_brought_by_a_bundle_reaches_later_bundles_with_workers(clean_db, tmp_path):
    """A collection bundle with an inline organization; a later bundle refers to it by identifier."""
    hospital, _ = syn.support_bundles()
    inline_org = copy.deepcopy(hospital["entry"][0]["resource"])
    inline_org.update(
        id="org-inline", identifier=[{"system": syn.SYNTHEA, "value": "org-inline"}], name="Inline Clinic"
    )
    first = syn.patient_bundle("c1")
    first["type"] = "collection"
    first["entry"] = [syn.entry(e["resource"], request=False) for e in first["entry"]] + [
        syn.entry(inline_org, request=False)
    ]
    syn.write_json(tmp_path / "p1_first.json", first)
    for n in range(2, 5):
        later = syn.patient_bundle(f"c{n}")
        _, encounter = syn.find(later, "Encounter")
        encounter["serviceProvider"] = {
            "reference": f"Organization?identifier={syn.SYNTHEA}|org-inline",
            "display": "Inline Clinic",
        }
        syn.write_json(tmp_path / f"p{n}_later.json", later)
    report = ingest_paths(clean_db, [tmp_path], workers=2)
    assert report.ok
    assert scalar(clean_db, "SELECT count(*) FROM encounters WHERE organization_id = 'org-inline'") == 3
