"""The relevance gate: fusion orders candidates, but only an absolute signal may admit one.

RRF scores are relative (something is always ranked first), so they cannot say "nothing here
answers this". A candidate is kept when either bar is cleared:

1. its cosine similarity to the question is at least the floor (placed by
   `chartside eval retrieval` between answerable and unanswerable questions), or
2. it contains an exact lexical match of something specific in the question: a number of
   four or more digits (a phone number, an address, a code) or a "quoted phrase". Embeddings
   are poor at digits, and a user who types 555-0131 wants the passage with 555-0131.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_QUOTED = re.compile(r"[\"“”]([^\"“”]{3,})[\"“”]")
# digits with the separators phone numbers use between them; at least 4 digits in all
_NUMBER = re.compile(r"\(?\d[\d().\-\s]*\d")
_SEPARATORS = r"[\s().\-]{0,3}"


@dataclass(frozen=True)
class ExactTerm:
    text: str  # as the user typed it
    pattern: str  # a case-insensitive regular expression (PostgreSQL and Python agree on it)


def exact_terms(query: str) -> list[ExactTerm]:
    """The specific things in a question that a passage must contain verbatim to count as exact."""
    terms: list[ExactTerm] = []
    for match in _QUOTED.finditer(query):
        phrase = " ".join(match.group(1).split())
        words = [re.escape(w) for w in phrase.split()]
        terms.append(ExactTerm(phrase, r"\m" + r"\s+".join(words) + r"\M"))
    for match in _NUMBER.finditer(query):
        digits = re.sub(r"\D", "", match.group(0))
        if len(digits) >= 4:
            pattern = _SEPARATORS.join(digits)
            terms.append(ExactTerm(match.group(0).strip(), r"(^|[^0-9])" + pattern + r"([^0-9]|$)"))
    return terms


def _python_pattern(term: ExactTerm) -> str:
    # PostgreSQL's word boundaries \m \M are \b in Python
    return term.pattern.replace(r"\m", r"\b").replace(r"\M", r"\b")


def contains_exact(text: str, terms: list[ExactTerm]) -> bool:
    return any(re.search(_python_pattern(t), text, re.IGNORECASE) for t in terms)


def passes_gate(similarity: float, floor: float, exact: bool) -> bool:
    return exact or similarity >= floor
