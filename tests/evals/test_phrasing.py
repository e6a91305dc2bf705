"""Phrase banks: at least five wordings per template and role, families covered, a frozen test
bank the answerer never sees, typos that keep the names we ask about."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evals.questions.phrasing import FAMILIES, choose, fill, frozen_fragments, load_bank, typo

ROOT = Path(__file__).resolve().parents[2]
SLOTS = {
    "thing": "HbA1c",
    "year": "2025",
    "relyear": "last year",
    "cutoff": "2025-12-01",
    "window": "in the last 6 months",
    "name": "Ann Hardcase",
    "dob": "1970-02-03",
}


def test_every_template_has_five_phrasings_per_role_in_several_families():
    bank = load_bank("dev")
    assert len(bank) >= 35
    for template, roles in bank.items():
        for role in ("patient", "clinician"):
            families = roles[role]
            phrasings = {p for ps in families.values() for p in ps}
            assert len(phrasings) >= 5, (template, role)
            assert {"plain", "pronoun", "lay"} <= set(families), (template, role)


def test_the_test_bank_covers_the_same_templates_with_other_words():
    dev, test = load_bank("dev"), load_bank("test")
    assert set(test) == set(dev)
    dev_texts = {p for roles in dev.values() for fam in roles.values() for ps in fam.values() for p in ps}
    test_texts = {p for roles in test.values() for fam in roles.values() for ps in fam.values() for p in ps}
    assert not dev_texts & test_texts


def test_no_answerer_file_contains_a_test_bank_phrasing():
    """The frozen test bank stays frozen: nothing under agent/ or tools/ may be tuned on it."""
    fragments = frozen_fragments()
    assert len(fragments) > 50
    offenders = []
    for folder in ("agent", "tools"):
        for path in (ROOT / folder).rglob("*"):
            if path.is_file() and path.suffix in (".py", ".yaml", ".yml", ".json", ".txt", ".md", ".jsonl"):
                text = path.read_text(encoding="utf-8", errors="ignore").lower()
                offenders += [f"{path.relative_to(ROOT)}: {f!r}" for f in fragments if f in text]
    assert not offenders, offenders[:5]


def test_a_missing_slot_drops_the_phrasing():
    assert fill("Which vaccines did I get {relyear}?", {"year": "2019"}) is None
    assert (
        fill("Which vaccines did I get in {year}?", {"year": "2019"}) == "Which vaccines did I get in 2019?"
    )


@given(st.integers(min_value=0, max_value=10_000))
def test_a_typo_keeps_the_name_asked_about(seed):
    text = "What was my most recent hemoglobin measurement?"
    slipped = typo(text, random.Random(seed), keep=("hemoglobin",))
    assert "hemoglobin" in slipped and slipped != text and len(slipped) in (len(text), len(text) + 1)


def test_choices_spread_over_families_and_banks():
    seen = {choose("latest_value", "patient", SLOTS, random.Random(i), "x") for i in range(400)}
    assert {p.family for p in seen} >= {"plain", "pronoun", "lay", "typo"}
    assert {p.bank for p in seen} == {"dev", "test"}
    assert all(p.family in FAMILIES for p in seen)


@pytest.mark.parametrize("bank", ["dev", "test"])
def test_banks_load_and_fill(bank):
    for template, roles in load_bank(bank).items():
        for role, families in roles.items():
            for phrasings in families.values():
                assert any(fill(p, SLOTS) for p in phrasings), (bank, template, role)
