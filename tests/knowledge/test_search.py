"""Hybrid search end to end: leaflets (paraphrase, exact number, out of scope) and one patient's notes."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import text

from knowledge.note_index import index_notes
from knowledge.search import search_leaflets, search_notes
from records.database import patient_transaction
from tests.conftest import wipe
from tests.knowledge.helpers import add_note, add_patient, load_sample_notes, sample_note_bundles

FLOOR = 0.40


def _leaflets(db, embedder, query, **kw):
    with db.app.begin() as conn:  # the application role: leaflets are readable reference data
        return search_leaflets(
            conn, query, embedder.embed_query(query), model_name=embedder.model_name, floor=FLOOR, **kw
        )


def _lexemes(conn, value: str) -> set[str]:
    return set(
        conn.execute(text("SELECT tsvector_to_array(to_tsvector('english', :v))"), {"v": value}).scalar_one()
    )


def test_lay_paraphrase_with_no_shared_words_finds_the_right_leaflet(leaflets, embedder):
    query = "Which snacks are allowed ahead of my gut scope?"
    outcome = _leaflets(leaflets, embedder, query)
    top = outcome.passages[0]
    assert top.meta["slug"] == "colonoscopy-preparation"
    with leaflets.admin.connect() as conn:
        shown = " ".join([top.meta["title"], top.heading_path, top.overlap_text, top.text])
        assert _lexemes(conn, query) & _lexemes(conn, shown) == set()  # found by meaning alone


def test_exact_phone_number_is_admitted_by_the_lexical_bar(leaflets, embedder):
    outcome = _leaflets(leaflets, embedder, "555-0114")
    assert outcome.passages, "an exact phone number must be found even with low similarity"
    top = outcome.passages[0]
    assert "555-0114" in top.text and top.exact
    assert top.meta["slug"] == "anticoagulants"
    assert all("555-0114" in p.text or p.similarity >= FLOOR for p in outcome.passages)


def test_out_of_scope_question_gets_no_passage(leaflets, embedder):
    outcome = _leaflets(leaflets, embedder, "How do I renew my passport?")
    assert outcome.passages == []
    assert outcome.rejected and outcome.best_similarity < FLOOR


def test_results_carry_title_heading_path_and_review_date(leaflets, embedder):
    outcome = _leaflets(leaflets, embedder, "Can I eat grapefruit while taking atorvastatin?", limit=3)
    top = outcome.passages[0]
    assert top.meta["slug"] == "statins" and "Grapefruit" in top.text
    assert top.heading_path == "Statins › Taking your statin"
    assert top.meta["reviewed"] == dt.date(2025, 1, 20)
    assert len(outcome.passages) <= 3


# --------------------------------------------------------------------------------------------
# notes
# --------------------------------------------------------------------------------------------

NOTE = """2024-03-02

# Chief Complaint
Cough and wheeze for a week.

# History of Present Illness
Alex is a 52 year-old male. Patient has a history of asthma and hypertension.

# Medications
albuterol 90 mcg inhaler; lisinopril 10 mg oral tablet

# Assessment and Plan
Patient is presenting with acute bronchitis.

