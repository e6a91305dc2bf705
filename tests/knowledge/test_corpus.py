"""The shipped leaflet corpus and the labelled retrieval questions agree with each other."""

from __future__ import annotations

import re

from knowledge.chunking import chunk_blocks
from knowledge.leaflet_store import SHIPPED_LEAFLETS, find_files, slug_for
from knowledge.loaders import load_document
from knowledge.retrieval_eval import load_questions

REQUIRED_TOPICS = [
    "type-2-diabetes",
    "high-blood-pressure",
    "high-cholesterol",
    "asthma",
    "copd",
    "chronic-kidney-disease",
    "statins",
    "metformin",
    "ace-inhibitors",
    "using-your-inhaler",
    "antibiotics",
    "anticoagulants",
    "hba1c-test",
    "lipid-panel",
    "blood-tests-and-fasting",
    "colonoscopy-preparation",
    "mri-scan",
    "flu-vaccine",
    "tetanus-tdap-vaccine",
    "covid-19-vaccine",
    "booking-appointments",
    "cancelling-appointments",
    "visiting-hours",
    "parking-and-getting-here",
    "pharmacy",
    "medical-records",
    "emergency-department",
]


def test_corpus_has_every_topic_and_complete_front_matter():
    files = find_files(SHIPPED_LEAFLETS)
    assert len(files) >= 30
    slugs = {slug_for(p) for p in files}
    assert set(REQUIRED_TOPICS) <= slugs
    for path in files:
        document = load_document(path)
        meta = document.meta
        assert meta.title and meta.category and meta.reviewed and meta.contact, path.name
        assert re.search(r"555-01\d\d", meta.contact), (
            f"{path.name}: contact needs a (fictional) phone number"
        )
        assert len(chunk_blocks(document.blocks)) >= 2, path.name


def test_phone_numbers_are_fictional_555_01xx():
    for path in find_files(SHIPPED_LEAFLETS):
        text = path.read_text(encoding="utf-8")
        for number in re.findall(r"\b\d{3}[-.\s]\d{4}\b", text):
            assert number.startswith("555-01"), f"{path.name}: {number} is not a fictional number"


def test_labelled_questions_point_at_phrases_that_exist():
    questions = load_questions()
    answerable = [q for q in questions if q.answerable]
    assert len(questions) >= 50 and len(questions) - len(answerable) >= 10
    texts = {slug_for(p): p.read_text(encoding="utf-8").casefold() for p in find_files(SHIPPED_LEAFLETS)}
    for q in answerable:
        assert q.expect in texts, q.question
        flat = " ".join(texts[q.expect].replace("**", "").split())
        assert q.phrase.casefold() in flat, f"{q.question!r}: {q.phrase!r} is not in {q.expect}"
