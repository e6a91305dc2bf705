"""Walking FHIR JSON: every Coding and every Reference, wherever it sits."""

from __future__ import annotations

from collections.abc import Iterator


def codings(node, path: str = "") -> Iterator[tuple[str, dict]]:
    """(path, coding) for every dict that has both `system` and a string `code`."""
    if isinstance(node, dict):
        if isinstance(node.get("system"), str) and isinstance(node.get("code"), str):
            yield path, node
        for key, value in node.items():
            yield from codings(value, f"{path}.{key}")
    elif isinstance(node, list):
        for item in node:
            yield from codings(item, path)


def references(node, path: str = "") -> Iterator[tuple[str, str]]:
    """(path, reference string) for every `reference` element."""
    if isinstance(node, dict):
        if isinstance(node.get("reference"), str):
            yield path, node["reference"]
        for key, value in node.items():
            yield from references(value, f"{path}.{key}")
    elif isinstance(node, list):
        for item in node:
            yield from references(item, path)
