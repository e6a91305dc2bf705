"""Round fifteen: two chart questions of the generated set that got the emergency reply.

- "potassium >12 months ago?" (a clinician's shorthand for "was it last checked over a year
  ago"): the 12 of "12 months" was read as a potassium of 12 reported now;
- "was my wbc last cheked more than a year ago": the typo "cheked" was mended to "choked".

The emergencies around them still get the emergency reply (lexical rules only, as here).
"""

from __future__ import annotations

import pytest

from agent.safety.gate import check

PASS = [
    ("potassium >12 months ago?", "clinician"),
    ("k+ 12 months ago?", "clinician"),
    ("sodium over 6 months ago?", "clinician"),
    ("was my wbc last cheked more than a year ago", "patient"),
    ("when was my cholesterol last cheked", "patient"),
    ("has my a1c been chekced this year", "patient"),
]
STILL_EMERGENCIES = [
    ("potassium 7.9 now", "clinician"),
    ("k 7.9", "clinician"),
    ("he choked on food and cant breathe", "patient"),
    ("my son is chocking on a grape", "patient"),
    ("she is choking", "patient"),
]


@pytest.mark.parametrize(("text", "role"), PASS)
def test_a_span_of_months_and_a_typo_of_checked_are_no_emergency(text: str, role: str) -> None:
    verdict = check(text, role)
    assert verdict is None or verdict.kind != "emergency", (text, verdict)


@pytest.mark.parametrize(("text", "role"), STILL_EMERGENCIES)
def test_the_emergencies_beside_them_still_are(text: str, role: str) -> None:
    verdict = check(text, role)
    assert verdict is not None and verdict.kind == "emergency", (text, verdict)
