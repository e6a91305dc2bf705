"""Counting what is in a bundle: for the CLI summary, the benchmark and comparisons with real files."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import orjson


def resource_counts(bundle: dict) -> Counter:
    return Counter(entry["resource"]["resourceType"] for entry in bundle.get("entry", []))


def file_resource_counts(path: Path) -> Counter:
    return resource_counts(orjson.loads(Path(path).read_bytes()))
