"""A dosage without text still reads as a sentence, derived only from its fields."""

from __future__ import annotations

from fhir_ingest.dosage import describe_dosage
from fhir_ingest.fields import Fields


def dosage(**data) -> Fields:
    return Fields(data, 0)


def test_text_wins():
    assert describe_dosage(dosage(text="Take as needed.", asNeededBoolean=True)) == "Take as needed."


def test_structured_dose_and_frequency():
    d = dosage(
        timing={"repeat": {"frequency": 4, "period": 1.0, "periodUnit": "d"}},
        doseAndRate=[{"doseQuantity": {"value": 1.0}}],
    )
    assert describe_dosage(d) == "1 dose, 4 times a day"
    d = dosage(
        timing={"repeat": {"frequency": 1, "period": 2, "periodUnit": "wk"}},
        doseAndRate=[{"doseQuantity": {"value": 2.5, "unit": "mg"}}],
        asNeededBoolean=True,
    )
    assert describe_dosage(d) == "2.5 mg, once every 2 weeks, as needed"


def test_nothing_known_is_none():
    assert describe_dosage(dosage(sequence=1)) is None
