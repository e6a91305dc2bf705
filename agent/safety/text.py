"""Text preparation for the lexical rules: one normal form, with typos mended against the rules' own words.

Normal form (`agent.text.bare`, the one normaliser of `agent/`): lower case, accents folded ("cuántas" → "cuantas", "lejía" → "lejia"),
apostrophes dropped ("can't" → "cant", "OD'd" → "odd"), everything else non-alphanumeric → one
space. Then each token that is not itself a rule word but is within a small typo budget of
one (one edit for 5–7 letters, two for 8+, first letter kept; optimal string alignment, so a
swap is one edit) is replaced by that word: "chest pian", "sucidal", "bleech" and "brethe"
reach the same regular expressions as the spelled-out words. Short words are never mended
("does" must not become "dose").
"""

from __future__ import annotations

import re
from functools import lru_cache

from rapidfuzz.distance import OSA

from agent.discourse import core
from agent.text import bare as normalise  # the one normaliser of agent/ (its safety-rule form)

# Distinctive words of the rules (5+ letters). Typos are mended towards these only.
RULE_WORDS = frozenset(
    [
        "cannot",
        "having",
        "hospital",
        "urgent",
        "emergency",
        "chest",
        "pains",
        "painful",
        "hurts",
        "hurting",
        "aching",
        "tight",
        "tightness",
        "pressure",
        "crushing",
        "crushed",
        "squeezing",
        "squeezed",
        "attack",
        "breastbone",
        "clutching",
        "holding",
        "sweating",
        "breathe",
        "breath",
        "breathing",
        "breathless",
        "suffocating",
        "gasping",
        "wheezing",
        "choking",
        "choked",
        "stuck",
        "struggling",
        "barely",
        "drowning",
        "throat",
        "closing",
        "swelling",
        "swollen",
        "swelled",
        "tongue",
        "anaphylaxis",
        "anaphylactic",
        "allergic",
        "reaction",
        "epipen",
        "overdose",
        "overdosed",
        "overdosing",
        "poisoned",
        "poisoning",
        "swallowed",
        "swallowing",
        "bottle",
        "packet",
        "handful",
        "tablets",
        "pills",
        "medicine",
        "medicines",
        "medication",
        "insulin",
        "paracetamol",
        "tylenol",
        "bleach",
        "drain",
        "cleaner",
        "detergent",
        "antifreeze",
        "poison",
        "battery",
        "batteries",
        "laundry",
        "dishwasher",
        "killer",
        "ammonia",
        "fumes",
        "monoxide",
        "magnet",
        "mouthwash",
        "suicidal",
        "suicide",
        "myself",
        "harming",
        "cutting",
        "wrists",
        "alive",
        "living",
        "exist",
        "anymore",
        "better",
        "forever",
        "stroke",
        "drooping",
        "droopy",
        "drooped",
        "numb",
        "numbness",
        "slurred",
        "slurring",
        "speech",
        "weakness",
        "paralysed",
        "paralyzed",
        "lopsided",
        "crooked",
        "gibberish",
        "headache",
        "unconscious",
        "unresponsive",
        "collapsed",
        "fainted",
        "responding",
        "breathing",
        "seizure",
        "seizures",
        "seizing",
        "convulsing",
        "convulsions",
        "fitting",
        "jerking",
        "twitching",
        "bleeding",
        "blood",
        "spurting",
        "pumping",
        "pouring",
        "vomiting",
        "vomited",
        "coughing",
        "pregnant",
        "contractions",
        "waters",
        "labour",
        "kicking",
        "miscarriage",
        "burned",
        "burnt",
        "scalded",
        "blistering",
        "blisters",
        "boiling",
        "electric",
        "stopped",
        "emergency",
        "ambulance",
        "double",
        "increase",
        "decrease",
        "lower",
        "halve",
        "dosage",
        "skip",
        "stop",
        "start",
        "switch",
        "dangerous",
        "serious",
        "worried",
        "worry",
        "concerned",
        "cancer",
        "tumour",
        "normal",
        "interact",
        "alcohol",
        "grapefruit",
        "should",
        "something",
        "before",
        "burning",
        "getting",
        "infection",
        "disease",
        "combine",
        "breathed",
        "killing",
        "killed",
        "swallow",
        "bleeds",
        "bleed",
        "unalive",
        "myself",
        "himself",
        "herself",
        # record words (round eight): "lattest potassium", "most reecent", "acording to my recrds"
        "latest",
        "recent",
        "record",
        "records",
        "history",
        "diagnosed",
        "prescribed",
    ]
)


