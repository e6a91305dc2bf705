"""`chartside bench generate`: where generation time goes, measured side by side in one run.

Each patient is generated in four timed phases (simulate the record, render FHIR, serialise
JSON, write the file); the same bytes are then parsed back with orjson as a yardstick, so the
report says how many times a parse of the output generation costs, not just a machine-bound
absolute number.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from synthea_data.clock import REFERENCE_TODAY
from synthea_data.fhir_resources import BundleWriter
from synthea_data.generator import bundle_file_name, dumps
from synthea_data.providers import Network
from synthea_data.simulate import PatientSimulator
from synthea_data.stats import resource_counts


@dataclass
class GenerationBenchmark:
    patients: int
    phases: dict[str, float] = field(
        default_factory=lambda: dict.fromkeys(("simulate", "render", "serialize", "write"), 0.0)
    )
    bytes_written: int = 0
    resources: int = 0
    parse_seconds: float = 0.0
    median_bundle: dict | None = None

    @property
    def total_seconds(self) -> float:
        return sum(self.phases.values())

    @property
    def patients_per_second(self) -> float:
        return self.patients / self.total_seconds

    @property
    def megabytes_per_second(self) -> float:
        return self.bytes_written / 1e6 / self.total_seconds


def run_generation_benchmark(patients: int, seed: int) -> GenerationBenchmark:
    result = GenerationBenchmark(patients)
    network = Network(seed)
    sizes: list[tuple[int, dict]] = []
    with tempfile.TemporaryDirectory(prefix="chartside-bench-") as folder:
        for index in range(patients):
            t0 = time.perf_counter()
            record, _ = PatientSimulator(seed, index, network, REFERENCE_TODAY).run()
            t1 = time.perf_counter()
            bundle = BundleWriter(record, REFERENCE_TODAY).bundle()
            t2 = time.perf_counter()
            data = dumps(bundle)
            t3 = time.perf_counter()
            (Path(folder) / bundle_file_name(record.person)).write_bytes(data)
            t4 = time.perf_counter()
            orjson.loads(data)
            t5 = time.perf_counter()
            for phase, seconds in zip(result.phases, (t1 - t0, t2 - t1, t3 - t2, t4 - t3), strict=True):
                result.phases[phase] += seconds
            result.parse_seconds += t5 - t4
            result.bytes_written += len(data)
            result.resources += len(bundle["entry"])
            sizes.append((len(bundle["entry"]), bundle))
    median_size = statistics.median_low([size for size, _ in sizes])
    result.median_bundle = next(bundle for size, bundle in sizes if size == median_size)
    return result


def median_counts(result: GenerationBenchmark):
    return resource_counts(result.median_bundle or {})
