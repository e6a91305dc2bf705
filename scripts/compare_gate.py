"""The safety gate at a git revision beside the working tree's, in one process: verdicts, then CPU time.

    .venv/bin/python scripts/compare_gate.py verdicts [--base main] [--questions extra.json]
    .venv/bin/python scripts/compare_gate.py timing [--base main] [--limit 300] [--rounds 4] [--scale 2]
    valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        .venv/bin/python scripts/compare_gate.py checks --side new --limit 200 [--dry]

The base revision's `agent/` package is extracted with `git archive` into a temporary folder and
imported as `base_agent` (its `agent.` imports rewritten), so both gates read the same exemplar
file, the same cached vectors and classifiers, and the same question vectors.

* `verdicts`: every labelled line (`evals.safety.dataset.default_set()`, all parts) and the
  (text, role) pairs of `--questions` (a JSON list), each embedded once with the real model:
  the two gates' `Verdict`s (kind, category, source, reply) with the embedding and without it
  (the lexical half alone), and their evidence's nearest-exemplar scores and classifier logits,
  compared exactly. Exits 1 on any difference.
* `timing`: `--limit` × `--rounds` different tune lines (none met twice: caches stay cold as
  for a new question); for each line the real embedding runs before each gate's check (so
  neither reads the exemplar matrix warm), and the two gates alternate which goes first. Thread CPU time of the whole check
  and of its parts, measured the same way on both sides: `prepare` (every call, clauses
  included), the nearest exemplars (`index.scores`), the two classifiers, `decide`, and the
  rest ("lexical": the rules). `--scale K`: both gates read K times the exemplars (each copy
  beyond the first moved a little off its original, 5 % noise, then made unit length again), to
  see how the cost grows as exemplars are added.
* `checks`: N checks of one side on saved question vectors, for instruction counts under
  callgrind; `--dry` does everything but the checks (subtract it: the difference is N checks).
"""

from __future__ import annotations

import argparse
import io
import json
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
VECTORS = ROOT / ".chartside" / "safety" / "compare-vectors.npz"


def load_base(rev: str) -> ModuleType:
    """`agent.safety.gate` as it is at `rev`, imported as `base_agent.safety.gate`."""
    folder = Path(tempfile.mkdtemp(prefix="gate-base-"))
    blob = subprocess.run(["git", "archive", rev, "agent"], cwd=ROOT, check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(blob)) as tar:
        tar.extractall(folder, filter="data")
    (folder / "agent").rename(folder / "base_agent")
    for path in (folder / "base_agent").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        path.write_text(re.sub(r"\b(from|import) agent\.", r"\1 base_agent.", text), encoding="utf-8")
    sys.path.insert(0, str(folder))
    import importlib

    return importlib.import_module("base_agent.safety.gate")


def ready(gate_module: ModuleType, settings: Any) -> dict[str, Any]:
    """The semantic side of one gate module: its exemplar index and classifiers."""
    gate = gate_module.SafetyGate(None, settings)
    embedder, index = gate._ready()
    return {
        "embedder": embedder,
        "index": index,
        "classifier": gate._classifier,
        "advice_model": gate._advice,
    }


def semantic(side: dict[str, Any]) -> dict[str, Any]:
    """The keywords `check` takes for a gate's semantic side."""
    return {k: v for k, v in side.items() if k != "embedder"}


def vectors_for(texts: list[str], embedder: Any) -> dict[str, np.ndarray]:
    """Each text's query vector (the real model), kept in `VECTORS` between runs."""
    known: dict[str, np.ndarray] = {}
    if VECTORS.is_file():
        with np.load(VECTORS, allow_pickle=False) as data:
            known = dict(zip(data["texts"].tolist(), data["vectors"], strict=True))
    missing = [t for t in dict.fromkeys(texts) if t not in known]
    for i, text in enumerate(missing, 1):
        known[text] = np.asarray(embedder.inner.embed_query(text), dtype=np.float32)
        if i % 1000 == 0:
            print(f"  embedded {i:,}/{len(missing):,}", file=sys.stderr)
    if missing:
        VECTORS.parent.mkdir(parents=True, exist_ok=True)
        np.savez(VECTORS, texts=np.array(list(known)), vectors=np.stack(list(known.values())))
    return known


