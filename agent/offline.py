"""The offline planner: no API key → deterministic intent → tools → a templated, cited answer.

It is the embedded default (a fresh clone has no key), so it speaks the same event protocol
as the Claude loop and goes through the same registry, executor (structural write guard),
grounding check and guardrails. It says plainly that it is the offline mode.

How it reads a question:

1. **Booking/cancelling follow-ups first.** "book S2", "yes", "the first one" after this
   planner offered slots books that slot (its `slot_id` is read back from the planner's own
   previous answer); "cancel B1" after it listed appointments cancels that one. Booking
   always takes two steps: slots are offered, then booked on the confirming reply.
2. **Keyword/regex intents** (medications, labs, conditions, …), several at once when the
   question asks for several; arguments (status, query, latest only, date window) come from
   the wording ("am I still on lisinopril" → medications query "lisinopril").
3. **The local embedding model** (optional) as the fallback when no keyword fires: the
   question is compared with example questions per intent and accepted above a floor.
4. **A follow-up without an intent** ("and last year?") re-plans the previous question with
   the new wording's modifiers.
5. Otherwise an honest "I can't answer that from the record", never a guess.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent.background import BACKGROUND_HEADING, Background
from agent.base import AgentRequest, Turn
from agent.events import DoneEvent, ErrorEvent, Event, Searched, StatusEvent, TextEvent
from agent.execution import (
    ToolCall,
    ToolExecutor,
    ToolOutcome,
    call_event,
    citation_events,
    result_event,
    status_event,
)
from agent.grounding import check_grounding, row_texts
from agent.intent import MEASURES, asks_to_cancel, write_intent
from agent.metrics import RunClock, answer_metrics
from agent.scoping import INTERNAL_TOOLS, SECTION_LABELS, ScopeUse, scope_use, with_internal_tools
from records.database import Database
from tools.registry import Registry, ToolContext
from tools.render import fmt_num
from tools.results import HandleBook
from tools.scoped_record import KIND_WORDS

OFFLINE_BANNER = "Offline mode (answered from the record without the AI model):"
UNKNOWN_REPLY = (
    "Offline mode: I can't answer that from the record. Without the AI model I can look up "
    "conditions, medications, lab results and vitals, allergies, visits, immunizations, "
    "procedures, care plans, clinical notes and hospital leaflets, and find, book or cancel "
    'appointments. Try asking, for example, "What medications am I taking?"'
)
EMBEDDING_FLOOR = 0.55
MAX_INTENTS = 3

# --------------------------------------------------------------------------------------------
# Intents
# --------------------------------------------------------------------------------------------


def _rx(*parts: str) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p) for p in parts)


_MEASURE_WORDS = "|".join(sorted((re.escape(k) for k in MEASURES), key=len, reverse=True))
_DRUG_SUFFIX = r"[a-z]{3,}(pril|olol|statin|formin|sartan|dipine|zole|cillin|mycin|cycline|prazole|gliptin|flozin|tide|lukast|sone|olone|parin|xaban|gatran)"
_CONDITION_WORDS = (
    r"diabet\w*|hypertension|high blood pressure|asthma|copd|ckd|kidney disease|cancer|depression|anxiety|"
    r"obesity|arthritis|hyperlipidemia|high cholesterol|heart failure|atrial fibrillation|afib|anemia|"
    r"osteoporosis|migraine|sinusitis|bronchitis|pneumonia|prediabetes"
)


@dataclass(frozen=True)
class Intent:
    name: str
    tool: str
    patterns: tuple[re.Pattern[str], ...]
    examples: tuple[str, ...]  # for the embedding fallback
    record: bool = True  # about the patient's own record (vs general information)


INTENTS: tuple[Intent, ...] = (
    Intent(
        "profile",
        "get_patient_profile",
        _rx(
            r"\b(who am i|my name|full name|date of birth|birth ?date|when was i born|how old|my age|"
            r"my address|where do i live|phone number|gender|demographics|profile|my (gp|primary care|family) "
            r"(doctor|physician)?|who is my (doctor|gp|physician))\b"
        ),
        ("What is my date of birth?", "Who is my GP?", "What address do you have for me?"),
    ),
    Intent(
        "conditions",
        "get_conditions",
        _rx(
            r"\b(conditions?|diagnos\w*|health problems?|problem list|problems|illness\w*|diseases?|"
            r"medical history)\b",
            rf"\b(do i have|have i (ever )?had|was i diagnosed with|am i) .*\b({_CONDITION_WORDS})\b",
            rf"\b({_CONDITION_WORDS})\b",
        ),
        ("What health problems do I have?", "Do I have diabetes?", "What am I diagnosed with?"),
    ),
    Intent(
        "medications",
        "get_medications",
        _rx(
            r"\b(medications?|medicines?|meds|drugs?|prescri\w*|pills?|tablets?|inhalers?|insulin)\b",
            r"\bam i (still |currently )?(on|taking)\b",
            r"\bwhat am i (on|taking)\b",
            rf"\b{_DRUG_SUFFIX}\b",
        ),
        ("What medicines do I take?", "Am I still on lisinopril?", "List my prescriptions"),
    ),
    Intent(
        "labs",
        "get_labs",
        _rx(
            r"\b(labs?|lab results?|test results?|blood (tests?|work)|bloods|results?|levels?|readings?|vitals?|"
            r"vital signs|measurements?)\b",
            rf"\b({_MEASURE_WORDS})\b",
        ),
        ("What was my last cholesterol test?", "Show my blood test results", "How much do I weigh?"),
    ),
    Intent(
        "allergies",
        "get_allergies",
        _rx(r"\b(allerg\w*|intoleran\w*|allergic)\b"),
        ("What am I allergic to?", "Do I have any allergies?"),
    ),
    Intent(
        "encounters",
        "get_encounters",
        _rx(
            r"\b(visits?|encounters?|admissions?|admitted|hospital stays?|hospitali[sz]\w*|er trips?|"
            r"emergency (room |department )?visits?|when did i (last )?(see|visit|go)|last time i (saw|visited|went)|"
            r"was i seen|been seen)\b"
        ),
        ("When was my last visit?", "Have I been to the emergency room?", "List my recent visits"),
    ),
    Intent(
        "immunizations",
        "get_immunizations",
        _rx(r"\b(vaccin\w*|immuni[sz]\w*|shots?|jabs?|boosters?|tetanus|tdap|flu shot)\b"),
        ("Which vaccines have I had?", "Am I up to date with my shots?", "When was my last flu jab?"),
    ),
    Intent(
        "procedures",
        "get_procedures",
        _rx(
            r"\b(procedures?|surger(y|ies)|operations?|operated|colonoscop\w*|biops\w*|x.?rays?|mri|ct scan|scans?)\b"
        ),
        ("What procedures have I had?", "Have I had any surgery?", "When was my colonoscopy?"),
    ),
    Intent(
        "care_plans",
        "get_care_plans",
        _rx(r"\b(care ?plans?|plans? of care|treatment plans?|my plan|self.?management|care goals?)\b"),
        ("What is my care plan?", "What are my treatment plans?"),
    ),
    Intent(
        "appointments",
        "list_appointments",
        _rx(
            r"\b(my (upcoming |next |booked |scheduled |future )?appointments?|when is my (next )?appointment|"
            r"appointments? (do i have|booked|scheduled|coming up)|do i have (an |any )?appointments?)\b"
        ),
        ("When is my next appointment?", "What appointments do I have booked?"),
    ),
    Intent(
        "find_slots",
        "find_slots",
        _rx(
            r"\b(slots?|availability|available (times?|appointments?)|openings?|free times?)\b",
            r"\b(book|schedule|make|arrange|get|need) (me )?(an? |the )?([a-z-]+ )?(appointment|visit|check.?up|consultation)\b",
            r"\bbook\b",
            r"\b(need|want|like) to see (a|an|the) [a-z ]*(doctor|gp|nurse|\w+ologist|\w+ist|\w+ician)\b",
        ),
        ("Book me a check-up next week", "Find an appointment with cardiology", "Any free slots tomorrow?"),
    ),
    Intent(
        "notes",
        "search_notes",
        _rx(
            r"\b(notes?|what did (the|my) (doctor|nurse|clinician|gp|physician) (say|write|note|mention)|"
            r"documented|wrote|written down)\b"
        ),
        ("What did the doctor write at my last visit?", "Search my notes for back pain"),
    ),
    Intent(
        "leaflets",
        "search_leaflets",
        _rx(
            r"\b(leaflets?|information (about|on)|how (do|should|can) i prepare|prepare for|visiting hours|parking|"
            r"where (can|do|should) i park|car parks?|getting (here|there|to the hospital)|"
            r"pharmacy|opening hours|side effects?|what does .+ mean|how does .+ work|explain|tell me about)\b",
            r"^(what|who) (is|are) (an? )?(?!my\b|your\b|the patient)",
        ),
        ("What are the visiting hours?", "How do I prepare for a colonoscopy?", "What is HbA1c?"),
        record=False,
    ),
)
INTENT_BY_NAME = {i.name: i for i in INTENTS}

# questions about how things work here, whoever asks them: always the leaflets
_GENERAL_INFO = re.compile(
    r"\b(leaflets?|how (do|should|can) i prepare|prepare for|visiting hours|parking|where (can|do|should) i park|"
    r"car parks?|getting (here|there|to the hospital)|opening hours|side effects?|"
    r"information (about|on))\b"
)
_PERSONAL = re.compile(r"\b(my|me|i|im|am i|mine|do i|have i|was i|the patient|patient s|their|his|her)\b")
_ALL_STATUS = re.compile(
    r"\b(all|every|history|ever|had|previous\w*|past|stopped|used to|former\w*|old|resolved)\b"
)
_LATEST = re.compile(r"\b(latest|last|most recent|recent|current|newest)\b")
_PLURAL = re.compile(r"\b(results|readings|values|levels|measurements|tests)\b")
_TREND = re.compile(r"\b(trend|history|over time|all|every|since|changes?|graph|series)\b")

STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "of",
        "for",
        "to",
        "in",
        "on",
        "at",
        "with",
        "about",
        "from",
        "by",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "am",
        "do",
        "does",
        "did",
        "have",
        "has",
        "had",
        "having",
        "what",
        "which",
        "who",
        "whom",
        "when",
        "where",
        "why",
        "how",
        "many",
        "much",
        "any",
        "some",
        "my",
        "me",
        "i",
        "im",
        "mine",
        "your",
        "you",
        "our",
        "we",
        "they",
        "them",
        "their",
        "his",
        "her",
        "its",
        "it",
        "this",
        "that",
        "these",
        "those",
        "there",
        "here",
        "please",
        "tell",
        "show",
        "list",
        "give",
        "find",
        "get",
        "check",
        "see",
        "know",
        "can",
        "could",
        "would",
        "should",
        "will",
        "shall",
        "may",
        "might",
        "must",
        "still",
        "currently",
        "current",
        "now",
        "today",
        "recent",
        "recently",
        "latest",
        "last",
        "most",
        "ever",
        "all",
        "every",
        "past",
        "previous",
        "active",
        "taking",
        "take",
        "takes",
        "took",
        "on",
        "off",
        "up",
        "down",
        "out",
        "again",
        "also",
        "just",
        "only",
        "more",
        "less",
        "than",
        "then",
        "so",
        "if",
        "not",
        "no",
        "yes",
        "any",
        "anything",
        "something",
        "record",
        "records",
        "chart",
        "file",
        "patient",
        "patients",
        "s",
        "t",
    ]
)
INTENT_WORDS = frozenset(
    [
        "medication",
        "medications",
        "medicine",
        "medicines",
        "meds",
        "drug",
        "drugs",
        "prescription",
        "prescriptions",
        "prescribed",
        "pill",
        "pills",
        "tablet",
        "tablets",
        "condition",
        "conditions",
        "diagnosis",
        "diagnoses",
        "diagnosed",
        "problem",
        "problems",
        "illness",
        "illnesses",
        "disease",
        "diseases",
        "history",
        "lab",
        "labs",
        "result",
        "results",
        "test",
        "tests",
        "level",
        "levels",
        "reading",
        "readings",
        "value",
        "values",
        "vital",
        "vitals",
        "sign",
        "signs",
        "blood",
        "work",
        "bloods",
        "allergy",
        "allergies",
        "allergic",
        "intolerance",
        "intolerances",
        "visit",
        "visits",
        "encounter",
        "encounters",
        "seen",
        "vaccine",
        "vaccines",
        "vaccination",
        "vaccinations",
        "immunization",
        "immunizations",
        "shot",
        "shots",
        "jab",
        "jabs",
        "booster",
        "boosters",
        "procedure",
        "procedures",
        "surgery",
        "surgeries",
        "operation",
        "operations",
        "care",
        "plan",
        "plans",
        "note",
        "notes",
        "doctor",
        "nurse",
        "say",
        "said",
        "write",
        "wrote",
        "trend",
        "trends",
        "over",
        "time",
        "since",
        "year",
        "years",
        "month",
        "months",
        "week",
        "weeks",
        "day",
        "days",
        "ago",
        "measurement",
        "measurements",
    ]
)


# --------------------------------------------------------------------------------------------
# Plans
# --------------------------------------------------------------------------------------------


@dataclass
class Plan:
    kind: str  # read | offer_slots | book | offer_cancel | cancel | clarify | unknown
    intents: list[str] = field(default_factory=list)
    calls: list[ToolCall] = field(default_factory=list)
    message: str = ""  # for clarify
    follow_up: bool = False  # re-planned from the previous question


def _tokens(text: str) -> list[str]:
    return re.sub(r"[^a-z0-9/.\-]+", " ", text.lower().replace("'", "").replace("’", "")).split()


def _clean(text: str) -> str:
    return " ".join(_tokens(text))


# words that only point at the selected part of the record ("explain these", "is this normal?")
SCOPE_FILLER = frozenset(
    [
        "section",
        "sections",
        "summarise",
        "summarize",
        "summary",
        "overview",
        "explain",
        "explained",
        "these",
        "this",
        "them",
        "those",
        "here",
        "mean",
        "means",
        "meaning",
        "normal",
        "ok",
        "okay",
        "fine",
        "good",
        "bad",
        "high",
        "low",
        "worried",
        "worry",
        "understand",
        "doing",
        "part",
        "look",
        "looks",
        "status",
    ]
)


def scoped_wording(question: str) -> str:
    """A scoped question minus the words that only point at the scope, so they are not searched for."""
    words = [w for w in _tokens(question) if w.strip("?.!,") not in SCOPE_FILLER]
    return " ".join(words) or question


def content_words(question: str, *, keep_measures: bool = False) -> str | None:
    """What is left after question, pronoun, intent and time words: the thing asked about."""
    text = _clean(question)
    if not keep_measures:
        for measure in sorted(MEASURES, key=len, reverse=True):
            text = re.sub(rf"\b{re.escape(measure)}\b", " ", text)
    text = re.sub(r"\b(19|20)\d\d\b|\b\d{4}-\d{2}-\d{2}\b", " ", text)
    words = [w.strip(".-") for w in text.split()]
    words = [w for w in words if w and w not in STOP_WORDS and w not in INTENT_WORDS and not w.isdigit()]
    return " ".join(words) or None


# Synthea writes a patient's circumstances as one "Social History" section of short facts
# ("Patient is a college graduate. Patient currently has UnitedHealthcare."). A one-word topic
# ("education") sits far from that mixed passage in embedding space, so topic questions search
# for the section by name, with the topic words kept for the keyword leg.
_SOCIAL_TOPICS = re.compile(
    r"\b(educat\w*|school\w*|college|degree|graduat\w*|insur\w*|coverage|medicaid|medicare|smok\w*|"
    r"tobacco|cigarettes?|alcohol|drink\w*|marri\w*|marital|widow\w*|divorc\w*|single|employ\w*|job|"
    r"occupation|work(ing)?|housing|homeless\w*|income|socio.?economic|sexual\w*|orientation|"
    r"social (history|circumstances)|lives? with|living situation)\b"
)


def notes_query(question: str) -> str:
    """What to search the notes for: the asked-about words, routed to Social History for life facts."""
    words = content_words(question, keep_measures=True) or question
    if _SOCIAL_TOPICS.search(_clean(question)):
        return f"social history {words}"
    return words


def measure_in(question: str) -> str | None:
    text = _clean(question)
    for said in sorted(MEASURES, key=len, reverse=True):
        if re.search(rf"\b{re.escape(said)}\b", text):
            return MEASURES[said]
    return None


def date_window(question: str, today: dt.date) -> tuple[dt.date | None, dt.date | None]:
    text = _clean(question)
    if m := re.search(r"\b(since|after|from) ((19|20)\d\d)\b", text):
        return dt.date(int(m.group(2)), 1, 1), None
    if m := re.search(r"\b(before|until) ((19|20)\d\d)\b", text):
        return None, dt.date(int(m.group(2)) - 1, 12, 31)
    if m := re.search(r"\b(in|during) ((19|20)\d\d)\b", text):
        year = int(m.group(2))
        return dt.date(year, 1, 1), dt.date(year, 12, 31)
    if re.search(r"\blast year\b", text):
        return dt.date(today.year - 1, 1, 1), dt.date(today.year - 1, 12, 31)
    if re.search(r"\bthis year\b", text):
        return dt.date(today.year, 1, 1), today
    if m := re.search(r"\b(last|past) (\d+|two|three|five|six|ten) (years?|months?)\b", text):
        words = {"two": 2, "three": 3, "five": 5, "six": 6, "ten": 10}
        n = int(words.get(m.group(2), m.group(2)))
        days = 365 * n if m.group(3).startswith("year") else 30 * n
        return today - dt.timedelta(days=days), None
    return None, None


def slot_window(question: str, today: dt.date) -> tuple[dt.date, dt.date]:
    text = _clean(question)
    if re.search(r"\btomorrow\b", text):
        day = today + dt.timedelta(days=1)
        return day, day
    if re.search(r"\bnext week\b", text):
        start = today + dt.timedelta(days=7 - today.weekday())
        return start, start + dt.timedelta(days=6)
    if re.search(r"\bthis week\b", text):
        return today, today + dt.timedelta(days=6 - today.weekday())
    if re.search(r"\bnext month\b", text):
        return today + dt.timedelta(days=1), today + dt.timedelta(days=31)
    if m := re.search(r"\b(\d{4}-\d{2}-\d{2})\b", text):
        day = dt.date.fromisoformat(m.group(1))
        return day, day + dt.timedelta(days=6)
    return today, today + dt.timedelta(days=14)


_SPECIALIST = {
    "cardiologist": "cardiology",
    "heart doctor": "cardiology",
    "dermatologist": "dermatology",
    "skin doctor": "dermatology",
    "neurologist": "neurology",
    "endocrinologist": "endocrinology",
    "gastroenterologist": "gastroenterology",
    "pulmonologist": "pulmonology",
    "psychiatrist": "psychiatry",
    "oncologist": "oncology",
    "orthopedist": "orthopedics",
    "ophthalmologist": "ophthalmology",
    "eye doctor": "ophthalmology",
    "pediatrician": "pediatrics",
    "gynecologist": "gynecology",
    "urologist": "urology",
    "gp": "general practice",
    "family doctor": "general practice",
    "primary care": "general practice",
    "check up": "general practice",
    "check-up": "general practice",
    "checkup": "general practice",
    "physical": "general practice",
}
_SLOT_NOISE = frozenset(
    [
        "book",
        "booking",
        "schedule",
        "make",
        "arrange",
        "get",
        "need",
        "want",
        "me",
        "us",
        "an",
        "a",
        "the",
        "appointment",
        "appointments",
        "visit",
        "slot",
        "slots",
        "with",
        "for",
        "at",
        "to",
        "see",
        "in",
        "on",
        "next",
        "this",
        "week",
        "month",
        "tomorrow",
        "today",
        "please",
        "can",
        "you",
        "could",
        "i",
        "would",
        "like",
        "free",
        "available",
        "availability",
        "any",
        "opening",
        "openings",
        "time",
        "times",
        "soon",
        "asap",
        "earliest",
        "some",
        "new",
        "consultation",
    ]
)


def specialty_in(question: str) -> str:
    text = _clean(question)
    for said, specialty in sorted(_SPECIALIST.items(), key=lambda kv: -len(kv[0])):
        if re.search(rf"\b{re.escape(said)}\b", text):
            return specialty
    words = [
        w for w in text.split() if w not in _SLOT_NOISE and w not in STOP_WORDS and not re.match(r"\d", w)
    ]
    return " ".join(words[:3]) or "general practice"


def keyword_scores(question: str) -> dict[str, int]:
    text = _clean(question)
    scores = {}
    for intent in INTENTS:
        hits = sum(1 for p in intent.patterns if p.search(text))
        if hits:
            scores[intent.name] = hits
    return scores


EmbedFn = Callable[[str], Sequence[float]]


@dataclass
class EmbeddingIntents:
    """Nearest intent by cosine similarity to its example questions (the local model)."""

    embed_query: EmbedFn
    embed_passages: Callable[[list[str]], Sequence[Sequence[float]]]
    floor: float = EMBEDDING_FLOOR
    _examples: list[tuple[str, Sequence[float]]] | None = None

    def _table(self) -> list[tuple[str, Sequence[float]]]:
        if self._examples is None:
            pairs = [(i.name, e) for i in INTENTS for e in i.examples]
            vectors = self.embed_passages([e for _, e in pairs])
            self._examples = [(name, v) for (name, _), v in zip(pairs, vectors, strict=True)]
        return self._examples

    def similarities(self, question: str) -> dict[str, float]:
        q = self.embed_query(question)
        best: dict[str, float] = {}
        for name, vector in self._table():
            best[name] = max(best.get(name, -1.0), _cosine(q, vector))
        return best

    def nearest(self, question: str) -> tuple[str, float] | None:
        sims = self.similarities(question)
        name, score = max(sims.items(), key=lambda kv: kv[1])
        return (name, score) if score >= self.floor else None


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0


def embedding_intents(embedder: Any) -> EmbeddingIntents | None:
    if embedder is None:
        return None
    return EmbeddingIntents(embed_query=embedder.embed_query, embed_passages=embedder.embed_passages)


# --------------------------------------------------------------------------------------------
# The planner
# --------------------------------------------------------------------------------------------


def offered_ids(answer: str, letter: str, id_word: str) -> list[tuple[str, str]]:
    """(handle, record id) pairs from lines of an earlier offline answer that carry both."""
    pairs = []
    for line in answer.splitlines():
        handle = re.search(rf"\[({letter}\d+)\]", line)
        record = re.search(rf"\b{id_word} ([^\s;,)\[\]]+)", line)
        if handle and record:
            pairs.append((handle.group(1), record.group(1).rstrip(".")))
    return pairs


_ORDINALS = {"first": 0, "1st": 0, "second": 1, "2nd": 1, "third": 2, "3rd": 2, "fourth": 3, "fifth": 4}
_YES = re.compile(
    r"^(yes|yeah|yep|ok|okay|sure|confirm\w*|go ahead|do it|please do|book it|cancel it|that one)\b"
)


def _choose(question: str, offered: list[tuple[str, str]], letter: str) -> str | bool | None:
    """The chosen record id; None = nothing chosen; False = ambiguous (ask again)."""
    text = _clean(question)
    by_handle = dict(offered)
    if m := re.search(rf"\b({letter.lower()}\d+)\b", text):
        return by_handle.get(m.group(1).upper(), False)
    for word, index in _ORDINALS.items():
        if re.search(rf"\b{word}\b", text) and index < len(offered):
            return offered[index][1]
    if re.search(r"\b(last one|the last)\b", text) and offered:
        return offered[-1][1]
    if _YES.search(text):
        return offered[0][1] if len(offered) == 1 else False
    return None


class Planner:
    def __init__(self, available: Sequence[str], embeddings: EmbeddingIntents | None = None) -> None:
        self.available = set(available)
        self.embeddings = embeddings

    def plan(self, question: str, history: Sequence[Turn], today: dt.date) -> Plan:
        previous = history[-1] if history else None
        if previous is not None:
            follow = self._confirmation(question, previous) or self._named_earlier_slot(question, history)
            if follow is not None:
                return follow
        scores = keyword_scores(question)
        if asks_to_cancel(question) and "list_appointments" in self.available:
            return self._cancel_offer(question)
        intents = self._choose_intents(question, scores)
        if not intents and self.embeddings is not None:
            nearest = self.embeddings.nearest(question)
            if nearest is not None:
                intents = [nearest[0]]
        if not intents and previous is not None:
            prior = self._choose_intents(previous.question, keyword_scores(previous.question))
            if prior == ["find_slots"]:
                return self._slot_offer(f"{previous.question} {question}", today)
            if prior:
                plan = self._read_plan(prior, f"{previous.question} {question}", today, modifiers=question)
                plan.follow_up = True
                return plan
        if not intents:
            return Plan("unknown")
        if "find_slots" in intents:
            return self._slot_offer(question, today)
        return self._read_plan(intents, question, today)

    def plan_section(self, section: str, question: str, today: dt.date, allowed: frozenset[str]) -> Plan:
        """A section-scoped question: no intent detection, the section's lookup with the
        question's modifiers (a measure, a drug name, a date window, "all")."""
        intent = INTENT_BY_NAME.get(section)
        if intent is None or intent.tool not in allowed:
            label = SECTION_LABELS.get(section, section)
            return Plan("clarify", message=f"the {label} section cannot be searched in this build.")
        return self._read_plan([section], scoped_wording(question), today)

    # -- intent choice -------------------------------------------------------------------
    def _choose_intents(self, question: str, scores: dict[str, int]) -> list[str]:
        scores = {k: v for k, v in scores.items() if INTENT_BY_NAME[k].tool in self.available}
        if not scores:
            return []
        personal = bool(_PERSONAL.search(_clean(question)))
        record = {k: v for k, v in scores.items() if INTENT_BY_NAME[k].record}
        if "leaflets" in scores and (not personal or not record or _GENERAL_INFO.search(_clean(question))):
            return ["leaflets"]
        if "find_slots" in record and (
            "appointments" not in record or re.search(r"\bbook\b", _clean(question))
        ):
            return ["find_slots"]
        record.pop("find_slots", None)
        if "appointments" in record:
            return ["appointments"]
        if "notes" in record:
            return ["notes"]
        ranked = sorted(record.items(), key=lambda kv: -kv[1])
        if len(ranked) > MAX_INTENTS and self.embeddings is not None:  # tie-break by meaning
            sims = self.embeddings.similarities(question)
            ranked.sort(key=lambda kv: (-kv[1], -sims.get(kv[0], 0.0)))
        # a stray measure word ("sugar") should not add labs to "what meds for my sugar"
        top = ranked[0][1]
        return [name for name, score in ranked[:MAX_INTENTS] if score >= max(1, top - 1)]

    # -- read plans ----------------------------------------------------------------------
    def _read_plan(
        self, intents: list[str], question: str, today: dt.date, modifiers: str | None = None
    ) -> Plan:
        wording = modifiers or question
        since, until = date_window(wording, today)
        text = _clean(question)
        calls = []
        query = content_words(question)
        for n, name in enumerate(intents, start=1):
            intent = INTENT_BY_NAME[name]
            args: dict[str, Any] = {}
            if name == "conditions" or name == "medications":
                args["status"] = "all" if _ALL_STATUS.search(text) or since or until else "active"
                if query and len(intents) == 1:
                    args["query"] = query
            elif name == "labs":
                measure = measure_in(question)
                if measure:
                    args["query"] = measure
                elif query and len(intents) == 1:
                    args["query"] = query
                # "what is my A1C" → the latest; "my A1C results since 2020" / "trend" → all of them
                newest = _LATEST.search(text)
                many = (
                    _TREND.search(_clean(wording)) or since or until or (_PLURAL.search(text) and not newest)
                )
                args["latest_only"] = not many
                if since:
                    args["since"] = since.isoformat()
                if until:
                    args["until"] = until.isoformat()
            elif name in ("encounters", "notes"):
                if since:
                    args["since"] = since.isoformat()
                if until:
                    args["until"] = until.isoformat()
                if name == "notes":
                    args["query"] = notes_query(question)
                elif query and len(intents) == 1:
                    args["query"] = query
            elif name == "leaflets":
                args["query"] = question
            calls.append(ToolCall(f"offline_{n}", intent.tool, args))
        return Plan("read", intents=intents, calls=calls)

    # -- appointments --------------------------------------------------------------------
    def _slot_offer(self, question: str, today: dt.date) -> Plan:
        start, end = slot_window(question, today)
        args = {
            "specialty_or_department": specialty_in(question),
            "from_date": start.isoformat(),
            "to_date": end.isoformat(),
        }
        return Plan("offer_slots", intents=["find_slots"], calls=[ToolCall("offline_1", "find_slots", args)])

    def _cancel_offer(self, question: str) -> Plan:
        return Plan(
            "offer_cancel", intents=["appointments"], calls=[ToolCall("offline_1", "list_appointments", {})]
        )

    def _named_earlier_slot(self, question: str, history: Sequence[Turn]) -> Plan | None:
        """'Book … (slot_id X)' for a slot offered before the last turn (the page's confirmation
        names the slot it shows, even after another question). Only an explicit slot_id counts
        here: "yes" or "the first one" refer to the last answer alone."""
        if "book_appointment" not in self.available or not re.search(r"\bbook\b", question.lower()):
            return None
        named = re.search(r"\bslot_id ([^\s;,)\[\]]+)", question)
        if named is None:
            return None
        slot_id = named.group(1).rstrip(".")
        for turn in reversed(history):
            if any(record == slot_id for _, record in offered_ids(turn.answer, "S", "slot_id")):
                call = ToolCall("offline_1", "book_appointment", {"slot_id": slot_id, "reason": None})
                return Plan("book", intents=["book"], calls=[call])
        return None

    def _confirmation(self, question: str, previous: Turn) -> Plan | None:
        offered = offered_ids(previous.answer, "S", "slot_id")
        if offered and "book_appointment" in self.available:
            chosen = _choose(question, offered, "S")
            if chosen is False:
                return Plan(
                    "clarify", message="Which slot would you like? Reply with its handle, e.g. 'book S1'."
                )
            if chosen:
                reason = None
                call = ToolCall("offline_1", "book_appointment", {"slot_id": chosen, "reason": reason})
                return Plan("book", intents=["book"], calls=[call])
        listed = offered_ids(previous.answer, "B", "appointment_id")
        if (
            listed
            and "cancel_appointment" in self.available
            and "cancel" in previous.question.lower() + question.lower()
        ):
            chosen = _choose(question, listed, "B")
            if chosen is False:
                return Plan("clarify", message="Which appointment should I cancel? Reply e.g. 'cancel B1'.")
            if chosen:
                return Plan(
                    "cancel",
                    intents=["cancel"],
                    calls=[ToolCall("offline_1", "cancel_appointment", {"appointment_id": chosen})],
                )
        return None


