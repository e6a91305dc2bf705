"""The question inside its wrapping: greetings, hedges and politeness peeled off, the source tail made plain.

People wrap a question in words that carry no request: "Sorry to bother you but …", "um, quick
question - …", "… thanks", "… as far as you can tell". Rules anchored at the start of a question
("^do i have …") and short-text checks ("four words or fewer") miss the question inside such a
wrapping, and round seven's consistency grammar showed the cost: "do I still take sertraline" was
a record question, "Hi, do I still take sertraline please?" got the advice refusal. So every rule
also reads the core this module returns, and a wrapping can no longer change a verdict.

Words are matched with a one-slip budget for words of five letters or more ("srory", "thhanks",
"momment"), since people mistype their fillers as often as anything else. A tail naming the
record as the source ("going by my chrt", "according to my recrds", "on file") is not removed but
rewritten to one plain form, "in my records": it is record framing, and the rules must see it
whatever the spelling.

Works on the normal form (`agent.text.bare` or `normalise`): lower case, marks already spaces.
"""

from __future__ import annotations

from functools import lru_cache

from rapidfuzz.distance import OSA

# opening words that ask nothing (each a phrase; longer phrases are tried first)
_OPENERS = """
um | umm | uh | erm | er | hmm | ah | oh | so | ok | okay | ok so | okay so | right | well | alright | also | and
hi | hey | hello | hiya | yo | hi there | hello there | hey there | good morning | good afternoon | good evening
morning | dear doctor | doc | doctor | please | pls | plz | kindly
quick question | quick one | a quick question | one question | another question | one more question | question
i have a question | i have a quick question | i got a question | random question | silly question | dumb question
sorry | sorry to bother you | sorry to bother you but | sorry to ask | sorry but | excuse me | pardon me
just wondering | i was wondering | i was just wondering | was wondering | i wonder | wondering | just curious
im curious | i am curious | out of curiosity | curious | by the way | btw | honestly | basically
can you check | could you check | can you please check | could you please check | please check | check
can you tell me | could you tell me | can you please tell me | could you please tell me | please tell me
can you let me know | could you let me know | let me know | i need to know | i want to know | i would like to know
id like to know | wanted to know | i wanted to know | can i ask | may i ask | can i ask you | could i ask
help me out | a quick check | one thing
"""
# closing words that ask nothing
_CLOSERS = """
please | pls | plz | thanks | thank you | thanks a lot | thanks so much | thank you so much | many thanks | thx | ty
cheers | ta | if you can | if possible | if you could | if you dont mind | when you get a chance | x | xx
as far as you can tell | as far as you know | as far as you can see | as far as i know | as far as i can tell
as far as i can see | from what you can see | for me | quickly
"""
# a tail naming the record as the question's source: rewritten to `RECORD_TAIL`
_SOURCE_LEADS = (
    "according to",
    "going by",
    "based on",
    "as per",
    "per",
    "in",
    "on",
    "from",
    "looking at",
    "by",
)
_OWNERS = ("my", "the", "her", "his", "their", "patients", "the patients")
_SOURCES = (
    "record", "records", "chart", "charts", "notes", "file", "files", "history", "medical record", "medical records",
    "health record", "health records", "patient record", "portal", "system", "med list", "medical history",
)  # fmt: skip
RECORD_TAIL = "in my records"


def _phrases(block: str) -> tuple[tuple[str, ...], ...]:
    found = {tuple(p.split()) for line in block.strip().splitlines() for p in line.split("|") if p.strip()}
    return tuple(sorted(found, key=len, reverse=True))  # longest first: "ok so" before "ok"


OPENERS = _phrases(_OPENERS)
CLOSERS = _phrases(_CLOSERS)
SOURCE_TAILS = tuple(
    sorted(
        {
            (*lead.split(), *owner.split(), *source.split())
            for lead in _SOURCE_LEADS
            for owner in _OWNERS
            for source in _SOURCES
        }
        | {("on", "file"), ("on", "record"), ("on", "the", "system"), ("in", "the", "system")},
        key=len,
        reverse=True,
    )
)


@lru_cache(maxsize=4096)
def same_word(token: str, word: str) -> bool:
    """Equal, or one slip (two letters swapped, one dropped or doubled) in a word of five letters
    or more. A wrong letter is not a slip here: "thinks" must stay "thinks", never "thanks"."""
    if token == word:
        return True
    if len(word) < 5 or len(token) < 4 or token[0] != word[0]:
        return False
    if len(token) == len(word) and sorted(token) != sorted(word):
        return False
    return OSA.distance(token, word, score_cutoff=1) <= 1


def _starts_with(words: list[str], phrase: tuple[str, ...]) -> bool:
    return len(words) > len(phrase) and all(same_word(w, p) for w, p in zip(words, phrase, strict=False))


def _ends_with(words: list[str], phrase: tuple[str, ...]) -> bool:
    n = len(phrase)
    return len(words) > n and all(same_word(w, p) for w, p in zip(words[-n:], phrase, strict=True))


Groups = dict[str, tuple[tuple[str, tuple[tuple[str, ...], ...]], ...]]


def _by_word(phrases: tuple[tuple[str, ...], ...], at: int) -> Groups:
    """The phrases grouped by their first (`at=0`) or last (`at=-1`) word, longest first in each
    group, and the groups by that word's first letter (`same_word` never matches across it)."""
    groups: dict[str, list[tuple[str, ...]]] = {}
    for phrase in phrases:
        groups.setdefault(phrase[at], []).append(phrase)
    by_letter: dict[str, list[tuple[str, tuple[tuple[str, ...], ...]]]] = {}
    for word, group in groups.items():
        by_letter.setdefault(word[0], []).append((word, tuple(group)))
    return {letter: tuple(pairs) for letter, pairs in by_letter.items()}


OPENERS_BY_FIRST = _by_word(OPENERS, 0)
CLOSERS_BY_LAST = _by_word(CLOSERS, -1)
SOURCE_TAILS_BY_LAST = _by_word(SOURCE_TAILS, -1)


def _longest(words: list[str], groups: Groups, at: int) -> int:
    """How many words the longest phrase matching at the start (`at=0`) or end (`at=-1`) of
    `words` covers, 0 when none does. Only the phrases whose first/last word matches that end's
    word are tried (round thirteen: trying all ~1,200 source tails cost ~1 ms a question)."""
    if len(words) < 2:  # a phrase is peeled only while something remains after it
        return 0
    matches = _starts_with if at == 0 else _ends_with
    longest = 0
    for word, group in groups.get(words[at][:1], ()):
        if same_word(words[at], word):
            for phrase in group:
                if len(phrase) <= longest:
                    break
                if matches(words, phrase):
                    longest = len(phrase)
                    break
    return longest


@lru_cache(maxsize=8192)
def core(text: str) -> str:
    """The question without its opening and closing wrapping, its source tail as "in my records".

    Never empties a text: a wrapping word is only peeled off while something remains after it,
    so "thanks" and "hi" stay themselves (small talk is decided elsewhere). Each step peels the
    longest phrase that matches (of equal-length matches, which one is the same words)."""
    words = text.split()
    while n := _longest(words, OPENERS_BY_FIRST, 0):
        words = words[n:]
    sourced = False
    while True:
        if n := _longest(words, CLOSERS_BY_LAST, -1):
            words = words[:-n]
        elif n := _longest(words, SOURCE_TAILS_BY_LAST, -1):
            words, sourced = words[:-n], True
        else:
            break
    return " ".join(words + RECORD_TAIL.split()) if sourced else " ".join(words)
