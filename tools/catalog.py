"""The default tool registry: every module that contributes tools, assembled in one place.

A module contributes tools through its module-level `TOOLS` toolset (`@TOOLS.tool(...)`). The order here is the order the
model sees the tools in (records first, then search, then appointments), which keeps the
cached prompt prefix stable.
"""

from __future__ import annotations

import importlib
from functools import cache

from tools.registry import Registry

TOOL_MODULES: tuple[str, ...] = (
    "tools.record_tools",
    "tools.summary_tools",
    "tools.compare_tools",
    "tools.search_tools",
    "tools.appointment_tools",
)


@cache
def writing_tools() -> frozenset[str]:
    """The catalog's writing tools (from `Tool.writes`), for code that sees only tool names."""
    return build_registry().writing()


def build_registry(modules: tuple[str, ...] = TOOL_MODULES) -> Registry:
    registry = Registry()
    for name in modules:
        registry.include(importlib.import_module(name).TOOLS)
    return registry
