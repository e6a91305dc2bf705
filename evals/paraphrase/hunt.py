"""The false-negative hunt: a grammar of wordings about things a record HOLDS, and about things it
does not, asked of the offline planner (issue 16, round six).

A confident "no X in your record" when X is there is the most harmful wrong answer a records
reader can give, so the hunt asks, for every concept a patient's record actually holds (each
active medication, each condition, each allergy, each lab, each encounter class, each body
system one of their conditions belongs to), many wordings built from a grammar — hedges and
fillers, "going by my chart", "on file", "according to the system", "have they got me down for",
"did they ever find", "anything wrong with my kidneys", relative time, British and American lay
words, clinician shorthand — and checks that no answer's lead denies it. The mirror: things the
record does NOT hold get an honest "no" that says what was searched.

The grammar was written (round six) before the planner was changed for it. The truth is the
evaluation's own reading of the database (`evals.truth`), and the lay words and organs here are
this module's own (test-side) knowledge, not the planner's lexicon, so the hunt cannot agree with
the planner by construction.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from evals.paraphrase.grade import lead_of
from evals.truth import EIE, Record
from evals.vocab import ASKABLE_CODES, condition_name, drug_name, lab_name

# hedges and fillers before the question, and scope/record phrases after it
HEDGES: tuple[str, ...] = (
    "",
    "Um, ",
    "Quick question: ",
    "Sorry to bother you, but ",
    "I was wondering, ",
    "Just checking, ",
    "Can you tell me, ",
    "Out of curiosity, ",
    "Hi, ok so ",
    "My daughter asked me to check: ",
)
RECORD_PHRASES: tuple[str, ...] = (
    "",
    " going by my chart",
    " according to my records",
    " on file",
    " according to the system",
    " going by the notes",
    " in my history",
    " as far as you can see",
    " in my file",
    " on my record",
)
# said only of things that are true NOW (an active medicine, an active condition)
NOW_PHRASES: tuple[str, ...] = (" at the moment", " these days", " currently", " right now", " still")

# kind → wordings; {x} the concept as people say it, {X} a lay word or shorthand for it
WORDINGS: dict[str, tuple[str, ...]] = {
    "med_active": (
        "am I taking {x}",
        "am I on {x}",
        "have they got me down for {x}",
        "is {x} one of my current meds",
        "do I take {x}",
        "am I still prescribed {x}",
        "{x} - am I on it",
        "pt on {x}?",
        "do I still get my {x} tablets",
        "am I on {X}",
        "is there {x} on my med list",
        "do they have me on {x}",
    ),
    "med_ever": (
        "have I ever been prescribed {x}",
        "was I ever put on {x}",
        "have I ever taken {x}",
        "any {x} ever",
        "did a doctor ever give me {x}",
        "has {x} ever been prescribed for me",
    ),
    "cond_active": (
        "do I have {x}",
        "have I been diagnosed with {x}",
        "do I suffer from {x}",
        "is {x} on my problem list",
        "am I down as having {x}",
        "hx of {x}?",
        "do I have {X}",
        "have they got me down for {X}",
        "any {x}",
        "{X}?",
    ),
    "cond_ever": (
        "have I ever had {x}",
        "did they ever find {x}",
        "any history of {x}",
        "was I ever diagnosed with {x}",
        "did I have {X} at some point",
    ),
    "allergy": (
        "am I allergic to {x}",
        "any {x} allergy",
        "is there a {x} allergy",
        "do they have me down as allergic to {x}",
        "allergic to {x}?",
        "have I got an allergy to {x}",
        "{x} - allergy?",
    ),
    "lab": (
        "what was my last {x}",
        "have I had my {x} checked",
        "any {x} results",
        "has my {x} ever been measured",
        "what's my {x}",
        "latest {x}?",
        "when was my {x} last done",
    ),
    "encounter": (
        "have I ever had {x}",
        "any {x}",
        "have I had {X}",
        "how many {x} have I had",
    ),
    "system": (
        "anything wrong with my {x}",
        "any problems with my {x}",
        "is my {x} ok on paper",
        "did they ever find anything wrong with my {x}",
        "what's going on with my {x}",
        "any issues with my {x}",
    ),
}
# the mirror: things a record does not hold
ABSENT_WORDINGS: dict[str, tuple[str, ...]] = {
    "med_absent": ("am I taking {x}", "have I ever been prescribed {x}", "am I on {x}"),
    "cond_absent": ("do I have {x}", "have I ever had {x}", "any history of {x}"),
}
ABSENT_DRUGS = ("warfarin", "levothyroxine", "omeprazole", "gabapentin", "prednisone", "furosemide")
ABSENT_CONDITIONS = ("epilepsy", "hypothyroidism", "gout", "psoriasis", "glaucoma", "atrial fibrillation")

# lay words, British/American spellings and clinician shorthand, by what the record calls it
# (test-side knowledge: NHS / MedlinePlus lay names; common clinical abbreviations)
LAY_CONDITIONS: dict[str, tuple[str, ...]] = {
    "essential hypertension": ("high blood pressure", "HTN", "hypertension"),
    "hypertension": ("high blood pressure", "HTN"),
    "diabetes mellitus type 2": ("type 2 diabetes", "T2DM", "diabetes", "sugar diabetes"),
    "prediabetes": ("borderline diabetes", "pre-diabetes"),
    "hyperlipidemia": ("high cholesterol", "hyperlipidaemia", "HLD"),
    "hypertriglyceridemia": ("high triglycerides",),
    "anemia": ("anaemia", "low iron"),
    "asthma": ("asthma",),
    "chronic kidney disease stage 1": ("kidney disease", "CKD"),
    "chronic kidney disease stage 2": ("kidney disease", "CKD"),
    "chronic kidney disease stage 3": ("kidney disease", "CKD"),
    "disorder of kidney due to diabetes mellitus": ("diabetic kidney disease",),
    "myocardial infarction": ("a heart attack", "MI"),
    "major depressive disorder": ("depression", "MDD"),
    "pulmonary emphysema": ("emphysema",),
    "chronic obstructive bronchitis": ("COPD", "chronic bronchitis"),
    "otitis media": ("an ear infection",),
    "streptococcal sore throat": ("strep throat",),
    "acute viral pharyngitis": ("a sore throat",),
    "viral sinusitis": ("a sinus infection",),
    "acute bacterial sinusitis": ("a sinus infection",),
    "acute bronchitis": ("a chest infection", "bronchitis"),
    "pneumonia": ("pneumonia",),
}
# ingredient → lay / class words (BNF and MedlinePlus class names; UK and US lay words)
LAY_DRUGS: dict[str, tuple[str, ...]] = {
    "metformin hydrochloride": ("my diabetes tablets", "metformin"),
    "lisinopril": ("blood pressure tablets", "an ACE inhibitor"),
    "losartan potassium": ("blood pressure pills", "losartan"),
    "amlodipine": ("blood pressure medicine",),
    "hydrochlorothiazide": ("a water pill", "HCTZ"),
    "simvastatin": ("a statin", "cholesterol pills"),
    "atorvastatin": ("a statin", "Lipitor"),
    "albuterol": ("an inhaler", "salbutamol", "Ventolin"),
    "fluticasone propionate": ("an inhaler", "a steroid inhaler"),
    "sertraline": ("an antidepressant", "Zoloft"),
    "aspirin": ("a blood thinner", "baby aspirin"),
    "ferrous sulfate": ("iron tablets", "ferrous sulphate"),
    "insulin isophane, human": ("insulin",),
}
# body systems, by words in a condition's name (test-side: SNOMED CT body-structure wording)
SYSTEMS: tuple[tuple[str, re.Pattern[str], tuple[str, ...]], ...] = (
    ("kidneys", re.compile(r"kidney|renal|nephr"), ("kidneys", "kidney function")),
    ("heart", re.compile(r"myocard|heart|cardi|coronary|atrial"), ("heart", "ticker")),
    ("lungs", re.compile(r"asthma|bronch|emphysema|pulmonary|pneumonia|lung"), ("lungs", "breathing")),
    ("sugar", re.compile(r"diabet"), ("sugar", "blood sugar")),
    ("liver", re.compile(r"liver|hepat"), ("liver",)),
    ("thyroid", re.compile(r"thyro"), ("thyroid",)),
)
# encounter classes (FHIR v3 ActCode) → how people say a visit of that class
ENCOUNTERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "emer": ("emergency visits", ("an A&E visit", "a trip to the ER", "an ED visit", "casualty visits")),
    "imp": ("hospital admissions", ("a hospital stay", "an inpatient stay", "an admission")),
    "wellness": ("check-ups", ("a physical", "an annual check-up", "a wellness visit")),
}
DENIAL = re.compile(
    r"^no\b|\b(your record has no|the record has no|there is no|records no|could not find|"
    r"not in (your|the) record|no [^.]* (in|on) (your|the|this) record|never (been|had|taken|prescribed)|"
    r"no passage|none (are|is) recorded|nothing (is )?recorded)\b",
    re.I,
)
SEARCHED = re.compile(r"\b(searched|looked (at|through|in)|checked (every|all))\b", re.I)


@dataclass(frozen=True)
class Ask:
    """One wording about one concept of one patient; `held` says whether the record holds it."""

    patient_id: str
    kind: str
    concept: str
    question: str
    held: bool


def held_concepts(record: Record) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """(kind, concept as people say it, its lay words) for everything this record holds."""
    now = record.now
    meds: dict[str, bool] = {}
    for m in record.medications:
        if m.status == EIE:
            continue
        active = m.status == "active" and m.ended_reason is None and (m.ended_at is None or m.ended_at > now)
        name = drug_name(m.display)
        meds[name] = meds.get(name, False) or active
    for name, active in sorted(meds.items()):
        lay = LAY_DRUGS.get(name, ())
        yield "med_ever", name, lay
        if active:
            yield "med_active", name, lay
    conds: dict[str, bool] = {}
    for c in record.conditions:
        if c.verification_status in (EIE, "refuted") or "(disorder)" not in c.display:
            continue
        active = c.clinical_status in ("active", "recurrence", "relapse") and (
            c.abatement is None or c.abatement > now
        )
        name = condition_name(c.display).lower()
        conds[name] = conds.get(name, False) or active
    for name, active in sorted(conds.items()):
        lay = LAY_CONDITIONS.get(name, ())
        yield "cond_ever", name, lay
        if active:
            yield "cond_active", name, lay
    for organ, pattern, words in SYSTEMS:
        if any(pattern.search(name) for name in conds):
            yield "system", organ, words
    for a in sorted({condition_name(a.display).lower() for a in record.allergies if _kept(a)}):
        yield "allergy", a, ()
    labs = {
        m.code: m
        for m in record.measurements
        if m.code in ASKABLE_CODES and m.status not in (EIE, "cancelled")
    }
    for code, m in sorted(labs.items()):
        yield "lab", lab_name(code, m.display, "patient"), ()
    classes = {(e.class_code or "").lower() for e in record.encounters if e.status not in (EIE, "cancelled")}
    for klass, (said, lay) in ENCOUNTERS.items():
        if klass in classes:
            yield "encounter", said, lay


def _kept(allergy) -> bool:
    return allergy.verification_status not in (EIE, "refuted")


def _fill(template: str, concept: str, lay: str) -> str:
    text = template.format(x=concept, X=lay)
    return text


def asks_of(record: Record) -> list[Ask]:
    """Every wording of the grammar for this record: each held concept × its wordings (each lay word
    in turn) × a hedge and a record phrase chosen by position (so the whole grammar is covered across
    concepts without the full cross product), plus the mirror for things it does not hold."""
    pid = record.patient.patient_id
    out: list[Ask] = []
    n = 0
    for kind, concept, lay in held_concepts(record):
        words = lay or (concept,)
        for i, template in enumerate(WORDINGS[kind]):
            if "{X}" in template and not lay:
                continue
            hedge = HEDGES[n % len(HEDGES)]
            tail = RECORD_PHRASES[(n // len(HEDGES) + i) % len(RECORD_PHRASES)]
            if kind in ("med_active", "cond_active") and n % 3 == 0:
                tail = NOW_PHRASES[n % len(NOW_PHRASES)] + tail
            n += 1
            text = _fill(template, concept, words[i % len(words)]).rstrip("?") + tail + "?"
            out.append(Ask(pid, kind, concept, _sentence(hedge + text), True))
    every_med = " ".join(m.display.lower() for m in record.medications)
    every_cond = " ".join(c.display.lower() for c in record.conditions)
    for kind, names, held_text in (
        ("med_absent", ABSENT_DRUGS, every_med),
        ("cond_absent", ABSENT_CONDITIONS, every_cond),
    ):
        for name in names:
            if name in held_text:
                continue
            for i, template in enumerate(ABSENT_WORDINGS[kind]):
                tail = RECORD_PHRASES[(n + i) % len(RECORD_PHRASES)]
                n += 1
                out.append(Ask(pid, kind, name, _sentence(template.format(x=name) + tail + "?"), False))
    return out


def _sentence(text: str) -> str:
    return text[0].upper() + text[1:] if text else text


def denies(answer: str) -> bool:
    """The answer's lead says no / none / not found."""
    return bool(DENIAL.search(lead_of(answer)))