def labelled_pairs(questions: Path | None) -> list[tuple[str, str]]:
    from evals.safety.dataset import default_set

    pairs = [(r.text, r.role) for r in default_set()]
    if questions is not None:
        pairs += [(text, role) for text, role in json.loads(questions.read_text(encoding="utf-8"))]
    return list(dict.fromkeys(pairs))


def verdict_key(v: Any) -> tuple | None:
    return None if v is None else (v.kind, v.category, v.source, v.reply)


def semantic_key(e: Any) -> tuple:
    best = None if e.semantic is None else sorted(e.semantic.best.items())
    return best, e.exemplar_hit, e.emergency_logit, e.advice_logit


def compare_verdicts(args: argparse.Namespace) -> int:
    from agent.safety import gate as new
    from records.settings import get_settings

    base = load_base(args.base)
    settings = get_settings()
    sides = {"base": ready(base, settings), "new": ready(new, settings)}
    pairs = labelled_pairs(args.questions)
    vectors = vectors_for([t for t, _ in pairs], sides["new"]["embedder"])
    differences: dict[str, list[str]] = defaultdict(list)
    kinds: dict[str, int] = defaultdict(int)
    for text, role in pairs:
        vector = vectors[text].tolist()
        signals = {name: {**semantic(side), "vector": vector} for name, side in sides.items()}
        b = verdict_key(base.check(text, role, **signals["base"]))
        n = verdict_key(new.check(text, role, **signals["new"]))
        kinds[n[0] if n else "allow"] += 1
        if b != n:
            differences["verdict"].append(f"[{role}] {text!r}: {b} → {n}")
        if verdict_key(base.check(text, role)) != verdict_key(new.check(text, role)):
            differences["lexical-only verdict"].append(f"[{role}] {text!r}")
        if semantic_key(base.evidence(text, role, **signals["base"])) != semantic_key(
            new.evidence(text, role, **signals["new"])
        ):
            differences["scores or logits"].append(f"[{role}] {text!r}")
    print(f"base {args.base} vs working tree: {len(pairs):,} (text, role) pairs compared")
    print("verdicts of the working tree: " + ", ".join(f"{k} {v:,}" for k, v in sorted(kinds.items())))
    for what in ("verdict", "lexical-only verdict", "scores or logits"):
        print(f"  {what} differences: {len(differences[what])}")
        for line in differences[what][:20]:
            print(f"    {line}")
    return 1 if any(differences.values()) else 0


class Timed:
    """A proxy that adds the thread CPU time of one method's calls to `spent[part]`."""

    def __init__(self, inner: Any, method: str, part: str, spent: dict[str, int]) -> None:
        self._inner, self._method, self._part, self._spent = inner, method, part, spent

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._inner, name)
        if name != self._method:
            return value

        def timed(*a: Any, **k: Any) -> Any:
            started = time.thread_time_ns()
            try:
                return value(*a, **k)
            finally:
                self._spent[self._part] += time.thread_time_ns() - started

        return timed


def scaled(gate_module: ModuleType, index: Any, times: int) -> Any:
    """The gate module's own index class over `times` copies of the exemplars (see `--scale`)."""
    rng = np.random.default_rng(13)
    copies = [index.vectors]
    for _ in range(times - 1):
        moved = index.vectors + 0.05 * rng.standard_normal(index.vectors.shape).astype(np.float32)
        copies.append(moved / np.linalg.norm(moved, axis=1, keepdims=True))
    return gate_module.ExemplarIndex(index.exemplars * times, np.concatenate(copies))


def instrument(gate_module: ModuleType, side: dict[str, Any], spent: dict[str, int]) -> dict[str, Any]:
    """Time `prepare` and `decide` in the gate module, and the index and classifiers by proxy."""
    for name, part in (("prepare", "prepare"), ("decide", "decide")):
        inner = getattr(gate_module, name)

        def timed(*a: Any, _inner: Any = inner, _part: str = part, **k: Any) -> Any:
            started = time.thread_time_ns()
            try:
                return _inner(*a, **k)
            finally:
                spent[_part] += time.thread_time_ns() - started

        setattr(gate_module, name, timed)
    return {
        "index": Timed(side["index"], "scores", "exemplars", spent),
        "classifier": Timed(side["classifier"], "score", "classifiers", spent),
        "advice_model": Timed(side["advice_model"], "score", "classifiers", spent),
    }


PARTS = ("prepare", "lexical", "exemplars", "classifiers", "decide", "whole gate")


