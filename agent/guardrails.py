"""The deterministic layer that runs before any model call (DESIGN invariant 3).

Two checks, both pure functions of the question (and the asker's role):

* **Emergencies** — chest pain, can't breathe, overdose, suicidal thoughts, stroke signs and a
  few other acute situations — get one constant reply and never reach a model: a model's
  answer could be slow, wrong or talk the person out of calling for help. Matching is
  token-based with typo tolerance (one edit for words of 4+ letters, two for 8+; the
  first letter must match), so
  "cant breath", "chest pian" and "sucidal" are caught. A question that is clearly about the
  *record* ("when was my stroke diagnosed?", "history of chest pain?") is not an emergency,
  except that suicidal wording from a patient always gets the crisis reply.
* **Clinical advice** (patients only) — dosing, starting/stopping/changing a medicine, "is
  this dangerous?", "should I go to the ER?" — gets a scripted sentence pointing to their
  clinician. Clinicians asking chart questions pass through.

Both err on the side of the scripted reply: a false alarm costs a rephrase; a miss can cost
much more.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from rapidfuzz.distance import OSA

EMERGENCY_REPLY = (
    "This sounds like it could be an emergency. If it is happening now, call 911 (or your local "
    "emergency number) or go to the nearest emergency department straight away. If you are "
    "thinking about suicide or harming yourself, call or text 988 (Suicide & Crisis Lifeline) now. "
    "I am a records assistant and cannot help in an emergency."
)

CLINICAL_ADVICE_REPLY = (
    "I can read your record with you, but I can't give medical advice — such as doses, starting "
    "or stopping a medicine, or whether something is dangerous. Please ask your clinician or "
    "pharmacist; if it feels urgent, contact your care team or call 911."
)

Role = Literal["patient", "clinician", "evaluator"]


@dataclass(frozen=True)
class Verdict:
    kind: Literal["emergency", "clinical_advice", "other_patient"]
    category: (
        str  # chest_pain, breathing, overdose, suicide, stroke, ..., dosing, stop_start, danger, urgency
    )
    reply: str


# --------------------------------------------------------------------------------------------
# Normalisation and fuzzy phrase matching
# --------------------------------------------------------------------------------------------

_APOSTROPHES = str.maketrans({"’": "", "'": "", "`": "", "‘": ""})


def normalise(text: str) -> str:
    """Lower case, apostrophes dropped ("can't" → "cant"), everything else non-alphanumeric → space."""
    lowered = text.lower().translate(_APOSTROPHES)
    return " ".join(re.sub(r"[^a-z0-9/&]+", " ", lowered).split())


def tokens(text: str) -> list[str]:
    return normalise(text).split()


def _allowed_edits(word: str) -> int:
    if len(word) >= 8:
        return 2
    if len(word) >= 4:
        return 1
    return 0


@lru_cache(maxsize=4096)
def word_matches(token: str, word: str) -> bool:
    """Equal, or within the typo budget of `word` (OSA distance counts a swap as one edit)."""
    if token == word:
        return True
    budget = _allowed_edits(word)
    if budget == 0 or abs(len(token) - len(word)) > budget or token[:1] != word[:1]:
        return False
    return OSA.distance(token, word, score_cutoff=budget) <= budget


Slot = tuple[str, ...]  # alternatives for one position


@dataclass(frozen=True)
class Phrase:
    slots: tuple[Slot, ...]
    max_gap: int = 2  # words allowed between consecutive slots ("pain in my chest")

    @classmethod
    def of(cls, spec: str, max_gap: int = 2) -> Phrase:
        """'chest pain|pains|hurts' → slots (chest), (pain, pains, hurts)."""
        return cls(tuple(tuple(alt.split("|")) for alt in spec.split()), max_gap)

    def find(self, toks: list[str]) -> bool:
        def slot_hit(slot: Slot, token: str) -> bool:
            return any(word_matches(token, alt) for alt in slot)

        def match_from(slot_index: int, start: int) -> bool:
            if slot_index == len(self.slots):
                return True
            window = (
                range(start, min(len(toks), start + self.max_gap + 1)) if slot_index else range(len(toks))
            )
            return any(
                slot_hit(self.slots[slot_index], toks[i]) and match_from(slot_index + 1, i + 1)
                for i in window
            )

        return match_from(0, 0)


def _phrases(*specs: str, max_gap: int = 2) -> tuple[Phrase, ...]:
    return tuple(Phrase.of(spec, max_gap) for spec in specs)


# --------------------------------------------------------------------------------------------
# Emergencies
# --------------------------------------------------------------------------------------------

PAIN_WORDS = "pain|pains|painful|hurts|hurting|ache|aching|tight|tightness|pressure|crushing|squeezing"


@dataclass(frozen=True)
class EmergencySign:
    category: str
    phrase: Phrase
    # the words also name a diagnosis or history item ("stroke", "chest pain"), so a question
    # that is clearly about the record is not an emergency; acute verb phrases never are exempt
    record_word: bool = True


def _signs(category: str, *specs: str, record_word: bool = True, max_gap: int = 2) -> list[EmergencySign]:
    return [EmergencySign(category, Phrase.of(spec, max_gap), record_word) for spec in specs]


EMERGENCY_SIGNS: tuple[EmergencySign, ...] = (
    *_signs("chest_pain", f"chest {PAIN_WORDS}", f"{PAIN_WORDS} chest", "heart attack"),
    *_signs("chest_pain", "pain|pressure|tightness chest", max_gap=3),
    *_signs(
        "breathing",
        "cant|cannot|unable|struggling|hard|difficult|difficulty|trouble|barely breathe|breath|breathing|breth|breathin",
        "not|stopped breathing",
        "choking",
        "gasping",
        "throat closing|swelling|swollen|tight",
        "lips|tongue|face swelling|swollen",
        "anaphylaxis|anaphylactic",
    ),
    *_signs("overdose", "overdose|overdosed|overdosing", "over dose|dosed", "poisoned|poisoning"),
    *_signs(
        "overdose",
        "took|taken|swallowed|ate too many|much",
        "took|taken|swallowed whole|entire bottle|pack|packet",
        "took|taken|swallowed bottle|handful",
        record_word=False,
    ),
    *_signs("suicide", "suicidal|suicide", "self harm|harming|injury"),
    *_signs(
        "suicide",
        "kill|killing myself",
        "end|ending my life",
        "take|taking my own life",
        "end it all",
        "want|wanna|going to die",
        "want|wanna|going to hurt|harm|cut myself",
        "harm|harming|cutting myself",
        "better off dead",
        "no reason to live",
        record_word=False,
    ),
    *_signs(
        "stroke",
        "stroke",
        "face drooping|droopy|droops|drooped|droop|numb|numbness",
        "slurred|slurring speech|words|talking",
        "speech slurred",
        "arm|leg|side weak|weakness|numb|numbness|paralysed|paralyzed",
        "cant|cannot move arm|leg|side",
    ),
    *_signs("stroke", "one side numb|weak|paralysed|paralyzed", max_gap=4),
    *_signs("unconscious", "unconscious|unresponsive|collapsed", "passed out", "wont wake"),
    *_signs("bleeding", "severe|heavy|uncontrolled bleeding", "bleeding wont|doesnt|not stop|stopping"),
    *_signs("seizure", "seizure|seizures|seizing|convulsing|convulsions|fitting"),
)

_RECORD_CUES = re.compile(
    r"\b(history|hx|h/o|diagnos\w*|record\w*|chart|notes?|documented|listed|ever|previous\w*|prior|past|"
    r"last (year|month|week|time|visit)|in (19|20)\d\d|since (19|20)\d\d|when (was|did|were)|"
    r"was i|did i|have i (had|been)|what (caused|was)|why was i|treated for|seen for|admitted for|"
    r"medications?|medicines?|meds|prescriptions?|appointments?|leaflets?|labs?|test results?|follow.?up)\b"
)
_ACUTE_CUES = re.compile(
    r"\b(now|right now|currently|at the moment|today|tonight|this (morning|evening|afternoon)|"
    r"suddenly|just (started|now|happened)|started|im having|i am having|having|getting worse|help)\b"
)


def emergency_category(question: str, role: Role = "patient") -> str | None:
    """The emergency category the question's wording signals, or None.

    A sign whose words also name a record item is skipped when the question is about the
    record (a record cue and no acute cue). For clinicians every sign may be skipped that way
    ("history of suicidal ideation?" is a chart question); for patients, suicidal wording and
    acute verb phrases ("took too many") never are.
    """
    toks = tokens(question)
    text = " ".join(toks)
    about_record = bool(_RECORD_CUES.search(text)) and not _ACUTE_CUES.search(text)
    for sign in EMERGENCY_SIGNS:
        if not sign.phrase.find(toks):
            continue
        exemptable = role != "patient" or (sign.record_word and sign.category != "suicide")
        if about_record and exemptable:
            continue
        return sign.category
    return None


# --------------------------------------------------------------------------------------------
# Clinical advice (patients)
# --------------------------------------------------------------------------------------------

_MED = r"(medicine|medication|meds|pills?|tablets?|dose|dosage|drug|prescription|inhaler|insulin|[a-z]+(pril|olol|statin|formin|sartan|pine|zole|cillin|mycin|done|pam|lam|ide))"

CLINICAL_ADVICE_PATTERNS: dict[str, tuple[re.Pattern[str], ...]] = {
    "dosing": (
        re.compile(r"\bhow (much|many)\b.*\b(should|can|do|must) i (take|use|give|have)\b"),
        re.compile(r"\b(what|which|right|correct|safe|max(imum)?) (dose|dosage|amount)\b"),
        re.compile(r"\b(dose|dosage) (should|do|can) i\b"),
        re.compile(
            r"\b(increase|decrease|raise|lower|double|halve|skip|split|adjust|change) (my|the|a|this|that) (dose|dosage)\b"
        ),
        re.compile(r"\bcan i (take|have|use) (more|extra|another|an extra|two|2|double|a double)\b"),
        re.compile(r"\b(missed|forgot|skipped) (a|my|the) (dose|pill|tablet)\b"),
    ),
    "stop_start": (
        re.compile(
            r"\b(should|can|could|must) i (stop|quit|start|begin|keep|continue|switch|change|come off|go off|get off|cut down|take)\b"
        ),
        re.compile(
            r"\b(is it|its|would it be) (ok|okay|safe|fine|alright|all right) (to|if i) (stop|quit|start|take|skip|mix|combine|drink|switch)\b"
        ),
        re.compile(r"\b(stop|stopping|quit|quitting) (taking )?(my|the|this|that) " + _MED),
        re.compile(r"\bcan i (mix|combine|drink alcohol|drink)\b"),
        re.compile(r"\b(take|taking) .* (with|and) (alcohol|ibuprofen|aspirin|grapefruit)\b"),
    ),
    "danger": (
        re.compile(
            r"\b(is|are|was) (this|that|it|these|my [a-z0-9 ]{1,30}?) (dangerous|serious|harmful|life threatening|deadly|fatal|risky|worrying|concerning|an emergency)\b"
        ),
        re.compile(r"\bshould i (be )?(worr(y|ied)|concerned|scared|afraid)\b"),
        re.compile(r"\b(am i|will i) (in danger|going to die|dying|ok|okay|be ok|be okay)\b"),
        re.compile(r"\bwhat should i do\b"),
        re.compile(r"\bdo i need (treatment|surgery|to be treated)\b"),
    ),
    "urgency": (
        re.compile(
            r"\bshould i (go|get|head) (to )?(the |an |a )?(er|ed|emergency|hospital|a&e|urgent care|walk in)\b"
        ),
        re.compile(
            r"\b(do|should) i (need to )?(see|call|visit) (a|my|the) (doctor|gp|nurse|clinician|physician|911|ambulance)\b"
        ),
        re.compile(r"\bshould i call (911|999|112|an ambulance|my doctor)\b"),
        re.compile(r"\bdo i need (to go to )?(the )?(er|ed|emergency|hospital|a doctor|an ambulance)\b"),
    ),
}


def clinical_advice_category(question: str) -> str | None:
    text = normalise(question)
    for category, patterns in CLINICAL_ADVICE_PATTERNS.items():
        if any(p.search(text) for p in patterns):
            return category
    return None


# --------------------------------------------------------------------------------------------
# The screen
# --------------------------------------------------------------------------------------------


def screen(question: str, role: Role) -> Verdict | None:
    """A scripted verdict when the question must not reach a model; None when it may."""
    category = emergency_category(question, role)
    if category is not None:
        return Verdict("emergency", category, EMERGENCY_REPLY)
    if role == "patient":
        advice = clinical_advice_category(question)
        if advice is not None:
            return Verdict("clinical_advice", advice, CLINICAL_ADVICE_REPLY)
    return None
