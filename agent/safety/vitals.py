"""Critical observations and results reported as the present state: "sats 78 on 15L", "bp 70/40",
"gcs dropped from 15 to 8", "la saturación bajó a 78", "k 7.1 on the gas", "NEWS of 9", "EBL 1.5L".

Why a reader and not more phrases: every held-out batch of rounds ten to twelve missed ward
reports that named a measure and a number in a way no rule had been written for (a clinician's
shorthand was the weakest class in each). A measure, a number, and a cut-off are three things a
reader can take apart whatever the words between them, so the rule is written once, as data
(`critical_values.yaml`, with its sources), not once per wording.

A reading counts only as the present state: not when it is placed in the past ("k was 7 on
admission", "lowest sats last night"), asked about hypothetically or as a target ("is a sodium of
110 dangerous", "if his rr is under 8", "keep sats above 88"), or compared against ("sats less than
85"). The gate decides what a present critical reading means for each role (`agent.safety.gate`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

from agent.text import normalise

DATA = Path(__file__).with_name("critical_values.yaml")
NUMBER = r"\d{1,3}(?:\.\d+)?"
_DIGIT = re.compile(r"\d")


@dataclass(frozen=True)
class Scale:
    plausible: tuple[float, float]
    low: float | None
    high: float | None
    drop: float | None = None  # a fall by at least this much is critical ("gcs 15 to 10")
    red_low: float | None = None  # NEWS2's 3-point band: critical only with a second measure in its own
    red_high: float | None = None


@dataclass(frozen=True)
class Reading:
    measure: str  # "oxygen saturation", "blood loss", …
    value: float  # as said (the scale decides the unit)
    text: str  # the words read, for the audit and the tests
    category: str  # the emergency category a patient's reading is reported under


# words allowed between a measure's name and its number ("sats are now only 78", "bp of 70/40",
# "saturación bajó a 78", "gcs dropped from 15 to 8")
GLUE = (
    r"(?:of|is|are|s|at|now|only|just|reading|reads|read|says|saying|showing|shows|down|to|dropped|dropping|drop|"
    r"dropped down to|falling|fell|fallen|gone|went|gone down|down to|around|about|approx|approximately|roughly|"
    r"currently|still|sitting at|sitting|sat at|has|have|already|of only|on the monitor|on monitor|on the gas|on gas|"
    r"en|de|a|bajo|bajo a|cayo|cayo a|esta|esta en|esta a|baja|bajando|bajando a|sobre|alrededor de|ya|solo|ahora|"
    r"from|desde|de \d+ a|"
    # round sixteen (frozen20's class, fresh wordings: "in fast af with a rate of 170"): a rhythm named,
    # then its rate
    r"with|rate|running|running at|ventricular rate|con|frecuencia)"
)
# where the patient is, between a measure and its number ("la saturación de la cama 8 bajó a 78")
PLACE = (
    r"(?: (?:of|in|for|on|at|de|en|del) (?:the |la |el |la cama |el box )?"
    r"(?:bed|bay|room|cubicle|side room|resus|cama|habitacion|box|sala|hab) \d+| (?:in|en) (?:bed|bay|cama|box) \d+)?"
)
# a reading placed in the past, asked hypothetically, set as a target, or compared against
NOT_PRESENT_BEFORE = re.compile(
    r"\b(?:was|were|had been|had|has been|previous\w*|prior|last|lowest|highest|max|maximum|min|minimum|ever|trend\w*|"
    r"baseline|history|hx|h/o|pmh|yesterday|ago|earlier|back in|usual|usually|normally|normal|typical|target|goal|aim|keep|"
    r"maintain|above|below|over|under|less than|more than|greater than|at least|if|whether|what if|when|would|a|an|any|"
    r"threshold|range|between|era|fue|estaba|tenia|ayer|anterior|si|cuando|mantener|objetivo|por encima de|por debajo de)"
    r"(?: (?:her|his|their|the|my|its|your|su|sus|el|la))?\s*$"
)
NOT_PRESENT_AFTER = re.compile(
    # (a number followed by a time unit is a span, not the reading: "potassium >12 months ago?")
    r"^\s*(?:on admission|at admission|at triage|when (?:she|he|they) came in|yesterday|last (?:night|week|month|year|time)|"
    # round fifteen's left-over false alarm ("af at 160 last admission"): a value of a past stay
    r"(?:on |during |at )?(?:(?:her|his|their|the) )?(?:last|previous|prior|first|an earlier|earlier) (?:admission|stay|attendance|visit|episode|clinic)|"
    r"(?:days?|weeks?|wks?|months?|mos?|years?|yrs?)\b|"
    r"earlier|previously|before|in (?:19|20)\d\d|\d+ (?:days|weeks|months|years) ago|al ingreso|ayer|"
    r"or (?:above|below|over|under|less|more|higher|lower)|(?:and|or) (?:above|below|over|under)|is (?:that|it) (?:bad|normal|ok|okay|dangerous))\b"
)
BLOOD_LOSS_TIME = re.compile(
    r"\b(?:in|over|within|en) (?:the )?(?:last |past |first |ultima |ultimos )?(?:an? |una |un |half an? |media )?(?:\d+ )?(?:hour|hr|h|mins?|minutes|hora|minutos)\b|"
    r"\b(?:per|an|a) (?:hour|hr)\b|/h(?:r|our)?\b|\bml/h\b"
)


@lru_cache(maxsize=1)
def _table() -> tuple[dict[str, tuple[re.Pattern[str], tuple[Scale, ...], str]], dict]:
    data = yaml.safe_load(DATA.read_text(encoding="utf-8"))
    measures: dict[str, tuple[re.Pattern[str], tuple[Scale, ...], str]] = {}
    for name, spec in data["measures"].items():
        names = "|".join(re.escape(str(n)) for n in sorted(spec["said"], key=len, reverse=True))
        pattern = re.compile(
            rf"(?<![\w/])(?P<name>{names})(?![\w/]){PLACE}(?P<glue>(?: {GLUE}){{0,4}}):? ?"
            rf"(?:(?P<value>{NUMBER})(?!\w)(?: ?(?:to|->|→|then|now|and now|y ahora|a) (?P<then>{NUMBER})(?!\w))?|"
            rf"(?:in the |en los )?(?P<band>low |high |bajos |altos )?(?P<decade>[1-9]0)s\b)"
        )
        scales = tuple(
            Scale(
                tuple(s["plausible"]),
                s.get("low"),
                s.get("high"),
                s.get("drop"),
                s.get("red_low"),
                s.get("red_high"),
            )  # type: ignore[arg-type]
            for s in spec["scales"]
        )
        measures[name] = (pattern, scales, spec["category"])
    return measures, data["blood_loss"]


# a number said before its measure: "70 systolic", "78% on 15l", "160 bpm", "40 breaths a minute"
_NUMBER_FIRST = (
    (
        "systolic blood pressure",
        re.compile(rf"(?<![\w./])(?P<value>{NUMBER}) ?(?:mmhg )?(?:systolic|sys|sistolica)\b"),
    ),
    (
        "oxygen saturation",
        re.compile(
            rf"(?<![\w./])(?P<value>{NUMBER}) ?% ?(?:sats?|spo2|sat|saturation|saturacion|on (?:air|room air|ra|\d+ ?l|o2|oxygen|high flow|a non|nrb|non rebreather|15 litres))\b"
        ),
    ),
    (
        "pulse",
        re.compile(
            rf"(?<![\w./])(?P<value>{NUMBER}) ?(?:bpm|beats (?:a|per) min\w*|lpm|latidos por minuto)\b"
        ),
    ),
    (
        "respiratory rate",
        re.compile(
            rf"(?<![\w./])(?P<value>{NUMBER}) (?:breaths|respiraciones) (?:a|per|por) (?:min|minute|minuto)\b"
        ),
    ),
)
_VOLUME = re.compile(
    r"(?<![\w./])(?:(?P<litres>\d{1,2}(?:\.\d+)?) ?(?:l|litres?|liters?|litros?)|(?P<ml>\d{1,2} \d{3}|\d{2,5}) ?(?:ml|mls|cc|mililitros))\b|"
    r"\b(?P<word>(?:over|more than|nearly|almost|about|around|at least|mas de|casi) (?:a|one|un) (?:litre|liter|litro)|(?:two|three|several|2|3) (?:litres|liters|litros))\b"
)


def _critical(value: float, scales: tuple[Scale, ...], before: float | None = None) -> bool:
    """At or beyond a cut-off of the scale the value was said in, or (`before` given) fallen from
    `before` by at least the scale's `drop`."""
    for scale in scales:
        lo, hi = scale.plausible
        if lo <= value <= hi:
            if (
                before is not None
                and scale.drop is not None
                and lo <= before <= hi
                and before - value >= scale.drop
            ):
                return True
            return (scale.low is not None and value <= scale.low) or (
                scale.high is not None and value >= scale.high
            )
    return False


