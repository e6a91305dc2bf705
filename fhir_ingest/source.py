"""Finding bundle files, reading them once, checksumming and parsing them.

The sha256 is taken over the exact bytes, before parsing: an unchanged file is recognised
without parsing it at all. Files are ordered so support bundles (`hospitalInformation*`,
then `practitionerInformation*`) come before the patient bundles that refer to them, as
Synthea's own upload instructions require.
"""

from __future__ import annotations

import hashlib
import re
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
    read_cpu_seconds: float = 0.0  # the same, CPU time of the reading thread

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
    started, cpu = time.perf_counter(), time.thread_time()
    data = path.read_bytes()
    sha = hashlib.sha256(data).hexdigest()
    return RawFile(
        path=path,
        data=data,
        sha256=sha,
        read_seconds=time.perf_counter() - started,
        read_cpu_seconds=time.thread_time() - cpu,
    )


def approximate_entry(data: bytes, position: int) -> int | None:
    """Which entry a byte offset falls in (entries are the objects holding a `"resource"` key)."""
    count = data.count(b'"resource"', 0, max(position, 0))
    return count - 1 if count else None


_KEY = re.compile(rb'"([^"\\]{1,100})"\s*:')
_KEY_WINDOW = 4096


def field_before(data: bytes, position: int) -> str | None:
    """The JSON key nearest before a byte offset: the field whose value holds the bad byte."""
    window = data[max(0, position - _KEY_WINDOW) : max(position, 0)]
    keys = _KEY.findall(window)
    return keys[-1].decode("utf-8", "replace") if keys else None


def _invalid_utf8(raw: RawFile) -> BundleError | None:
    """orjson reports every encoding error at byte 0; find the real byte, entry and field."""
    try:
        raw.data.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = raw.data[exc.start : exc.end]
        line = raw.data.count(b"\n", 0, exc.start) + 1
        return BundleError(
            f"invalid UTF-8 (byte{'s' if len(bad) > 1 else ''} {bad.hex(' ')}) at line {line}, byte {exc.start}: "
            "FHIR JSON must be UTF-8",
            entry=approximate_entry(raw.data, exc.start),
            field=field_before(raw.data, exc.start),
        )
    return None


def _nul_in_strings(value: object, path: str = "") -> str | None:
    """The dotted path of the first string (key or value) holding a NUL, or None."""
    if isinstance(value, str):
        return path or "(value)" if "\x00" in value else None
    if isinstance(value, dict):
        for key, item in value.items():
            here = f"{path}.{key}" if path else str(key)
            if "\x00" in key:
                return here
            found = _nul_in_strings(item, here)
            if found:
                return found
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found = _nul_in_strings(item, f"{path}[{i}]")
            if found:
                return found
    return None


def _escaped_nul(parsed: object) -> BundleError | None:
    """A `\\u0000` escape parses, but PostgreSQL text cannot hold it: name the entry and field."""
    entries = parsed.get("entry") if isinstance(parsed, dict) else None
    for index, entry in enumerate(entries if isinstance(entries, list) else []):
        found = _nul_in_strings(entry)
        if found:
            resource = entry.get("resource") if isinstance(entry, dict) else None
            name = None
            if isinstance(resource, dict) and resource.get("resourceType"):
                name = f"{resource.get('resourceType')}/{resource.get('id')}"
            return BundleError(
                "contains a NUL character (\\u0000), which a record cannot store",
                entry=index,
                field=found.removeprefix("resource."),
                resource=name,
            )
    found = _nul_in_strings(parsed)
    if found:
        return BundleError("contains a NUL character (\\u0000), which a record cannot store", field=found)
    return None


_FEW_BACKSLASHES = 2_000


def may_hold_escaped_nul(data: bytes) -> bool:
    """Whether the bytes hold `\\u0000` (a NUL once parsed), or might.

    `b"\\u0000" in data` is a substring search that stumbles on every `0`: 15–30 ms for the
    29 MB of samples, a quarter of their whole parse. A backslash is rare in a bundle (at most
    19 per sample file), and finding one byte is a `memchr`, so look at each backslash instead
    (an escaped backslash, `\\\\`, is stepped over whole);
    past a couple of thousand, fall back to the substring search.
    """
    find = data.find
    position = find(b"\\")
    seen = 0
    while position != -1:
        if data.startswith(b"u0000", position + 1):
            return True
        seen += 1
        if seen > _FEW_BACKSLASHES:
            return b"\\u0000" in data
        position = find(b"\\", position + 2 if data[position + 1 : position + 2] == b"\\" else position + 1)
    return False


def parse_json(raw: RawFile) -> object:
    """orjson parse; bad input becomes a BundleError naming the line, entry and field.

    Syntax errors, bytes that are not UTF-8 and NUL characters (raw or escaped) are all
    located: orjson alone reports an encoding error as "line 1, column 1".
    """
    try:
        parsed = orjson.loads(raw.data)
    except orjson.JSONDecodeError as exc:
        encoding = _invalid_utf8(raw) if "UTF-8" in exc.msg else None
        if encoding is not None:
            raise encoding from None
        entry = approximate_entry(raw.data, exc.pos)
        truncated = exc.pos >= len(raw.data.rstrip())
        what = "truncated JSON (the file ends in the middle of a value)" if truncated else "invalid JSON"
        if raw.data[exc.pos : exc.pos + 1] == b"\x00":
            what = "a NUL byte inside the JSON"
        message = f"{what}: {exc.msg} at line {exc.lineno}, column {exc.colno} (byte {exc.pos})"
        field = field_before(raw.data, exc.pos) if not truncated else None
        raise BundleError(message, entry=entry, field=field or "(JSON syntax)") from None
    if may_hold_escaped_nul(raw.data):  # cheap test first: walking a large bundle costs time
        nul = _escaped_nul(parsed)
        if nul is not None:
            raise nul
    return parsed
