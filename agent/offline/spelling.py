"""Keyboard slips in the planner's own words ("noraml range", "gonig up", "frist diagnosed").

The linker already corrects names against the record's and the lexicon's spellings; this
corrects the words the planner's rules read (operations, sections, time words), harvested
from those rules themselves so the two never drift apart. A word is only replaced when it is
unknown everywhere (rules, lexicon, the patient's record, an English dictionary) and one
slip (a swap of neighbours or a doubled letter counts as one) away from exactly one rule word
with the same first letter: "cancel" is a word, so it never becomes "cancer".

The dictionary is pyspellchecker's English word-frequency list (shipped in the package, no
download); only its membership test is used, never its own corrections.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from rapidfuzz import process
from rapidfuzz.distance import DamerauLevenshtein

MIN_LEN = 5
_RULE_WORD = re.compile(r"(?<![\\a-z])([a-z]{5,})(?![a-z]|\\w)")
_WORD = re.compile(r"[A-Za-z]{5,}")


def rule_words(patterns: Iterable[re.Pattern[str] | str], extra: Iterable[str] = ()) -> frozenset[str]:
    """The whole words written in regular expressions (stems followed by `\\w*` are skipped)."""
    out = set(extra)
    for p in patterns:
        source = p.pattern if isinstance(p, re.Pattern) else p
        for m in _RULE_WORD.finditer(source):
            out.add(m.group(1))
    return frozenset(w for w in out if len(w) >= MIN_LEN)


@lru_cache(maxsize=1)
def _english() -> object:
    from spellchecker import SpellChecker

    return SpellChecker(distance=1)


def is_english(word: str) -> bool:
    return word in _english()  # type: ignore[operator]


@lru_cache(maxsize=4096)
def _nearest(token: str, choices: tuple[str, ...]) -> str | None:
    pool = [c for c in choices if c[0] == token[0] and abs(len(c) - len(token)) <= 1]
    hits = process.extract(token, pool, scorer=DamerauLevenshtein.distance, score_cutoff=1, limit=4)
    if len(hits) == 1 or (len(hits) >= 2 and hits[0][1] < hits[1][1]):
        return hits[0][0]
    # a tie with a misspelling the rules themselves accept ("emergancy") goes to the one real
    # word among them: "emergncy" is "emergency" (round fifteen: it stayed unread, and "any
    # emergncy departmnt vists?" listed visits instead of answering)
    best = [h[0] for h in hits if h[1] == hits[0][1]] if hits else []
    real = [w for w in best if is_english(w)]
    return real[0] if len(real) == 1 else None


def respell(question: str, words: frozenset[str], known: frozenset[str] | set[str] = frozenset()) -> str:
    """`question` with each unknown word of five letters or more replaced by the one rule word
    it is a slip of; everything else (case, punctuation) is kept."""
    choices = tuple(sorted(words))

    def fix(m: re.Match[str]) -> str:
        token = m.group(0)
        low = token.lower()
        if low in words or low in known or is_english(low):
            return token
        return _nearest(low, choices) or token

    return _WORD.sub(fix, question)
