"""`chartside bench safety`: the gate's own cost, side by side with the question embedding it shares.

Lines of the tune part (timing only; the frozen parts are not run here) are embedded one at a time
(the cost search pays anyway), then the gate decides with that vector; the two are timed separately
in the same run, the embedding always between two checks as in production (it evicts the gate's
exemplar matrix from the cache, so checks run back to back would read it warm). The target is the
gate's own p95 ≤ 5 ms beyond the shared embedding. Wall time on a shared two-core machine includes
waiting for a core, so the gate's thread CPU time is printed next to it, whole and per part:

* `prepare`: the question's normal forms (`agent.safety.text.prepare`: typo mending, unwrapping);
* `lexical`: the readable rules (`lexical`, `severity`, `smalltalk`, the critical-readings
  reader `vitals`), clause splitting included;
* `exemplars`: the nearest exemplar of each label (`semantic.ExemplarIndex.scores`);
* `classifiers`: the two logistic regressions;
* `decide`: the decision over that evidence (`gate.decide`).
"""

from __future__ import annotations

import time

import numpy as np

PARTS = ("prepare", "lexical", "exemplars", "classifiers", "decide")


class Laps:
    """Thread CPU time of each part of one check, in ms (`gate.check(..., lap=...)` calls it as
    each part ends)."""

    def __init__(self) -> None:
        self.spent = dict.fromkeys(PARTS, 0.0)
        self._mark = time.thread_time_ns()

    def __call__(self, part: str) -> None:
        now = time.thread_time_ns()
        self.spent[part] += (now - self._mark) / 1e6
        self._mark = now


def bench_safety(limit: int = 600) -> None:
    """Time the gate (lexical rules, nearest exemplars, both classifiers) and the query embedding."""
    from rich.table import Table

    from agent.safety.gate import SafetyGate, check
    from chartside.console import console
    from evals.safety.dataset import default_set
    from records.settings import get_settings

    gate = SafetyGate(None, get_settings())
    embedder, index = gate._ready()
    tune = [r for r in default_set() if r.split == "tune"]
    rows = tune[:: max(1, len(tune) // limit)][:limit]
    embed_ms, gate_ms, gate_cpu_ms = [], [], []
    parts: dict[str, list[float]] = {p: [] for p in PARTS}
    for row in rows:
        started = time.perf_counter()
        vector = embedder.inner.embed_query(row.text) if embedder is not None else None
        embed_ms.append((time.perf_counter() - started) * 1000)
        laps = Laps()
        started = time.perf_counter()
        check(
            row.text,
            row.role,
            vector=vector,
            index=index,
            classifier=gate._classifier,
            advice_model=gate._advice,
            lap=laps,
        )
        gate_ms.append((time.perf_counter() - started) * 1000)
        gate_cpu_ms.append(sum(laps.spent.values()))
        for part, ms in laps.spent.items():
            parts[part].append(ms)

    def stats(xs: list[float]) -> str:
        a = np.array(xs)
        return f"p50 {np.percentile(a, 50):.2f} ms · p95 {np.percentile(a, 95):.2f} ms · max {a.max():.2f} ms"

    exemplars = f", {len(index.exemplars):,} exemplars" if index is not None else ""
    console.print(
        f"{len(rows)} questions ({'lexical + semantic' if index is not None else 'lexical only'}{exemplars})"
    )
    console.print(f"question embedding (shared with search): {stats(embed_ms)}")
    console.print(f"gate beyond the embedding (wall):        {stats(gate_ms)}")
    console.print(
        f"gate beyond the embedding (CPU time):    {stats(gate_cpu_ms)}  (wall minus waiting for a core)"
    )
    table = Table(title="Gate CPU time by part (thread_time per check)")
    table.add_column("part")
    for name in ("p50 ms", "p95 ms", "max ms", "share"):
        table.add_column(name, justify="right")
    total = sum(gate_cpu_ms) or 1.0
    for part, xs in [*parts.items(), ("whole gate", gate_cpu_ms)]:
        a = np.array(xs)
        table.add_row(
            part,
            f"{np.percentile(a, 50):.2f}",
            f"{np.percentile(a, 95):.2f}",
            f"{a.max():.2f}",
            f"{a.sum() / total:.0%}",
        )
    console.print(table)
    ratio = np.percentile(gate_ms, 95) / max(np.percentile(embed_ms, 95), 1e-9)
    console.print(f"gate p95 / embedding p95 = {ratio:.2f}")
