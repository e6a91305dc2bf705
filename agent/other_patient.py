"""Questions about somebody other than the bound patient get a scripted reply, not an answer.

Row-level security already makes another patient's record unreadable. The danger that is
left is a mix-up: a clinician on Joaquín's page asks "show me the medications for Virginia3
O'Hara796", and any agent (the offline planner, or a model doing its best) answers with
Joaquín's medications, which then read as Virginia's. So before any model or tool runs, a
question that names a person or a patient id that is not the bound patient's is answered
with a constant sentence that says whose record this conversation is about.

Name detection is deliberately narrow, to keep false alarms rare: Synthea-style names (letters
followed by digits: `Virginia3`, `O'Hara796`), possessive two-word names (`Maria Lopez's`),
names after a courtesy title or "patient", and patient ids (UUIDs). Clinicians' names
("Dr. Wolf947") are never taken for patients.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from agent.text import fold as fold_text
from tools.patient_names import patient_names
from tools.registry import Database

_LETTERS = "A-Za-zÀ-ÖØ-öø-ÿ"
_LOWER = "a-zß-öø-ÿ"
_UPPER = "A-ZÀ-ÖØ-Þ"
# Synthea appends digits to every name part: "Virginia3", "O'Hara796", "Zoë415"
_SYNTHEA_PART = rf"[{_UPPER}][{_LOWER}]*(?:['’][{_UPPER}]?[{_LOWER}]+)*[{_LOWER}]\d{{1,4}}\b"
_PLAIN_PART = rf"[{_UPPER}][{_LOWER}]+(?:['’-][{_UPPER}]?[{_LOWER}]+)*"
_TITLE = r"(?:dr|doctor|nurse|prof|professor)\.?"

SYNTHEA_NAME = re.compile(rf"(?<![{_LETTERS}\d])(?:{_SYNTHEA_PART})(?:\s+{_SYNTHEA_PART}){{0,3}}")
POSSESSIVE_NAME = re.compile(rf"\b({_PLAIN_PART}\s+{_PLAIN_PART})['’]s\b")
INTRODUCED_NAME = re.compile(
    rf"\b(?i:patient(?: named)?|mr\.?|mrs\.?|ms\.?|miss)\s+({_PLAIN_PART}(?:\s+{_PLAIN_PART})?)"
)
PATIENT_ID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.IGNORECASE)
TITLE_BEFORE = re.compile(rf"{_TITLE}\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class BoundPatient:
    patient_id: str
    full_name: str
    name_parts: frozenset[str]  # folded, with and without Synthea's digits
    mrn: str | None = None


def fold(word: str) -> str:
    """One word of a name as `agent.text.fold` folds it (apostrophes dropped), edge dots off."""
    return fold_text(word).strip(".")


def name_parts(names: Iterable[str | None]) -> frozenset[str]:
    parts: set[str] = set()
    for name in names:
        for word in re.split(r"[\s,]+", name or ""):
            if not word:
                continue
            folded = fold(word)
            parts.add(folded)
            parts.add(re.sub(r"\d+$", "", folded))
    parts.discard("")
    return frozenset(parts)


def _is_title_name(question: str, start: int) -> bool:
    return bool(TITLE_BEFORE.search(question[:start]))


def named_others(question: str, patient: BoundPatient) -> list[str]:
    """People or patient ids the question names that are not the bound patient."""
    found: list[str] = []
    for match in SYNTHEA_NAME.finditer(question):
        if not _is_title_name(question, match.start()):
            found.append(match.group(0))
    for pattern in (POSSESSIVE_NAME, INTRODUCED_NAME):
        for match in pattern.finditer(question):
            if not _is_title_name(question, match.start(1)):
                found.append(match.group(1))
    others = []
    for name in found:
        words = [fold(w) for w in name.split()]
        bare = [re.sub(r"\d+$", "", w) for w in words]
        if not any(
            w in patient.name_parts or b in patient.name_parts for w, b in zip(words, bare, strict=True)
        ):
            others.append(name)
    for match in PATIENT_ID.finditer(question):
        if match.group(0).lower() != patient.patient_id.lower():
            others.append(match.group(0))
    return list(dict.fromkeys(others))


def other_patient_reply(role: str, patient: BoundPatient) -> str:
    """The reply never repeats the other name: it neither confirms nor denies that person exists."""
    if role == "patient":
        return (
            "I can only answer questions about your own record, and your question names someone "
            "else, so I can't look that up or share it. Ask me about your own conditions, medicines, "
            "results or visits."
        )
    return (
        f"This conversation is about {patient.full_name}. Your question names someone else, so I "
        f"won't answer it here or show {patient.full_name}'s record in its place. Open the other "
        "patient's record from your panel and ask there."
    )


def load_bound_patient(db: Database, patient_id: str) -> BoundPatient | None:
    """The bound patient's names, read by `tools` under the same patient binding as every tool."""
    names = patient_names(db, patient_id)
    if names is None:
        return None
    parts = [names.full_name, names.family, names.prefix, names.suffix, *names.given_names]
    return BoundPatient(
        patient_id=patient_id, full_name=names.full_name, name_parts=name_parts(parts), mrn=names.mrn
    )