def compare_timing(args: argparse.Namespace) -> int:
    from agent.safety import gate as new
    from evals.safety.dataset import default_set
    from records.settings import get_settings

    base = load_base(args.base)
    settings = get_settings()
    modules = {"base": base, "new": new}
    sides = {"base": ready(base, settings), "new": ready(new, settings)}
    if args.scale > 1:
        for name, side in sides.items():
            side["index"] = scaled(modules[name], side["index"], args.scale)
    embedder = sides["new"]["embedder"]
    exemplars = len(sides["new"]["index"].exemplars)
    tune = [r for r in default_set() if r.split == "tune"]
    # a fresh line every check, as in production: a line met again would find its prepared forms
    # and rule reads in the caches (`discourse.core`, `text.mend`, …)
    lines = tune[:: max(1, len(tune) // (args.limit * args.rounds))][: args.limit * args.rounds]
    spent = {name: defaultdict(int) for name in modules}
    signals = {name: instrument(modules[name], sides[name], spent[name]) for name in modules}
    samples: dict[str, dict[str, list[float]]] = {name: defaultdict(list) for name in modules}
    for round_no in range(args.rounds):
        for i, row in enumerate(lines[round_no * args.limit : (round_no + 1) * args.limit]):
            order = ("base", "new") if (i + round_no) % 2 == 0 else ("new", "base")
            for name in order:
                vector = embedder.inner.embed_query(row.text)  # evicts the gate's data, as in production
                spent[name].clear()
                started = time.thread_time_ns()
                modules[name].check(row.text, row.role, vector=vector, **signals[name])
                whole = time.thread_time_ns() - started
                parts = dict(spent[name])
                parts["lexical"] = whole - sum(parts.values())
                parts["whole gate"] = whole
                for part in PARTS:
                    samples[name][part].append(parts.get(part, 0) / 1e6)
    print(
        f"{len(lines):,} checks per side ({len(lines):,} different tune lines in {args.rounds} rounds, "
        f"the two gates alternating; {exemplars:,} exemplars), thread CPU ms"
    )
    print(f"{'part':<12} {'base p50':>9} {'base p95':>9} {'new p50':>9} {'new p95':>9} {'p95 ratio':>9}")
    for part in PARTS:
        b, w = np.array(samples["base"][part]), np.array(samples["new"][part])
        bp50, bp95, np50, np95 = (float(np.percentile(x, q)) for x in (b, w) for q in (50, 95))
        print(f"{part:<12} {bp50:9.3f} {bp95:9.3f} {np50:9.3f} {np95:9.3f} {np95 / max(bp95, 1e-9):8.2f}×")
    return 0


def run_checks(args: argparse.Namespace) -> int:
    from evals.safety.dataset import default_set
    from records.settings import get_settings

    if args.side == "base":
        module = load_base(args.base)
    else:
        from agent.safety import gate as module
    side = ready(module, get_settings())
    tune = [r for r in default_set() if r.split == "tune"]
    rows = tune[:: max(1, len(tune) // args.limit)][: args.limit]
    vectors = vectors_for([r.text for r in rows], side["embedder"])
    signals = semantic(side)
    questions = [(row.text, row.role, vectors[row.text].tolist()) for row in rows]
    for text, role, vector in [] if args.dry else questions:
        module.check(text, role, vector=vector, **signals)
    print(f"{0 if args.dry else len(rows)} checks ({args.side})")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("mode", choices=("verdicts", "timing", "checks"))
    parser.add_argument("--base", default="main", help="the git revision to compare with (default: main)")
    parser.add_argument("--questions", type=Path, help="verdicts: a JSON list of [text, role] pairs to add")
    parser.add_argument("--limit", type=int, default=300, help="timing/checks: how many tune lines")
    parser.add_argument("--rounds", type=int, default=4, help="timing: passes over the lines")
    parser.add_argument("--scale", type=int, default=1, help="timing: read this many times the exemplars")
    parser.add_argument("--side", choices=("base", "new"), default="new", help="checks: which gate")
    parser.add_argument("--dry", action="store_true", help="checks: all but the checks themselves")
    args = parser.parse_args()
    return {"verdicts": compare_verdicts, "timing": compare_timing, "checks": run_checks}[args.mode](args)


if __name__ == "__main__":
    sys.exit(main())