def _red(value: float, scales: tuple[Scale, ...]) -> bool:
    """In NEWS2's 3-point band of the scale the value was said in."""
    for scale in scales:
        lo, hi = scale.plausible
        if lo <= value <= hi:
            return (scale.red_low is not None and value <= scale.red_low) or (
                scale.red_high is not None and value >= scale.red_high
            )
    return False


# new confusion, NEWS2's 3 points for consciousness ("new confusion", "acutely confused"); a known or
# baseline confusion is not new
NEW_CONFUSION = re.compile(
    r"\b(?:new(?:ly)?(?: onset)? confus\w*|acute(?:ly)? confus\w*|(?:now|become|becoming|gone|more) confused|confusion nueva|nueva confusion)\b"
)


def _present(text: str, start: int, end: int) -> bool:
    before = " ".join(text[:start].split()[-3:])
    return not NOT_PRESENT_BEFORE.search(before) and not NOT_PRESENT_AFTER.search(text[end:])


def _value(match: re.Match[str]) -> float | None:
    if match.group("decade"):
        base = int(match.group("decade"))
        band = (match.group("band") or "").strip()
        return base + {"low": 2, "bajos": 2, "high": 8, "altos": 8}.get(band, 5)
    return float(match.group("then") or match.group("value"))


def _past_in_glue(glue: str) -> bool:
    return bool(re.search(r"\b(?:was|were|had|fue|era|estaba|tenia)\b", glue))


