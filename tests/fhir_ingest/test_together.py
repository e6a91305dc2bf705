"""New patients' bundles written together (`RecordWriter.write_new_patients`, round fourteen).

The worker processes often have several bundles ready when this process takes one; the new
patients among them are committed in one transaction, one COPY per table. What lands must be
what one transaction per bundle gives, and the guarantees stay per bundle: a bundle the
database refuses fails alone and leaves nothing, the others are written; a patient already
there is replaced as before. Which bundles go together is a pure function (`together_groups`).
"""

from __future__ import annotations

import sys
from collections import Counter
from concurrent.futures import wait
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from fhir_ingest import loader
from fhir_ingest.loader import MAX_TOGETHER, ingest_paths, together_groups, writable_together
from fhir_ingest.parallel import WorkerPool
from fhir_ingest.prepare import Prepared, prepare
from fhir_ingest.references import ReferenceData, SharedTarget
from fhir_ingest.support import SharedRows
from fhir_ingest.transform import BundleResult
from fhir_ingest.writer import RecordWriter, SourceInfo, encode_rows
from tests.conftest import wipe
from tests.faults.ingest_support import database_digest
from tests.fhir_ingest import synthetic as syn
from tests.fhir_ingest.dbutil import ALL_TABLES

# --- which bundles go together (pure) ----------------------------------------------------------


def _prepared(n: int, patient: str | None, sha: str, *, error: bool = False, brings: str = "") -> Prepared:
    """A prepared bundle as the workers send it: `brings` reference data ("layer": a target of
    its own; "rows": organization rows) or not, of a patient or not (a support bundle)."""
    layer = ReferenceData()
    if brings == "layer":
        layer.add(SharedTarget("Organization", f"org-{n}", "Clinic"), [("s", f"v{n}")])
    shared = SharedRows()
    if brings == "rows":
        shared.organizations[f"org-{n}"] = {"id": f"org-{n}"}
    result = BundleResult(
        kind="patient" if patient else "hospital",
        patient_id=patient,
        patient_row={"patient_id": patient, "full_name": "X"} if patient else None,
        rows={},
        shared=shared,
        refdata_layer=layer,
        resources=1,
    )
    if error:
        return Prepared(path=Path(f"f{n}.json"), sha256=sha, error=f"f{n}.json: entry 3: bad")
    return Prepared(path=Path(f"f{n}.json"), sha256=sha, result=result)


bundles = st.lists(
    st.tuples(
        st.sampled_from(["p1", "p2", "p3", "p4", None]),  # None: a support bundle
        st.sampled_from(["s1", "s2", "s3", "s4", "s5"]),
        st.sampled_from(["", "", "", "error", "layer", "rows"]),
    ),
    max_size=14,
).map(
    lambda specs: [
        _prepared(n, patient, sha, error=kind == "error", brings=kind if kind in ("layer", "rows") else "")
        for n, (patient, sha, kind) in enumerate(specs)
    ]
)


@settings(max_examples=300, deadline=None)
@given(prepared=bundles, stored=st.sets(st.sampled_from(["s1", "s2", "s3"])), limit=st.integers(1, 5))
def test_groups_keep_the_order_and_hold_only_new_patients_of_different_patients_and_bytes(
    prepared, stored, limit
):
    stored_files = dict.fromkeys(stored)
    groups = together_groups(prepared, stored_files, force=False, limit=limit)
    assert [p for group in groups for p in group] == prepared  # every bundle once, in order
    for group in groups:
        assert group and len(group) <= limit
        if len(group) > 1:
            assert all(writable_together(p, stored_files, force=False) for p in group)
            assert len({p.result.patient_id for p in group}) == len(group)
            assert len({p.sha256 for p in group}) == len(group)
    for before, after in pairwise(groups):
        # a group is cut only where it has to be
        if all(writable_together(p, stored_files, force=False) for p in (*before, after[0])):
            head = after[0]
            assert (
                len(before) == limit
                or head.result.patient_id in {p.result.patient_id for p in before}
                or head.sha256 in {p.sha256 for p in before}
            )


