"""Which tool registry the MCP server publishes: by default the agent's own catalog."""

from __future__ import annotations

import importlib
import logging
from typing import Any

from records.settings import Settings
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


def load_embedder(settings: Settings) -> Any:
    """The local embedding model the search tools need, through the one loader
    (`knowledge.embeddings.load_embedder`) and its one failure policy: a model that cannot be
    used raises `EmbeddingSetupError` naming the fix. None only when the knowledge package is
    not installed at all (the search tools then say they are unavailable)."""
    try:
        from knowledge.embeddings import load_embedder as load  # type: ignore[import-not-found]
    except ImportError:
        return None
    return load(settings)
