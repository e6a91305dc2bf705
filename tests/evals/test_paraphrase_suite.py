"""The paraphrase suite's shape: five or more wordings per fact, held-out parts kept apart."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from evals.paraphrase.suite import BANKS, HELD_OUT, Fact, questions_of

ROOT = Path(__file__).resolve().parents[2]
_SLOT = re.compile(r"\{[^}]*\}")


def _texts(part: str) -> set[str]:
    return {template for entries in BANKS[part].values() for _, template in entries}


@pytest.mark.parametrize("kind", sorted(BANKS["tune"]))
@pytest.mark.parametrize("role,gender", [("patient", "female"), ("clinician", "male")])
def test_every_fact_kind_is_asked_at_least_five_ways_in_each_role(kind, role, gender):
    fact = Fact("f", "p", role, kind, "metformin", True)
    questions = questions_of(fact, gender, tuple(BANKS))
    texts = [q.text for q in questions]
    assert len(set(texts)) >= 5
    assert not [t for t in texts if "{" in t or "}" in t], "every slot is filled"
    # capitalised as written; a clinician's shorthand may open with a sign ("? known X — on pt's …")
    assert not [t for t in texts if t[0].islower()]


def test_the_held_out_parts_share_no_wording_with_the_tuning_part():
    tune = {t for part in BANKS if part not in HELD_OUT for t in _texts(part)}
    for part in HELD_OUT:
        assert not _texts(part) & tune, part
    for n, part in enumerate(HELD_OUT):
        for other in HELD_OUT[n + 1 :]:
            assert not _texts(part) & _texts(other), (part, other)


def test_no_answerer_file_contains_a_held_out_paraphrase():
    """The held-out parts stay held out: no piece of their wording under agent/ or tools/."""
    fragments = {
        piece.strip(" ?.,:-").lower()
        for part in HELD_OUT
        for text in _texts(part)
        for piece in _SLOT.split(text)
        if len(piece.strip(" ?.,:-")) >= 12
    }
    assert len(fragments) > 10
    offenders = []
    for folder in ("agent", "tools"):
        for path in (ROOT / folder).rglob("*"):
            if path.is_file() and path.suffix in (".py", ".yaml", ".yml", ".json", ".txt"):
                text = path.read_text(encoding="utf-8", errors="ignore").lower()
                offenders += [f"{path.relative_to(ROOT)}: {f!r}" for f in fragments if f in text]
    assert not offenders, offenders[:5]