def test_what_may_not_go_together():
    stored = {"old": None}
    assert writable_together(_prepared(0, "p1", "new"), stored, force=False)
    assert not writable_together(_prepared(0, "p1", "old"), stored, force=False)  # reported unchanged
    assert writable_together(_prepared(0, "p1", "old"), stored, force=True)
    assert not writable_together(_prepared(0, "p1", "new", error=True), stored, force=False)
    assert not writable_together(_prepared(0, "p1", "new", brings="layer"), stored, force=False)
    assert not writable_together(_prepared(0, "p1", "new", brings="rows"), stored, force=False)
    assert not writable_together(_prepared(0, None, "new"), stored, force=False)  # a support bundle
    assert not writable_together(Prepared(path=Path("f"), sha256="new"), stored, force=False)  # skipped


# --- the writer --------------------------------------------------------------------------------


def _dump(db) -> dict[str, list[str]]:
    """Every row of every table ingestion writes, but the load times, sorted."""
    out = {}
    with db.admin.connect() as conn:
        for table in ALL_TABLES:
            out[table] = list(
                conn.execute(
                    text(f"SELECT (to_jsonb(t) - 'ingested_at')::text FROM \"{table}\" t ORDER BY 1")
                ).scalars()
            )
    return out


def _prepared_patients(db, files: list[Path]) -> list[Prepared]:
    refdata = RecordWriter(db).reference_data()
    out = []
    for path in files:
        prepared = prepare(path, refdata)
        assert prepared.result is not None, prepared.error
        encode_rows(prepared.result)  # as a worker sends it
        out.append(prepared)
    return out


def _items(prepared: list[Prepared]) -> list[tuple[BundleResult, SourceInfo]]:
    return [(p.result, SourceInfo(str(p.path), p.sha256, p.size_bytes)) for p in prepared]


def test_written_together_the_database_holds_what_one_transaction_each_gives(clean_db, tmp_path):
    files = syn.write_cohort(tmp_path, seeds=("a", "b", "c"))
    assert ingest_paths(clean_db, files[:2]).ok
    writer = RecordWriter(clean_db)
    for p in _prepared_patients(clean_db, files[2:]):
        assert writer.write(p.result, SourceInfo(str(p.path), p.sha256, p.size_bytes)) == "ingested"
    one_by_one = _dump(clean_db)

    wipe(clean_db)
    assert ingest_paths(clean_db, files[:2]).ok
    writer = RecordWriter(clean_db)
    assert writer.can_write_together()
    prepared = _prepared_patients(clean_db, files[2:])
    with writer.session():
        assert writer.write_new_patients(_items(prepared)) is True
    assert _dump(clean_db) == one_by_one
    assert len(one_by_one["patients"]) == 3

    # a patient there already: nothing is written, the caller writes them one by one
    with writer.session():
        assert writer.write_new_patients(_items(prepared[1:])) is False
    assert _dump(clean_db) == one_by_one


def test_only_bundles_of_different_patients_bringing_no_reference_data(clean_db, tmp_path):
    files = syn.write_cohort(tmp_path, seeds=("a",))
    (prepared,) = _prepared_patients(clean_db, files[2:])
    writer = RecordWriter(clean_db)
    with pytest.raises(ValueError, match="different patients"):
        writer.write_new_patients(_items([prepared, prepared]))
    prepared.result.refdata_layer.add(SharedTarget("Organization", "o", "Clinic"), [("s", "v")])
    with pytest.raises(ValueError, match="reference data"):
        writer.write_new_patients(_items([prepared]))
    assert _dump(clean_db)["patients"] == []


def test_writers_without_copy_do_not_write_together(clean_db):
    assert not RecordWriter(clean_db, use_copy=False).can_write_together()


# --- the loader: groups forced, so that every case is taken ------------------------------------

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="workers fork (Linux only)")


@pytest.fixture()
def grouped(monkeypatch):
    """Every bundle the workers will prepare counts as ready (the loader waits for it), so the
    loader takes them all in one window; the sizes of the groups written together are kept."""
    sizes: list[int] = []

    def ready(self):
        if not self._queue:
            return False
        wait([self._queue[0][1]])
        return True

    original = RecordWriter.write_new_patients

    def write_new_patients(self, items):
        sizes.append(len(items))
        return original(self, items)

    monkeypatch.setattr(WorkerPool, "ready", ready)
    monkeypatch.setattr(RecordWriter, "write_new_patients", write_new_patients)
    return sizes


