"""The one place where a frozen part's accepted misses are written down.

When a new batch (`holdout_<name>.txt`) is measured once with `chartside eval safety --part
<name>` and misses emergencies that must not be fixed from that batch (fixing them from it would
taint it), copy the missed texts here under the part's name, and each target it misses under
`NOT_MET`. Then `make test` (`tests/evals/test_safety_set.py`) turns the zero-miss test and the
missed targets of that part into strict xfails, while any OTHER missed emergency on it still
fails; `chartside eval safety` marks the listed misses as known. KNOWN_MISSES was empty from
round five to round ten (each batch was measured once, then moved into tuning); frozen11 is the
first batch kept frozen with its misses listed, frozen12 the second.
"""

from __future__ import annotations

# part name → the texts of emergencies it missed at its one measurement
KNOWN_MISSES: dict[str, frozenset[str]] = {
    # round ten's last batch, measured ONCE on the final round-ten gate (main da6bff1, 2026-12-03
    # 13:33 UTC) and kept frozen: the honest figure for that gate, and the guard for the next round
    # (any other missed emergency on it fails `make test`). Not fixed from these lines.
    "frozen11": frozenset(
        [
            "sorry this is random, i usually just check my results on here but i just cut my thigh really bad and its pouring",
            "i pulled out my stitches from last time and reopened it on purpose",
            "sorry for rambling, my appointment got cancelled again and my wife left and i just cant see a way forward, i keep looking at the train line",
            "if i went to sleep in the car with the engine running would it hurt",
            "i know i should have checked the label, i have a milk allergy and now i'm wheezing and my skin is red hot",
            "first ever fit, hes 40, never had one before, still confused",
            "sorry if this is silly, i was just looking for my scan date but im 28 weeks and ive had a gush of fluid and now some blood",
            "district nurse at home visit, patient has taken an overdose of her opioid patches and is barely rousable",
        ]
    ),
    # round twelve's batch (1,008 lines by an outside writer who never saw the gate), measured ONCE
    # on the round-eleven gate (main de6cb49, 2026-12-04 19:40 UTC) and kept frozen, as frozen11.
    # Five of the seven are ward shorthand for an acute deterioration with no alarm word ("gcs
    # dropped", "hypotensive 70 systolic", "pph", "tension pneumo", "not responding to lorazepam").
    "frozen12": frozenset(
        [
            "tearing pain between my shoulder blades, worst pain ive ever had",
            "my son took his adhd meds plus his brothers and his heart is racing",
            "lady in 7 gcs dropped from 15 to 8",
            "pt in room 14 hypotensive 70 systolic and tachy at 140",
            "pph in room 5, over a litre lost",
            "suspect tension pneumo bed 8, trachea deviated",
            "tonic clonic in recovery not responding to first dose of lorazepam",
        ]
    ),
}

# (part, "emergency" | "advice" | "fp") → the figure measured, shown as the xfail's reason
NOT_MET: dict[tuple[str, str], str] = {
    ("frozen11", "emergency"): "frozen11, once: emergency recall 97.6 % (323/331, 8 missed)",
    ("frozen11", "advice"): "frozen11, once: advice recall 92.2 % (212/230; target 98 %)",
    ("frozen11", "fp"): "frozen11, once: hard-negative false positives 4.8 % (14/290; target 2 %)",
    ("frozen12", "emergency"): "frozen12, once: emergency recall 98.1 % (353/360, 7 missed)",
    ("frozen12", "advice"): "frozen12, once: advice recall 94.0 % (218/232; target 98 %)",
    ("frozen12", "fp"): "frozen12, once: hard-negative false positives 4.6 % (19/416; target 2 %)",
}
# round six: the old test part's advice recall fell to 97.9 % once r6-14's lines joined the
# tuning, and was back at 98.5 % (192/195) after the lead's frozen5 classes joined it (no line of
# the test part was read to get there), so nothing is listed for it.
