"""What an ingest run did, per file and in total (the CLI prints it; tests assert on it)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

STATUSES = ("ingested", "replaced", "unchanged", "failed")


@dataclass
class FileOutcome:
    """One file's result. `error` (only when failed) names the file, entry index and field."""

    path: Path
    kind: str  # patient | hospital | practitioner
    status: str  # ingested | replaced | unchanged | failed
    patient_id: str | None = None
    patient_name: str | None = None
    counts: dict[str, int] = field(default_factory=dict)  # rows per table
    skipped: dict[str, int] = field(default_factory=dict)  # resource type → entries not stored
    warnings: list[str] = field(default_factory=list)
    error: str | None = None
    resources: int = 0  # entries in the bundle
    size_bytes: int = 0
    seconds: float = 0.0
    validation_seconds: float = 0.0
    phase_seconds: dict[str, float] = field(default_factory=dict)  # read, parse, map, write
    phase_cpu_seconds: dict[str, float] = field(default_factory=dict)  # the same phases, CPU time

    @property
    def failed(self) -> bool:
        return self.status == "failed"

    @property
    def rows(self) -> int:
        return sum(self.counts.values())


@dataclass
class IngestReport:
    files: list[FileOutcome] = field(default_factory=list)
    seconds: float = 0.0
    validated: bool = False

    @property
    def ok(self) -> bool:
        """True when no file failed."""
        return not any(f.failed for f in self.files)

    @property
    def failures(self) -> list[FileOutcome]:
        return [f for f in self.files if f.failed]

    def by_status(self) -> dict[str, int]:
        counts = Counter(f.status for f in self.files)
        return {s: counts[s] for s in STATUSES if counts[s]}

    def written(self) -> list[FileOutcome]:
        """Files whose rows were written in this run (ingested or replaced)."""
        return [f for f in self.files if f.status in ("ingested", "replaced")]

    @property
    def patients_written(self) -> int:
        return sum(1 for f in self.written() if f.kind == "patient")

    @property
    def resources_written(self) -> int:
        return sum(f.resources for f in self.written())

    @property
    def bytes_written(self) -> int:
        return sum(f.size_bytes for f in self.written())

    @property
    def warnings(self) -> int:
        return sum(len(f.warnings) for f in self.files)

    @property
    def validation_seconds(self) -> float:
        return sum(f.validation_seconds for f in self.files)

    def phase_seconds(self) -> dict[str, float]:
        total: Counter = Counter()
        for f in self.files:
            total.update(f.phase_seconds)
        return dict(total)

    def phase_cpu_seconds(self) -> dict[str, float]:
        total: Counter = Counter()
        for f in self.files:
            total.update(f.phase_cpu_seconds)
        return dict(total)

    def rows_by_table(self) -> dict[str, int]:
        total: Counter = Counter()
        for f in self.written():
            total.update(f.counts)
        return dict(total)

    def to_dict(self) -> dict:
        """Plain JSON-able form (`chartside ingest --json`)."""
        return {
            "ok": self.ok,
            "seconds": round(self.seconds, 3),
            "validated": self.validated,
            "by_status": self.by_status(),
            "patients_written": self.patients_written,
            "resources_written": self.resources_written,
            "rows_by_table": self.rows_by_table(),
            "skipped_by_type": self.skipped_by_type(),
            "files": [
                {
                    "path": str(f.path),
                    "kind": f.kind,
                    "status": f.status,
                    "patient_id": f.patient_id,
                    "patient_name": f.patient_name,
                    "resources": f.resources,
                    "counts": f.counts,
                    "skipped": f.skipped,
                    "warnings": f.warnings,
                    "error": f.error,
                    "seconds": round(f.seconds, 4),
                    "validation_seconds": round(f.validation_seconds, 4),
                }
                for f in self.files
            ],
        }

    def skipped_by_type(self) -> dict[str, int]:
        total: Counter = Counter()
        for f in self.written():
            total.update(f.skipped)
        return dict(total)
