"""Grading one answer of the paraphrase suite: the verdict its opening states.

Only the lead is read (the answer's first paragraph after the offline banner and scope
lines): a yes/no fact is correct when the lead opens with the right "Yes"/"No"; a value fact
when the lead states the expected number (at the precision it is printed). A confident false
negative is a lead that denies something the record holds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from evals.paraphrase.suite import Fact

_SKIP = re.compile(r"^(offline mode[^:]*:|\(following up|asked about|about your|scope:)", re.I)
_YES = re.compile(r"^(yes)\b", re.I)
_NO = re.compile(r"^(no)\b", re.I)
_DENIAL = re.compile(
    r"\b(your record has no|the record has no|there is no|no [^.]* (in|on) (your|the|this) record|"
    r"not in (your|the) record|never (been|had|taken|prescribed))\b",
    re.I,
)
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


@dataclass(frozen=True)
class Grade:
    verdict: str  # yes | no | value | wrong-value | unclear | empty
    correct: bool
    false_negative: bool


def lead_of(answer: str) -> str:
    """The first paragraph that is not the banner, a follow-up marker or a scope line."""
    for block in re.split(r"\n\s*\n", answer.strip()):
        block = block.strip()
        if not block:
            continue
        if _SKIP.match(block):
            rest = _SKIP.sub("", block, count=1).strip()
            if not rest:
                continue
            block = rest
        return block.splitlines()[0].strip()
    return ""


def _matches(expected: float, text: str) -> bool:
    for raw in _NUMBER.findall(text):
        value = float(raw)
        decimals = len(raw.split(".")[1]) if "." in raw else 0
        if abs(value - expected) <= 0.5 * 10**-decimals + 1e-9:
            return True
    return False


def grade(fact: Fact, answer: str) -> Grade:
    lead = lead_of(answer)
    if not lead:
        return Grade("empty", False, False)
    denies = bool(_NO.match(lead) or _DENIAL.search(lead))
    if isinstance(fact.expected, bool):
        verdict = "yes" if _YES.match(lead) else ("no" if denies else "unclear")
        correct = verdict == ("yes" if fact.expected else "no")
        return Grade(verdict, correct, fact.expected and verdict == "no")
    hit = _matches(float(fact.expected), lead)
    return Grade("value" if hit else ("no" if denies else "wrong-value"), hit, denies and not hit)
