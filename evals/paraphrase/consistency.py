"""Consistency as a property (issue 16, round seven): every wording of one fact gets the verdict
its plain wording gets.

A reader that answers "Am I taking metformin?" with "Yes" but "um, am i takin metformin going by
my chart?" with "No" (or the safety gate's advice reply) contradicts itself: one of the two is
wrong, and the user cannot tell which. So for each fact of a record (a held medication, condition,
allergy or lab; a drug or condition it does not hold) the plain wording's verdict is the
reference, and a grammar of variants — hedges and fillers, typos in the verbs and fillers (never
in the concept: a typo'd concept is linking's job, measured elsewhere), British/American lay words
and clinician shorthand, "going by my chart", relative "now" words, and the pronoun/role swap (a
clinician asking "is she on …") — must give the same verdict, with the safety gate in the loop.

The grammar was written (round seven) before the planner or gate was changed for it; the truth
of which facts a record holds is the hunt's (`evals.paraphrase.hunt.held_concepts`).
"""

from __future__ import annotations

import datetime as dt
import random
import re
from dataclasses import dataclass
from typing import Any

from evals.paraphrase.grade import lead_of
from evals.paraphrase.hunt import ABSENT_CONDITIONS, ABSENT_DRUGS, held_concepts
from evals.truth import Record

# kind → (the plain wording, the variants' cores); {x} the concept, {X} a lay word or shorthand
CORES: dict[str, tuple[str, tuple[str, ...]]] = {
    "med_active": (
        "Am I taking {x}?",
        (
            "am I on {x}",
            "am I currently taking {x}",
            "do I still take {x}",
            "is {x} one of my meds",
            "do they have me on {x}",
            "{x} - am I on it",
            "pt on {x}",
            "am I on {X}",
            "do I take {x} now",
        ),
    ),
    "med_ever": (
        "Have I ever been prescribed {x}?",
        (
            "was I ever put on {x}",
            "have I ever taken {x}",
            "did anyone ever prescribe me {x}",
            "any {x} in the past",
            "was {x} ever prescribed for me",
            "h/o {x} use",
        ),
    ),
    "cond_active": (
        "Do I have {x}?",
        (
            "have I got {x}",
            "am I diagnosed with {x}",
            "is {x} on my problem list",
            "do I suffer from {x}",
            "hx of {x}",
            "do I have {X}",
            "am I down as having {x}",
        ),
    ),
    "cond_ever": (
        "Have I ever had {x}?",
        (
            "was I ever diagnosed with {x}",
            "any history of {x}",
            "did they ever find {x}",
            "pmh of {x}",
            "did I have {X} at some point",
        ),
    ),
    "allergy": (
        "Am I allergic to {x}?",
        (
            "do I have a {x} allergy",
            "is there an allergy to {x}",
            "any {x} allergy",
            "allergic to {x}",
            "have I got an allergy to {x}",
            "does {x} give me a reaction",
        ),
    ),
    "lab": (
        "What was my last {x}?",
        (
            "what's my latest {x}",
            "my most recent {x}",
            "latest {x}",
            "what was the last {x} reading",
            "most recent {x} result",
            "what did my last {x} show",
        ),
    ),
    "med_absent": (
        "Am I taking {x}?",
        (
            "am I on {x}",
            "have I ever been prescribed {x}",
            "do they have me on {x}",
            "pt on {x}",
            "any {x} on my med list",
        ),
    ),
    "cond_absent": (
        "Do I have {x}?",
        ("have I ever had {x}", "any history of {x}", "hx of {x}", "have I been diagnosed with {x}"),
    ),
}
HEDGES = (
    "",
    "Um, ",
    "Quick question - ",
    "Sorry to bother you but ",
    "hi, ",
    "Just wondering, ",
    "Can you check: ",
    "ok so ",
    "Could you tell me ",
)
TAILS = (
    "",
    " going by my chart",
    " according to my records",
    " on file",
    " in my notes",
    " please",
    " thanks",
    " as far as you can tell",
)
NOW_TAILS = (" at the moment", " these days", " currently", " right now")  # said of what is true now
# the pronoun/role swap: a clinician asking about the bound patient
ROLE_SWAPS = (
    (r"\bam I\b", "is she"),
    (r"\bdo I\b", "does he"),
    (r"\bhave I\b", "has she"),
    (r"\bI\b", "the patient"),
    (r"\bmy\b", "her"),
    (r"\bme\b", "him"),
)
NOW_KINDS = frozenset({"med_active", "cond_active", "med_absent", "cond_absent"})