@linux_only
def test_a_folder_written_in_groups_is_the_database_of_one_process(clean_db, tmp_path, grouped):
    seeds = tuple("abcdefg")
    syn.write_cohort(tmp_path, seeds=seeds)
    sequential = ingest_paths(clean_db, [tmp_path], workers=0)
    expected = _dump(clean_db)
    wipe(clean_db)
    report = ingest_paths(clean_db, [tmp_path], workers=2)
    assert report.ok
    assert grouped and sum(grouped) == len(seeds) and max(grouped) > 1
    assert [(f.path, f.status, f.counts, f.warnings) for f in report.files] == [
        (f.path, f.status, f.counts, f.warnings) for f in sequential.files
    ]
    assert _dump(clean_db) == expected
    assert all(f.phase_seconds["write"] > 0 for f in report.files)
    again = ingest_paths(clean_db, [tmp_path], workers=2)
    assert {f.status for f in again.files} == {"unchanged"} and _dump(clean_db) == expected


@linux_only
def test_patients_there_already_are_replaced_one_by_one(clean_db, tmp_path, grouped):
    files = syn.write_cohort(tmp_path, seeds=("a", "b"))
    assert ingest_paths(clean_db, [tmp_path], workers=0).ok
    for path, seed in zip(files[2:], ("a", "b"), strict=True):  # both changed
        bundle = syn.patient_bundle(seed, given=f"Pat{seed}")
        del bundle["entry"][syn.find(bundle, "Immunization")[0]]
        syn.write_json(path, bundle)
    new = syn.write_cohort(tmp_path, seeds=("c",))[2]
    report = ingest_paths(clean_db, [tmp_path], workers=2)
    assert report.ok
    statuses = {f.path: f.status for f in report.files}
    assert [statuses[p] for p in files[2:]] == ["replaced", "replaced"] and statuses[new] == "ingested"
    assert grouped == [3]  # tried together, then one by one
    expected = _dump(clean_db)
    wipe(clean_db)
    assert ingest_paths(clean_db, [tmp_path], workers=0).ok
    assert _dump(clean_db) == expected


@linux_only
def test_a_bundle_the_database_refuses_fails_alone_and_leaves_nothing(clean_db, tmp_path, grouped):
    files = syn.write_cohort(tmp_path, seeds=("a", "b", "c"))
    victim_bundle = syn.patient_bundle("b", given="Patb")
    _, observation = syn.find(victim_bundle, "Observation")
    victim_patient = victim_bundle["entry"][0]["resource"]["id"]
    with clean_db.admin.begin() as conn:
        conn.execute(
            text(
                "CREATE FUNCTION refuse_row() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                "RAISE EXCEPTION 'disk full (simulated) at %', NEW.id; END $$"
            )
        )
        conn.execute(
            text(
                "CREATE TRIGGER refuse_row BEFORE INSERT ON observations FOR EACH ROW "
                f"WHEN (NEW.id = '{observation['id']}') EXECUTE FUNCTION refuse_row()"
            )
        )
    try:
        report = ingest_paths(clean_db, [tmp_path], workers=2)
    finally:
        with clean_db.admin.begin() as conn:
            conn.execute(text("DROP TRIGGER refuse_row ON observations"))
            conn.execute(text("DROP FUNCTION refuse_row()"))
    assert grouped == [3]
    outcome = {f.path: f for f in report.files}
    failed = outcome[files[3]]
    assert failed.status == "failed" and failed.error.startswith(str(files[3]))
    assert "the database refused the bundle, nothing was written" in failed.error
    assert "disk full (simulated)" in failed.error
    assert [outcome[p].status for p in (files[2], files[4])] == ["ingested", "ingested"]
    digest = database_digest(clean_db, (victim_patient,))
    assert all(count == 0 for count, _ in digest[victim_patient].values())
    with clean_db.admin.connect() as conn:
        paths = conn.execute(text("SELECT path FROM source_files")).scalars().all()
    assert str(files[3]) not in paths and str(files[2]) in paths and str(files[4]) in paths
    assert Counter(f.status for f in report.files) == Counter(ingested=4, failed=1)


def test_the_loader_groups_at_most_max_together():
    prepared = [_prepared(n, f"p{n}", f"s{n}") for n in range(MAX_TOGETHER + 3)]
    groups = loader.together_groups(prepared, {}, force=False)
    assert [len(g) for g in groups] == [MAX_TOGETHER, 3]
