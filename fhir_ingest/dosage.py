"""A readable sentence for a FHIR Dosage that has no `text`.

Synthea writes `text` only for some prescriptions; the others carry a structured timing and
dose (`frequency: 4, period: 1, periodUnit: d` with `doseQuantity: 1`). A records reader
must be able to say "1 dose, 4 times a day" without doing arithmetic on JSON, and the
sentence is derived only from what the data states.
"""

from __future__ import annotations

from fhir_ingest.fields import Fields

_UNITS = {"s": "second", "min": "minute", "h": "hour", "d": "day", "wk": "week", "mo": "month", "a": "year"}


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def frequency_phrase(frequency: float | None, period: float | None, unit: str | None) -> str | None:
    if frequency is None or period is None or unit is None:
        return None
    word = _UNITS.get(unit, unit)
    times = (
        {1: "once", 2: "twice"}.get(int(frequency), f"{_number(frequency)} times")
        if float(frequency).is_integer()
        else f"{_number(frequency)} times"
    )
    if period == 1:
        return f"{times} a {word}"
    return f"{times} every {_number(period)} {word}s"


def describe_dosage(dosage: Fields) -> str | None:
    """`text` when present; otherwise dose and frequency from the structured fields."""
    text = dosage.string("text")
    if text:
        return text
    dose = None
    for dose_rate in dosage.objs("doseAndRate"):
        quantity = dose_rate.obj("doseQuantity")
        if quantity is not None and quantity.number("value") is not None:
            dose = (quantity.number("value") or 0.0, quantity.string("unit"))
            break
    timing = dosage.obj("timing")
    repeat = timing.obj("repeat") if timing is not None else None
    frequency = (
        None
        if repeat is None
        else frequency_phrase(
            repeat.number("frequency"), repeat.number("period"), repeat.string("periodUnit")
        )
    )
    return sentence(dose, frequency, dosage.boolean("asNeededBoolean"))


def sentence(
    dose: tuple[float, str | None] | None, frequency: str | None, as_needed: bool | None
) -> str | None:
    """ "1 dose, 4 times a day, as needed" from the dose (value, unit), the frequency phrase
    (`frequency_phrase`) and asNeeded, read already."""
    parts = []
    if dose is not None:
        value, unit = dose
        parts.append(f"{_number(value)} {unit or ('dose' if value == 1 else 'doses')}")
    if frequency:
        parts.append(frequency)
    if as_needed:
        parts.append("as needed")
    return ", ".join(parts) or None