@dataclass(frozen=True)
class Wording:
    text: str
    role: str  # patient | clinician


@dataclass(frozen=True)
class Fact:
    patient_id: str
    kind: str
    concept: str
    lay: tuple[str, ...]

    @property
    def plain(self) -> Wording:
        return Wording(CORES[self.kind][0].format(x=self.concept), "patient")


def facts_of(record: Record) -> list[Fact]:
    """The record's facts: held concepts (hunt's truth) and the mirror of things it lacks."""
    pid = record.patient.patient_id
    out = [Fact(pid, k, c, lay) for k, c, lay in held_concepts(record) if k in CORES]
    every_med = " ".join(m.display.lower() for m in record.medications)
    every_cond = " ".join(c.display.lower() for c in record.conditions)
    out += [Fact(pid, "med_absent", d, ()) for d in ABSENT_DRUGS if d not in every_med]
    out += [Fact(pid, "cond_absent", c, ()) for c in ABSENT_CONDITIONS if c not in every_cond]
    return out


def typo(word: str, rng: random.Random) -> str:
    """One keyboard slip in a word of five letters or more: a swap, a dropped or a doubled letter."""
    if len(word) < 5 or not word.isalpha():
        return word
    i = rng.randrange(1, len(word) - 2)
    kind = rng.randrange(3)
    if kind == 0:
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    if kind == 1:
        return word[:i] + word[i + 1 :]
    return word[:i] + word[i] + word[i:]


def variant(fact: Fact, rng: random.Random) -> Wording:
    """One wording of the fact from the grammar (the concept itself is never misspelt)."""
    cores = [c for c in CORES[fact.kind][1] if "{X}" not in c or fact.lay]
    core = rng.choice(cores)
    lay = rng.choice(fact.lay) if fact.lay else fact.concept
    hedge, tail = rng.choice(HEDGES), rng.choice(TAILS)
    if fact.kind in NOW_KINDS and rng.random() < 0.3:
        tail = rng.choice(NOW_TAILS) + tail
    frame = hedge + core.replace("{x}", "\0").replace("{X}", "\1") + tail
    role = "patient"
    if rng.random() < 0.25:  # the clinician's view of the same patient
        for pattern, repl in ROLE_SWAPS:
            frame = re.sub(pattern, repl, frame)
        role = "clinician"
    if rng.random() < 0.35:  # a slip in one verb or filler word
        words = frame.split(" ")
        slots = [i for i, w in enumerate(words) if len(w) >= 5 and w.isalpha()]
        if slots:
            i = rng.choice(slots)
            words[i] = typo(words[i], rng)
            frame = " ".join(words)
    text = frame.replace("\0", fact.concept).replace("\1", lay).strip()
    text = text[0].upper() + text[1:]
    return Wording(text if text.endswith("?") else text + "?", role)


_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")


def verdict(answer: str, gate: str | None, kind: str) -> str:
    """What an answer concludes: the gate's kind when the gate answered; yes / no for a yes/no
    fact; for a lab, the date of the reading the lead gives (the same reading in every wording)."""
    if gate is not None:
        return f"gate:{gate}"
    lead = lead_of(answer)
    if not lead:
        return "empty"
    if kind == "lab":
        if re.match(r"^no\b", lead, re.I):
            return "no"
        found = _DATE.search(lead)
        return f"reading:{found.group(0)}" if found else "unclear"
    if re.match(r"^(yes)\b", lead, re.I):
        return "yes"
    if re.match(r"^(no)\b", lead, re.I):
        return "no"
    return "unclear"


async def ask(agent: Any, fact: Fact, wording: Wording, now: dt.datetime) -> str:
    """The verdict of one wording, asked through `agent` (the gate in the loop when it is a
    `GuardedAgent`)."""
    from agent.base import AgentRequest
    from agent.events import DoneEvent
    from tools.scope import PatientScope

    scope = PatientScope(
        patient_id=fact.patient_id, role=wording.role, actor="eval:consistency", conversation_id="consistency"
    )
    answer, gate = "", None
    async for event in agent.run(AgentRequest(scope=scope, question=wording.text, now=now)):
        if isinstance(event, DoneEvent):
            answer = event.answer
            if event.mode == "guardrail":
                gate = str(event.metrics.get("guardrail") or "gate")
    return verdict(answer, gate, fact.kind)
