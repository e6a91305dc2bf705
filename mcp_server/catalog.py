"""Which tool registry the MCP server publishes: by default the agent's own catalog."""

from __future__ import annotations

import importlib
import logging

from tools.registry import Registry

log = logging.getLogger(__name__)

DEFAULT_REGISTRY = "tools.catalog:build_registry"


class RegistryUnavailable(ValueError):
    pass


def load_registry(spec: str = DEFAULT_REGISTRY) -> Registry:
    """`module:function` → the Registry that function returns (the agent's catalog by default,
    so MCP clients get exactly the agent's tools)."""
    module_name, _, function_name = spec.partition(":")
    try:
        factory = getattr(importlib.import_module(module_name), function_name or "build_registry")
    except (ImportError, AttributeError) as exc:
        raise RegistryUnavailable(f"cannot load the tool registry {spec!r}: {exc}") from None
    registry = factory()
    if not isinstance(registry, Registry):
        raise RegistryUnavailable(
            f"{spec!r} returned {type(registry).__name__}, not a tools.registry.Registry"
        )
    return registry

