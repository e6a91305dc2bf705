"""A small generated cohort shared by the synthea_data tests (generated once per session)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import orjson
import pytest

from synthea_data.generator import generate_cohort
from synthea_data.hard_cases import SCENARIO_PATIENTS, load_manifest

COHORT_SEED = 1
COHORT_PATIENTS = SCENARIO_PATIENTS + 4  # every scenario patient plus a few ordinary ones


@dataclass
class Cohort:
    folder: Path
    manifest: dict
    patients: dict[str, dict]  # file name -> bundle
    hospital: dict
    practitioners: dict

    def bundle_of(self, patient_index: int) -> dict:
        return self.patients[self.manifest["patient_files"][patient_index]["file"]]

    def resources(self, resource_type: str | None = None):
        for bundle in self.patients.values():
            for entry in bundle["entry"]:
                if resource_type is None or entry["resource"]["resourceType"] == resource_type:
                    yield entry["resource"]


def load_cohort(folder: Path) -> Cohort:
    manifest = load_manifest(folder)
    hospital_name, practitioner_name = manifest["support_bundles"]
    return Cohort(
        folder=folder,
        manifest=manifest,
        patients={
            p["file"]: orjson.loads((folder / p["file"]).read_bytes()) for p in manifest["patient_files"]
        },
        hospital=orjson.loads((folder / hospital_name).read_bytes()),
        practitioners=orjson.loads((folder / practitioner_name).read_bytes()),
    )


@pytest.fixture(scope="session")
def cohort_dir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("synthea") / "cohort"
    # with the test-only reference ranges, so the interpretation flags can be checked too
    generate_cohort(folder, patients=COHORT_PATIENTS, seed=COHORT_SEED, reference_ranges=True)
    return folder


@pytest.fixture(scope="session")
def cohort(cohort_dir: Path) -> Cohort:
    return load_cohort(cohort_dir)
