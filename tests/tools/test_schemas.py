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
            "strict": tool["strict"],
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


def test_schemas_are_strict_and_name_no_patient(registry):
    for tool in registry.definitions():
        schema = tool["input_schema"]
        assert tool["strict"] is True
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        for prop in schema["properties"]:
            assert not any(word in prop.lower() for word in FORBIDDEN_FIELD_WORDS), (tool["name"], prop)
        for path, node in _walk(schema):
            if path.endswith("/properties"):
                continue  # property names, not keywords
            bad = UNSUPPORTED_IN_STRICT & set(node)
            assert not bad, f"{tool['name']}{path}: {bad} is not allowed in a strict tool schema"
            if node.get("type") == "object":
                assert node.get("additionalProperties") is False, f"{tool['name']}{path}"


def test_bounds_moved_into_descriptions_are_still_enforced(registry, db):
    from tests.tools.conftest import make_ctx

    limit = registry.get("get_labs").schema()["properties"]["limit"]
    assert "at most 100" in limit["description"]
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
