"""No parallel-branch scaffolding left: the project's own modules are always there.

`try: import our_module / except ImportError` and `pytest.importorskip("our_module")` were
how branches developed in parallel tolerated each other; on one tree they turn a broken
import into a silent fallback or a silently skipped test. Importing a third-party optional
package that way is still fine.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.test_import_contract import FIRST_PARTY as PROJECT_PACKAGES

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = sorted(PROJECT_PACKAGES)
FIRST_PARTY = {*PACKAGES, "tests"}
# temporary: the embedder loaders issue 21 replaces with one loader and one failure policy
EMBEDDER_LOADERS = {"agent/runner.py", "server/app.py", "mcp_server/catalog.py"}


def _first_party(name: str | None) -> bool:
    return bool(name) and name.split(".")[0] in FIRST_PARTY


def guarded_imports(source: str) -> list[int]:
    """Lines of `try:` blocks that import a first-party module and catch ImportError."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Try):
            continue
        caught = {
            n.id
            for h in node.handlers
            for n in ast.walk(h.type)
            if h.type is not None
            if isinstance(n, ast.Name)
        }
        if not caught & {"ImportError", "ModuleNotFoundError"}:
            continue
        imports = [
            n
            for stmt in node.body
            for n in ast.walk(stmt)
            if (isinstance(n, ast.Import) and any(_first_party(a.name) for a in n.names))
            or (isinstance(n, ast.ImportFrom) and _first_party(n.module))
        ]
        if imports:
            out.append(node.lineno)
    return out


def skipped_imports(source: str) -> list[int]:
    """Lines of `pytest.importorskip("<first-party module>")`."""
    return [
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "importorskip"
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and _first_party(str(node.args[0].value))
    ]


def test_library_code_does_not_guard_its_own_imports():
    found = []
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel not in EMBEDDER_LOADERS:
                found += [f"{rel}:{line}" for line in guarded_imports(path.read_text(encoding="utf-8"))]
    assert found == []


def test_tests_do_not_skip_when_a_project_module_is_missing():
    found = [
        f"{p.relative_to(ROOT)}:{line}"
        for p in sorted((ROOT / "tests").rglob("*.py"))
        for line in skipped_imports(p.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_the_checks_catch_scaffolding():
    assert guarded_imports("try:\n    from agent.runner import x\nexcept ImportError:\n    x = None\n") == [1]
    assert guarded_imports("try:\n    import orjson\nexcept ImportError:\n    orjson = None\n") == []
    assert skipped_imports('import pytest\nm = pytest.importorskip("tools.catalog")\n') == [2]
    assert skipped_imports('import pytest\nm = pytest.importorskip("playwright")\n') == []
