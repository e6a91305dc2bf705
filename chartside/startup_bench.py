"""`chartside bench startup`: how long a command takes to start, lazy CLI vs the eager one.

Each case runs in a fresh interpreter (start-up is what is measured, so nothing may be warm
in this process). Two variants per case, interleaved so machine load hits both alike:

* **lazy** — the real `chartside` entry point: only the invoked command's module is imported;
* **eager** — the same command after importing every command module first, which is what
  every command paid before the CLI registered lazily.

The ratio eager/lazy is the number to read on a busy machine; the absolute times are only
meaningful with the load average printed next to them. Each run also records the CPU seconds
the command's process used (user + system, from `getrusage`): on a busy machine the wall time
includes waiting for a core, the CPU time does not, so it estimates the idle-machine wall time
(it leaves out disk waits and the database server's own work, both small with warm caches).
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from chartside.proc import process_cpu

LAZY = "import sys; from chartside.cli import main; sys.argv[0] = 'chartside'; main()"
EAGER = "import sys; from chartside.cli import load_all, main; sys.argv[0] = 'chartside'; load_all(); main()"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "chartside-bench", "version": "0"},
    },
}


@dataclass(frozen=True)
class Case:
    name: str
    argv: tuple[str, ...]
    mcp: bool = False  # True: time until the reply to `initialize`, then close stdin


@dataclass(frozen=True)
class Timing:
    case: str
    lazy: list[float]
    eager: list[float]
    lazy_cpu: list[float]

    @property
    def ratio(self) -> float:
        return statistics.median(self.eager) / statistics.median(self.lazy)


def cases(patient: str | None) -> list[Case]:
    out = [Case("chartside --help", ("--help",)), Case("chartside db status", ("db", "status"))]
    if patient:
        out.append(Case("chartside mcp → initialize", ("mcp", "--patient", patient), mcp=True))
    return out


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _process_cpu(pid: int) -> float | None:
    """CPU seconds (user + system) a running process has used so far (Linux /proc), or None."""
    return process_cpu(pid)


def time_once(code: str, case: Case, timeout: float = 300.0) -> tuple[float, float]:
    """(wall seconds from process start to the command's answer — exit, or the `initialize`
    reply —, CPU seconds the process had used by then)."""
    argv = [sys.executable, "-c", code, *case.argv]
    env = {**os.environ, "COLUMNS": "100"}
    cpu_before = _children_cpu()
    started = time.perf_counter()
    if not case.mcp:
        done = subprocess.run(argv, capture_output=True, env=env, timeout=timeout, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{case.name} failed: {done.stderr.decode(errors='replace')[-400:]}")
        return time.perf_counter() - started, _children_cpu() - cpu_before
    proc = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write((json.dumps(INITIALIZE) + "\n").encode())
        proc.stdin.flush()
        line = proc.stdout.readline()
        elapsed = time.perf_counter() - started
        cpu_at_reply = _process_cpu(proc.pid)  # the answer is the reply, not the exit
        if b'"result"' not in line:
            err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
            raise RuntimeError(f"{case.name}: no initialize reply ({line[:200]!r}) {err[-400:]}")
        proc.stdin.close()
        proc.wait(timeout=timeout)
        return elapsed, cpu_at_reply if cpu_at_reply is not None else _children_cpu() - cpu_before
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def measure(
    selected: Sequence[Case], repeats: int, progress: Callable[[int, int], None] | None = None
) -> list[Timing]:
    """Interleaved lazy/eager runs per case; `progress(done, total)` after each run."""
    total, done = len(selected) * repeats * 2, 0
    results: list[Timing] = []
    for case in selected:
        lazy: list[float] = []
        eager: list[float] = []
        lazy_cpu: list[float] = []
        time_once(LAZY, case)  # warm the OS file cache once, untimed, so run 1 is not an outlier
        for _ in range(repeats):
            for code, into in ((LAZY, lazy), (EAGER, eager)):
                wall, cpu = time_once(code, case)
                into.append(wall)
                if code is LAZY:
                    lazy_cpu.append(cpu)
                done += 1
                if progress is not None:
                    progress(done, total)
        results.append(Timing(case.name, lazy, eager, lazy_cpu))
    return results


def load_average() -> str:
    try:
        one, five, _ = os.getloadavg()
    except OSError:
        return "unknown"
    return f"{one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores"
