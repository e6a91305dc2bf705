"""Round fifteen (lead): two false alarms the safety branch found and left — a "fitting" that is
an appointment, and a "blue" that is an inhaler's colour — without losing the emergencies that
use the same words."""

from __future__ import annotations

import pytest

ALLOWED = [
    "i have a fitting for my hearing aid",
    "when is my hearing aid fitting appointment",
    "what inhaler is the blue one",
    "is the blue inhaler my reliever",
    "which of my pumps is the blue one, the salbutamol?",
]
EMERGENCIES = [
    "my son is fitting",
    "she's fitting in the bath",
    "he is fitting on the floor and wont stop",
    "my dad is fitting in the kitchen",
    "his lips are blue",
    "she's turning blue",
    "baby is going blue and floppy",
]


@pytest.mark.parametrize("text", ALLOWED)
def test_an_appointment_or_a_colour_is_no_emergency(production_gate, text: str) -> None:
    assert production_gate(text, "patient")[0] == "allow", text


@pytest.mark.parametrize("text", EMERGENCIES)
def test_a_fit_or_a_blue_person_still_is(production_gate, text: str) -> None:
    assert production_gate(text, "patient")[0] == "emergency", text
