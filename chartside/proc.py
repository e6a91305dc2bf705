"""CPU time of another process, read from Linux `/proc` (for benchmarks that time a server)."""

from __future__ import annotations

import os
from pathlib import Path


def process_cpu(pid: int) -> float | None:
    """CPU seconds (user + system) the running process `pid` has used so far, or None when it
    cannot be read (not Linux, no such process)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None
