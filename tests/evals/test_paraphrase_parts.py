"""Held-out paraphrase parts are found on disk: a new `frozen<N>.py` is measured with no edit."""

from __future__ import annotations

from pathlib import Path

import pytest

from evals.paraphrase.grade import Grade
from evals.paraphrase.parts import HeldOutPartError, held_out_parts
from evals.paraphrase.run import Outcome, Summary
from evals.paraphrase.suite import BANKS, HELD_OUT, Fact, Question

_HEADER = "from evals.paraphrase.templates import Templates\n\n"


def _write(folder: Path, stem: str, attr: str, template: str) -> None:
    body = f'{attr}: Templates = {{"med_active": (("plain", "{template}"),)}}\n'
    (folder / f"{stem}.py").write_text(_HEADER + body, encoding="utf-8")


def test_a_new_frozen_module_becomes_its_own_part_in_numeric_order(tmp_path):
    _write(tmp_path, "frozen", "FROZEN", "one {x}?")
    _write(tmp_path, "frozen10", "FROZEN10", "ten {x}?")
    _write(tmp_path, "frozen3", "FROZEN3", "three {x}?")
    (tmp_path / "frozen_notes.txt").write_text("not a part", encoding="utf-8")
    parts = held_out_parts(tmp_path, package="heldout_probe")
    assert list(parts) == ["frozen", "frozen3", "frozen10"]
    assert parts["frozen3"]["med_active"] == (("plain", "three {x}?"),)


def test_a_module_without_its_mapping_is_named_in_the_error(tmp_path):
    _write(tmp_path, "frozen4", "FROZEN", "misnamed {x}?")
    with pytest.raises(HeldOutPartError, match=r"frozen4\.py: must define FROZEN4"):
        held_out_parts(tmp_path, package="heldout_probe_bad")


def test_the_repository_parts_are_discovered_and_all_includes_them():
    from evals.paraphrase.cli import PARTS

    assert {"frozen", "frozen2"} <= set(HELD_OUT)
    assert not {"tune", "tune5"} & set(HELD_OUT)
    assert PARTS["all"] == tuple(BANKS)
    assert all(PARTS[name] == (name,) for name in HELD_OUT)


def _outcome(correct: bool, gate: str | None) -> Outcome:
    fact = Fact("f", "p", "patient", "med_active", "metformin", True)
    verdict = "yes" if correct else "unclear"
    return Outcome(Question(fact, "tune", "plain", "q"), "a", Grade(verdict, correct, False), 1.0, (), gate)


def test_misses_are_split_into_the_gates_and_the_planners():
    outcomes = [
        _outcome(True, None),
        _outcome(False, "clinical_advice"),
        _outcome(False, None),
        _outcome(False, None),
    ]
    assert [o.cause for o in outcomes] == [None, "gate", "planner", "planner"]
    assert Summary.misses(outcomes) == (1, 2)
    row = Summary(outcomes).table("family")[0]
    assert row[-2:] == (1, 2)


def _worded(fact_id: str, template: str, verdict: str, correct: bool, gate: str | None = None) -> Outcome:
    fact = Fact(fact_id, "p1", "patient", "med_active", "metformin", True)
    question = Question(fact, "tune", "lay", f"q {template}", f"tune:med_active#{template}")
    return Outcome(question, "a", Grade(verdict, correct, False), 1.0, (), gate)


def test_consistency_splits_name_the_minority_template_and_what_it_answered():
    outcomes = [
        # fact f1: templates 0 and 1 right, template 2 unclear → 2 in the minority
        _worded("f1", "0", "yes", True), _worded("f1", "1", "yes", True), _worded("f1", "2", "unclear", False),
        # fact f2: template 2 refused by the gate, template 3 said no
        _worded("f2", "0", "yes", True), _worded("f2", "1", "yes", True), _worded("f2", "2", "empty", False, "advice"),
        _worded("f2", "3", "no", False),
        # fact f3: every wording alike: no split
        _worded("f3", "0", "yes", True), _worded("f3", "2", "yes", True),
    ]  # fmt: skip
    splits = {s.template: s for s in Summary(outcomes).splits()}
    assert set(splits) == {"tune:med_active#2", "tune:med_active#3"}
    two = splits["tune:med_active#2"]
    assert (two.facts, two.majority, two.answers) == (2, "correct", {"unclear": 1, "gate:advice": 1})
    assert splits["tune:med_active#3"].answers == {"no": 1}
