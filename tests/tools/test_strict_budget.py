"""The real tool registry fits the Messages API's request-wide strict-tool budget, with room.

Computed from the registry, so a new tool or parameter is counted the day it is added. The
limits (20 strict tools, 24 optional and 16 union-typed parameters across ALL strict schemas
of one request) are `agent.contract`'s, sourced in docs/messages-contract.md; past them the
API refuses every question with 400 "Schema is too complex for compilation".
"""

from __future__ import annotations

from agent import contract
from tools.catalog import build_registry

HEADROOM = 0.5  # use at most half of each limit, so two more write tools still fit

FIX = (
    "Strict tool budget exceeded: {what}. Keep `strict` for write tools only (Tool.writes=True "
    "makes a tool strict); a read tool must stay non-strict (the registry validates its arguments "
    "server-side). For a write tool, make parameters required instead of optional and avoid "
    "`X | None` (each counts as a union). Budget now: {budget}."
)


def test_the_registry_fits_the_strict_budget_with_room_to_spare():
    definitions = build_registry().definitions()
    budget = contract.strict_budget(definitions)
    shown = (
        f"{budget.strict_tools} strict tools, {budget.optional_params} optional and "
        f"{budget.union_params} union-typed parameters"
    )
    checks = [
        ("strict tools", budget.strict_tools, contract.MAX_STRICT_TOOLS),
        ("optional parameters in strict schemas", budget.optional_params, contract.MAX_OPTIONAL_PARAMS),
        ("union-typed parameters in strict schemas", budget.union_params, contract.MAX_UNION_PARAMS),
    ]
    for what, used, limit in checks:
        assert used <= limit * HEADROOM, FIX.format(
            what=f"{used} {what} (limit {limit}, we allow {limit * HEADROOM:g})", budget=shown
        )


def test_only_write_tools_are_strict_and_every_schema_passes_the_contract():
    registry = build_registry()
    definitions = registry.definitions()
    strict = {d["name"] for d in definitions if d.get("strict") is True}
    writes = {name for name in registry.names() if registry.get(name).writes}
    assert strict == writes, FIX.format(
        what=f"strict tools {sorted(strict)} != write tools {sorted(writes)}", budget=""
    )
    body = {
        "model": "claude-sonnet-5-5",
        "max_tokens": 64,
        "messages": [{"role": "user", "content": "hi"}],
        "tools": definitions,
    }
    headers = {"anthropic-version": "2023-06-01", "x-api-key": "k"}
    assert contract.check_request("/v1/messages", headers, body, known_models=["claude-sonnet-5-5"]) is None


def test_read_tool_schemas_carry_no_null_branches_and_keep_their_bounds():
    for definition in build_registry().definitions():
        if definition.get("strict"):
            continue
        for name, prop in definition["input_schema"]["properties"].items():
            assert "anyOf" not in prop and not isinstance(prop.get("type"), list), (definition["name"], name)
    labs = next(d for d in build_registry().definitions() if d["name"] == "get_labs")
    assert labs["input_schema"]["properties"]["limit"].get("maximum") == 100
