"""Facts that live only in clinical notes (Synthea's social-history sentences).

Insurance, education, socioeconomic background and the age a patient quit smoking are written
in note text and nowhere in the structured record, so only an agent that searches the notes
can answer. The newest note that states the fact is the truth (insurance changes over time).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from evals.model import NumberAnswer, TextAnswer
from evals.questions.facts import Fact, gold, iso_date
from evals.truth import NoteRow, Record

_INSURANCE = re.compile(r"Patient currently has ([^.\n]+)\.")
_SOCIO = re.compile(r"Patient comes from an? (\w+) socioeconomic background")
_QUIT = re.compile(r"Patient quite? smoking at age (\d+)")
_EDUCATION: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (
        re.compile(r"Patient is a college graduate"),
        ("college graduate", "graduated from college", "college degree"),
    ),
    (re.compile(r"Patient has completed some college courses"), ("some college",)),
    (re.compile(r"Patient has a high school education"), ("high school education", "high school")),
    (
        re.compile(r"Patient did not finish high school"),
        ("did not finish high school", "didn't finish high school"),
    ),
)


def _newest(
    record: Record, find: Callable[[str], tuple[str, ...] | None]
) -> tuple[NoteRow, tuple[str, ...]] | None:
    for note in record.valid_notes():  # newest first
        found = find(note.text)
        if found:
            return note, found
    return None


def _insurance(text: str) -> tuple[str, ...] | None:
    match = _INSURANCE.search(text)
    if not match or "unknown" in match.group(1).lower():
        return None
    value = match.group(1).strip()
    if value.upper() == "NO INSURANCE":
        return (
            "no insurance",
            "not insured",
            "uninsured",
            "does not have insurance",
            "doesn't have insurance",
        )
    return (value,)


def _education(text: str) -> tuple[str, ...] | None:
    for pattern, accepted in _EDUCATION:
        if pattern.search(text):
            return accepted
    return None


def _socio(text: str) -> tuple[str, ...] | None:
    match = _SOCIO.search(text)
    return (match.group(1).lower(),) if match else None


def _quit(text: str) -> tuple[str, ...] | None:
    match = _QUIT.search(text)
    return (match.group(1),) if match else None


def note_facts(record: Record) -> list[Fact]:
    facts: list[Fact] = []
    specs = (
        (
            "note_insurance",
            _insurance,
            ("What insurance does my most recent clinical note say I have?",),
            ("What insurance coverage does the patient's most recent note record?",),
        ),
        (
            "note_education",
            _education,
            ("What does my most recent note say about my education?",),
            ("What education level is documented in the patient's latest note?",),
        ),
        (
            "note_socioeconomic",
            _socio,
            ("What socioeconomic background does my latest note describe?",),
            ("What socioeconomic background is documented in the patient's most recent note?",),
        ),
    )
    for template, find, p_turns, c_turns in specs:
        hit = _newest(record, find)
        if hit is None:
            continue
        note, accepted = hit
        facts.append(
            Fact(
                "notes",
                template,
                "",
                TextAnswer(accepted=accepted, reference=accepted[0]),
                p_turns,
                c_turns,
                f"stated in note {note.id} of {iso_date(note.date)} (newest note that states it); not in structured data",
                gold("note", [note.id]),
            )
        )
    hit = _newest(record, _quit)
    if hit is not None:
        note, (age,) = hit
        facts.append(
            Fact(
                "notes",
                "note_quit_smoking_age",
                "",
                NumberAnswer(value=float(age), unit="years", tolerance=0),
                ("At what age did I quit smoking, according to my notes?",),
                ("According to the notes, at what age did the patient quit smoking?",),
                f"'quit smoking at age {age}' in note {note.id} of {iso_date(note.date)}",
                gold("note", [note.id]),
            )
        )
    return facts