# --------------------------------------------------------------------------------------------
# Answers
# --------------------------------------------------------------------------------------------

_CITED_LINE = re.compile(r"^\[([A-Z]{1,2}\d+)\]\s*(.*)$")
# sentences a tool addresses to the model ("Ask the user … before calling book_appointment")
_FOR_THE_MODEL = re.compile(r"\b(the user|(get|find|book|list|cancel|search)_[a-z_]+)\b")


def for_people(text: str) -> str:
    """Drop the sentences of a tool's explanation that are instructions to the model."""
    sentences = re.split(r"(?<=[.!?])\s+", text.strip())
    return " ".join(s for s in sentences if not _FOR_THE_MODEL.search(s))


# "… 242 more not shown; choose a later from_date to see them.": the hint names a tool argument
_MORE_NOT_SHOWN = re.compile(r"^… (\d+) more not shown; .*$")
MORE_FOR_PEOPLE = "… {n} more not shown (ask a narrower question, or about a later date, to see them)."


def render_result(text: str) -> str:
    """A tool's cited text as an answer block: "[M1] line" → "- line [M1]"."""
    out = []
    for line in text.strip().splitlines():
        m = _CITED_LINE.match(line.strip())
        if m:
            out.append(f"- {m.group(2)} [{m.group(1)}]")
        elif more := _MORE_NOT_SHOWN.match(line.strip()):
            out.append(MORE_FOR_PEOPLE.format(n=more.group(1)))
        elif not _FOR_THE_MODEL.search(line):
            out.append(line.strip())
    return "\n".join(out)


