"""The one text normaliser of `agent/`: how a user's words are folded before any rule reads them.

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


@lru_cache(maxsize=8192)
def normalise(text: str) -> str:
    folded = unicodedata.normalize("NFKD", text)
    folded = "".join(c for c in folded if not unicodedata.combining(c)).lower().translate(_APOSTROPHES)
    words = (w.strip(_EDGES) for w in _OTHER.sub(" ", folded).split())
    return " ".join(w for w in words if w)


def words(text: str) -> list[str]:
    return normalise(text).split()
