"""The per-category chart: accuracy bars (and the risk-weighted score as a marker) per run.

matplotlib with the Agg backend (no display needed); one PNG, safety first.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def category_chart(runs: list[tuple[str, dict[str, Any]]], path: Path) -> Path | None:
    """Grouped bars: one group per category, one bar per run. None when there is nothing to draw."""
    categories = list(dict.fromkeys(c for _, report in runs for c in report["by_category"]))
    if not categories:
        return None
    width = 0.8 / len(runs)
    fig, ax = plt.subplots(figsize=(max(8.0, 1.1 * len(categories) + 2), 5.0), dpi=110)
    for i, (name, report) in enumerate(runs):
        xs = [j + (i - (len(runs) - 1) / 2) * width for j in range(len(categories))]
        acc = [report["by_category"].get(c, {}).get("accuracy", 0.0) * 100 for c in categories]
        score = [report["by_category"].get(c, {}).get("score", 0.0) * 100 for c in categories]
        bars = ax.bar(xs, acc, width * 0.9, label=f"{name} accuracy")
        ax.scatter(
            xs,
            score,
            marker="_",
            s=200,
            color="black",
            zorder=3,
            label="score (−100…100)" if i == 0 else None,
        )
        for bar, value, c in zip(bars, acc, categories, strict=True):
            n = report["by_category"].get(c, {}).get("n", 0)
            ax.annotate(
                f"{value:.0f}%\nn={n}",
                (bar.get_x() + bar.get_width() / 2, max(value, 0)),
                ha="center",
                va="bottom",
                fontsize=7,
            )
    ax.set_xticks(range(len(categories)))
    ax.set_xticklabels(categories, rotation=30, ha="right")
    ax.set_ylim(-100, 115)
    ax.axhline(0, color="grey", linewidth=0.6)
    ax.set_ylabel("%")
    ax.set_title("Accuracy per category (bars) and risk-weighted score (marks)")
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path
