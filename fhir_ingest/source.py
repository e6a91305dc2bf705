"""Finding bundle files, reading them once, checksumming and parsing them.

The sha256 is taken over the exact bytes, before parsing: an unchanged file is recognised
without parsing it at all. Files are ordered so support bundles (`hospitalInformation*`,
then `practitionerInformation*`) come before the patient bundles that refer to them, as
Synthea's own upload instructions require.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import orjson

from fhir_ingest.errors import BundleError

SUPPORT_PREFIXES = ("hospitalInformation", "practitionerInformation")


@dataclass(frozen=True)
class RawFile:
    path: Path
    data: bytes
    sha256: str
    read_seconds: float = 0.0  # reading and checksumming

    @property
    def size(self) -> int:
        return len(self.data)


def support_rank(path: Path) -> int:
    """0 hospitals, 1 practitioners, 2 everything else (patients)."""
    for rank, prefix in enumerate(SUPPORT_PREFIXES):
        if path.name.startswith(prefix):
            return rank
    return len(SUPPORT_PREFIXES)


def guess_kind(path: Path) -> str:
    """The kind of a file that could not be read, from its name."""
    return ("hospital", "practitioner", "patient")[support_rank(path)]


def discover(paths: Iterable[Path]) -> tuple[list[Path], list[Path]]:
    """(bundle files in load order, paths that do not exist). Folders are searched recursively."""
    found: list[Path] = []
    missing: list[Path] = []
    seen: set[Path] = set()
    for path in paths:
        path = Path(path)
        if path.is_dir():
            candidates = sorted(p for p in path.rglob("*.json") if p.is_file())
        elif path.is_file():
            candidates = [path]
        else:
            missing.append(path)
            continue
        for candidate in candidates:
            resolved = candidate.resolve()
            if resolved not in seen:
                seen.add(resolved)
                found.append(resolved)
    found.sort(key=support_rank)  # stable: keeps the folder order within each rank
    return found, missing


def read_file(path: Path) -> RawFile:
    started = time.perf_counter()
    data = path.read_bytes()
    sha = hashlib.sha256(data).hexdigest()
    return RawFile(path=path, data=data, sha256=sha, read_seconds=time.perf_counter() - started)


def approximate_entry(data: bytes, position: int) -> int | None:
    """Which entry a byte offset falls in (entries are the objects holding a `"resource"` key)."""
    count = data.count(b'"resource"', 0, max(position, 0))
    return count - 1 if count else None


def parse_json(raw: RawFile) -> object:
    """orjson parse; a syntax error becomes a BundleError with line, column and nearby entry."""
    try:
        return orjson.loads(raw.data)
    except orjson.JSONDecodeError as exc:
        entry = approximate_entry(raw.data, exc.pos)
        truncated = exc.pos >= len(raw.data.rstrip())
        what = "truncated JSON (the file ends in the middle of a value)" if truncated else "invalid JSON"
        message = f"{what}: {exc.msg} at line {exc.lineno}, column {exc.colno} (byte {exc.pos})"
        raise BundleError(message, entry=entry, field="(JSON syntax)") from None
