"""`chartside bench safety`: the gate's own cost, side by side with the question embedding it shares.

Lines of the tune part (timing only; the frozen parts are not run here) are embedded once (the cost search pays anyway), then the gate
decides with that vector; the two are timed separately in the same run. The target is the
gate's own p95 ≤ 5 ms beyond the shared embedding. Wall time on a shared two-core machine
includes waiting for a core, so the gate's thread CPU time is printed next to it.
"""

from __future__ import annotations

import time

import numpy as np


def bench_safety(limit: int = 600) -> None:
    """Time the gate (lexical rules, nearest exemplars, both classifiers) and the query embedding."""
    from agent.safety.gate import SafetyGate, check
    from chartside.console import console
    from evals.safety.dataset import default_set
    from records.settings import get_settings

    gate = SafetyGate(None, get_settings())
    embedder, index = gate._ready()
    tune = [r for r in default_set() if r.split == "tune"]
    rows = tune[:: max(1, len(tune) // limit)][:limit]
    embed_ms, gate_ms, gate_cpu_ms = [], [], []
    for row in rows:
        started = time.perf_counter()
        vector = embedder.inner.embed_query(row.text) if embedder is not None else None
        embed_ms.append((time.perf_counter() - started) * 1000)
        started, cpu = time.perf_counter(), time.thread_time()
        check(
            row.text,
            row.role,
            vector=vector,
            index=index,
            classifier=gate._classifier,
            advice_model=gate._advice,
        )
        gate_ms.append((time.perf_counter() - started) * 1000)
        gate_cpu_ms.append((time.thread_time() - cpu) * 1000)

    def stats(xs: list[float]) -> str:
        a = np.array(xs)
        return f"p50 {np.percentile(a, 50):.2f} ms · p95 {np.percentile(a, 95):.2f} ms · max {a.max():.2f} ms"

    console.print(f"{len(rows)} questions ({'lexical + semantic' if index is not None else 'lexical only'})")
    console.print(f"question embedding (shared with search): {stats(embed_ms)}")
    console.print(f"gate beyond the embedding (wall):        {stats(gate_ms)}")
    console.print(
        f"gate beyond the embedding (CPU time):    {stats(gate_cpu_ms)}  (wall minus waiting for a core)"
    )
    ratio = np.percentile(gate_ms, 95) / max(np.percentile(embed_ms, 95), 1e-9)
    console.print(f"gate p95 / embedding p95 = {ratio:.2f}")