def uncited_lines(outcomes: Sequence[ToolOutcome]) -> set[str]:
    """A tool's own headers and notes (query windows, counts): copied (or reworded for
    people, as render_result does), not claims."""
    lines = {
        line.strip()
        for o in outcomes
        for line in o.result.text.splitlines()
        if line.strip() and not _CITED_LINE.match(line.strip())
    }
    return lines | {
        MORE_FOR_PEOPLE.format(n=m.group(1)) for line in lines if (m := _MORE_NOT_SHOWN.match(line))
    }


def compose(plan: Plan, outcomes: Sequence[ToolOutcome], role: str) -> str:
    if plan.kind == "unknown":
        return UNKNOWN_REPLY
    if plan.kind == "clarify":
        return f"Offline mode: {plan.message}"
    blocks = [OFFLINE_BANNER]
    for outcome in outcomes:
        result = outcome.result
        if not result.ok:
            blocks.append(f"That lookup did not work: {for_people(result.text) or 'please try again.'}")
            continue
        blocks.append(render_result(result.text))
    if plan.kind == "offer_slots" and any(o.result.ok and o.result.citations for o in outcomes):
        first = next(c.handle for o in outcomes for c in o.result.citations)
        blocks.append(f"Nothing is booked yet. Reply 'book {first}' (or another slot's handle) to book it.")
    if plan.kind == "offer_cancel" and any(o.result.ok and o.result.citations for o in outcomes):
        first = next(c.handle for o in outcomes for c in o.result.citations)
        blocks.append(
            f"Nothing is cancelled yet. Reply 'cancel {first}' (or another appointment's handle) to cancel it."
        )
    if plan.follow_up:
        blocks.insert(1, "(Following up on your previous question.)")
    return "\n\n".join(b for b in blocks if b)


