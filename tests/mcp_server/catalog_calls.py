"""How the MCP tests call "every read tool" of whatever catalog is installed.

Arguments come from each tool's own input schema (required fields only), with a few
meaningful overrides, so a tool added to the catalog later is exercised without editing
these tests. Record sections must return rows for the demo patients; appointment and
search sections may legitimately be empty.
"""

from __future__ import annotations

import re
from typing import Any

from tools.registry import Registry

OVERRIDES: dict[str, dict[str, Any]] = {
    "find_slots": {"specialty_or_department": "general practice", "limit": 3},
    "search_leaflets": {"query": "how to prepare for a colonoscopy"},
    "search_notes": {"query": "blood pressure"},
}
MAY_BE_EMPTY_SECTIONS = frozenset({"appointments", "leaflets", "notes"})
# verdict tools: "no conflict found" is a complete answer with no rows to cite
VERDICT_TOOLS = frozenset({"check_drug_allergies"})
EMBEDDING_SECTIONS = frozenset({"leaflets", "notes"})


def sample_value(schema: dict[str, Any]) -> Any:
    if "enum" in schema:
        return schema["enum"][0]
    if "anyOf" in schema:
        return sample_value(next(s for s in schema["anyOf"] if s.get("type") != "null"))
    kind = schema.get("type")
    if kind == "string":
        return "blood pressure"[: schema.get("maxLength", 100)].ljust(schema.get("minLength", 0), "x")
    if kind in ("integer", "number"):
        return max(schema.get("minimum", 1), 1)
    if kind == "boolean":
        return False
    if kind == "array":
        return []
    raise AssertionError(f"no sample value for schema {schema}")


def arguments_for(registry: Registry, name: str) -> dict[str, Any]:
    if name in OVERRIDES:
        return dict(OVERRIDES[name])
    schema = registry.get(name).schema()
    return {field: sample_value(schema["properties"][field]) for field in schema.get("required", [])}


def read_calls(registry: Registry) -> list[tuple[str, dict[str, Any]]]:
    """(tool, arguments) for every tool that does not write."""
    return [
        (name, arguments_for(registry, name)) for name in registry.names() if not registry.get(name).writes
    ]


def must_have_rows(registry: Registry, name: str) -> bool:
    return name not in VERDICT_TOOLS and registry.get(name).section not in MAY_BE_EMPTY_SECTIONS


def needs_embedder(registry: Registry) -> bool:
    return any(registry.get(name).section in EMBEDDING_SECTIONS for name in registry.names())


def handles_in(text: str) -> set[str]:
    return set(re.findall(r"\[([A-Z]+\d+)\]", text))
