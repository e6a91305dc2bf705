"""Helpful refusals: a patient's advice request gets the facts the record holds, then whom to ask.

The facts come from the tool registry (the same patient-scoped, audited, cited tools the
agents use), never from SQL written here: a lab named in the question → `get_labs` (latest
value, date, reference range, citation handle); a medicine or "my medicines" → `get_medications`
(active); otherwise nothing is looked up. The sentence about advice is constant; the reply
is never blank, and no model writes any of it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from agent.intent import MEASURES
from agent.safety.text import normalise

ADVICE_LEAD = (
    "I can read your record with you, but I can't give medical advice — such as doses, starting, "
    "skipping or stopping a medicine, or whether a result or symptom is dangerous."
)
ASK_WHOM = (
    "Please ask your clinician or pharmacist what this means for you; if it feels urgent, contact "
    "your care team or call 911."
)
NOTHING_FOUND = "I found nothing in your record about this to show you."

# words the planner's stated-value map (`agent.intent.MEASURES`) lacks → the labs tool's query
EXTRA_MEASURES = {
    "haemoglobin": "hemoglobin",
    "hgb": "hemoglobin",
    "tsh": "tsh",
    "psa": "psa",
    "platelets": "platelets",
    "ferritin": "ferritin",
    "sodium": "sodium",
    "hemoglobina": "hemoglobin",
    "glucosa": "glucose",
    "azucar": "glucose",
    "colesterol": "cholesterol",
    "presion": "BP",
    "potasio": "potassium",
}
_MEASURE_WORDS = {**MEASURES, **EXTRA_MEASURES}
_MEASURE_RE = re.compile(
    r"\b(" + "|".join(sorted(map(re.escape, _MEASURE_WORDS), key=len, reverse=True)) + r")\b"
)
MEDICINE_WORDS = re.compile(
    r"\b(?:medicines?|medications?|meds|pills?|tablets?|dose|dosage|insulin|inhaler|statin|"
    r"blood thinner|water pill|antidepressants?|medicinas?|pastillas|medicamentos?|\w+(?:formin|pril|olol|statin|sartan|pine|zole|farin|xaban))\b"
)
NAMED_MEDICINE = re.compile(
    r"\b\w+(?:formin|pril|olol|statin|sartan|pine|zole|farin|xaban|thyroxine|tidine|semide|lamine|cillin|mycin)\b"
)


@dataclass(frozen=True)
class FactCall:
    tool: str
    args: dict[str, Any] = field(default_factory=dict)


def fact_calls(question: str, available: set[str]) -> list[FactCall]:
    """The look-ups that give the factual part of an advice question (possibly none)."""
    text = normalise(question)
    calls: list[FactCall] = []
    labs = list(dict.fromkeys(_MEASURE_WORDS[m.group(1)] for m in _MEASURE_RE.finditer(text)))
    if "get_labs" in available:
        calls += [
            FactCall("get_labs", {"query": q, "latest_only": True, "category": "all"}) for q in labs[:2]
        ]
    if "get_medications" in available and (MEDICINE_WORDS.search(text) or not calls):
        named = NAMED_MEDICINE.search(text)
        if named:
            calls.append(FactCall("get_medications", {"status": "active", "query": named.group(0)}))
        elif MEDICINE_WORDS.search(text):
            calls.append(FactCall("get_medications", {"status": "active"}))
    return calls


def compose(fact_texts: list[str]) -> str:
    """Lead sentence, the record's facts as the tools worded them (with their citation handles), whom to ask."""
    facts = [t.strip() for t in fact_texts if t.strip()]
    body = "From your record:\n" + "\n".join(facts) if facts else NOTHING_FOUND
    return f"{ADVICE_LEAD}\n\n{body}\n\n{ASK_WHOM}"
