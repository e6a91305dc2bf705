"""`chartside eval safety`: the safety gate measured on the frozen test part of the labelled set.

Each labelled line says what the gate must do for that role (emergency reply, advice refusal,
or let it through). The report is a table per category (count, recall, precision), a
confusion table per role, and every miss listed: a missed emergency is the most harmful
thing this product can do, so each one is printed, not summarised.

Precision of a category is "of the lines the gate put in this category, how many truly
needed that kind of reply"; recall is "of this category's lines, how many got the reply they
needed". Hard negatives (label `allow`) have a recall (how many passed) and no precision.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import typer

from evals.safety.dataset import Utterance

Predict = Callable[[str, str], "tuple[str, str | None]"]  # (text, role) -> (kind, category)
KINDS = ("emergency", "advice", "allow")


@dataclass(frozen=True)
class Outcome:
    row: Utterance
    kind: str  # what the gate did
    category: str | None  # the gate's category (None when it let the line through)

    @property
    def correct(self) -> bool:
        return self.kind == self.row.label


@dataclass
class SafetyReport:
    outcomes: list[Outcome] = field(default_factory=list)

    def misses(self, label: str | None = None) -> list[Outcome]:
        return [o for o in self.outcomes if not o.correct and (label is None or o.row.label == label)]

    def recall(self, label: str) -> float | None:
        rows = [o for o in self.outcomes if o.row.label == label]
        return None if not rows else sum(o.correct for o in rows) / len(rows)

    def false_positive_rate(self) -> float | None:
        rows = [o for o in self.outcomes if o.row.label == "allow"]
        return None if not rows else sum(not o.correct for o in rows) / len(rows)

    def precision(self, kind: str) -> float | None:
        flagged = [o for o in self.outcomes if o.kind == kind]
        return None if not flagged else sum(o.row.label == kind for o in flagged) / len(flagged)

    def categories(self) -> list[dict[str, Any]]:
        """One row per (label, category) of the set, in label order."""
        by_cat: dict[tuple[str, str], list[Outcome]] = defaultdict(list)
        predicted: Counter[str] = Counter()
        predicted_right: Counter[str] = Counter()
        for o in self.outcomes:
            by_cat[(o.row.label, o.row.category)].append(o)
            if o.kind != "allow" and o.category:
                predicted[o.category] += 1
                predicted_right[o.category] += int(o.row.label == o.kind)
        rows = []
        for (label, category), items in sorted(
            by_cat.items(), key=lambda kv: (KINDS.index(kv[0][0]), kv[0][1])
        ):
            right = sum(o.correct for o in items)
            precision = (
                predicted_right[category] / predicted[category]
                if label != "allow" and predicted[category]
                else None
            )
            rows.append(
                {
                    "label": label,
                    "category": category,
                    "n": len(items),
                    "correct": right,
                    "recall": right / len(items),
                    "flagged": predicted[category] if label != "allow" else None,
                    "precision": precision,
                }
            )
        return rows

    def confusion(self) -> dict[str, dict[str, Counter[str]]]:
        """role → true label → Counter of what the gate did."""
        table: dict[str, dict[str, Counter[str]]] = defaultdict(lambda: defaultdict(Counter))
        for o in self.outcomes:
            table[o.row.role][o.row.label][o.kind] += 1
        return table

    def as_json(self) -> dict[str, Any]:
        return {
            "lines": len(self.outcomes),
            "recall": {k: self.recall(k) for k in ("emergency", "advice")},
            "precision": {k: self.precision(k) for k in ("emergency", "advice")},
            "hard_negative_false_positive_rate": self.false_positive_rate(),
            "categories": self.categories(),
            "misses": [
                {
                    "text": o.row.text,
                    "label": o.row.label,
                    "category": o.row.category,
                    "role": o.row.role,
                    "got": o.kind,
                    "source": o.row.source,
                }
                for o in self.misses()
            ],
        }


def evaluate(predict: Predict, rows: Iterable[Utterance]) -> SafetyReport:
    report = SafetyReport()
    for row in rows:
        kind, category = predict(row.text, row.role)
        report.outcomes.append(Outcome(row, kind, category))
    return report


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.1f}%"


def render(report: SafetyReport, title: str, console: Any) -> None:
    """Tables on stdout (rich): per category, per role, then every miss."""
    from rich.table import Table

    table = Table("label", "category", "n", "correct", "recall", "flagged", "precision", title=title)
    for r in report.categories():
        table.add_row(
            r["label"],
            r["category"],
            str(r["n"]),
            str(r["correct"]),
            _pct(r["recall"]),
            "—" if r["flagged"] is None else str(r["flagged"]),
            _pct(r["precision"]),
        )
    console.print(table)
    confusion = Table(
        "role", "true label", "n", "→ emergency", "→ advice", "→ allow", title="Confusion per role"
    )
    for role, labels in sorted(report.confusion().items()):
        for label in KINDS:
            got = labels.get(label)
            if got:
                confusion.add_row(role, label, str(sum(got.values())), *(str(got[k]) for k in KINDS))
    console.print(confusion)
    fpr = report.false_positive_rate()
    console.print(
        f"emergency recall {_pct(report.recall('emergency'))} · advice recall {_pct(report.recall('advice'))} · "
        f"hard-negative false positives {_pct(fpr)} · emergency precision {_pct(report.precision('emergency'))} · "
        f"advice precision {_pct(report.precision('advice'))}"
    )
    for label, heading in (
        ("emergency", "MISSED EMERGENCIES"),
        ("advice", "Missed advice requests"),
        ("allow", "Hard-negative false positives"),
    ):
        missed = report.misses(label)
        colour = "red" if label == "emergency" and missed else "yellow" if missed else "green"
        console.print(f"[{colour}]{heading}: {len(missed)}[/]")
        for o in missed:
            console.print(
                f"  [{o.row.role}] {o.row.text!r} ({o.row.category}) → {o.kind}"
                f"{'' if o.category is None else ' ' + o.category}  [dim]{o.row.source}[/]"
            )


def unexpected_misses(
    reports: dict[str, SafetyReport], known: dict[str, frozenset[str]] | None = None
) -> dict[str, list[str]]:
    """Per part, the missed emergencies not listed in `evals.safety.known_misses.KNOWN_MISSES`
    (the `make test` guard: any of them fails the suite)."""
    if known is None:
        from evals.safety.known_misses import KNOWN_MISSES as known
    return {
        name: sorted(o.row.text for o in report.misses("emergency") if o.row.text not in known.get(name, ()))
        for name, report in reports.items()
    }


def rows_for(split: str, roles: Sequence[str] | None = None) -> list[Utterance]:
    """The lines of one part (`all`: every line; `frozen`: every frozen part together)."""
    from evals.safety.dataset import part

    return [r for r in part(split) if not roles or r.role in roles]


def write_tuning_exemplars() -> int:
    """The semantic detector's exemplars = the tuning part, nothing else (a test checks it)."""
    from agent.safety.semantic import Exemplar, write_exemplars
    from evals.safety.dataset import default_set

    rows = [Exemplar(r.text, r.label, r.category, r.role) for r in default_set() if r.split == "tune"]
    write_exemplars(rows)
    return len(rows)


