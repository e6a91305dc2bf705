"""The frozen hospital-information questions: well formed, enough of them, never tuned on."""

from __future__ import annotations

from pathlib import Path

import pytest

from evals.paraphrase.hospital import PARTS, HospitalQuestionsError, load_questions

ROOT = Path(__file__).resolve().parents[2]


def test_both_parts_load_and_the_main_part_has_at_least_31_questions():
    main, holdout = load_questions(PARTS["main"]), load_questions(PARTS["holdout"])
    assert len(main) >= 31 and len(holdout) >= 10
    texts = [q.text for q in (*main, *holdout)]
    assert len(set(texts)) == len(texts)


def test_no_answerer_file_contains_a_hospital_question():
    """Frozen: the planner's rules may not quote them (they measure routing, not recall)."""
    questions = [q.text.lower() for part in PARTS.values() for q in load_questions(part)]
    offenders = []
    for folder in ("agent", "tools"):
        for path in (ROOT / folder).rglob("*"):
            if path.is_file() and path.suffix in (".py", ".yaml", ".yml", ".json", ".txt", ".md"):
                text = path.read_text(encoding="utf-8", errors="ignore").lower()
                offenders += [f"{path.relative_to(ROOT)}: {q!r}" for q in questions if q in text]
    assert not offenders, offenders[:5]


def test_a_malformed_file_is_refused_naming_the_entry(tmp_path):
    bad = tmp_path / "q.yaml"
    bad.write_text(
        "format: chartside.hospital-questions/1\nquestions:\n  - {topic: x, q: ok}\n  - {topic: y}\n"
    )
    with pytest.raises(HospitalQuestionsError, match="question 2: field 'q'"):
        load_questions(bad)
    bad.write_text("format: other\nquestions: []\n")
    with pytest.raises(HospitalQuestionsError, match="'format'"):
        load_questions(bad)
