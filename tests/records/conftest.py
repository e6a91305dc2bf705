"""Record tests also drive the tools that render the query layer."""

from tests.tools.conftest import call, registry

__all__ = ["call", "registry"]