def gate_predictor(settings: Any) -> tuple[Predict, Any]:
    """The production gate (`SafetyGate`, the one GuardedAgent runs) as a predictor."""
    from agent.safety.gate import SafetyGate

    gate = SafetyGate(None, settings)

    def predict(text: str, role: str) -> tuple[str, str | None]:
        verdict = gate.check(text, role)
        if verdict is None:
            return "allow", None
        return ("emergency" if verdict.kind == "emergency" else "advice"), verdict.category

    return predict, gate


def safety_command(
    part: str = typer.Option(
        "test",
        "--part",
        help="test | <name> of any evals/safety/holdout_<name>.txt | frozen (every frozen part) | tune | all",
    ),
    as_json: bool = typer.Option(False, "--json", help="The report as JSON on stdout."),
    export_exemplars: bool = typer.Option(
        False,
        "--export-exemplars",
        help="Rewrite agent/safety/exemplars.csv from the tuning part, then stop.",
    ),
    cv: bool = typer.Option(
        False, "--cv", help="Group cross-validation of the gate on the tune part, per classifier threshold."
    ),
    by_file: bool = typer.Option(
        False,
        "--by-file",
        help="With --cv: leave one tune FILE out per fold (lines of one file resemble each other).",
    ),
) -> None:
    """The safety gate on the labelled utterance set: per category and role, every miss listed."""
    import json

    from chartside.console import console, fail
    from records.settings import get_settings

    if export_exemplars:
        count = write_tuning_exemplars()
        console.print(f"{count} tuning lines → agent/safety/exemplars.csv")
        return
    from evals.safety.dataset import ALL_FROZEN, default_set, frozen_parts

    if cv or by_file:
        _cv_command(get_settings(), console, by_file=by_file)
        return
    frozen = frozen_parts()
    parts = sorted({r.split for r in default_set()} | {"all", ALL_FROZEN})
    if part not in parts:
        raise fail(f"--part {part!r}: choose one of {', '.join(parts)}")
    predict, gate = gate_predictor(get_settings())
    # `frozen` reports each frozen part on its own, then all of them together
    names = ([*frozen, ALL_FROZEN] if len(frozen) > 1 else list(frozen)) if part == ALL_FROZEN else [part]
    reports = {name: evaluate(predict, rows_for(name)) for name in names}
    if as_json:
        payload = (
            {n: r.as_json() for n, r in reports.items()} if part == ALL_FROZEN else reports[part].as_json()
        )
        print(json.dumps(payload, indent=2, ensure_ascii=False))
    else:
        semantic = "lexical + semantic" if gate._index is not None else "lexical only (no embedding model)"
        for name, report in reports.items():
            label = f"every frozen part ({', '.join(frozen)})" if name == ALL_FROZEN else f"the {name} part"
            kind = " (frozen)" if name in frozen else ""
            render(
                report, f"Safety gate ({semantic}) on {label}{kind}: {len(report.outcomes)} lines", console
            )
    if any(r.misses("emergency") for r in reports.values()):
        if not as_json:
            unknown = unexpected_misses(reports)
            for name, report in reports.items():
                known = len(report.misses("emergency")) - len(unknown[name])
                if known:
                    console.print(
                        f"[yellow]{name}: {known} of its missed emergencies are listed in "
                        "evals/safety/known_misses.py[/]"
                    )
        raise typer.Exit(1)


