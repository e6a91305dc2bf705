"""Issue 18 items 2 and 5: which notes need indexing, and two indexers at once.

2. After `kill -9` of an ingest, the re-run found the committed bundles "unchanged" and never
   indexed their notes ("30 ingested, 12 unchanged"; 189 notes without chunks).
5. Two concurrent ingests of one folder: one died on a duplicate key in note_chunks.
"""

from __future__ import annotations

import threading

from sqlalchemy import text

from chartside.wiring import index_notes_after_ingest
from fhir_ingest.loader import ingest_paths
from knowledge.note_index import index_notes, patients_with_pending_notes
from records.database import patient_transaction
from tests.fhir_ingest import synthetic as syn


def _chunkless_notes(db, patient_ids) -> int:
    total = 0
    for pid in patient_ids:
        with patient_transaction(db.admin, pid) as conn:
            total += conn.execute(
                text(
                    "SELECT count(*) FROM clinical_notes n WHERE n.patient_id = :p AND NOT EXISTS "
                    "(SELECT 1 FROM note_chunks c WHERE c.patient_id = n.patient_id AND c.note_id = n.id)"
                ),
                {"p": pid},
            ).scalar_one()
    return total


def test_a_rerun_after_a_killed_ingest_indexes_the_notes_of_unchanged_bundles(clean_db, tmp_path, embedder):
    files = syn.write_cohort(tmp_path / "fhir", seeds=("k1", "k2"))
    # the killed run: bundles committed, then the process died before the note pass
    first = ingest_paths(clean_db, files)
    patients = sorted({f.patient_id for f in first.files if f.patient_id})
    assert patients and _chunkless_notes(clean_db, patients) > 0
    rerun = ingest_paths(clean_db, files)
    assert {f.status for f in rerun.files} == {"unchanged"}
    index_notes_after_ingest(clean_db, rerun)  # what `chartside ingest` runs next
    assert _chunkless_notes(clean_db, patients) == 0
    assert patients_with_pending_notes(clean_db, patients, embedder.model_name) == []


def test_two_indexers_of_the_same_patients_do_not_collide(clean_db, tmp_path, embedder):
    files = syn.write_cohort(tmp_path / "fhir", seeds=("c1", "c2", "c3"))
    report = ingest_paths(clean_db, files)
    patients = sorted({f.patient_id for f in report.files if f.patient_id})
    start = threading.Barrier(2)
    outcomes: list[object] = []

    def index() -> None:
        start.wait()
        try:
            outcomes.append(index_notes(clean_db, embedder, patients))
        except Exception as exc:  # the duplicate-key error this guards against
            outcomes.append(exc)

    threads = [threading.Thread(target=index) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert len(outcomes) == 2 and all(not isinstance(o, Exception) for o in outcomes), outcomes
    notes = 0
    for pid in patients:
        with patient_transaction(clean_db.admin, pid) as conn:
            notes += conn.execute(
                text("SELECT count(*) FROM clinical_notes WHERE patient_id = :p"), {"p": pid}
            ).scalar_one()
    assert sum(o.notes for o in outcomes) == notes  # every note indexed once, by one of them
    assert _chunkless_notes(clean_db, patients) == 0
