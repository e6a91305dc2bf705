"""Every tool's JSON schema is pinned: a change to what the model sees must be deliberate.

Regenerate the snapshot with `CHARTSIDE_UPDATE_SNAPSHOTS=1 pytest tests/tools/test_schemas.py`
and review the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from tools.registry import Registry
from tools.schema import FORBIDDEN_FIELD_WORDS

SNAPSHOT = Path(__file__).with_name("tool_schemas.json")
UNSUPPORTED_IN_STRICT = {
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
    "default",
    "$ref",
    "$defs",
    "title",
}


def current(registry: Registry) -> dict:
    return {
        tool["name"]: {
            "description": tool["description"],
            "input_schema": tool["input_schema"],
            "strict": tool.get("strict", False),
        }
        for tool in registry.definitions()
    }


def test_schemas_match_the_snapshot(registry):
    now = current(registry)
    if os.environ.get("CHARTSIDE_UPDATE_SNAPSHOTS") == "1":
        SNAPSHOT.write_text(json.dumps(now, indent=2, ensure_ascii=False, sort_keys=True) + "\n")
    assert SNAPSHOT.exists(), (
        "no snapshot: run with CHARTSIDE_UPDATE_SNAPSHOTS=1 and commit tool_schemas.json"
    )
    pinned = json.loads(SNAPSHOT.read_text())
    assert sorted(now) == sorted(pinned), "tools added or removed: regenerate the snapshot deliberately"
    for name in now:
        assert now[name] == pinned[name], f"{name}: schema drifted from tests/tools/tool_schemas.json"


def _walk(node, path=""):
    if isinstance(node, dict):
        yield path, node
        for key, value in node.items():
            yield from _walk(value, f"{path}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _walk(value, f"{path}/{i}")


def test_write_tools_are_strict_and_no_schema_names_a_patient(registry):
    """Strict (grammar-constrained) only where a wrong argument would change something: the
    writes. The strict budget is request-wide (tests/tools/test_strict_budget.py)."""
    for tool in registry.definitions():
        schema = tool["input_schema"]
        assert tool.get("strict", False) is registry.get(tool["name"]).writes, tool["name"]
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        for prop in schema["properties"]:
            assert not any(word in prop.lower() for word in FORBIDDEN_FIELD_WORDS), (tool["name"], prop)
        if not tool.get("strict"):
            continue
        for path, node in _walk(schema):
            if path.endswith("/properties"):
                continue  # property names, not keywords
            bad = UNSUPPORTED_IN_STRICT & set(node)
            assert not bad, f"{tool['name']}{path}: {bad} is not allowed in a strict tool schema"
            if node.get("type") == "object":
                assert node.get("additionalProperties") is False, f"{tool['name']}{path}"


def test_bounds_are_stated_to_the_model_and_enforced_by_the_registry(registry, db):
    from tests.tools.conftest import make_ctx
    from tools.schema import strict_schema

    # a plain (read) schema states the bound natively; a strict one moves it into words
    assert registry.get("get_labs").schema()["properties"]["limit"]["maximum"] == 100
    strict_limit = strict_schema(registry.get("get_labs").input_model)["properties"]["limit"]
    assert "at most 100" in strict_limit["description"] and "maximum" not in strict_limit
    result = registry.execute(make_ctx(db, "nobody"), "get_labs", {"limit": 101})
    assert not result.ok and result.error_kind == "bad_argument" and "limit" in result.text


def test_every_tool_has_section_and_status_text(registry):
    record_sections = {
        "profile",
        "conditions",
        "medications",
        "labs",
        "allergies",
        "encounters",
        "immunizations",
        "procedures",
        "care_plans",
        "appointments",
    }
    for name in registry.names():
        tool = registry.get(name)
        assert tool.section and tool.section == tool.section.strip().lower(), name
        assert tool.status_text.endswith("…") and tool.status_text != "Looking up your record…", name
    assert record_sections <= {registry.get(n).section for n in registry.names()}
