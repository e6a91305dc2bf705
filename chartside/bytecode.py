"""Bytecode for the modules a start-up imported, written in the background once serving.

Python compiles a module from source on every import that finds no valid `.pyc` next to it
(`__pycache__/`). Normally the first import writes one, but with `PYTHONDONTWRITEBYTECODE`
set (as on this project's machines) nothing is ever written, and uv — the installer
`make venv` prefers — installs packages without bytecode. A `make run` then recompiled the
same ~1,200 modules every time: measured 6.4 s of a 19 s profiled second run under load.

`chartside up` therefore hands the source files of the modules it imported to
`python -m compileall` (which compiles those whose bytecode is missing or stale), in a
separate low-priority process started once the server listens: never on the way to
serving, never in the server's own process.
The next run imports them from bytecode. Validity is Python's own timestamp check, so an
edited source file is simply recompiled by the next pass; nothing can run stale code.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType


def module_sources(modules: Iterable[ModuleType]) -> list[Path]:
    """The `.py` files `modules` were imported from (those Python would cache bytecode for).

    No file is looked at here: `compileall` itself skips a file whose `.pyc` is current, so
    the server's process spends nothing on the check."""
    out: list[Path] = []
    for module in list(modules):
        spec = getattr(module, "__spec__", None)
        origin = getattr(spec, "origin", None) if spec is not None else None
        if isinstance(origin, str) and origin.endswith(".py") and getattr(spec, "cached", None):
            out.append(Path(origin))
    return out


def compile_in_background(sources: list[Path]) -> subprocess.Popen | None:
    """Start `python -m compileall -q -i -` on `sources` at low priority (it compiles those
    whose bytecode is missing or stale); None if there is nothing to pass.

        Fire and forget: a failure (a read-only folder) only means the next start compiles in
        memory again, as it does today. Output is discarded.
    """
    if not sources:
        return None

    nice = shutil.which("nice")  # low priority: the server's requests come first
    try:
        proc = subprocess.Popen(
            [*([nice, "-n", "10"] if nice else []), sys.executable, "-m", "compileall", "-q", "-i", "-"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # Ctrl-C on the server does not cut it short
        )
    except OSError:
        return None
    assert proc.stdin is not None
    try:
        proc.stdin.write("".join(f"{path}\n" for path in sources).encode())
        proc.stdin.close()
    except OSError:
        pass
    return proc


_started: list[subprocess.Popen] = []  # kept, so the finished child is reaped, not left a zombie


def compile_imported() -> subprocess.Popen | None:
    """Bytecode for every module this process has imported that lacks it (see the module doc)."""
    proc = compile_in_background(module_sources(sys.modules.values()))
    _started[:] = [p for p in _started if p.poll() is None] + ([proc] if proc else [])
    return proc