# --------------------------------------------------------------------------------------------
# The agent
# --------------------------------------------------------------------------------------------


class OfflineAgent:
    mode = "offline"

    def __init__(self, registry: Registry, db: Database, *, embedder: Any = None) -> None:
        self.registry = registry
        self.db = db
        self.embedder = embedder
        self.planner = Planner(registry.names(), embedding_intents(embedder))
        # what the executor runs: the planner's tools plus the scoped-record lookup
        self.run_registry = with_internal_tools(registry)

    async def run(self, request: AgentRequest) -> AsyncIterator[Event]:
        clock = RunClock()
        try:
            async for event in self._run(request, clock):
                yield event
        except Exception:
            import logging

            logging.getLogger(__name__).exception("offline planner failed")
            yield ErrorEvent(
                kind="internal", message="Something went wrong while answering. Please try again."
            )

    async def _batch(
        self, executor: ToolExecutor, calls: list[ToolCall], *, internal: bool = False
    ) -> AsyncIterator[Event | list[ToolOutcome]]:
        """Call events, the run, result events; the outcomes come last (not an event)."""
        for call in calls:
            yield call_event(call)
        outcomes = await executor.run(calls, internal=internal)
        for outcome in outcomes:
            yield result_event(outcome)
        yield outcomes

    async def _run(self, request: AgentRequest, clock: RunClock) -> AsyncIterator[Event]:
        today = (request.now or dt.datetime.now(dt.UTC)).date()
        use = scope_use(request.ask_scope, self.registry)
        book = HandleBook()
        ctx = ToolContext(
            scope=request.scope, db=self.db, handles=book, embedder=self.embedder, now=request.now
        )
        previous = [t.question for t in request.history]
        executor = ToolExecutor(
            self.run_registry,
            ctx,
            write_allowed=write_intent(request.question, previous),
            only=use.tools if use else None,
            internal=INTERNAL_TOOLS,
        )
        background = Background(self.registry)
        outcomes: list[ToolOutcome] = []
        record: ToolOutcome | None = None
        if use is not None and use.scope.record_kind:
            plan = Plan("record", intents=[f"record:{use.scope.record_kind}"])
            yield StatusEvent(text="Opening the record you chose (offline mode)…")
            async for item in self._batch(executor, [use.scope.record_call()], internal=True):
                if isinstance(item, list):
                    (record,) = item
                else:
                    yield item
            assert record is not None
            if record.result.ok:
                cited = record.result.citations[0]
                use = ScopeUse(use.scope, use.tools, label=cited.label, handle=cited.handle)
                plan.calls = explain_calls(use, record)
        else:
            if use is not None and use.scope.section:
                plan = self.planner.plan_section(use.scope.section, request.question, today, use.tools)
            else:
                plan = self.planner.plan(request.question, request.history, today)
        if plan.calls:
            yield status_event(self.registry, plan.calls, request.scope.role)
            async for item in self._batch(executor, plan.calls):
                if isinstance(item, list):
                    outcomes = item
                else:
                    yield item
        if use is not None and use.scope.section and (broader := broaden(outcomes, self.registry)):
            # a section-scoped question whose words matched nothing: show the whole section
            async for item in self._batch(executor, broader):
                if isinstance(item, list):
                    outcomes = [*outcomes, *item]
                else:
                    yield item
        extra: list[ToolOutcome] = []
        calls = background.calls_after([*([record] if record else []), *outcomes], executor.outcomes)
        if calls:
            yield StatusEvent(text="Adding background from the record (context, not the answer)…")
            async for item in self._batch(executor, calls, internal=True):
                if isinstance(item, list):
                    extra = item
                else:
                    yield item

        if record is not None and not record.result.ok:
            answer = f"Offline mode: I can't answer that: {record.result.text} Nothing else was looked up."
        elif record is not None:
            answer = compose_record(use, record, outcomes, request.scope.role)  # type: ignore[arg-type]
        else:
            answer = compose(plan, outcomes, request.scope.role)
        scope_line = use.answer_line() if use is not None and (record is None or record.result.ok) else ""
        if scope_line and answer.startswith(OFFLINE_BANNER):
            answer = answer.replace(OFFLINE_BANNER, f"{OFFLINE_BANNER}\n\n{scope_line}", 1)
        elif scope_line:
            answer = f"{scope_line}\n\n{answer}"
        if extra:
            answer += "\n\n" + background_block(extra)
        report, marked = check_grounding(
            answer,
            book,
            executor.totals,
            rows=row_texts(executor.tool_texts),
            trusted_lines=[*uncited_lines(executor.outcomes), scope_line, *BLOCK_HEADINGS],
        )
        clock.text_started()
        yield TextEvent(delta=marked)
        cited_handles = list(report.cited_handles)
        if use is not None and use.handle and use.handle not in cited_handles:
            cited_handles.append(use.handle)
        for event in citation_events(c for h in cited_handles if (c := book.get(h)) is not None):
            yield event
        summary = use.summary() if use is not None else None
        abstained, searched = abstention(plan, [record] if record is not None else outcomes)
        yield DoneEvent(
            answer=marked,
            mode="offline",
            grounding=report,
            scope=summary,
            abstained=abstained,
            searched=searched,
            metrics=answer_metrics(
                clock,
                outcomes=executor.outcomes,
                tool_ms=executor.wall_ms,
                scope=summary,
                background=background.labels,
                plan=plan.kind,
                intents=plan.intents,
                write_intent=sorted(executor.write_allowed),
                role=request.scope.role,
            ),
        )


