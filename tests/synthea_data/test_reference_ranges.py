"""Real Synthea never writes lab reference ranges or interpretation flags; by default neither
does the generator (only the hard case built around a range crossing, and an explicit option)."""

from __future__ import annotations

import json
from pathlib import Path

from synthea_data.generator import generate_cohort
from synthea_data.hard_cases import load_manifest


def _ranged_patients(folder: Path) -> dict[str, int]:
    """Bundle file → how many Observations carry a referenceRange or interpretation."""
    out = {}
    for path in sorted(folder.glob("*.json")):
        bundle = json.loads(path.read_text())
        if bundle.get("resourceType") != "Bundle":
            continue
        resources = [e["resource"] for e in bundle.get("entry", [])]
        if not any(r.get("resourceType") == "Patient" for r in resources):
            continue
        out[path.name] = sum(
            1
            for r in resources
            if r.get("resourceType") == "Observation" and ("referenceRange" in r or "interpretation" in r)
        )
    return out


def test_default_cohort_writes_ranges_only_for_the_range_crossing_hard_case(tmp_path):
    folder = tmp_path / "cohort"
    generate_cohort(folder, patients=6, seed=3)
    manifest = load_manifest(folder)
    crossing = {case["file"] for case in manifest["hard_cases"] if case["key"] == "lab_crosses_reference_range"}
    ranged = _ranged_patients(folder)
    assert ranged, "no patient bundles were read"
    for name, count in ranged.items():
        if name not in crossing:
            assert count == 0, f"{name} carries {count} invented reference ranges"


def test_the_option_writes_ranges_for_every_patient_with_labs(tmp_path):
    folder = tmp_path / "cohort"
    generate_cohort(folder, patients=3, seed=3, reference_ranges=True)
    assert sum(_ranged_patients(folder).values()) > 0
