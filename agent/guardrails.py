"""The deterministic layer that runs before any model call (DESIGN invariant 3).

Kept as the stable import path; the gate itself lives in `agent.safety` (lexical rules,
semantic detector, decision, refusal composition). `screen` is the lexical-only check for
callers without an embedder; `agent.runner.GuardedAgent` uses `agent.safety.gate.SafetyGate`,
which adds the semantic detector on the question's shared embedding.
"""

from __future__ import annotations

from typing import Literal

from agent.safety.gate import SafetyGate, Verdict, check
from agent.safety.replies import CLINICAL_ADVICE_REPLY, EMERGENCY_REPLY
from agent.safety.text import normalise

Role = Literal["patient", "clinician", "evaluator"]

__all__ = [
    "CLINICAL_ADVICE_REPLY",
    "EMERGENCY_REPLY",
    "SafetyGate",
    "Verdict",
    "emergency_category",
    "normalise",
    "screen",
]


def screen(question: str, role: str) -> Verdict | None:
    """The gate's lexical half: a scripted verdict, or None when the question may pass."""
    return check(question, role)


def emergency_category(question: str, role: str = "patient") -> str | None:
    verdict = check(question, role)
    return verdict.category if verdict is not None and verdict.kind == "emergency" else None