def abstention(plan: Plan, outcomes: Sequence[ToolOutcome]) -> tuple[bool, list[Searched]]:
    """Whether this answer abstains, and what was looked at (the `done` event's marker).

    The planner abstains when it could not read the question (unknown, or a clarifying
    question back), and when every lookup it made for the answer found nothing or failed.
    Background lookups are not the answer and do not count.
    """
    searched = [
        Searched(tool=o.call.name, input=dict(o.call.input), rows=o.result.total, ok=o.result.ok)
        for o in outcomes
    ]
    if plan.kind in ("unknown", "clarify") or not outcomes:
        return True, searched
    answered = any(o.result.ok and (o.result.total > 0 or o.result.citations) for o in outcomes)
    return not answered, searched


# --------------------------------------------------------------------------------------------
# Record-scoped and background answers
# --------------------------------------------------------------------------------------------

SAME_TEST_HEADING = "Other results of the same test, newest first:"
BLOCK_HEADINGS = (SAME_TEST_HEADING, f"{BACKGROUND_HEADING}:")
SAME_TEST_LIMIT = 10


def broaden(outcomes: Sequence[ToolOutcome], registry: Registry) -> list[ToolCall]:
    """The same lookups without their query words, for those that found nothing with them
    (only where the query is optional: a search without words is no search)."""

    def optional_query(name: str) -> bool:
        tool = registry.get(name)
        field = tool.input_model.model_fields.get("query") if tool else None
        return field is not None and not field.is_required()

    return [
        ToolCall(f"{o.call.id}_all", o.call.name, {k: v for k, v in o.call.input.items() if k != "query"})
        for o in outcomes
        if o.result.ok and o.result.total == 0 and o.call.input.get("query") and optional_query(o.call.name)
    ]


