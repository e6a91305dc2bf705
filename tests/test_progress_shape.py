"""One progress shape for library code: `progress: Callable[[int, int], None] | None`, called as
`progress(done, total)`. Library code never prints; the CLI renders the callback
(`chartside.console.reporting`). A second shape (a `(description, total)` context manager, a
per-item callback, a message string) fails here with its file and line.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.test_import_contract import ROOT, library_files

SHAPE = "Callable[[int, int], None] | None"
PROGRESS_NAMES = {"progress", "on_progress", "on_done", "report_progress"}


def progress_parameters(path: Path, source: str | None = None) -> list[str]:
    tree = ast.parse(source if source is not None else path.read_text(encoding="utf-8"))
    rel = path.relative_to(ROOT).as_posix() if path.is_absolute() else str(path)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        args = node.args
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
            if arg.arg in PROGRESS_NAMES:
                shown = ast.unparse(arg.annotation) if arg.annotation is not None else "no annotation"
                if shown != SHAPE:
                    found.append(f"{rel}:{arg.lineno}: {node.name}({arg.arg}: {shown}), not {SHAPE}")
    return found


def test_library_code_reports_progress_in_one_shape():
    found = [line for path in library_files() for line in progress_parameters(path)]
    assert found == [], "\n".join(found)


def test_the_cli_renders_the_shape():
    from chartside.console import reporting

    with reporting("testing") as report:
        report(0, 3)
        report(3, 3)


@pytest.mark.parametrize(
    "source, ok",
    [
        ("def f(*, progress: Callable[[int, int], None] | None = None): ...", True),
        ("def f(progress: Progress | None = None): ...", False),
        ("def f(progress=print): ...", False),
        ("def f(*, on_done: Any = None): ...", False),
        ("def f(progress: Callable[[str], None] | None = None): ...", False),
    ],
)
def test_the_check_catches_another_shape(source, ok):
    assert (progress_parameters(Path("knowledge/x.py"), source) == []) is ok


def test_the_generator_reports_done_of_total(tmp_path):
    from synthea_data.generator import generate_cohort

    calls: list[tuple[int, int]] = []
    generate_cohort(
        tmp_path / "out", patients=2, seed=3, progress=lambda done, total: calls.append((done, total))
    )
    assert calls == [(0, 2), (1, 2), (2, 2)]