def honest_no(answer: str) -> bool:
    """A "no" to something the record does not hold that says what was searched."""
    lead = lead_of(answer)
    return bool(DENIAL.search(lead)) and bool(SEARCHED.search(answer))


@dataclass
class HuntResult:
    """Each ask with its answer; the failures are the held concepts denied and the absent ones not
    honestly denied."""

    answers: list[tuple[Ask, str]]

    @property
    def denials(self) -> list[tuple[Ask, str]]:
        return [(a, t) for a, t in self.answers if a.held and denies(t)]

    @property
    def dishonest(self) -> list[tuple[Ask, str]]:
        return [(a, t) for a, t in self.answers if not a.held and not honest_no(t)]

    def by_kind(self) -> list[tuple[str, int, int]]:
        """(kind, asked, failed) per kind of concept."""
        rows: dict[str, list[int]] = {}
        failed = {id(a) for a, _ in self.denials + self.dishonest}
        for a, _ in self.answers:
            row = rows.setdefault(a.kind, [0, 0])
            row[0] += 1
            row[1] += id(a) in failed
        return [(k, n, f) for k, (n, f) in sorted(rows.items())]


async def answer(agent: Any, ask: Ask, now: dt.datetime, role: str = "patient") -> str:
    """The agent's answer to one ask (the empty string when it errs)."""
    from agent.base import AgentRequest
    from agent.events import DoneEvent
    from tools.scope import PatientScope

    scope = PatientScope(patient_id=ask.patient_id, role=role, actor="eval:hunt", conversation_id="hunt")
    text = ""
    async for event in agent.run(AgentRequest(scope=scope, question=ask.question, now=now)):
        if isinstance(event, DoneEvent):
            text = event.answer
    return text


def run_hunt(
    agent: Any, records: list[Record], now: dt.datetime, *, progress: Callable[[int, int], None] | None = None
) -> HuntResult:
    """Ask the whole grammar of every record (in order) and keep each answer."""
    import asyncio

    asks = [a for r in records for a in asks_of(r)]

    async def main() -> HuntResult:
        result = HuntResult([])
        for ask in asks:
            result.answers.append((ask, await answer(agent, ask, now)))
            if progress is not None:
                progress(len(result.answers), len(asks))
        return result

    return asyncio.run(main())
