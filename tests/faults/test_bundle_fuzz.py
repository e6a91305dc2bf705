"""Fuzzing the bundle parser with mutated real and generated bundles (hypothesis).

Every mutated bundle either ingests — and then the database holds exactly the rows the report
counted for that patient — or is rejected with an error that names the file (and the entry,
when one is at fault) and contains no traceback; in both cases nothing else in the database
changed, and a rejected bundle left no trace at all. Mutations: a key deleted, a value
replaced by another JSON value (wrong types, NUL and control characters, huge numbers,
deep nesting), an entry duplicated, dropped or retyped, a reference bent, the file truncated
or given invalid UTF-8 bytes.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fhir_ingest.loader import ingest_paths
from tests.faults.ingest_support import bundle_patient_id, cohort, database_digest, patient_digest

FUZZ_SETTINGS = {
    "deadline": None,
    "suppress_health_check": [HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
}

json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=30),
    st.sampled_from(["", "\x00", "a\x00b", "\u202e\u200b", "2024-02-30", "urn:uuid:", "Patient/", "💉" * 50]),
)
json_value = st.recursive(
    json_leaf,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)


def _paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    """Every position inside the JSON (dict keys and list indexes), depth-first."""
    out = []
    if isinstance(node, dict):
        for key, value in node.items():
            out.append((*prefix, key))
            out.extend(_paths(value, (*prefix, key)))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            out.append((*prefix, i))
            out.extend(_paths(value, (*prefix, i)))
    return out


def _parent(doc: Any, path: tuple) -> Any:
    for step in path[:-1]:
        doc = doc[step]
    return doc


@st.composite
def mutated(draw, bundles: list[Path]) -> tuple[str, bytes, str]:
    """(source file name, mutated file bytes, what was done)."""
    source = draw(st.sampled_from(bundles), label="bundle")
    doc = json.loads(source.read_text())
    doc = copy.deepcopy(doc)
    entries = doc["entry"]
    kind = draw(
        st.sampled_from(
            [
                "delete key",
                "replace value",
                "duplicate entry",
                "drop entry",
                "retype entry",
                "bend reference",
                "truncate",
                "invalid utf-8",
                "several",
            ]
        ),
        label="mutation",
    )
    kinds = (
        [kind]
        if kind != "several"
        else draw(
            st.lists(
                st.sampled_from(["delete key", "replace value", "drop entry", "bend reference"]),
                min_size=2,
                max_size=4,
            )
        )
    )
    for k in kinds:
        if not entries:  # an earlier "drop entry" of several took the last one
            break
        index = draw(st.integers(0, len(entries) - 1), label="entry")
        entry = entries[index]
        if k in ("delete key", "replace value"):
            spots = _paths(entry)
            if not spots:  # an entry an earlier mutation of several left with no key to touch
                continue
            spot = spots[draw(st.integers(0, len(spots) - 1), label="spot")]
            parent = _parent(entry, spot)
            if k == "delete key":
                del parent[spot[-1]]
            else:
                parent[spot[-1]] = draw(json_value, label="value")
        elif k == "duplicate entry":
            entries.insert(draw(st.integers(0, len(entries))), copy.deepcopy(entry))
        elif k == "drop entry":
            entries.pop(index)
        elif k == "retype entry" and isinstance(entry.get("resource"), dict):
            entry["resource"]["resourceType"] = draw(
                st.sampled_from(["Patient", "Observation", "Encounter", "Nonsense", ""])
            )
        elif k == "bend reference":
            refs = [p for p in _paths(entry) if p[-1] == "reference"]
            if refs:
                spot = refs[draw(st.integers(0, len(refs) - 1))]
                _parent(entry, spot)[spot[-1]] = draw(
                    st.sampled_from(
                        ["urn:uuid:missing", "Patient/other", "", "Practitioner?identifier=x|y", "#"]
                    )
                )
    raw = json.dumps(doc, ensure_ascii=draw(st.booleans())).encode()
    if kind == "truncate":
        raw = raw[: draw(st.integers(0, len(raw) - 1), label="cut")]
    elif kind == "invalid utf-8":
        at = draw(st.integers(0, len(raw)), label="at")
        raw = raw[:at] + b"\xff\xfe\xc3" + raw[at:]
    return source.name, raw, "+".join(kinds)


@pytest.fixture(scope="module")
def fuzz_sources(tmp_path_factory, samples_dir_or_none):
    support, patients = cohort(tmp_path_factory.mktemp("fuzz-cohort"), patients=2, seed=9)
    real = []
    if samples_dir_or_none is not None:
        real = sorted(p for p in samples_dir_or_none.rglob("*.json") if "Information" not in p.name)[:2]
    return support, patients, real


@pytest.fixture(scope="module")
def samples_dir_or_none():
    from tests.conftest import SAMPLES_DIR

    return SAMPLES_DIR if SAMPLES_DIR.is_dir() else None


def _check(db, tmp_path: Path, name: str, raw: bytes, what: str) -> str:
    try:
        pid = bundle_patient_id(json.loads(raw))
    except (ValueError, UnicodeDecodeError, TypeError, AttributeError):
        pid = None
    before = database_digest(db, (pid,) if isinstance(pid, str) else ())
    path = tmp_path / name
    path.write_bytes(raw)
    report = ingest_paths(db, [path], force=True)  # never raises
    (outcome,) = report.files
    assert outcome.status in ("ingested", "replaced", "unchanged", "failed"), what
    if outcome.failed:
        assert outcome.error and name in outcome.error, (what, outcome.error)
        assert "Traceback" not in outcome.error and "psycopg" not in outcome.error, (what, outcome.error)
        after = database_digest(db, (pid,) if isinstance(pid, str) else ())
        assert after == before, what  # a rejected bundle left no trace
        return "failed"
    # ingested: the database holds exactly what the report counted for that patient, and
    # every other patient is untouched
    assert outcome.patient_id, what
    stored = {t: n for t, (n, _) in patient_digest(db, outcome.patient_id).items() if n}
    assert {t: n for t, n in stored.items() if t in outcome.counts} == {
        t: n for t, n in outcome.counts.items() if n
    }, what
    after = database_digest(db, (outcome.patient_id,))
    for key, value in before.items():
        if key not in (outcome.patient_id, "source_files", "organizations", "locations", "practitioners"):
            assert after.get(key) == value, (what, key)
    return "ingested"


def _fuzz(db, tmp_path, sources, examples: int) -> None:
    support, patients, real = sources
    report = ingest_paths(db, support)
    assert report.ok
    outcomes: dict[str, int] = {}

    @settings(max_examples=examples, **FUZZ_SETTINGS)
    @given(case=mutated([*patients, *real]))
    def run(case):
        name, raw, what = case
        result = _check(db, tmp_path, name, raw, what)
        outcomes[result] = outcomes.get(result, 0) + 1

    run()
    # the mutations exercised both ways out (a fuzzer that only ever hit one proves less)
    assert outcomes.get("failed", 0) > 0 and outcomes.get("ingested", 0) > 0, outcomes


def test_mutated_bundles_ingest_whole_or_are_refused_clearly(clean_db, tmp_path, fuzz_sources):
    _fuzz(clean_db, tmp_path, fuzz_sources, examples=60)


@pytest.mark.slow
def test_mutated_bundles_long_run(clean_db, tmp_path, fuzz_sources):
    _fuzz(clean_db, tmp_path, fuzz_sources, examples=600)
