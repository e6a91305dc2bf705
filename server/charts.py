"""Geometry for the small trend charts in the side panel (drawn as inline SVG by the template).

Only numbers leave this module, so the template can put them into SVG attributes without any
markup being built from record text.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass


@dataclass(frozen=True)
class Sparkline:
    width: int
    height: int
    polyline: str  # "x,y x,y …" for <polyline points=…>
    last: tuple[float, float]  # the latest point, drawn as a dot
    minimum: float
    maximum: float
    count: int


def sparkline(
    points: list[tuple[dt.datetime, float]], *, width: int = 120, height: int = 32, pad: int = 3
) -> Sparkline | None:
    """Time on x (real spacing, not index), value on y; None when there is nothing to draw."""
    if len(points) < 2:
        return None
    times = [p[0].timestamp() for p in points]
    values = [p[1] for p in points]
    t0, t1 = min(times), max(times)
    v0, v1 = min(values), max(values)
    span_t = (t1 - t0) or 1.0
    span_v = (v1 - v0) or 1.0
    inner_w, inner_h = width - 2 * pad, height - 2 * pad

    def xy(t: float, v: float) -> tuple[float, float]:
        x = pad + (t - t0) / span_t * inner_w
        y = pad + inner_h - ((v - v0) / span_v * inner_h if v1 != v0 else inner_h / 2)
        return round(x, 1), round(y, 1)

    coords = [xy(t, v) for t, v in zip(times, values, strict=True)]
    return Sparkline(
        width=width,
        height=height,
        polyline=" ".join(f"{x},{y}" for x, y in coords),
        last=coords[-1],
        minimum=v0,
        maximum=v1,
        count=len(points),
    )
