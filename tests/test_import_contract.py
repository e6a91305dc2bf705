"""The layering table of DESIGN.md, enforced: which package's library code may import which.

Every import counts, wherever it is written (module top, inside a function, under
TYPE_CHECKING): a lazy import is still a dependency. The table is read from the source with
`ast`, so nothing is imported to check it. `docs/architecture.md` shows the same table.

Two kinds of module are outside the table, on purpose:

* the CLI layer — `chartside/` and each package's command front-ends (`<pkg>/cli.py`,
  `<pkg>/bench*.py`, `server/loadtest.py`): they compose packages and print, so they may
  import any package; library code never imports them (`chartside.console` included:
  library code reports progress through a callback);
* `records.settings`, the one settings object (docs/DEVELOPING.md), which every package reads.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# package → the first-party packages its library modules may import (besides itself)
LAYERS: dict[str, frozenset[str]] = {
    "records": frozenset(),
    "fhir_ingest": frozenset({"records"}),
    "synthea_data": frozenset(),
    "knowledge": frozenset({"records"}),
    "tools": frozenset({"records", "knowledge"}),
    "agent": frozenset({"tools"}),
    "server": frozenset({"agent", "tools", "records", "mcp_server"}),
    "mcp_server": frozenset({"tools", "records"}),
    "evals": frozenset({"agent", "tools", "records"}),
}
FIRST_PARTY = frozenset({*LAYERS, "chartside"})
# Where a layer may import another only through named modules: the web app mounts `/mcp` and
# reads its metadata, nothing more. Accounts and capabilities are below both doors
# (`records.accounts`, `records.capabilities`), so neither imports the other for them.
ONLY_THROUGH: dict[tuple[str, str], frozenset[str]] = {
    ("server", "mcp_server"): frozenset({"mcp_server.http", "mcp_server.http_auth"}),
}
# The modules that own who may do what; every door imports them from here.
ACCOUNT_MODULES = ("records.accounts", "records.capabilities")
EVERYONE_MAY_IMPORT = frozenset({"records.settings"})
CLI_LAYER = (
    "chartside/*",
    "*/cli.py",
    "*/*_cli.py",
    "evals/safety_eval.py",
    "*/bench.py",
    "*/bench_*.py",
    "server/loadtest.py",
)

# Temporary, narrowly named allowances: (importing module glob, imported module glob, why).
# Each must still match a real import (an unused allowance fails), so it is removed with the code.
# None today: the layers above tools/ reach the embedder through `tools.embedder`.
ALLOWANCES: tuple[tuple[str, str, str], ...] = ()


@dataclass(frozen=True)
class Import:
    path: str  # relative to the repository root
    line: int
    module: str  # the imported module, absolute


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> list[Import]:
    rel = path.relative_to(ROOT).as_posix()
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=rel)
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    found: list[Import] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend(Import(rel, node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against this module's package
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            found.append(Import(rel, node.lineno, target))
            # `from records import migrate` imports the module records.migrate
            found.extend(Import(rel, node.lineno, f"{target}.{alias.name}") for alias in node.names)
    return found


def library_files() -> list[Path]:
    files = [p for pkg in LAYERS for p in sorted((ROOT / pkg).rglob("*.py"))]
    return [p for p in files if not any(fnmatch(p.relative_to(ROOT).as_posix(), g) for g in CLI_LAYER)]


def is_cli_module(module: str) -> bool:
    path = module.replace(".", "/") + ".py"
    return module.split(".")[0] == "chartside" or any(fnmatch(path, g) for g in CLI_LAYER)


def allowance_for(imp: Import) -> tuple[str, str, str] | None:
    for source, target, why in ALLOWANCES:
        if fnmatch(imp.path, source) and fnmatch(imp.module, target):
            return source, target, why
    return None


def violation(imp: Import) -> str | None:
    """Why this import breaks the table, or None when it is allowed."""
    top = imp.module.split(".")[0]
    own = imp.path.split("/")[0]
    if top not in FIRST_PARTY:
        return None
    if is_cli_module(imp.module):
        return f"library code imports the CLI layer ({imp.module}); report progress through a callback"
    shared = any(imp.module == m or imp.module.startswith(m + ".") for m in EVERYONE_MAY_IMPORT)
    narrow = ONLY_THROUGH.get((own, top))
    through = narrow is not None and any(imp.module == n or imp.module.startswith(n + ".") for n in narrow)
    if narrow is not None and imp.module != top and not through:
        return f"{own} may import {top} only through {', '.join(sorted(narrow))}, not {imp.module}"
    if top == own or shared or top in LAYERS[own]:
        return None
    allowed = ", ".join(sorted(LAYERS[own])) or "no other package"
    return f"{own} may import {allowed}, not {top} ({imp.module})"


def violations(files: list[Path]) -> list[str]:
    out: dict[tuple[str, int], str] = {}  # one message per import statement
    for path in files:
        for imp in imports_of(path):
            why = violation(imp)
            if why is not None and allowance_for(imp) is None:
                out.setdefault((imp.path, imp.line), f"{imp.path}:{imp.line}: {why}")
    return [out[k] for k in sorted(out)]


def test_library_code_keeps_to_the_layering_table():
    found = violations(library_files())
    assert found == [], "imports the layering table forbids:\n" + "\n".join(found)


def test_every_temporary_allowance_is_still_needed():
    used = {
        allowance_for(imp)
        for path in library_files()
        for imp in imports_of(path)
        if violation(imp) is not None
    }
    unused = [a for a in ALLOWANCES if a not in used]
    assert unused == [], f"remove these allowances, nothing needs them any more: {unused}"


def test_accounts_and_capabilities_live_below_both_doors():
    """One definition of accounts and capabilities, in records/, read by the web app and MCP alike."""
    for module in ACCOUNT_MODULES:
        assert (ROOT / (module.replace(".", "/") + ".py")).is_file(), module
    defined_above = [
        f"{path.relative_to(ROOT)}:{node.lineno}: defines {node.name}"
        for pkg in ("server", "mcp_server")
        for path in sorted((ROOT / pkg).rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ClassDef | ast.FunctionDef)
        and node.name in {"Account", "capabilities_for", "write_mode_for", "authenticate_token", "create_account"}
    ]
    assert defined_above == [], "account rules defined above records/:\n" + "\n".join(defined_above)
    users = {
        pkg: {imp.module for path in (ROOT / pkg).rglob("*.py") for imp in imports_of(path)}
        for pkg in ("server", "mcp_server")
    }
    for pkg, modules in users.items():
        assert any(m.startswith(ACCOUNT_MODULES) for m in modules), f"{pkg} reads accounts from elsewhere"


def test_the_table_has_no_cycle():
    def reachable(start: str) -> set[str]:
        seen: set[str] = set()
        todo = list(LAYERS[start])
        while todo:
            node = todo.pop()
            if node not in seen:
                seen.add(node)
                todo.extend(LAYERS[node])
        return seen

    assert [p for p in LAYERS if p in reachable(p)] == []


# --- the checker itself: it must catch what the table forbids -------------------------------------


@pytest.mark.parametrize(
    "where, source, caught",
    [
        (
            "agent/planner_x.py",
            "from records.database import Database\n",
            "agent may import tools, not records",
        ),
        ("agent/planner_x.py", "def f():\n    from records import models\n", "agent may import tools"),
        ("records/x.py", "import tools.registry\n", "records may import no other package"),
        ("knowledge/x.py", "from chartside.console import progress\n", "imports the CLI layer"),
        ("fhir_ingest/x.py", "from tools.cli import app\n", "imports the CLI layer"),
        ("mcp_server/x.py", "from server.auth import current_account\n", "mcp_server may import records, tools"),
        ("server/x.py", "from mcp_server.access import may_use_mcp\n", "server may import mcp_server only through"),
        ("server/x.py", "from mcp_server.http import McpMount\n", None),
        ("tools/x.py", "from . import registry\nfrom records.settings import Settings\n", None),
        ("agent/planner_x.py", "from tools.registry import Registry\nimport anthropic\n", None),
    ],
)
def test_the_checker_catches_a_forbidden_import(tmp_path, monkeypatch, where, source, caught):
    fake = ROOT / where
    monkeypatch.setattr(Path, "read_text", lambda self, encoding=None: source if self == fake else "")
    found = violations([fake])
    if caught is None:
        assert found == []
    else:
        assert len(found) == 1 and caught in found[0] and found[0].startswith(f"{where}:")