def _cv_command(settings: Any, console: Any, *, by_file: bool = False) -> None:
    """`--cv`: the table the gate's `OPERATING` point was chosen from (tune part only)."""
    from rich.table import Table

    from agent.safety.gate import OPERATING
    from chartside.console import reporting
    from evals.safety.tuning import FOLDS, OFF, cross_validate, source_file

    _predict, gate = gate_predictor(settings)
    _embedder, index = gate._ready()
    if index is None:
        from chartside.console import fail

        raise fail("--cv needs the local embedding model, and it could not be loaded")
    rows = rows_for("tune")
    with reporting("cross-validating (tune lines scored)") as report_progress:
        table_rows = cross_validate(rows, index, progress=report_progress, by_file=by_file)
    folds = (
        f"leave-one-file-out ({len({source_file(r) for r in rows})} files)"
        if by_file
        else f"{FOLDS}-fold group"
    )
    table = Table(title=f"Gate on the tune part, {folds} cross-validation ({len(rows)} lines)")
    for col in (
        "emergency clf threshold",
        "floor",
        "advice clf threshold",
        "floor",
        "allow veto E / A",
        "advice over clf",
        "emergency recall",
        "advice recall",
        "hard-negative FP",
    ):
        table.add_column(col, justify="right")

    def threshold(value: float) -> str:
        return "off" if value >= OFF else f"{value:+.2f}"

    def margin(value: float) -> str:
        return "off" if value >= OFF else f"{value:.2f}"

    for r in table_rows:
        op = r.op
        in_use = " (in use)" if op == OPERATING else ""
        table.add_row(
            threshold(op.emergency_threshold) + in_use,
            f"{op.emergency_floor:.2f}",
            threshold(op.advice_threshold),
            f"{op.advice_floor:.2f}",
            f"{margin(op.emergency_allow_margin)} / {margin(op.advice_allow_margin)}",
            "off" if op.advice_over_classifier == float("inf") else f"{op.advice_over_classifier:.1f}",
            *map(_pct, (r.emergency_recall, r.advice_recall, r.hard_negative_fp)),
        )
    console.print(table)
    chosen = next((r for r in table_rows if r.op == OPERATING), None)
    if chosen is not None:
        # the operating point in use, per category and role, every miss listed (out of fold)
        report = SafetyReport(
            [
                Outcome(row, kind, category)
                for row, (kind, category) in zip(rows, chosen.predictions, strict=True)
            ]
        )
        render(
            report,
            f"Tune CV ({folds}) at the operating point in use ({len(rows)} lines, out of fold)",
            console,
        )
        if by_file:
            per_file = Table(
                "held-out file",
                "lines",
                "emergency recall",
                "advice recall",
                "hard-negative FP",
                title="Each file scored by a gate fitted on the other files",
            )
            by_source: dict[str, list[Outcome]] = defaultdict(list)
            for o in report.outcomes:
                by_source[source_file(o.row)].append(o)
            for name, outcomes in sorted(by_source.items()):
                part = SafetyReport(outcomes)
                per_file.add_row(
                    name,
                    str(len(outcomes)),
                    *map(_pct, (part.recall("emergency"), part.recall("advice"), part.false_positive_rate())),
                )
            console.print(per_file)
