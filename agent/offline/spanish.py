"""Basic Spanish record questions, glossed into the English words the planner reads.

"¿Tengo alergias?", "¿Qué medicamentos tomo?", "Quiero una cita la semana que viene": without this
they got "I can't answer that". The gloss is a phrase table kept as data
(`tools/lexicon/spanish.yaml`), applied only to a question that reads as Spanish (an opening ¿/¡
or two of its marker words), so English questions are never touched. Words the table does not
know are kept as they are (a drug name such as "metformina" is then linked by fuzzy matching
against the patient's own record). Answers stay in English (a known limit).
"""

from __future__ import annotations

import re
from functools import lru_cache

from agent.text import normalise
from tools.lexicon import load_spanish


def reads_as_spanish(question: str) -> bool:
    if re.match(r"^\s*[¿¡]", question):
        return True
    marks = load_spanish().marks
    return sum(w in marks for w in normalise(question).split()) >= 2


@lru_cache(maxsize=1)
def _pattern() -> tuple[re.Pattern[str], dict[str, str]]:
    phrases = dict(load_spanish().phrases)
    alternatives = "|".join(re.escape(p) for p, _ in load_spanish().phrases)  # longest first
    return re.compile(rf"(?<![\w])({alternatives})(?![\w])"), phrases


def to_english(question: str, *, spanish: bool | None = None) -> str:
    """The question in the planner's English words when it reads as Spanish; else unchanged.
    `spanish` decides for a clause of a message that was read as a whole (`clauses`)."""
    if not (reads_as_spanish(question) if spanish is None else spanish):
        return question
    pattern, phrases = _pattern()
    text = normalise(question.replace("¿", " ").replace("¡", " "))
    glossed = pattern.sub(lambda m: phrases[m.group(1)], text)
    return " ".join(glossed.split()) + ("?" if "?" in question else "")
