"""Critical readings (`agent.safety.vitals`): a measure, a number and a cut-off, whatever the words.

Round thirteen. The reader was written from the sources in `critical_values.yaml` BEFORE the
fifteenth held-out batch was measured; on that batch (measured once on main b1f5573, then again
with the reader and nothing else changed) it caught six of the twelve ward reports the rules
missed, with no new false positive on its 60 chart questions or 368 hard negatives. The wordings
below are not that batch's.
"""

from __future__ import annotations

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent.safety.gate import check
from agent.safety.vitals import _DIGIT, DATA, _table, critical_now, readings

WARD_REPORTS = [
    ("sats 79 on 15l via nrb", "oxygen saturation"),
    ("bay 3 spo2 now 81% despite high flow", "oxygen saturation"),
    ("la saturacion del box 4 esta en 80", "oxygen saturation"),
    ("rr 6 after the pca bolus", "respiratory rate"),
    ("hr 172 irregular, bp 76/40", "systolic blood pressure"),
    ("pressure 68 systolic after the spinal", "systolic blood pressure"),
    ("map 48 on noradrenaline", "mean arterial pressure"),
    ("gcs went from 13 to 7 in the last hour", "consciousness (GCS)"),
    ("k+ 7.3 on the gas", "potassium"),
    ("sodium 109 and fitting", "sodium"),
    ("lactate 7.8 and mottled", "lactate"),
    ("hb 49 on the venous gas, melaena", "haemoglobin"),
    ("cbg 1.9 and not rousing", "glucose"),
    ("temp 33.1 core, found on the floor", "temperature"),
    ("ph 6.98 on the abg", "blood pH"),
    ("news2 score of 11 in side room 1", "early warning score"),
    ("ebl 2.2l in theatre", "blood loss"),
    ("the drain has put out 700ml of blood in 40 minutes", "blood loss"),
]

CHART_QUESTIONS = [
    "whats the latest k+ for bed 14",
    "was her sodium 114 on admission?",
    "lowest sats during the last admission",
    "can i give the prn oramorph if his rr is 14",
    "is a potassium of 6.8 an indication for calcium gluconate",
    "keep sats above 88 for this copd patient?",
    "hr 42 on bisoprolol, ok to give tonights dose?",
    "bp 85/50 today, hold the ramipril?",
    "mean heart rate 2023",
    "hemoglobin a1c trend since 2020",
    "sats trend for bay 3 bed 1 overnight please",
    "gcs was 8 when she came in, what is it now",
]


@pytest.mark.parametrize(("text", "measure"), WARD_REPORTS)
def test_a_critical_reading_reported_now_is_read_whatever_the_words(text: str, measure: str) -> None:
    found = readings(text)
    assert measure in {r.measure for r in found}, found


@pytest.mark.parametrize(("text", "_measure"), WARD_REPORTS)
def test_a_clinicians_critical_reading_gets_the_emergency_reply(text: str, _measure: str) -> None:
    verdict = check(text, "clinician")
    assert verdict is not None and verdict.kind == "emergency", text


@pytest.mark.parametrize("text", CHART_QUESTIONS)
def test_a_chart_question_with_a_past_hypothetical_or_ordinary_value_passes(text: str) -> None:
    assert critical_now(text) is None, readings(text)
    assert check(text, "clinician") is None, text


def test_a_patients_critical_reading_makes_seeking_care_an_emergency_and_an_ordinary_one_advice() -> None:
    assert check("my oxygen reads 79 on the finger thing, should i go to a&e", "patient").kind == "emergency"
    assert (
        check("my oxygen reads 95 on the finger thing, should i go to a&e", "patient").kind
        == "clinical_advice"
    )
    # a critical value asked about for what it means stays the advice refusal (what the tune lines say)
    assert check("my hemoglobin is 55, should i worry", "patient").kind == "clinical_advice"


MEASURES = sorted(_table()[0])
# every name each measure is said by, read once (the strategy below draws from it)
SAID: dict[str, list[str]] = {
    name: [str(n) for n in spec["said"]]
    for name, spec in yaml.safe_load(DATA.read_text(encoding="utf-8"))["measures"].items()
}


@st.composite
def critical_report(draw: st.DrawFn) -> tuple[str, str, float]:
    measure = draw(st.sampled_from(MEASURES))
    name = draw(st.sampled_from(SAID[measure]))
    scale = draw(st.sampled_from(_table()[0][measure][1]))
    lo, hi = scale.plausible
    sides = [s for s in ("low", "high") if getattr(scale, s) is not None]
    side = draw(st.sampled_from(sides))
    if side == "low":
        value = draw(st.floats(min_value=lo, max_value=scale.low))
    else:
        value = draw(st.floats(min_value=scale.high, max_value=hi))
    value = round(value, 1)
    if (
        not (lo <= value <= hi)
        or (side == "low" and value > scale.low)
        or (side == "high" and value < scale.high)
    ):
        value = scale.low if side == "low" else scale.high
    glue = draw(st.sampled_from(["", " is", " now", " of", " down to", " dropped to", " esta en"]))
    return f"{name}{glue} {value:g}", measure, value


@given(critical_report(), st.sampled_from(["", "bed 4 ", "urgent, ", "pt in resus "]))
def test_any_named_measure_at_a_critical_value_is_read(report: tuple[str, str, float], prefix: str) -> None:
    text, measure, value = report
    found = readings(prefix + text)
    assert any(r.measure == measure and r.value == value for r in found), (text, found)


@given(critical_report(), st.sampled_from(["was her ", "what if her ", "is a ", "lowest ", "target "]))
def test_the_same_value_in_the_past_or_hypothetical_is_not_read(
    report: tuple[str, str, float], prefix: str
) -> None:
    text, measure, _ = report
    assert not any(r.measure == measure for r in readings(prefix + text)), prefix + text


def _numbered_patterns() -> list:
    from agent.safety.vitals import _NUMBER_FIRST

    return [pattern for pattern, _scales, _category in _table()[0].values()] + [p for _n, p in _NUMBER_FIRST]


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_a_measure_or_number_first_reading_always_holds_a_digit(data) -> None:
    """`readings` skips those patterns on a text without a digit (round thirteen, a speed-up):
    every string they match has one."""
    patterns = _numbered_patterns()
    pattern = patterns[data.draw(st.integers(0, len(patterns) - 1))]
    text = data.draw(st.from_regex(pattern))
    if pattern.search(text):
        assert _DIGIT.search(text)
