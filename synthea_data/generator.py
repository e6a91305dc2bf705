"""Generate a cohort folder that looks like real Synthea output.

`generate_cohort` writes N patient bundles named like Synthea's
(`Given123_Family456_<uuid>.json`), the two support bundles (`hospitalInformation<seed>.json`,
`practitionerInformation<seed>.json`) and `cohort.manifest` (which patient carries which hard
case). Same seed, same patient count, same reference day: byte-identical files.

The folder is never left half-written: files are generated into a hidden sibling folder and
moved into place only once all of them exist. An existing cohort is replaced only when asked
(`overwrite=True`), and only if every file there was written by this generator.
"""

from __future__ import annotations

import datetime as dt
import shutil
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import orjson

from synthea_data.clock import REFERENCE_TODAY
from synthea_data.fhir_resources import BundleWriter
from synthea_data.hard_cases import HARD_CASES, MANIFEST_NAME
from synthea_data.model import PatientRecord, Person
from synthea_data.providers import Network, Utilization
from synthea_data.simulate import PatientSimulator

MANIFEST_FORMAT = 1


class GeneratorError(Exception):
    """A cohort cannot be generated as asked (bad arguments or an unsafe output folder)."""


@dataclass
class GeneratedPatient:
    record: PatientRecord
    bundle: dict
    file_name: str


def dumps(document: dict) -> bytes:
    """Pretty-printed UTF-8 JSON (non-ASCII letters kept as they are, as Synthea writes them)."""
    return orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n"


def bundle_file_name(person: Person) -> str:
    """Synthea's naming: first given name, family name, patient id (apostrophes included)."""
    name = f"{person.given[0]}_{person.family}_{person.id}.json"
    return name.replace("/", "_")


def support_file_names(seed: int) -> tuple[str, str]:
    return f"hospitalInformation{seed}.json", f"practitionerInformation{seed}.json"


def generate_patient(
    seed: int,
    index: int,
    network: Network,
    today: dt.date = REFERENCE_TODAY,
    *,
    reference_ranges: bool = False,
) -> tuple[GeneratedPatient, Utilization]:
    """One patient of a cohort: independent of every other index, so any patient can be rebuilt alone.

    `reference_ranges` writes lab reference ranges and interpretation flags, which real Synthea
    never does (for tests that need them)."""
    record, usage = PatientSimulator(seed, index, network, today).run()
    bundle = BundleWriter(record, today, reference_ranges=reference_ranges).bundle()
    return GeneratedPatient(record, bundle, bundle_file_name(record.person)), usage


def _existing_cohort_files(out_dir: Path, overwrite: bool) -> list[Path]:
    """Files of a previous cohort to replace; refuses anything this generator did not write."""
    if not out_dir.exists():
        return []
    if not out_dir.is_dir():
        raise GeneratorError(f"{out_dir} exists and is not a folder")
    existing = sorted(
        p for p in out_dir.iterdir() if p.is_file() and (p.suffix == ".json" or p.name == MANIFEST_NAME)
    )
    if not existing:
        return []
    if not overwrite:
        raise GeneratorError(
            f"{out_dir} already holds {len(existing)} cohort file(s); use an empty folder, "
            "or --force to replace a cohort this generator wrote there"
        )
    manifest_path = out_dir / MANIFEST_NAME
    if not manifest_path.exists():
        raise GeneratorError(
            f"{out_dir} holds JSON files but no {MANIFEST_NAME}: not a generated cohort, refusing to replace it"
        )
    try:
        manifest = orjson.loads(manifest_path.read_bytes())
        ours = (
            set(manifest["support_bundles"])
            | {p["file"] for p in manifest["patient_files"]}
            | {MANIFEST_NAME}
        )
    except (orjson.JSONDecodeError, KeyError, TypeError) as exc:
        raise GeneratorError(
            f"{manifest_path} is unreadable ({exc}); refusing to replace the folder"
        ) from exc
    foreign = [p.name for p in existing if p.name not in ours]
    if foreign:
        raise GeneratorError(
            f"{out_dir / foreign[0]} was not written by the generator; refusing to replace the folder"
        )
    return existing


def _with_progress(
    items: Iterable[int], total: int, progress: Callable[[int, int], None] | None
) -> Iterator[int]:
    """`progress(done, total)` after each patient (the CLI draws it; libraries never print)."""
    if progress is not None:
        progress(0, total)
    for done, item in enumerate(items, 1):
        yield item
        if progress is not None:
            progress(done, total)


def generate_cohort(
    out_dir: Path,
    *,
    patients: int,
    seed: int,
    progress: Callable[[int, int], None] | None = None,
    today: dt.date = REFERENCE_TODAY,
    overwrite: bool = False,
    reference_ranges: bool = False,
) -> list[Path]:
    """Write a cohort to `out_dir`; returns the bundle paths (support bundles first, then patients)."""
    if patients < 1:
        raise GeneratorError(f"--patients must be at least 1 (got {patients})")
    out_dir = Path(out_dir)
    replaced = _existing_cohort_files(out_dir, overwrite)
    staging = out_dir.parent / f".{out_dir.name}.partial"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        network = Network(seed)
        usage = Utilization()
        patient_files: list[dict] = []
        cases: list[dict] = []
        for index in _with_progress(range(patients), patients, progress):
            generated, used = generate_patient(seed, index, network, today, reference_ranges=reference_ranges)
            usage.merge(used)
            (staging / generated.file_name).write_bytes(dumps(generated.bundle))
            person = generated.record.person
            patient_files.append(
                {
                    "index": index,
                    "patient_id": person.id,
                    "file": generated.file_name,
                    "name": person.full_name,
                }
            )
            for case in HARD_CASES:
                if case.patient_index == index:
                    cases.append(
                        {
                            "key": case.key,
                            "summary": case.summary,
                            "patient_index": index,
                            "patient_id": person.id,
                            "file": generated.file_name,
                            "resources": generated.record.marks.get(case.key, {}),
                        }
                    )
        hospital_name, practitioner_name = support_file_names(seed)
        (staging / hospital_name).write_bytes(dumps(network.hospital_bundle(usage)))
        (staging / practitioner_name).write_bytes(dumps(network.practitioner_bundle(usage)))
        manifest = {
            "generator": "chartside synthea_data",
            "format": MANIFEST_FORMAT,
            "seed": seed,
            "patients": patients,
            "today": today.isoformat(),
            "support_bundles": [hospital_name, practitioner_name],
            "patient_files": patient_files,
            "hard_cases": cases,
        }
        (staging / MANIFEST_NAME).write_bytes(dumps(manifest))
        out_dir.mkdir(parents=True, exist_ok=True)
        for old in replaced:
            old.unlink()
        for produced in sorted(staging.iterdir()):
            produced.replace(out_dir / produced.name)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return [out_dir / hospital_name, out_dir / practitioner_name] + [
        out_dir / p["file"] for p in patient_files
    ]
