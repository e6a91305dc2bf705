"""The one text normaliser of `agent/`: how a user's words are folded before any rule reads them.

Two forms of one fold: `normalise` for the planner and intent rules, `bare` for the safety
gate's lexical rules (which `agent.safety.text` then mends for typos).

Lower case; apostrophes dropped ("can't" → "cant", "patient's" → "patients"); accents folded;
everything but letters, digits and the few marks that carry meaning in clinical shorthand
(`/` in "b/p", `&` in "A&E", `.` in "6.5", `-` in "covid-19", `:` in "10:30", `+` and `%`)
becomes a space; marks at the edges of a word are dropped ("metformin." → "metformin").
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_APOSTROPHES = str.maketrans({"’": "", "'": "", "`": "", "‘": ""})
_OTHER = re.compile(r"[^a-z0-9/&.:+%\-]+")
_EDGES = "/.:-"


_NOT_BARE = re.compile(r"[^a-z0-9/&]+")


def fold(text: str) -> str:
    """Compatibility forms decomposed, accents dropped, lower case, apostrophes dropped."""
    if text.isascii():  # nothing to decompose or drop (the character loop below cost ~20 µs)
        return text.lower().translate(_APOSTROPHES)
    folded = unicodedata.normalize("NFKD", text)
    return "".join(c for c in folded if not unicodedata.combining(c)).lower().translate(_APOSTROPHES)


_NUMBER_OF = re.compile(r"(?:^|(?<=\s))#\s*(?=of\b)")  # "# of visits": shorthand for "number of"


@lru_cache(maxsize=8192)
def normalise(text: str) -> str:
    """The folded words, keeping the marks clinical shorthand needs (`6.5`, `b/p`, `10:30`);
    "# of" reads as "number of"."""
    words = (w.strip(_EDGES) for w in _OTHER.sub(" ", _NUMBER_OF.sub("number ", fold(text))).split())
    return " ".join(w for w in words if w)


def bare(text: str) -> str:
    """The folded words with only letters, digits, `/` and `&` kept: the form the safety
    gate's lexical rules are written against (`agent.safety.text`), where "6.5" must read as
    "6 5" and "covid-19" as "covid 19"."""
    return " ".join(_NOT_BARE.sub(" ", fold(text)).split())


def words(text: str) -> list[str]:
    return normalise(text).split()
