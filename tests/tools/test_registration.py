"""One tool-registration style: `@TOOLS.tool(...)` on a module-level function, `TOOLS = Toolset()`.

A tool registered another way (a `register(registry)` function, a `.tool(...)(fn)` call, a
decorator inside a function, a hand-built `Tool(...)`) fails here with its file and line.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from tools.catalog import TOOL_MODULES, build_registry
from tools.registry import Toolset

TOOLS_DIR = Path(__file__).resolve().parents[2] / "tools"
NOT_TOOL_MODULES = {"registry.py", "cli.py", "bench.py", "bench_population.py"}


def _toolset_names(tree: ast.Module) -> set[str]:
    """Module-level names bound to `Toolset()`."""
    return {
        target.id
        for node in tree.body
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Name)
        and node.value.func.id == "Toolset"
        for target in node.targets
        if isinstance(target, ast.Name)
    }


def registration_problems(source: str, where: str) -> list[str]:
    tree = ast.parse(source)
    toolsets = _toolset_names(tree)
    decorators = {
        id(d)
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
        for d in node.decorator_list
        if isinstance(d, ast.Call)
        and isinstance(d.func, ast.Attribute)
        and d.func.attr == "tool"
        and isinstance(d.func.value, ast.Name)
        and d.func.value.id in toolsets
    }
    problems = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "register":
            problems.append(f"{where}:{node.lineno}: a register() function (declare tools with @TOOLS.tool)")
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "tool" and id(node) not in decorators:
            problems.append(
                f"{where}:{node.lineno}: .tool(...) not used as @TOOLS.tool on a module-level function"
            )
        if isinstance(func, ast.Name) and func.id == "Tool":
            problems.append(f"{where}:{node.lineno}: a hand-built Tool(...)")
    return problems


def test_every_tool_module_registers_its_tools_one_way():
    problems = [
        problem
        for path in sorted(TOOLS_DIR.glob("*.py"))
        if path.name not in NOT_TOOL_MODULES
        for problem in registration_problems(path.read_text(encoding="utf-8"), f"tools/{path.name}")
    ]
    assert problems == [], "\n".join(problems)


def test_the_catalogue_is_the_modules_toolsets_in_order():
    modules = [importlib.import_module(name) for name in TOOL_MODULES]
    assert all(isinstance(m.TOOLS, Toolset) for m in modules)
    expected = [name for m in modules for name in m.TOOLS.names()]
    assert build_registry().names() == expected
    for module in modules:
        for tool in module.TOOLS:  # a module-level function, findable by name
            assert getattr(module, tool.fn.__name__) is tool.fn


@pytest.mark.parametrize(
    "source, caught",
    [
        ("def register(registry):\n    registry.tool('x', section='labs')(fn)\n", "register() function"),
        ("registry.tool('x', section='labs')(fn)\n", "not used as @TOOLS.tool"),
        (
            "TOOLS = Toolset()\ndef outer():\n    @TOOLS.tool('x', section='labs')\n    def f(ctx, args): ...\n",
            "not used",
        ),
        ("OTHER = object()\n@OTHER.tool('x', section='labs')\ndef f(ctx, args): ...\n", "not used"),
        ("registry.add(Tool(name='x'))\n", "hand-built Tool"),
        ("TOOLS = Toolset()\n@TOOLS.tool('x', section='labs')\ndef f(ctx, args): ...\n", None),
    ],
)
def test_the_check_catches_another_style(source, caught):
    problems = registration_problems(source, "tools/x.py")
    if caught is None:
        assert problems == []
    else:
        assert len(problems) >= 1 and all(p.startswith("tools/x.py:") for p in problems)
        assert any(caught in p for p in problems)
