"""Facts from one patient's record → the paraphrase suite's questions.

The truth comes from `evals.truth.read_record` (the evaluation's own reading of the
database, independent of the tools); names come from `evals.vocab` (how people say them).
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, field

from evals.paraphrase.parts import held_out_parts
from evals.paraphrase.templates import TUNE, TUNE5, Templates
from evals.paraphrase.tune_frozen3 import TUNE_FROZEN3
from evals.paraphrase.tune_frozen4 import TUNE_FROZEN4
from evals.paraphrase.tune_frozen5 import TUNE_FROZEN5
from evals.paraphrase.tune_frozen6 import TUNE_FROZEN6
from evals.paraphrase.tune_frozen7 import TUNE_FROZEN7
from evals.paraphrase.tune_frozen8 import TUNE_FROZEN8
from evals.paraphrase.tune_frozen9 import TUNE_FROZEN9
from evals.paraphrase.tune_frozen10 import TUNE_FROZEN10
from evals.paraphrase.tune_frozen11 import TUNE_FROZEN11
from evals.paraphrase.tune_frozen12 import TUNE_FROZEN12
from evals.paraphrase.tune_frozen13 import TUNE_FROZEN13
from evals.paraphrase.tune_frozen14 import TUNE_FROZEN14
from evals.paraphrase.tune_frozen15 import TUNE_FROZEN15
from evals.truth import EIE, Record
from evals.vocab import ASKABLE_CODES, condition_name, drug_name, lab_name

WEIGHT = "29463-7"
# asked as "not in the record" when the patient has none of them (checked on every row)
ABSENT_DRUGS = (
    "warfarin",
    "simvastatin",
    "metformin",
    "lisinopril",
    "levothyroxine",
    "omeprazole",
    "albuterol",
)
ABSENT_CONDITIONS = ("asthma", "epilepsy", "hypothyroidism", "atrial fibrillation", "gout", "psoriasis")
Expected = bool | float
# the suite's parts: tuned on (the round-five batch apart), and every held-out part found on
# disk (never tuned on)
TUNING: dict[str, Templates] = {
    "tune": TUNE,
    "tune5": TUNE5,
    "tune_frozen3": TUNE_FROZEN3,
    "tune_frozen4": TUNE_FROZEN4,
    "tune_frozen5": TUNE_FROZEN5,
    "tune_frozen6": TUNE_FROZEN6,
    "tune_frozen7": TUNE_FROZEN7,
    "tune_frozen8": TUNE_FROZEN8,
    "tune_frozen9": TUNE_FROZEN9,
    "tune_frozen10": TUNE_FROZEN10,
    "tune_frozen11": TUNE_FROZEN11,
    "tune_frozen12": TUNE_FROZEN12,
    "tune_frozen13": TUNE_FROZEN13,
    "tune_frozen14": TUNE_FROZEN14,
    "tune_frozen15": TUNE_FROZEN15,
}
BANKS: dict[str, Templates] = {**TUNING, **held_out_parts()}
HELD_OUT: tuple[str, ...] = tuple(name for name in BANKS if name not in TUNING)


@dataclass(frozen=True)
class Fact:
    fact_id: str
    patient_id: str
    role: str
    kind: str  # a key of TUNE/FROZEN
    subject: str  # what is asked about, as people say it
    expected: Expected  # True/False for yes/no facts, the number for value facts
    unit: str | None = None


@dataclass(frozen=True)
class Question:
    fact: Fact
    part: str  # a key of BANKS: tune, tune5, frozen, frozen2, …
    family: str
    text: str
    template: str = ""  # "<part>:<kind>#<n>": which template of the bank wrote it


@dataclass
class Suite:
    questions: list[Question] = field(default_factory=list)

    @property
    def facts(self) -> dict[str, Fact]:
        return {q.fact.fact_id: q.fact for q in self.questions}


def typo(word: str) -> str:
    """A deterministic slip: two neighbouring letters of the longest word swapped."""
    words = word.split()
    longest = max(range(len(words)), key=lambda i: len(words[i]))
    w = words[longest]
    if len(w) >= 5:
        i = len(w) // 2
        w = w[: i - 1] + w[i] + w[i - 1] + w[i + 1 :]
    words[longest] = w
    return " ".join(words)


def pronouns(role: str, gender: str | None) -> dict[str, str]:
    if role == "patient":
        return {
            "Am": "Am", "am": "am", "subj": "I", "subj_lay": "I", "Is_pron": "Am I", "poss": "my",
            "obj": "me", "Do": "Do", "have": "have", "Have": "Have", "s": "", "Does_subj": "Do I",
            "Has_subj": "Have I",
        }  # fmt: skip
    she = gender == "female"
    subj, poss, obj = ("she", "her", "her") if she else ("he", "his", "him")
    return {
        "Am": "Is", "am": "is", "subj": subj, "subj_lay": subj, "Is_pron": f"Is {subj}", "poss": poss,
        "obj": obj, "Do": "Does", "have": "has", "Have": "Has", "s": "s", "Does_subj": f"Does {subj}",
        "Has_subj": f"Has {subj}",
    }  # fmt: skip


def _happened(status: str | None) -> bool:
    return status not in (EIE, "cancelled")


def facts_of(record: Record, role: str, rng: random.Random) -> list[Fact]:
    now = record.now
    pid = record.patient.patient_id
    out: list[Fact] = []

    def add(kind: str, subject: str, expected: Expected, unit: str | None = None) -> None:
        out.append(Fact(f"{pid[:8]}:{kind}:{subject}", pid, role, kind, subject, expected, unit))

    meds = [m for m in record.medications if m.status != EIE]
    active = sorted(
        {
            drug_name(m.display)
            for m in meds
            if m.status == "active" and (m.ended_at is None or m.ended_at > now) and m.ended_reason is None
        }
    )
    for name in rng.sample(active, min(2, len(active))):
        add("med_active", name, True)
    every = " ".join(m.display.lower() for m in record.medications)
    absent = [d for d in ABSENT_DRUGS if d not in every]
    if absent:
        add("med_absent", rng.choice(absent), False)
    conditions = [c for c in record.conditions if c.verification_status not in (EIE, "refuted")]
    current = sorted(
        {
            condition_name(c.display).lower()
            for c in conditions
            if "(disorder)" in c.display
            and c.clinical_status in ("active", "recurrence", "relapse")
            and (c.abatement is None or c.abatement > now)
        }
    )
    for name in rng.sample(current, min(2, len(current))):
        add("cond_active", name, True)
    all_conditions = " ".join(c.display.lower() for c in record.conditions)
    missing = [c for c in ABSENT_CONDITIONS if c not in all_conditions]
    if missing:
        add("cond_absent", rng.choice(missing), False)
    series: dict[str, list] = {}
    for m in record.measurements:
        if m.code in ASKABLE_CODES and m.status not in (EIE, "cancelled"):
            series.setdefault(m.code, []).append(m)
    if WEIGHT in series:
        weights = series[WEIGHT]
        latest = max(weights, key=lambda m: m.effective)
        add("lab_latest", lab_name(WEIGHT, latest.display, role), latest.value, latest.unit)
        add("lab_max", lab_name(WEIGHT, latest.display, role), max(m.value for m in weights), latest.unit)
    others = sorted(c for c in series if c not in (WEIGHT, "8302-2", "8480-6", "8462-4"))
    if others:
        code = rng.choice(others)
        latest = max(series[code], key=lambda m: m.effective)
        add("lab_latest", lab_name(code, latest.display, role), latest.value, latest.unit)
    emergency = [
        e for e in record.encounters if (e.class_code or "").lower() == "emer" and _happened(e.status)
    ]
    add("ed_any" if emergency else "ed_none", "emergency visit", bool(emergency))
    allergies = sorted(
        {
            condition_name(a.display).lower()
            for a in record.allergies
            if a.clinical_status == "active" and a.verification_status not in (EIE, "refuted")
        }
    )
    if allergies:
        add("allergy_yes", rng.choice(allergies), True)
    return out


def questions_of(fact: Fact, gender: str | None, parts: tuple[str, ...]) -> list[Question]:
    words = pronouns(fact.role, gender)
    banks: list[tuple[str, Templates]] = [(p, BANKS[p]) for p in parts]
    out = []
    for part, bank in banks:
        for n, (family, template) in enumerate(bank.get(fact.kind, ())):
            text = template.format(x=fact.subject, typo=typo(fact.subject), **words)
            out.append(Question(fact, part, family, text[0].upper() + text[1:], f"{part}:{fact.kind}#{n}"))
    return out


def build_suite(
    records: list[Record], *, seed: int = 16, parts: tuple[str, ...] = ("tune", "frozen")
) -> Suite:
    rng = random.Random(seed)
    suite = Suite()
    for n, record in enumerate(sorted(records, key=lambda r: r.patient.patient_id)):
        role = "patient" if n % 2 == 0 else "clinician"
        for fact in facts_of(record, role, rng):
            suite.questions.extend(questions_of(fact, record.patient.gender, parts))
    return suite


def reference_now() -> dt.datetime:
    return dt.datetime(2026, 11, 29, 12, 0, tzinfo=dt.UTC)
