"""Only `agent/llm.py` imports `anthropic` (Claude API, Bedrock and Vertex clients alike):
the rest of the product depends on our ModelClient, never on the SDK's classes."""

from __future__ import annotations

import ast

from tests.conftest import PROJECT_ROOT

PACKAGES = (
    "agent",
    "chartside",
    "evals",
    "fhir_ingest",
    "knowledge",
    "mcp_server",
    "records",
    "server",
    "synthea_data",
    "tools",
)


def test_only_agent_llm_imports_the_sdk():
    importers = []
    for package in PACKAGES:
        for path in (PROJECT_ROOT / package).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                names = (
                    [a.name for a in node.names]
                    if isinstance(node, ast.Import)
                    else [node.module or ""]
                    if isinstance(node, ast.ImportFrom)
                    else []
                )
                if any(n == "anthropic" or n.startswith("anthropic.") for n in names):
                    importers.append(str(path.relative_to(PROJECT_ROOT)))
    assert sorted(set(importers)) == ["agent/llm.py"]
