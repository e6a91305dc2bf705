"""Pydantic input model → the JSON schema of an Anthropic tool definition (strict or plain).

Strict tools share ONE grammar budget per request (at most 20 strict tools, 24 optional and 16
union-typed parameters across all strict schemas: `agent.contract`), so only the tools whose
mistakes would cost something — the writes — are strict (`Tool.strict`); read tools send a
compact plain schema (`plain_schema`) and rely on the registry's server-side validation,
which already answers a bad argument with an error the model can fix.

Strict tool use compiles the schema into a sampling grammar that supports only a subset of
JSON Schema: no `$ref` to outside definitions we cannot inline, no numeric bounds, no string
length limits, no defaults. Those keywords are moved into the property's description (the
model still reads them) while pydantic keeps enforcing them when the call arrives, so a
bound is never silently lost. This mirrors what the Anthropic SDK's own `transform_schema`
does; it is reimplemented here because only `agent/llm.py` may import `anthropic`.
"""

from __future__ import annotations

import copy
from typing import Any

from pydantic import BaseModel

FORBIDDEN_FIELD_WORDS = ("patient", "mrn", "subject")
SUPPORTED_STRING_FORMATS = {
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "uri",
    "ipv4",
    "ipv6",
    "uuid",
}
# keywords the grammar cannot express: described in words instead
DESCRIBED_KEYWORDS = {
    "minimum": "at least {}",
    "exclusiveMinimum": "greater than {}",
    "maximum": "at most {}",
    "exclusiveMaximum": "less than {}",
    "multipleOf": "a multiple of {}",
    "minLength": "at least {} characters",
    "maxLength": "at most {} characters",
    "pattern": "matching {}",
    "maxItems": "at most {} items",
    "default": "default {}",
}


# keywords a plain (non-strict) schema leaves out; pydantic still enforces the lengths
PLAIN_DROPPED = frozenset({"title", "minLength", "maxLength"})


def _describe(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def _transform(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, list):
        return [_transform(v, defs) for v in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target = copy.deepcopy(defs[node["$ref"].split("/")[-1]])
        merged = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        return _transform(merged, defs)
    out: dict[str, Any] = {}
    notes: list[str] = []
    for key, value in node.items():
        if key == "title":
            continue
        if key in DESCRIBED_KEYWORDS:
            notes.append(DESCRIBED_KEYWORDS[key].format(_describe(value)))
        elif key == "minItems" and value not in (0, 1):
            notes.append(f"at least {value} items")
        elif key == "format" and value not in SUPPORTED_STRING_FORMATS:
            notes.append(f"format {value}")
        elif key in ("properties", "$defs"):
            out[key] = {name: _transform(v, defs) for name, v in value.items()}
        else:
            out[key] = _transform(value, defs)
    if notes:
        text = "; ".join(notes)
        out["description"] = f"{out['description']} ({text})" if out.get("description") else f"({text})"
    if out.get("type") == "object" or "properties" in out:
        out.setdefault("properties", {})
        out["additionalProperties"] = False
    return out


def _compact(node: Any, defs: dict[str, Any]) -> Any:
    """Plain JSON Schema for a non-strict tool: refs inlined, titles dropped, `X | None` → X.

    Non-strict schemas are not compiled into a grammar, so bounds and defaults stay native
    (shorter than words), and an optional field needs no `null` branch: leaving it out means
    "none", and the registry's pydantic model still validates every call. String length
    bounds are left out (`PLAIN_DROPPED`): a model never needs them to call well, every
    request would pay for them, and the registry still refuses a too-long value with a
    fixable error.
    """
    if isinstance(node, list):
        return [_compact(v, defs) for v in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target = copy.deepcopy(defs[node["$ref"].split("/")[-1]])
        return _compact({**target, **{k: v for k, v in node.items() if k != "$ref"}}, defs)
    branches = node.get("anyOf")
    if isinstance(branches, list):
        kept = [b for b in branches if not (isinstance(b, dict) and b.get("type") == "null")]
        if len(kept) == 1 and len(kept) < len(branches):
            merged = {**kept[0], **{k: v for k, v in node.items() if k != "anyOf"}}
            return _compact(merged, defs)
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in PLAIN_DROPPED or (key == "default" and value is None):
            continue
        if key in ("properties", "$defs"):
            out[key] = {name: _compact(v, defs) for name, v in value.items()}
        else:
            out[key] = _compact(value, defs)
    if out.get("type") == "object" or "properties" in out:
        out.setdefault("properties", {})
        out["additionalProperties"] = False
    return out


def plain_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The compact, non-strict input schema of a read tool (see `_compact`)."""
    raw = model.model_json_schema()
    defs = raw.pop("$defs", {})
    schema = _compact(raw, defs)
    schema.pop("description", None)
    schema["type"] = "object"
    return schema


def strict_schema(model: type[BaseModel]) -> dict[str, Any]:
    """Inline `$ref`s, forbid extra properties, move unsupported keywords into descriptions,
    and refuse any field that could name a patient (the scope, never the model, does that)."""
    raw = model.model_json_schema()
    defs = raw.pop("$defs", {})
    schema = _transform(raw, defs)
    schema.pop("description", None)  # the tool's description says it once
    for name in schema.get("properties", {}):
        if any(word in name.lower() for word in FORBIDDEN_FIELD_WORDS):
            raise ValueError(f"{model.__name__}.{name}: tool inputs may not name a patient")
    schema["type"] = "object"
    schema.setdefault("properties", {})
    schema["additionalProperties"] = False
    return schema
