"""Questions about somebody other than the bound patient get a scripted reply, not an answer.

Row-level security already makes another patient's record unreadable. The danger that is
left is a mix-up: a clinician on Joaquín's page asks "show me the medications for Virginia3
O'Hara796", and any agent (the offline planner, or a model doing its best) answers with
Joaquín's medications, which then read as Virginia's. So before any model or tool runs, a
question that names a person or a patient id that is not the bound patient's is answered
with a constant sentence that says whose record this conversation is about.

Name detection is deliberately narrow, to keep false alarms rare: Synthea-style names (letters
followed by digits: `Virginia3`, `O'Hara796`), possessive two-word names (`Maria Lopez's`),
names after a courtesy title or "patient", a common given name used as the subject of a record
question ("what meds is John Smith on", "does Maria Garcia have asthma"), and patient ids
(UUIDs). Clinicians' names ("Dr. Wolf947") and places ("St John's clinic") are never taken
for patients.

A relative is somebody else too: "does my mom have diabetes" answered from the patient's own
record says "Yes" about the wrong person, the most confident wrong answer there is. So a
relative who is the subject or the owner of a record question ("is my son allergic to …",
"my wife's medications", "qué medicamentos toma mi esposo", for a clinician "does her mother
have …") gets the same reply, while a relative who is only mentioned ("my mom says I'm
allergic to penicillin, am I?", "can my daughter come to my appointment") does not.
The labelled phrasings are in `evals/other_person/` (a tuning part and a frozen part).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

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
TITLE_BEFORE = re.compile(rf"(?:{_TITLE}|st|saint|san|santa)\.?\s*$", re.IGNORECASE)
PLACE_WORDS = frozenset({"st", "saint", "san", "santa", "mount", "mt"})
GIVEN_NAMES_FILE = Path(__file__).with_name("given_names.txt")

# Relatives and people close to the user, English and Spanish, as `agent.text.fold` writes them
_RELATIVE = (
    r"(?:mom|mum|mommy|mummy|mother|dad|daddy|father|husband|wife|spouse|partner|son|daughter|"
    r"child|kid|kids|baby|boy|girl|little (?:boy|girl|one)|brother|sister|grandma|grandmother|"
    r"nan|nana|gran|granny|grandpa|grandfather|granddad|grandad|aunt|auntie|uncle|nephew|niece|"
    r"cousin|boyfriend|girlfriend|fiance|fiancee|friend|neighbou?r|roommate|flatmate|"
    r"mama|madre|papa|padre|esposo|esposa|marido|mujer|hijo|hija|nino|nina|bebe|hermano|hermana|"
    r"abuela|abuelo|novio|novia|pareja|tio|tia|primo|prima|vecino|vecina|amigo|amiga)"
)
_THEIR = r"(?:my|mi|mis|his|her|their|the patients|su|sus)"
# what a record question asks about, and what a person "has" in one
_RECORD_NOUN = (
    r"(?:meds|medications?|medicines?|medicamentos?|pills|tablets|prescriptions?|results?|"
    r"resultados?|labs?|tests?|bloods|blood (?:work|tests?|pressure|type|sugar)|a1c|hba1c|"
    r"cholesterol|vitals|weight|allerg\w*|alergias?|conditions?|diagnos\w*|diagnosticos?|"
    r"problems?|history|historial|record|chart|file|notes?|vaccin\w*|vacunas?|immuni[sz]\w*|"
    r"jabs?|shots?|appointments?|citas?|visits?|visitas?|admissions?|kidney function|"
    r"procedures?|surgery|care plan)"
)
_HAS_WORD = (
    r"(?:have|has|had|got|get|gets|on|taking|take|takes|allergic|vaccinated|immuni[sz]ed|been|ever|"
    r"due for|need|needs|diagnosed|seen|tiene|tuvo|toma|esta|es alergic[oa]|ha tenido|ha sido)"
)
_ASK_VERB = r"(?:is|are|does|do|has|have|did|was|were|will|can|could|tiene|toma|esta|es)"
RELATIVE_SUBJECT = re.compile(
    rf"(?:\b(?:{_ASK_VERB}|if|whether|si)\s+{_THEIR}\s+{_RELATIVE}\s+(?:\w+\s+)?{_HAS_WORD}\b"  # does my mom have
    rf"|\b{_RECORD_NOUN}\s+(?:\w+\s+){{0,2}}{_ASK_VERB}\s+{_THEIR}\s+{_RELATIVE}\b"  # what meds is my husband on
    rf"|\b{_THEIR}\s+{_RELATIVE}s?\s+(?:\w+\s+){{0,2}}{_RECORD_NOUN}\b"  # my wife's medications
    rf"|\b{_RECORD_NOUN}\s+(?:\w+\s+){{0,2}}(?:for|of|about|de|del|para)\s+{_THEIR}\s+{_RELATIVE}\b"
    rf"|\b(?:what|which|how|que|cual|cuales)\s+(?:\w+\s+){{0,3}}{_ASK_VERB}\s+{_THEIR}\s+{_RELATIVE}\s+"
    rf"(?:taking|take|on|have|had|got|toma|tiene|tuvo)\b"  # what is my sister taking
    rf"|\b{_RECORD_NOUN}\s+(?:\w+\s+){{0,2}}(?:toma|tiene|tuvo)\s+{_THEIR}\s+{_RELATIVE}\b"  # que vacunas tiene mi hijo
    rf"|^\W*{_THEIR}\s+{_RELATIVE}\s+{_HAS_WORD}(?:\s+\w+){{0,4}}\s*\?)",  # mi papa es alergico a algo?
)
# A relative only mentioned: "my mom says I'm …", "my husband wants to know when my …"
_REPORTED = re.compile(
    rf"\b{_THEIR}\s+{_RELATIVE}\s+(?:says|said|thinks|thought|wants|asked|asks|is asking|"
    rf"pregunta|quiere|dice|dijo)\b"
)


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


@cache
def given_names() -> frozenset[str]:
    words: set[str] = set()
    for line in GIVEN_NAMES_FILE.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            words.update(line.split())
    return frozenset(words)


@cache
def _given_name_subject() -> re.Pattern[str]:
    names = "|".join(sorted((re.escape(n) for n in given_names()), key=len, reverse=True))
    person = rf"((?:{names})(?:\s+{_PLAIN_PART})?)"
    return re.compile(
        rf"\b(?i:is|does|has|did|was|for|about|of)\s+{person}(?:['’]s)?\s+"
        rf"(?i:on|taking|take|have|has|had|allergic|vaccinated|been|ever|got|medications?|meds|"
        rf"labs?|results?|records?|chart|history|blood|last|latest)\b"
        rf"|\b(?i:what|which)\s+(?:\w+\s+){{0,3}}(?i:is|does|has)\s+{person}\s+(?i:on|taking|take|have|had)\b"
        rf"|\b(?i:for|of|about|up)\s+{person}\s*(?:[?.!]|$)"
    )


def relative_asked_about(question: str) -> str | None:
    """The relative a record question is about ("my mom" in "does my mom have diabetes"), or None
    when a relative is only mentioned ("my mom says I'm allergic to penicillin, am I?")."""
    folded = " ".join(fold_text(question).split())
    if _REPORTED.search(folded):
        return None
    match = RELATIVE_SUBJECT.search(folded)
    return match.group(0) if match else None


def named_others(question: str, patient: BoundPatient) -> list[str]:
    """People or patient ids the question names that are not the bound patient."""
    found: list[str] = []
    for match in SYNTHEA_NAME.finditer(question):
        if not _is_title_name(question, match.start()):
            found.append(match.group(0))
    for pattern in (POSSESSIVE_NAME, INTRODUCED_NAME, _given_name_subject()):
        for match in pattern.finditer(question):
            group = next(
                i for i, text in enumerate(match.groups(), 1) if text
            )  # the alternative that matched
            if not _is_title_name(question, match.start(group)):
                found.append(re.sub(r"['’]s$", "", match.group(group)))
    others = []
    for name in found:
        words = [fold(w) for w in name.split()]
        if words[0] in PLACE_WORDS:  # "St John's clinic" is a place
            continue
        bare = [re.sub(r"\d+$", "", w) for w in words]
        if not any(
            w in patient.name_parts or b in patient.name_parts for w, b in zip(words, bare, strict=True)
        ):
            others.append(name)
    for match in PATIENT_ID.finditer(question):
        if match.group(0).lower() != patient.patient_id.lower():
            others.append(match.group(0))
    relative = relative_asked_about(question)
    if relative:
        others.append(relative)
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
