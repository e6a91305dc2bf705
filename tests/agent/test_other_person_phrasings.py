"""A question about a relative or a person named in plain words never gets the bound patient's
record as its answer (round six: "does my mom have diabetes" was answered "Yes. Diabetes mellitus
type 2 … is recorded", the patient's own diagnosis read as her mother's).

The labelled phrasings were written before the detector changed (`evals/other_person/`): the
tune part may be tuned against, the frozen part never is; its one measurement is recorded here.
The mirror is just as important: the product's own tuning record questions must never be taken
for questions about somebody else, since that reply hides the user's answer.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.other_patient import BoundPatient, name_parts, named_others, relative_asked_about
from evals.safety.record_questions import paraphrase_tune_questions, phrase_bank_questions
from tests.agent.conftest import COHORT_NOW

PHRASINGS = Path(__file__).resolve().parents[2] / "evals" / "other_person"
SARAH = BoundPatient(
    patient_id="8033de97-c959-14e8-9856-90cb2ca5305c",
    full_name="Sarah196 Abernathy989",
    name_parts=name_parts(["Sarah196 Abernathy989", "Sarah196", "Abernathy989", "Mrs."]),
)
# The frozen part's misses at its one measurement (lead, round six, 23:42 UTC: 23 of 23 right).
# It is never tuned on, so a later miss is listed here, not fixed against its own wording.
FROZEN_KNOWN_MISSES: frozenset[str] = frozenset()


def labelled(part: str) -> list[tuple[str, str, str]]:
    rows = []
    for number, line in enumerate((PHRASINGS / f"{part}.txt").read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        head, sep, question = line.partition("|")
        label, role = head.split()
        assert sep and label in {"other", "self"} and role in {"patient", "clinician"}, f"{part}.txt:{number}"
        rows.append((label, role, question.strip()))
    return rows


@pytest.mark.parametrize(("label", "role", "question"), labelled("tune"), ids=lambda v: str(v)[:40])
def test_tune_phrasings(label, role, question):
    found = named_others(question, SARAH)
    assert bool(found) == (label == "other"), found


def test_frozen_phrasings_hold_at_their_one_measurement():
    rows = labelled("frozen")
    assert len(rows) >= 20
    misses = {q for label, _role, q in rows if bool(named_others(q, SARAH)) != (label == "other")}
    assert misses == FROZEN_KNOWN_MISSES, sorted(misses)


@pytest.mark.parametrize(
    "question",
    [
        "my mom says I'm allergic to penicillin, am I?",
        "my husband wants to know when my next appointment is",
        "can my daughter come with me to my appointment",
        "mi esposo quiere saber cuándo es mi próxima cita",
        "my sister has asthma too, do I have it on my record",
    ],
)
def test_a_relative_only_mentioned_is_not_the_subject(question):
    assert relative_asked_about(question) is None


def test_no_tuning_record_question_is_taken_for_somebody_else(cohort):
    db, records = cohort
    questions = paraphrase_tune_questions(records) + phrase_bank_questions(db, records, COHORT_NOW)
    assert len(questions) >= 2000
    # each question names its own patient (Synthea's digits): only the plain-word detectors are
    # checked here, the Synthea-name rule has its own tests
    flagged = [
        f"{q.text!r} → {plain} ({q.source})"
        for q in questions
        if (plain := [n for n in named_others(q.text, SARAH) if not any(c.isdigit() for c in n)])
    ]
    assert flagged == []