## Plan
The patient was prescribed the following medications:
- amoxicillin 500 mg oral capsule
"""


def _notes(db, embedder, patient_id, query, **kw):
    with patient_transaction(db.app, patient_id) as conn:
        return search_notes(
            conn,
            query,
            embedder.embed_query(query),
            patient_id=patient_id,
            model_name=embedder.model_name,
            **kw,
        )


def _vector(values) -> str:
    return "[" + ",".join(f"{x:.6f}" for x in values) + "]"


@pytest.fixture(scope="module")
def crowded_notes(db, embedder):
    """One patient with 4 notes among 2,000 other patients whose chunks sit right next to the query."""
    wipe(db)
    with db.admin.begin() as conn:
        add_patient(conn, "me")
        for i, day in enumerate((1, 5, 9, 20)):
            add_note(conn, "me", f"me-{i}", NOTE, date=dt.datetime(2024, 3, day, tzinfo=dt.UTC))
    index_notes(db, embedder, ["me"])
    query_vector = _vector(embedder.embed_query("which antibiotic was I prescribed for bronchitis"))
    with db.admin.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO patients (patient_id, full_name) "
                "SELECT 'other-' || g, 'Other' FROM generate_series(1, 2000) g"
            )
        )
        conn.execute(
            text(
                "INSERT INTO clinical_notes (patient_id, id, text, text_sha256, date) "
                "SELECT 'other-' || g, 'n', 'amoxicillin for bronchitis', 'x', now() FROM generate_series(1, 2000) g"
            )
        )
        conn.execute(  # each chunk = the query vector plus a little noise: nearer than any of "me"'s chunks
            text(
                "INSERT INTO note_chunks (patient_id, note_id, seq, section, heading_path, text, tsv, embedding, "
                "embedding_model) SELECT 'other-' || g, 'n', s, 'Assessment and Plan', 'Assessment and Plan', "
                "'amoxicillin prescribed for bronchitis', to_tsvector('english', 'amoxicillin prescribed for bronchitis'), "
                "CAST(:q AS vector) + CAST(ARRAY(SELECT (random() - 0.5) * 0.02 FROM generate_series(1, 384) d "
                "WHERE g > 0 AND s >= 0) AS vector), :model "
                "FROM generate_series(1, 2000) g, generate_series(0, 2) s"
            ),
            {"q": query_vector, "model": embedder.model_name},
        )
        # the trap: an approximate index the planner could be tempted to use before filtering
        conn.execute(
            text(
                "CREATE INDEX ix_test_note_chunks_hnsw ON note_chunks USING hnsw (embedding vector_cosine_ops)"
            )
        )
        conn.execute(text("ANALYZE note_chunks"))
    yield db
    with db.admin.begin() as conn:
        conn.execute(text("DROP INDEX IF EXISTS ix_test_note_chunks_hnsw"))
    wipe(db)


def test_patient_search_is_never_cut_short_by_other_patients(crowded_notes, embedder):
    db = crowded_notes
    with db.admin.connect() as conn:
        mine = conn.execute(text("SELECT count(*) FROM note_chunks WHERE patient_id = 'me'")).scalar_one()
        total = conn.execute(text("SELECT count(*) FROM note_chunks")).scalar_one()
    assert total > 6000 and 12 <= mine <= 20
    query = "which antibiotic was I prescribed for bronchitis"
    vector = embedder.embed_query(query)
    with patient_transaction(db.app, "me") as conn:
        # push the planner towards an index that returns rows in distance order: the HNSW one
        conn.execute(text("SET LOCAL enable_seqscan = off"))
        conn.execute(text("SET LOCAL enable_sort = off"))
        naive = conn.execute(
            text(
                "SELECT id FROM note_chunks WHERE patient_id = 'me' "
                "ORDER BY embedding <=> CAST(:v AS vector) LIMIT :k"
            ),
            {"v": _vector(vector), "k": mine},
        ).all()
        assert len(naive) < mine  # the control: a plain filtered ORDER BY really falls into the trap here
        outcome = search_notes(
            conn,
            query,
            vector,
            patient_id="me",
            model_name=embedder.model_name,
            limit=mine,
            floor=-1.0,
            candidates=mine,
            collapse_repeats=False,
        )
    assert len(outcome.passages) == mine  # every one of the patient's chunks, none missing
    assert {p.meta["note_id"] for p in outcome.passages} == {"me-0", "me-1", "me-2", "me-3"}
    assert any("amoxicillin" in p.text for p in outcome.passages)


def test_patient_search_sees_only_that_patient_even_if_asked_for_another(crowded_notes, embedder):
    db = crowded_notes
    with patient_transaction(db.app, "me") as conn:  # row-level security: the transaction is bound to "me"
        outcome = search_notes(
            conn,
            "amoxicillin",
            embedder.embed_query("amoxicillin"),
            patient_id="other-7",
            model_name=embedder.model_name,
            floor=-1.0,
        )
    assert outcome.passages == []


def test_date_window_and_status_filter(clean_db, embedder):
    db = clean_db
    with db.admin.begin() as conn:
        add_patient(conn, "p1")
        add_note(conn, "p1", "jan", NOTE, date=dt.datetime(2023, 1, 10, tzinfo=dt.UTC))
        add_note(conn, "p1", "jun", NOTE, date=dt.datetime(2023, 6, 10, 23, 0, tzinfo=dt.UTC))
        add_note(
            conn, "p1", "bad", NOTE, date=dt.datetime(2023, 6, 11, tzinfo=dt.UTC), status="entered-in-error"
        )
    index_notes(db, embedder)
    everything = _notes(db, embedder, "p1", "amoxicillin", floor=0.3, limit=10, collapse_repeats=False)
    assert {p.meta["note_id"] for p in everything.passages} == {"jan", "jun"}  # entered-in-error never shown
    collapsed = _notes(db, embedder, "p1", "amoxicillin", floor=0.3, limit=10)
    top = next(p for p in collapsed.passages if "amoxicillin" in p.text)
    assert top.meta["note_id"] == "jun" and [d.month for d in top.meta["also_dates"]] == [1]
    june = _notes(
        db, embedder, "p1", "amoxicillin", floor=0.3, since=dt.date(2023, 6, 1), until=dt.date(2023, 6, 10)
    )
    assert {p.meta["note_id"] for p in june.passages} == {"jun"}  # `until` includes that whole day


def test_unrelated_question_gets_no_note_passage(clean_db, embedder):
    db = clean_db
    with db.admin.begin() as conn:
        add_patient(conn, "p1")
        add_note(conn, "p1", "n1", NOTE)
    index_notes(db, embedder)
    assert _notes(db, embedder, "p1", "How do I renew my passport?", floor=0.3).passages == []


def test_note_index_is_resumable_and_follows_the_model(clean_db, embedder):
    db = clean_db
    with db.admin.begin() as conn:
        add_patient(conn, "p1")
        add_note(conn, "p1", "n1", NOTE)
    first = index_notes(db, embedder)
    assert (first.notes, first.patients) == (1, 1) and first.chunks >= 5
    assert index_notes(db, embedder).notes == 0  # nothing left to do
    with db.admin.begin() as conn:
        add_note(conn, "p1", "n2", NOTE.replace("bronchitis", "sinusitis"))
        conn.execute(text("UPDATE note_chunks SET embedding_model = 'old-model' WHERE note_id = 'n1'"))
    again = index_notes(db, embedder)
    assert again.notes == 2  # the new note, and the one embedded by another model
    with db.admin.connect() as conn:
        models = conn.execute(text("SELECT DISTINCT embedding_model FROM note_chunks")).scalars().all()
        seqs = conn.execute(text("SELECT count(*), count(DISTINCT (note_id, seq)) FROM note_chunks")).one()
    assert models == [embedder.model_name] and seqs[0] == seqs[1]


class CountingEmbedder:
    """The real embedder, counting the passages it is asked to embed."""

    def __init__(self, embedder):
        self.inner, self.model_name, self.embedded = embedder, embedder.model_name, []

    def embed_passages(self, texts, **kw):
        self.embedded.extend(texts)
        return self.inner.embed_passages(texts, **kw)


def test_repeated_note_text_is_embedded_once_and_stays_searchable_for_each_patient(clean_db, embedder):
    db = clean_db
    with db.admin.begin() as conn:
        for pid in ("p1", "p2"):
            add_patient(conn, pid)
            add_note(conn, pid, f"{pid}-a", NOTE, date=dt.datetime(2023, 1, 10, tzinfo=dt.UTC))
            add_note(conn, pid, f"{pid}-b", NOTE, date=dt.datetime(2023, 6, 10, tzinfo=dt.UTC))
        add_note(conn, "p2", "p2-c", NOTE.replace("bronchitis", "sinusitis"))
    counting = CountingEmbedder(embedder)
    report = index_notes(db, counting)
    with db.admin.connect() as conn:
        chunks, distinct = conn.execute(
            text("SELECT count(*), count(DISTINCT coalesce(heading_path::text, '') || text) FROM note_chunks")
        ).one()
        vectors_per_text = conn.execute(
            text(
                "SELECT count(DISTINCT embedding::text) FROM note_chunks GROUP BY text ORDER BY 1 DESC LIMIT 1"
            )
        ).scalar_one()
    assert report.chunks == chunks and len(counting.embedded) == len(set(counting.embedded)) == distinct
    assert report.embedded == distinct < chunks and vectors_per_text == 1
    for pid in ("p1", "p2"):
        found = _notes(db, embedder, pid, "amoxicillin", floor=0.3, limit=10, collapse_repeats=False)
        assert {p.meta["note_id"] for p in found.passages} >= {f"{pid}-a", f"{pid}-b"}


@pytest.mark.samples
def test_real_synthea_notes_are_sectioned_and_searchable(clean_db, embedder, samples_dir):
    db = clean_db
    bundle = next(b for b in sample_note_bundles(samples_dir) if b.name.startswith("0b7496cb"))
    with db.admin.begin() as conn:
        patient_id = load_sample_notes(conn, bundle)
    report = index_notes(db, embedder)
    assert report.notes == 10
    with db.admin.connect() as conn:
        sections = set(
            conn.execute(
                text("SELECT DISTINCT section FROM note_chunks WHERE patient_id = :p"), {"p": patient_id}
            )
            .scalars()
            .all()
        )
    assert {"Chief Complaint", "History of Present Illness", "Social History", "Medications"} <= sections
    outcome = _notes(db, embedder, patient_id, "when was my cholesterol checked", floor=0.3)
    assert outcome.passages and "lipid panel" in outcome.passages[0].text
    assert outcome.passages[0].meta["author"].startswith("Dr.")
