"""The gate's verdicts as the safety tests assert them, written once (round fifteen's and
sixteen's class tests repeated these bodies file after file)."""

from __future__ import annotations

from agent.safety.gate import check


def assert_emergency(text: str, role: str, category: str | None = None) -> None:
    """The lexical gate gives the emergency reply (of `category`, when one is named)."""
    verdict = check(text, role)
    assert verdict is not None and verdict.kind == "emergency", (text, verdict)
    assert category is None or verdict.category == category, (text, verdict)


def assert_no_emergency(text: str, role: str = "patient") -> None:
    """No emergency reply (an advice refusal or a pass are both fine here)."""
    verdict = check(text, role)
    assert verdict is None or verdict.kind != "emergency", (text, verdict)


def assert_passes(text: str, role: str) -> None:
    """The gate lets the question through to the record."""
    assert check(text, role) is None, text
