"""Which of a family of rules can match a text, read off the rules' own regular expressions.

The gate tries every lexical rule on every prepared form of a question and of each clause: 263
emergency rules and 115 advice rules, each a scan of the text, most of them finding nothing
(round thirteen: ~60 % of the gate's instructions). Most rules cannot match a text that lacks
some literal words of theirs: `\\b(?:chest|heart) (?:pain|hurts)` needs "chest " or "heart ". This
module reads such a set off each compiled pattern (`necessary_literals`: every text the pattern
matches contains at least one of them) and `RuleFilter.candidates` runs only the rules whose
literals occur in the text, in their own order. Nothing is written twice: the literals come from
the patterns themselves, and a pattern the reading cannot vouch for (a leading `\\w+`, a negated
set, an optional first part) is simply always run.

The reading is exact by construction (a literal is kept only when every match must contain it)
and tested both ways: strings generated from each rule's pattern are always let through, and the
filtered rule families give exactly the matches of the full loops on every labelled line
(`tests/agent/test_safety_prefilter.py`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import product

try:  # Python 3.11+: the parser behind `re.compile`
    from re import _constants as sre_constants
    from re import _parser as sre_parse
except ImportError:  # pragma: no cover - older Pythons
    import sre_constants  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

Literals = frozenset[str]
MAX_STRINGS = 256  # an exact reading of a part stops at this many alternatives
SHORTEST = 3  # a literal is looked up by its first three characters
# past four characters a longer literal rarely lets fewer rules through, and more literals cost
# more to look up: sets whose strings all have four or more are ranked by how few strings they have
SELECTIVE = 4
ZERO_WIDTH = (sre_constants.AT, sre_constants.ASSERT, sre_constants.ASSERT_NOT)


def necessary_literals(pattern: re.Pattern[str]) -> Literals | None:
    """Strings of `SHORTEST` characters or more, one of which every text the pattern matches
    contains (the best set found), or None when there is none (the pattern must always run)."""
    if pattern.flags & (re.IGNORECASE | re.VERBOSE | re.LOCALE):
        return None
    try:
        parsed = sre_parse.parse(pattern.pattern, pattern.flags)
    except Exception:  # a pattern the reading does not know is always run
        return None
    found = _needs(list(parsed))
    if found is None or min(len(s) for s in found) < SHORTEST:
        return None
    return found


def _better(a: Literals | None, b: Literals | None) -> Literals | None:
    """The more selective of two necessary sets: the longer shortest string (up to `SELECTIVE`),
    then the fewer strings."""
    if a is None or b is None:
        return a if b is None else b
    return max(a, b, key=lambda s: (min(min(map(len, s)), SELECTIVE), -len(s)))


def _minimal(strings: set[str]) -> Literals | None:
    """The set without strings containing another one of it (still necessary, and cheaper)."""
    if not strings or "" in strings:
        return None
    kept = sorted(strings, key=len)
    out: list[str] = []
    for s in kept:
        if not any(o in s for o in out):
            out.append(s)
    return frozenset(out)


def _needs(items: list) -> Literals | None:
    """A necessary set for a sequence of parsed items (every match of the sequence contains one)."""
    best: Literals | None = None
    run: list[set[str]] = []

    def close_run() -> None:
        nonlocal best
        if run:
            joined = _concat(run)
            if joined is not None:
                best = _better(best, _minimal(joined))
            run.clear()

    for op, av in items:
        exact = _exact(op, av)
        if exact is not None:
            run.append(exact)
        else:
            close_run()
        best = _better(best, _needs_item(op, av))
    close_run()
    return best


def _needs_item(op, av) -> Literals | None:  # op, av: the parser's own items
    if op is sre_constants.SUBPATTERN:
        _group, add_flags, _del_flags, sub = av
        return None if add_flags & re.IGNORECASE else _needs(list(sub))
    if op is sre_constants.BRANCH:
        union: set[str] = set()
        for branch in av[1]:
            need = _needs(list(branch))
            if need is None:
                return None
            union |= need
        return _minimal(union)
    if op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT, sre_constants.POSSESSIVE_REPEAT):
        lo, _hi, sub = av
        return _needs(list(sub)) if lo >= 1 else None
    if op is sre_constants.ATOMIC_GROUP:
        return _needs(list(av))
    if op is sre_constants.ASSERT:  # a positive lookaround: the text contains a match of it
        _direction, sub = av
        return _needs(list(sub))
    exact = _exact(op, av)
    return _minimal(exact) if exact is not None else None


def _exact(op, av) -> set[str] | None:
    """Every string the item matches, when they are few; zero-width items match ""."""
    if op in ZERO_WIDTH:
        return {""}
    if op is sre_constants.LITERAL:
        return {chr(av)}
    if op is sre_constants.IN:
        chars: set[str] = set()
        for kind, value in av:
            if kind is sre_constants.LITERAL:
                chars.add(chr(value))
            elif kind is sre_constants.RANGE and value[1] - value[0] < 16:
                chars.update(chr(c) for c in range(value[0], value[1] + 1))
            else:  # NEGATE, CATEGORY, a wide range
                return None
        return chars
    if op is sre_constants.SUBPATTERN:
        _group, add_flags, _del_flags, sub = av
        return None if add_flags & re.IGNORECASE else _concat([_exact(o, a) for o, a in sub])
    if op is sre_constants.BRANCH:
        union: set[str] = set()
        for branch in av[1]:
            strings = _concat([_exact(o, a) for o, a in branch])
            if strings is None:
                return None
            union |= strings
            if len(union) > MAX_STRINGS:
                return None
        return union
    if op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT, sre_constants.POSSESSIVE_REPEAT):
        lo, hi, sub = av
        if hi > 3:
            return None
        once = _concat([_exact(o, a) for o, a in sub])
        if once is None:
            return None
        out: set[str] = set()
        for times in range(lo, hi + 1):
            repeated = _concat([once] * times) if times else {""}
            if repeated is None:
                return None
            out |= repeated
        return out if len(out) <= MAX_STRINGS else None
    return None


def _concat(parts: Sequence[set[str] | None]) -> set[str] | None:
    """Every concatenation of one string of each part, when they are few."""
    out = {""}
    for part in parts:
        if part is None:
            return None
        if len(out) * len(part) > MAX_STRINGS:
            return None
        out = {a + b for a, b in product(out, part)}
    return out


class RuleFilter:
    """The rules of one family (in order) that may match a text: those with no necessary set,
    and those one of whose necessary literals occurs in it."""

    def __init__(self, patterns: Sequence[re.Pattern[str]]) -> None:
        self.patterns = list(patterns)
        self.literals = [necessary_literals(p) for p in self.patterns]
        self._always = frozenset(i for i, lits in enumerate(self.literals) if lits is None)
        rules_of: dict[str, list[int]] = {}
        for i, lits in enumerate(self.literals):
            for lit in lits or ():
                rules_of.setdefault(lit, []).append(i)
        self._rules_of = {lit: tuple(rules) for lit, rules in rules_of.items()}
        starts: dict[str, list[str]] = {}
        for lit in self._rules_of:
            starts.setdefault(lit[:SHORTEST], []).append(lit)
        self._starting = {start: tuple(lits) for start, lits in starts.items()}

    def candidates(self, text: str) -> list[int]:
        """Indices of the rules that may match `text`, ascending."""
        found = set(self._always)
        starting = self._starting
        for i in range(len(text) - SHORTEST + 1):
            lits = starting.get(text[i : i + SHORTEST])
            if lits is not None:
                for lit in lits:
                    if text.startswith(lit, i):
                        found.update(self._rules_of[lit])
        return sorted(found)