def explain_calls(use: ScopeUse, record: ToolOutcome) -> list[ToolCall]:
    """What the planner adds to explain one record: a result's history of the same test."""
    if use.scope.record_kind != "observation" or "get_labs" not in use.tools:
        return []
    code = next((row.get("code") for row in record.result.rows if row.get("code")), None)
    if not code:
        return []
    args = {"query": code, "latest_only": False, "limit": SAME_TEST_LIMIT}
    return [ToolCall("offline_1", "get_labs", args)]


def compose_record(use: ScopeUse, record: ToolOutcome, outcomes: Sequence[ToolOutcome], role: str) -> str:
    word = KIND_WORDS.get(use.scope.record_kind or "", "record")
    blocks = [
        OFFLINE_BANNER,
        f"The {word} you asked about:\n" + render_result(record.result.text).split("\n", 1)[-1],
    ]
    if use.scope.record_kind == "observation" and record.result.rows:
        blocks.append(reference_sentence(record.result.rows[0], use.handle or "", role))
    for outcome in outcomes:
        if not outcome.result.ok:
            blocks.append(
                f"That lookup did not work: {for_people(outcome.result.text) or 'please try again.'}"
            )
            continue
        others = [c for c in outcome.result.citations if c.handle != use.handle]
        if outcome.call.name == "get_labs" and others:
            lines = [
                line
                for line in render_result(outcome.result.text).splitlines()
                if line.startswith("- ") and f"[{use.handle}]" not in line
            ]
            blocks.append(SAME_TEST_HEADING + "\n" + "\n".join(lines))
    return "\n\n".join(b for b in blocks if b)


def reference_sentence(row: dict[str, Any], handle: str, role: str) -> str:
    """Where a result sits against the reference range recorded WITH it (the lab's own range,
    not a judgement): above, below or within; nothing when the record gives no range."""
    value, low, high = row.get("value"), row.get("ref_low"), row.get("ref_high")
    if not isinstance(value, int | float) or (low is None and high is None):
        return ""
    shown = f"{fmt_num(value)} {row.get('unit') or ''}".strip()
    if high is not None and value > high:
        where = f"above the upper reference limit of {fmt_num(high)}"
    elif low is not None and value < low:
        where = f"below the lower reference limit of {fmt_num(low)}"
    else:
        where = "within the reference range"
    sentence = f"{shown} is {where} recorded with this result [{handle}]."
    if role == "patient":
        sentence += " What that means for you is a question for your care team."
    return sentence


def background_block(outcomes: Sequence[ToolOutcome]) -> str:
    """Background lookups under their own heading, apart from the answer."""
    parts = [f"{BACKGROUND_HEADING}:"]
    for outcome in outcomes:
        if outcome.result.ok:
            parts.append(render_result(outcome.result.text))
    return "\n".join(parts)
