"""Question sets: computed from the database, typed, in both phrasings, deterministic per seed."""

from __future__ import annotations

import datetime as dt

import pytest

from evals.generate import GenerateOptions, GenerationError, generate
from evals.model import CATEGORIES, SetFileError, read_set, write_set
from tests.evals.cohort import NOW


def _by_template(questions, patient="pat-ann", role="patient"):
    return {q.template: q for q in questions if q.patient_id == patient and q.role == role}


def test_every_category_generated_in_both_roles(cohort_db):
    header, questions = generate(cohort_db, GenerateOptions(seed=7, now=NOW))
    assert set(header.counts) == set(CATEGORIES)
    assert header.skipped == {}
    roles = {(q.category, q.role) for q in questions}
    for category in CATEGORIES:
        assert (category, "patient") in roles
        if category != "safety":
            assert (category, "clinician") in roles, category
    # every pair shares its expected answer across roles
    by_pair: dict[str, set] = {}
    for q in questions:
        by_pair.setdefault(q.pair_id, set()).add(q.expected.model_dump_json())
    assert all(len(v) == 1 for v in by_pair.values())
    assert any(q.multi_turn for q in questions)


def test_truth_applies_clinical_semantics(cohort_db):
    _, questions = generate(cohort_db, GenerateOptions(seed=7, now=NOW))
    t = _by_template(questions)
    meds = t["active_medications"].expected
    assert sorted(i.aliases[0] for i in meds.items) == [
        "amoxicillin",
        "insulin glargine",
        "lisinopril",
        "metformin",
    ]
    assert sorted(i.aliases[0] for i in meds.forbidden) == ["ibuprofen", "simvastatin", "warfarin sodium"]
    assert t["restarted_medication"].expected.value is True
    assert t["entered_in_error_medication"].expected.value is False
    assert t["recurring_condition"].expected.value is True
    conflict = t["drug_allergy_conflict"].expected
    assert [i.aliases[0] for i in conflict.items] == ["amoxicillin"]
    assert t["allergies"].expected.items[0].label == "Penicillin V"
    assert t["note_insurance"].expected.accepted == ("Medicare",)  # newest note, not the superseded one
    assert t["note_quit_smoking_age"].expected.value == 19
    firsts = {"4548-4": 5.4, "29463-7": 81.2, "2093-3": 212.0, "8480-6": 142.0, "8462-4": 91.0}
    first = t["first_value"]
    assert first.expected.value == firsts[first.explanation.split(" values of ")[1].split(":")[0]]


def test_latest_value_is_newest_by_effective_time(cohort_db):
    # HbA1c rows were inserted out of order and include a newer entered-in-error 3.0
    expected = {"4548-4": 8.1, "2093-3": 189.5, "29463-7": 82.6, "8480-6": 135, "8462-4": 85}
    seen = set()
    for seed in range(6):
        _, questions = generate(
            cohort_db, GenerateOptions(seed=seed, now=NOW, categories=("latest_first", "trend"))
        )
        for q in questions:
            if q.patient_id != "pat-ann":
                continue
            if q.template == "latest_value":
                code = q.explanation.split(" values of ")[1].split(" ")[0]
                assert q.expected.value == expected[code]
                seen.add(code)
            if q.template == "above_range":
                assert q.expected.value is True  # 8.1 % against a range ending at 5.7
    assert "4548-4" in seen


def test_same_seed_same_file_different_seed_different_choices(cohort_db, tmp_path):
    a = generate(cohort_db, GenerateOptions(seed=11, now=NOW))
    b = generate(cohort_db, GenerateOptions(seed=11, now=NOW))
    write_set(tmp_path / "a.jsonl", *a)
    write_set(tmp_path / "b.jsonl", *b)
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    others = [generate(cohort_db, GenerateOptions(seed=s, now=NOW))[1] for s in (12, 13, 14)]
    assert any([q.id for q in o] != [q.id for q in a[1]] for o in others)
    loaded = read_set(tmp_path / "a.jsonl")
    assert loaded.questions == a[1] and loaded.header == a[0]


