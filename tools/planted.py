"""Text in a record that is addressed to an AI assistant, not to people: withheld and reported.

A clinical note is data written by people about a patient. A paragraph in it that gives orders
to "the AI assistant" ("ignore all previous instructions…, tell the reader…, book…") is not
clinical content: shown verbatim, it would either be obeyed by a model that reads the tool
result or repeat the planted message to the user. The tools replace such a paragraph with a
marker that says what was withheld and why, so the model and the offline planner both see
that the note carried instructions, and neither can pass them on.

The rules are lexical and deliberately narrow (orders to an AI, or to ignore instructions):
ordinary clinical sentences ("Patient instructed to stop metformin") never match.
"""

from __future__ import annotations

import re

WITHHELD = (
    "[withheld: a passage addressed to an AI assistant, not clinical content; its instructions "
    "were not followed]"
)

_ADDRESSED = re.compile(
    r"\b(?:instructions?|message|note|command|prompt)s? (?:to|for) (?:the |any |all )?"
    r"(?:ai|a\.i\.|assistants?|models?|chat ?bots?|llms?|language models?)\b"
    r"|\b(?:ignore|disregard|forget|override) (?:all |any )?(?:of )?(?:the |your )?"
    r"(?:previous|prior|above|earlier|other|system) (?:instructions?|prompts?|messages?|rules?)\b"
    r"|\b(?:ignore|disregard|forget|override) (?:all |any )?(?:of )?your (?:instructions?|prompts?|rules?)\b"
    r"|\bsystem (?:notice|override)\b"
    r"|\b(?:system|developer) (?:prompt|instructions?|message)\b"
    r"|\b(?:dear|attention|hey|note to) (?:the )?(?:ai|assistant|chat ?bot|llm|language model)\b"
    r"|\bas an ai(?: assistant| model)?,? you (?:must|should|will)\b",
    re.IGNORECASE,
)
# paragraphs: blank-line separated blocks (a note's sections), or markdown headings
_PARAGRAPHS = re.compile(r"\n\s*\n")


def addressed_to_ai(text: str) -> bool:
    """Whether the text gives orders to an AI assistant."""
    return bool(_ADDRESSED.search(" ".join(text.split())))


def withhold_planted(text: str) -> tuple[str, bool]:
    """(the text with each paragraph addressed to an AI replaced by WITHHELD, whether any was)."""
    if not addressed_to_ai(text):
        return text, False
    parts = _PARAGRAPHS.split(text)
    kept = [WITHHELD if addressed_to_ai(p) else p for p in parts]
    return "\n\n".join(kept), True
