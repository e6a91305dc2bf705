"""Deterministic readings of the USER's words that the model is not trusted to make.

* `write_intent` — which writing tools (booking, cancelling) this question may use. The
  structural guard against prompt injection: a note or leaflet saying "book an appointment"
  cannot unlock `book_appointment`, because only the user's own question (or a short
  confirmation of their own earlier request) is read here, never tool output.
* `stated_values` — values the user asserts about their record ("my A1C is 6.1"), so the
  record's value can be put in front of the model before it answers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

# the writing tools the user's words can unlock (which tools write is `Tool.writes`'s to say)
BOOK_TOOL = "book_appointment"
CANCEL_TOOL = "cancel_appointment"

_BOOK = re.compile(
    r"\b(book|booking|schedule|scheduling|reschedule|reserve|arrange|set up|make|get) (me |us |in )?"
    r"(an? |the |that |this |my |one |it|slot|appointment|visit|check.?up|consult\w*|[a-z]+ appointment)"
    r"|\bbook\b|\bbook(ed|ing)? (it|that|this|the|slot|s\d+)\b|\bs\d+\b.*\bbook\b"
)
_CANCEL = re.compile(
    r"\b(cancel|cancell?ing|cancell?ed|call off|drop|remove) (my |the |that |this |it|appointment|b\d+)|\bcancel\b"
)
_NEGATED = re.compile(r"\b(dont|do not|never|not|no need to|without) (book|schedule|cancel|make|reserve)")
_INFO_ONLY = re.compile(r"\bhow (do|can|would|should) (i|we|you) (book|schedule|cancel|make)\b")
_AFFIRM = re.compile(
    r"^(yes|yeah|yep|ok|okay|sure|please|confirm|confirmed|go ahead|do it|that one|the (first|second|third|last) one|"
    r"first|second|third|[sb]\d+|\d{1,2}(:\d{2})?\s*(am|pm)?)\b"
)


def _clean(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9:]+", " ", text.lower().replace("'", "").replace("’", "")).split())


def asks_to_book(text: str) -> bool:
    t = _clean(text)
    return bool(_BOOK.search(t)) and not _NEGATED.search(t) and not _INFO_ONLY.search(t)


def asks_to_cancel(text: str) -> bool:
    t = _clean(text)
    return bool(_CANCEL.search(t)) and not _NEGATED.search(t) and not _INFO_ONLY.search(t)


def is_confirmation(text: str) -> bool:
    """A short reply that only makes sense as "yes, do what I asked" ("yes", "S2", "the first one")."""
    t = _clean(text)
    return len(t.split()) <= 6 and bool(_AFFIRM.search(t))


def write_intent(question: str, previous_questions: Sequence[str] = ()) -> frozenset[str]:
    """The writing tools the user's own words allow for this question.

    A short confirmation carries over the intent of the user's previous question, so "book me
    a cardiology slot" → "S2, please" works; nothing the model or a tool returned is read.
    """
    allowed: set[str] = set()
    texts = [question]
    if previous_questions and is_confirmation(question):
        texts.append(previous_questions[-1])
    for text in texts:
        if asks_to_book(text):
            allowed.add(BOOK_TOOL)
        if asks_to_cancel(text):
            allowed.add(CANCEL_TOOL)
    return frozenset(allowed)


# --------------------------------------------------------------------------------------------
# Values the user states
# --------------------------------------------------------------------------------------------

# what the user may call it → the query the lab tool understands
MEASURES: dict[str, str] = {
    "a1c": "A1C",
    "hba1c": "A1C",
    "hemoglobin a1c": "A1C",
    "haemoglobin a1c": "A1C",
    "cholesterol": "cholesterol",
    "total cholesterol": "cholesterol",
    "ldl": "LDL",
    "hdl": "HDL",
    "triglycerides": "triglycerides",
    "blood pressure": "BP",
    "bp": "BP",
    "weight": "weight",
    "weigh": "weight",
    "bmi": "BMI",
    "glucose": "glucose",
    "blood sugar": "glucose",
    "sugar": "glucose",
    "egfr": "eGFR",
    "creatinine": "creatinine",
    "potassium": "potassium",
    "sodium": "sodium",
    "heart rate": "heart rate",
    "pulse": "heart rate",
    "temperature": "temperature",
    "hemoglobin": "hemoglobin",
    "height": "height",
}

_MEASURE_ALT = "|".join(sorted((re.escape(k) for k in MEASURES), key=len, reverse=True))
_STATED = re.compile(
    rf"\b(?:my|the|last|latest|recent)\s+(?:last\s+|latest\s+|recent\s+)?(?P<measure>{_MEASURE_ALT})"
    r"(?:\s+(?:reading|result|level|value|test|number))?"
    r"\s*(?:is|was|=|:|of|at|came back(?: at| as)?|reads?|read)\s*(?:about|around|roughly|only|just)?\s*"
    r"(?P<value>\d+(?:\.\d+)?(?:\s*/\s*\d+(?:\.\d+)?)?)"
)


@dataclass(frozen=True)
class StatedValue:
    measure: str  # the tool query, e.g. "A1C"
    said: str  # what the user called it
    value: str  # as the user wrote it, e.g. "6.1" or "120/80"


def stated_values(question: str) -> list[StatedValue]:
    text = question.lower().replace("’", "'")
    found: list[StatedValue] = []
    for match in _STATED.finditer(text):
        said = match.group("measure")
        value = re.sub(r"\s+", "", match.group("value"))
        item = StatedValue(MEASURES[said], said, value)
        if item not in found:
            found.append(item)
    return found