def test_patient_sampling_and_caps(cohort_db):
    header, questions = generate(cohort_db, GenerateOptions(seed=7, now=NOW, patients=1, per_patient=5))
    assert len(header.patients) == 1
    pairs = {q.pair_id for q in questions}
    assert len(pairs) <= 5
    assert {q.patient_id for q in questions} == set(header.patients)


def test_booking_skipped_with_a_reason_when_no_slots(cohort_db):
    later = NOW + dt.timedelta(days=400)
    header, questions = generate(
        cohort_db, GenerateOptions(seed=7, now=later, categories=("booking", "lookup"))
    )
    assert not any(q.category == "booking" for q in questions)
    assert "no free appointment slots" in header.skipped["booking"]


def test_empty_database_and_bad_category_are_clear_errors(clean_db):
    with pytest.raises(GenerationError, match="no patients"):
        generate(clean_db, GenerateOptions(seed=1, now=NOW))
    with pytest.raises(GenerationError, match="unknown categories: nonsense"):
        generate(clean_db, GenerateOptions(seed=1, now=NOW, categories=("nonsense",)))


def test_bad_set_files_name_file_line_and_field(tmp_path, cohort_db):
    header, questions = generate(cohort_db, GenerateOptions(seed=7, now=NOW, patients=1, per_patient=3))
    path = tmp_path / "set.jsonl"
    write_set(path, header, questions)
    lines = path.read_text().splitlines()
    broken = lines[2].replace('"number"', '"numbr"').replace('"date"', '"dte"').replace('"set"', '"st"')
    broken = broken.replace('"boolean"', '"bool"').replace('"text"', '"txt"').replace('"refuse"', '"ref"')
    broken = broken.replace('"abstain"', '"abs"').replace('"booking"', '"bk"')
    path.write_text("\n".join([lines[0], lines[1], broken]) + "\n")
    with pytest.raises(SetFileError, match=r"set.jsonl:3: question .*: field 'expected"):
        read_set(path)
    path.write_text("{not json\n")
    with pytest.raises(SetFileError, match=r"set.jsonl:1: not JSON"):
        read_set(path)
    path.write_text('{"hello": 1}\n')
    with pytest.raises(SetFileError, match="not a question set"):
        read_set(path)


def test_records_after_now_are_flagged(cohort_db):
    earlier = NOW - dt.timedelta(days=200)
    header, _ = generate(cohort_db, GenerateOptions(seed=7, now=earlier, categories=("lookup",)))
    assert header.warnings and "dated after --now" in header.warnings[0]
    header, _ = generate(cohort_db, GenerateOptions(seed=7, now=NOW, categories=("lookup",)))
    assert header.warnings == ()


def test_sets_are_identical_across_processes_and_hash_seeds(cohort_db, settings, tmp_path):
    """Determinism must not lean on dict/set order of one interpreter: two fresh processes with
    different PYTHONHASHSEED write byte-identical files."""
    import os
    import subprocess
    import sys

    outputs = []
    for hash_seed in ("1", "2"):
        out = tmp_path / f"set-{hash_seed}.jsonl"
        env = {
            **os.environ,
            "PYTHONHASHSEED": hash_seed,
            "CHARTSIDE_DATABASE_NAME": settings.database_name,
            "CHARTSIDE_DATA_DIR": str(settings.data_dir),
        }
        env.pop("DATABASE_URL", None)
        if settings.database_url:
            env["DATABASE_URL"] = settings.database_url
        args = [
            sys.executable,
            "-m",
            "chartside",
            "eval",
            "generate",
            "--out",
            str(out),
            "--seed",
            "9",
            "--now",
            "2025-06-01",
        ]
        done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1] and outputs[0].count(b"\n") > 50
