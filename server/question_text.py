"""Clean a typed question before it is stored or shown to a model.

Line breaks and tabs are kept; every other control character is refused (they have no
business in a question and some terminals and logs interpret them). Invisible formatting
characters — zero-width spaces and joiners, bidirectional overrides, the BOM — are removed:
they can hide text from a reader while a model still sees it, or make the transcript display
in a different order than it was written.
"""

from __future__ import annotations

import unicodedata

INVISIBLE = frozenset(
    "\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff"
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u180e\u00ad"
)
ALLOWED_CONTROLS = frozenset("\n\t")


class QuestionError(ValueError):
    """Why a question was refused (shown to the user as is)."""


def clean_question(raw: object, *, max_chars: int) -> str:
    if not isinstance(raw, str):
        raise QuestionError("question: must be a string")
    text = unicodedata.normalize("NFC", raw.replace("\r\n", "\n").replace("\r", "\n"))
    bad = sorted({f"U+{ord(c):04X}" for c in text if _is_control(c) and c not in ALLOWED_CONTROLS})
    if bad:
        raise QuestionError(f"question: contains control characters ({', '.join(bad[:5])})")
    text = "".join(c for c in text if c not in INVISIBLE).strip()
    if not text:
        raise QuestionError("question: is empty")
    if len(text) > max_chars:
        raise QuestionError(f"question: {len(text)} characters is longer than the limit of {max_chars}")
    return text


def _is_control(char: str) -> bool:
    return unicodedata.category(char) == "Cc"