# correctly spelt ordinary words within a typo's reach of a rule word: never mended ("am i
# overdue for my blood test" is not "overdose"; found in the evaluation's dev phrase bank)
ORDINARY_WORDS = frozenset(
    # "intention" is not "infection" ("no intention of hurting myself", lead, round ten)
    # "cheked" is "checked" with a letter dropped, not "choked" ("was my wbc last cheked", round fifteen)
    [
        "overdue",
        "overdone",
        "overdrawn",
        "allergies",
        "breathes",
        "chester",
        "intention",
        "intentions",
        "cheked",
    ]
)

SHORT_WORDS = frozenset(["pain", "hurt", "ache", "pill", "meds", "kill", "dead", "burn", "fall"])
FROM_FOUR = ("chest", "bleed")  # 4-letter typos mended by one dropped letter (never "have" → "halve")
_SHORT: dict[str, tuple[str, ...]] = {}
for _w in sorted(SHORT_WORDS):
    _SHORT[_w[0]] = (*_SHORT.get(_w[0], ()), _w)


def _budget(word: str) -> int:
    return 2 if len(word) >= 8 else 1 if len(word) >= 5 else 0


_BY_INITIAL: dict[str, tuple[str, ...]] = {}
for _w in sorted(RULE_WORDS):
    _BY_INITIAL.setdefault(_w[0], ())
    _BY_INITIAL[_w[0]] = (*_BY_INITIAL[_w[0]], _w)


@lru_cache(maxsize=16384)
def mend(token: str) -> str:
    """The rule word this token is a typo of, or the token itself."""
    if len(token) < 4 or token in RULE_WORDS or token in ORDINARY_WORDS or not token.isalpha():
        return token
    if len(token) == 4:  # four letters: a swap ("pian" → "pain") or one letter dropped ("ches" → "chest")
        if token in SHORT_WORDS:
            return token
        for word in _SHORT.get(token[0], ()):
            if sorted(word) == sorted(token) and OSA.distance(token, word) == 1:
                return word
        for word in FROM_FOUR:
            if word[0] == token[0] and OSA.distance(token, word, score_cutoff=1) == 1:
                return word
        return token
    best, best_distance = token, 3
    for word in _BY_INITIAL.get(token[0], ()):
        budget = _budget(word)
        if budget == 0 or abs(len(word) - len(token)) > budget:
            continue
        distance = OSA.distance(token, word, score_cutoff=budget)
        if distance <= budget and distance < best_distance:
            best, best_distance = word, distance
    return best


def prepare(text: str) -> tuple[str, ...]:
    """(normal form, normal form with typos mended[, their cores]): every lexical rule is tried on
    each, so a Spanish word mended towards an English one ("reaccion" → "reaction") still meets
    its rule, and a question wrapped in greetings, hedges or thanks (`agent.discourse.core`) meets
    the rules anchored at a question's start. The cores come last, only when they differ."""
    plain = normalise(text)
    mended = " ".join(mend(t) for t in plain.split())
    cores = tuple(dict.fromkeys(c for c in (core(plain), core(mended)) if c not in (plain, mended)))
    return (plain, mended, *cores)


def core_form(texts: tuple[str, ...]) -> str:
    """The unwrapped, mended form of a prepared question."""
    return core(texts[1] if len(texts) > 1 else texts[0])


def found(pattern: re.Pattern[str], texts: tuple[str, ...]) -> bool:
    """Whether the pattern occurs in any of a question's prepared forms, each distinct form read
    once (the mended form is the normal form itself unless a typo was mended)."""
    return any(pattern.search(t) for t in dict.fromkeys(texts))
