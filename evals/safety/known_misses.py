"""The one place where a frozen part's accepted misses are written down.

When a new batch (`holdout_<name>.txt`) is measured once with `chartside eval safety --part
<name>` and misses emergencies that must not be fixed from that batch (fixing them from it would
taint it), copy the missed texts here under the part's name, and each target it misses under
`NOT_MET`. Then `make test` (`tests/evals/test_safety_set.py`) turns the zero-miss test and the
missed targets of that part into strict xfails, while any OTHER missed emergency on it still
fails; `chartside eval safety` marks the listed misses as known. KNOWN_MISSES is empty since
round five (frozen3 and frozen4 were each measured once, then moved into tuning).
"""

from __future__ import annotations

# part name → the texts of emergencies it missed at its one measurement
KNOWN_MISSES: dict[str, frozenset[str]] = {}

# (part, "emergency" | "advice" | "fp") → the figure measured, shown as the xfail's reason
NOT_MET: dict[tuple[str, str], str] = {}
# round six: the old test part's advice recall fell to 97.9 % once r6-14's lines joined the
# tuning, and was back at 98.5 % (192/195) after the lead's frozen5 classes joined it (no line of
# the test part was read to get there), so nothing is listed now.
