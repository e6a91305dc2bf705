"""Coded values are real: every SNOMED CT / RxNorm / LOINC / CVX / CDC-race coding the generator
writes is in `synthea_data.codes.TABLE` with the same system and display, and the table's
`sample` codes really occur in real Synthea output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from synthea_data import codes

from .conftest import Cohort
from .fhir_walk import codings

# Systems the generator uses beyond the checked terminologies, all taken from real Synthea files,
# plus the two it adds on purpose (lab interpretation flags, the reason a vaccine was not given).
EXTRA_SYSTEMS_NOT_IN_SAMPLES = {
    "http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation",
    "http://terminology.hl7.org/CodeSystem/v3-ActReason",
}


def _all_generated_codings(cohort: Cohort):
    for name, bundle in [
        *list(cohort.patients.items()),
        ("hospital", cohort.hospital),
        ("practitioners", cohort.practitioners),
    ]:
        for entry in bundle["entry"]:
            for path, coding in codings(entry["resource"], entry["resource"]["resourceType"]):
                yield name, path, coding


def test_every_checked_coding_is_in_the_code_table_with_its_display(cohort: Cohort) -> None:
    problems, seen = [], set()
    for name, path, coding in _all_generated_codings(cohort):
        if coding["system"] not in codes.CHECKED_SYSTEMS:
            continue
        entry = codes.lookup(coding["system"], coding["code"])
        seen.add((coding["system"], coding["code"]))
        if entry is None:
            problems.append(f"{name} {path}: {coding['system']}|{coding['code']} is not in the code table")
        elif coding.get("display") != entry.display:
            problems.append(f"{name} {path}: display {coding.get('display')!r} != table {entry.display!r}")
    assert not problems, "\n".join(problems[:10])
    systems = {system for system, _ in seen}
    assert set(codes.CHECKED_SYSTEMS) <= systems, "each checked terminology should be exercised by the cohort"


def test_code_text_matches_its_coding(cohort: Cohort) -> None:
    """Synthea writes CodeableConcept.text = the coding's display; tools may show either."""
    for resource in cohort.resources():
        for key in ("code", "vaccineCode", "medicationCodeableConcept"):
            concept = resource.get(key)
            if isinstance(concept, dict) and "text" in concept:
                assert concept["text"] == concept["coding"][0]["display"]


def test_the_code_table_has_no_conflicting_entries() -> None:
    for (system, code), entry in codes.TABLE.items():
        assert entry.system == system and entry.code == code
        assert entry.display.strip() == entry.display and entry.display
        assert entry.source in ("sample", "synthea", "standard")
    with pytest.raises(ValueError):
        codes.sct("44054006", "Something else entirely")


def _sample_codes(samples_dir: Path) -> tuple[set[tuple[str, str]], set[str]]:
    found, systems = set(), set()
    for path in samples_dir.glob("*/*.json"):
        for _, coding in codings(json.loads(path.read_text(encoding="utf-8"))):
            found.add((coding["system"], coding["code"]))
            systems.add(coding["system"])
    return found, systems


@pytest.mark.samples
def test_table_codes_marked_sample_occur_in_real_synthea_output(samples_dir: Path) -> None:
    found, _ = _sample_codes(samples_dir)
    missing = [
        f"{c.system}|{c.code} {c.display}"
        for c in codes.TABLE.values()
        if c.source == "sample" and (c.system, c.code) not in found
    ]
    assert not missing, "marked 'sample' but absent from ../shared/synthea-samples:\n" + "\n".join(missing)


@pytest.mark.samples
def test_generated_data_uses_only_coding_systems_real_synthea_uses(cohort: Cohort, samples_dir: Path) -> None:
    _, real_systems = _sample_codes(samples_dir)
    generated = {coding["system"] for _, _, coding in _all_generated_codings(cohort)}
    unexpected = generated - real_systems - EXTRA_SYSTEMS_NOT_IN_SAMPLES
    assert not unexpected, f"coding systems real Synthea never writes: {sorted(unexpected)}"