def _sort(
    text: str,
    match: re.Match[str],
    reading: Reading,
    scales: tuple[Scale, ...],
    before: float | None,
    critical: list[Reading],
    red: dict[str, Reading],
) -> None:
    """A present reading goes to `critical` when it is critical by itself, else to `red` (its
    measure's first) when it is in NEWS2's red band; anything else is dropped."""
    if not _present(text, match.start(), match.end()):
        return
    if _critical(reading.value, scales, before):
        critical.append(reading)
    elif _red(reading.value, scales):
        red.setdefault(reading.measure, reading)


def readings(question: str) -> list[Reading]:
    """Every critical reading the message reports as the present state, in order of appearance."""
    text = normalise(question)
    measures, blood = _table()
    out: list[Reading] = []
    red: dict[str, Reading] = {}  # measure → its first present reading in the red band
    # a measure's reading and a number said first both hold a digit (`NUMBER`, a decade "80s"):
    # without one, only the blood-loss words ("over a litre") can read anything (round thirteen:
    # the patterns cost ~40 µs a question, and seven questions in eight have no digit)
    numbered = _DIGIT.search(text) is not None
    for name, (pattern, scales, category) in measures.items() if numbered else ():
        for match in pattern.finditer(text):
            value = _value(match)
            before = float(match.group("value")) if match.group("then") else None
            if value is None or _past_in_glue(match.group("glue")):
                continue
            _sort(text, match, Reading(name, value, match.group(0), category), scales, before, out, red)
    for name, pattern in _NUMBER_FIRST if numbered else ():
        _, scales, category = measures[name]
        for match in pattern.finditer(text):
            reading = Reading(name, float(match.group("value")), match.group(0), category)
            _sort(text, match, reading, scales, None, out, red)
    if red:
        confusion = NEW_CONFUSION.search(text)
        if confusion and _present(text, confusion.start(), confusion.end()):
            red.setdefault("new confusion", Reading("new confusion", 3.0, confusion.group(0), "unconscious"))
    if len(red) >= 2:
        # two measures in their red band (see critical_values.yaml): the first one said stands for both
        first, *rest = sorted(red.values(), key=lambda r: text.find(r.text))
        out.append(
            Reading(
                "two NEWS2 red scores",
                float(len(red)),
                " + ".join(r.text for r in (first, *rest)),
                first.category,
            )
        )
    out.extend(_blood_loss(text, blood))
    unique = {(r.measure, r.value): r for r in out}  # "sats 78% on 15l" is read by two patterns
    return sorted(unique.values(), key=lambda r: text.find(r.text))


@lru_cache(maxsize=1)
def _blood_words() -> re.Pattern[str]:
    """The blood-loss words of the table as one pattern (built once: ~15 µs a question)."""
    return re.compile(r"\b(?:" + "|".join(re.escape(w) for w in _table()[1]["words"]) + r")\b")


def _blood_loss(text: str, blood: dict) -> list[Reading]:
    words = _blood_words()
    if not words.search(text):
        return []
    out = []
    for match in _VOLUME.finditer(text):
        if match.group("litres"):
            ml = float(match.group("litres")) * 1000
        elif match.group("ml"):
            ml = float(match.group("ml").replace(" ", ""))
        else:
            ml = 1000.0
        near = text[max(0, match.start() - 60) : match.end() + 60]
        if not words.search(near) or not _present(text, match.start(), match.end()):
            continue
        quick = bool(BLOOD_LOSS_TIME.search(text[match.end() : match.end() + 40]))
        if ml >= blood["volume_ml"] or (quick and ml >= blood["per_hour_ml"]):
            out.append(Reading("blood loss", ml, match.group(0), "bleeding"))
    return out


def critical_now(question: str) -> Reading | None:
    """The first critical reading reported as the present state, or None."""
    found = readings(question)
    return found[0] if found else None
