"""Reciprocal Rank Fusion: merge rankings that have no common scale.

Cosine similarity and full-text rank are not comparable numbers, so we fuse by position:
score(d) = Σ over rankings of 1 / (k + rank of d), rank starting at 1 (Cormack et al., 2009).
k = 60 damps the difference between first and second place so that one list cannot
dominate. Pure function; the order of ties is the order of first appearance, so results are
deterministic.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)

DEFAULT_K = 60


def reciprocal_rank_fusion(rankings: Sequence[Sequence[K]], k: int = DEFAULT_K) -> list[tuple[K, float]]:
    """Rankings (best first, no duplicates within one) → [(item, fused score)], best first."""
    if k < 0:
        raise ValueError("k must be >= 0")
    scores: dict[K, float] = {}
    first_seen: dict[K, int] = {}
    for ranking in rankings:
        seen_here: set[K] = set()
        for rank, item in enumerate(ranking, start=1):
            if item in seen_here:
                raise ValueError(f"{item!r} appears twice in one ranking")
            seen_here.add(item)
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
            first_seen.setdefault(item, len(first_seen))
    return sorted(scores.items(), key=lambda pair: (-pair[1], first_seen[pair[0]]))
