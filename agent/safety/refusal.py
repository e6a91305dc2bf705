"""Helpful refusals: a patient's advice request gets the facts the record holds, then whom to ask.

The facts come from the tool registry (the same patient-scoped, audited, cited tools the
agents use), never from SQL written here: a lab named in the question → `get_labs` (latest
value, date, reference range, citation handle); a medicine → `get_medications`. The sentence
about advice is constant; the reply is never blank, and no model writes any of it.

Which medicine: a drug-name suffix list cannot know every name ("should I stop the
doxycycline early" named nothing it knew, so the refusal said it found nothing while the
record held doxycycline, active), nor a typo ("lisionpril"). So the refusal first reads the patient's *active* medications (`get_medications`, all of them) and
keeps those the question names (`mentioned_medicines`: a word of the prescription's name, a
brand of its ingredient, or a one-edit typo of either), then asks the tool for just those.
With no medicine named, the whole active list is shown when the question is about "my
medicines"; otherwise nothing. A follow-up without a name of its own ("is that bad?") is read
with the previous question of the conversation, so the fact it follows up is shown again.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from rapidfuzz.distance import OSA

from agent.intent import MEASURES
from agent.offline.direct import lab_compare_day
from agent.safety.text import normalise
from tools.lexicon import load_lexicon

ADVICE_LEAD = (
    "I can read your record with you, but I can't give medical advice — such as doses, starting, "
    "skipping or stopping a medicine, or whether a result or symptom is dangerous."
)
ASK_WHOM = (
    "Please ask your clinician or pharmacist what this means for you; if it feels urgent, contact "
    "your care team or call 911."
)
# said when no fact is shown: never a claim about what the record lacks (round thirteen: "Is essential
# hypertension in my diagnoses?", refused as advice, answered "I found nothing in your record about
# this" to a patient whose record lists it — the refusal only looks up results and medicines)
NOTHING_FOUND = (
    "Nothing from your record is shown with this reply. You can ask me what your record holds — for "
    'example "what are my current conditions?" or "what medicines am I on?".'
)

# words the planner's stated-value map (`agent.intent.MEASURES`) lacks → the labs tool's query
EXTRA_MEASURES = {
    "haemoglobin": "hemoglobin",
    "hgb": "hemoglobin",
    "tsh": "tsh",
    "psa": "psa",
    "platelets": "platelets",
    "ferritin": "ferritin",
    "sodium": "sodium",
    "hemoglobina": "hemoglobin",
    "glucosa": "glucose",
    "azucar": "glucose",
    "colesterol": "cholesterol",
    "presion": "BP",
    "potasio": "potassium",
}


def _lexicon_lab_words() -> dict[str, str]:
    """Every way the lexicon says a lab (`tools/lexicon/synonyms.yaml`: "kidney function" →
    eGFR, "blood sugar" → glucose), so the refusal's factual part reads the question as the
    planner does (lead, round six: "is my kidney function ok" showed "I found nothing in your
    record" to a patient whose record holds eGFR and creatinine results)."""
    words: dict[str, str] = {}
    for term in load_lexicon().terms:
        if term.section == "labs":
            for said in term.said:
                if re.fullmatch(r"[a-z0-9 /-]{3,}", said):
                    words.setdefault(normalise(said), term.query)
    return words


_MEASURE_WORDS = {**_lexicon_lab_words(), **MEASURES, **EXTRA_MEASURES}
_MEASURE_RE = re.compile(
    r"\b(" + "|".join(sorted(map(re.escape, _MEASURE_WORDS), key=len, reverse=True)) + r")\b"
)
MEDICINE_WORDS = re.compile(
    r"\b(?:medicines?|medications?|meds|pills?|tablets?|dose|dosage|insulin|inhaler|statin|"
    r"blood thinner|water pill|antidepressants?|medicinas?|pastillas|medicamentos?|\w+(?:formin|pril|olol|statin|sartan|pine|zole|farin|xaban))\b"
)

ALLERGY_WORDS = re.compile(r"\b(?:allerg\w*|alerg\w*|intoleran\w*|anaphyla\w*|reactions? to|react to)\b")

# words of a prescription's display that name no drug ("24 HR Metformin hydrochloride 500 MG
# Extended Release Oral Tablet"): never matched against the question
_FORMS = """hr mg ml mcg unt meq actuat extended release oral tablet tablets capsule capsules
    delayed chewable injection injectable solution suspension prefilled syringe auto injector
    pen topical cream ointment patch transdermal inhalant inhaler metered dose powder spray
    nasal ophthalmic otic drops dry vaginal rectal suppository film coated disintegrating
    product kit pack day week daily only system plus with and the for per hour"""
FORM_WORDS = frozenset(_FORMS.split())
# salts name the drug only when nothing else does ("Potassium Chloride 20 MEQ"), never when a
# real name is there ("losartan potassium")
_SALTS = """hydrochloride sodium potassium calcium magnesium sulfate succinate tartrate maleate
    besylate acetate citrate phosphate bromide chloride hydrate monohydrate dihydrate mesylate
    fumarate hyclate propionate furoate"""
SALT_WORDS = frozenset(_SALTS.split())
MIN_NAME = 4  # shorter words of a display ("ER", "HCl") are never a medicine's name


@dataclass(frozen=True)
class FactCall:
    tool: str
    args: dict[str, Any] = field(default_factory=dict)
    # a read of every active medication to learn which of them the question names
    # (`mentioned_medicines`); shown only when the question asks about "my medicines"
    probe: bool = False
    show: bool = True
    # shown even when the tool finds nothing: a medicine the question names that is not active, looked
    # up over every prescription, so "no metformin in your record (active and past)" is a searched claim
    report_empty: bool = False


def fact_calls(
    question: str, available: set[str], history: Sequence[str] = (), today: dt.date | None = None
) -> list[FactCall]:
    """The look-ups that give the factual part of an advice question (possibly none).

    `history` holds the conversation's previous questions, latest last: a follow-up that
    names no lab and no medicine ("is that bad?") is looked up with the last one joined on.
    With `today`, a lab compared with a past day ("is my A1C better than last year?") is looked
    up as that comparison (`compare_lab`: both values, the direction), not only its latest value."""
    text = normalise(question)
    calls = _calls(text, available, today)
    if history and not any(c.show for c in calls):  # nothing of its own to show
        calls = _calls(normalise(f"{history[-1]} {question}"), available, today)
    return calls


def _calls(text: str, available: set[str], today: dt.date | None = None) -> list[FactCall]:
    calls: list[FactCall] = []
    labs = list(dict.fromkeys(_MEASURE_WORDS[m.group(1)] for m in _MEASURE_RE.finditer(text)))
    then = lab_compare_day(text, today) if today is not None and labs and "compare_lab" in available else None
    if then is not None:
        calls += [FactCall("compare_lab", {"query": q, "on": then[0].isoformat()}) for q in labs[:2]]
    elif "get_labs" in available:
        calls += [
            FactCall("get_labs", {"query": q, "latest_only": True, "category": "all"}) for q in labs[:2]
        ]
    if "get_medications" in available and (MEDICINE_WORDS.search(text) or not calls):
        # which of the patient's own medicines does it name, if any? (`named_calls`)
        show = bool(MEDICINE_WORDS.search(text))
        calls.append(FactCall("get_medications", {"status": "active"}, probe=True, show=show))
    if "get_allergies" in available and ALLERGY_WORDS.search(text):
        # round fourteen (paraphrase frozen9: "should I keep away from peanut because of an
        # allergy?" was refused with "nothing from your record is shown" beside an active peanut
        # allergy): the allergy list is the fact such a question rests on
        calls.append(FactCall("get_allergies", {}))
    return calls


def named_calls(question: str, rows: Iterable[dict[str, Any]], history: Sequence[str] = ()) -> list[FactCall]:
    """After a probe: one `get_medications` look-up per active medicine the question names
    (by the word of its name the question used, so the tool's own query finds the row)."""
    texts = [normalise(question), *(normalise(f"{history[-1]} {question}") for _ in history[-1:])]
    for text in texts:
        words = mentioned_medicines(text, [str(r.get("name") or "") for r in rows])
        absent = [w for w in named_drugs(text) if not mentioned_medicines(w, words)]
        if words or absent:
            return [FactCall("get_medications", {"status": "active", "query": w}) for w in words[:2]] + [
                FactCall("get_medications", {"status": "all", "query": w}, report_empty=True)
                for w in absent[: max(0, 2 - len(words))]
            ]
    return []


def named_drugs(text: str) -> list[str]:
    """The medicines the lexicon knows (ingredients, class members, brands → their ingredient) that
    the (normalised) text names, exactly or with one slip in a name of 6+ letters.

    Why: "can I double my warfarin?" from a patient never prescribed it got the whole active list,
    which reads as if warfarin were among it; the named medicine is looked up over every
    prescription instead, so the reply says it was searched for and not found."""
    said = text.split()
    found: list[str] = []
    for word in said:
        name = _brands().get(word) or (word if word in _drug_set() else None)
        if name is None and len(word) >= 6:
            name = next((d for d in _drug_names() if _one_slip(d, word)), None)
        if name and name not in found:
            found.append(name)
    return found


@lru_cache(maxsize=1)
def _drug_names() -> tuple[str, ...]:
    """One-word medicine names of the sourced lexicon, normalised as questions are; sorted, so the
    first name one slip from a word is the same in every process (a set's order is not)."""
    return tuple(
        sorted({n for n in (normalise(d) for d in load_lexicon().all_drug_names()) if n and " " not in n})
    )


@lru_cache(maxsize=1)
def _drug_set() -> frozenset[str]:
    return frozenset(_drug_names())


def _one_slip(a: str, b: str) -> bool:
    """Equal but for one edit (a swap of neighbours counts as one)."""
    return abs(len(a) - len(b)) <= 1 and OSA.distance(a, b) <= 1


def mentioned_medicines(text: str, names: Iterable[str]) -> list[str]:
    """The name words of `names` (medication displays) that the (normalised) text mentions:
    the word itself, a one-edit typo of it (6+ letters), or a brand whose ingredient it is."""
    said = set(text.split())
    said |= {_brands().get(w, "") for w in said} - {""}
    found: list[str] = []
    for name in names:
        for word in _name_words(name):
            if word in found:
                continue
            if word in said or (len(word) >= 6 and any(_one_slip(w, word) for w in said)):
                found.append(word)
                break  # one word per prescription is enough for the look-up
    return found


def _name_words(display: str) -> list[str]:
    words = [
        w for w in normalise(display).split() if len(w) >= MIN_NAME and w.isalpha() and w not in FORM_WORDS
    ]
    names = [w for w in words if w not in SALT_WORDS]
    return names or words


@lru_cache(maxsize=1)
def _brands() -> dict[str, str]:
    """Brand → the first word of its ingredient (the sourced lexicon's brand table)."""
    from tools.lexicon import load_lexicon

    return {normalise(b): normalise(i).split()[0] for b, i in load_lexicon().brands.items() if normalise(i)}


def compose(fact_texts: list[str]) -> str:
    """Lead sentence, the record's facts as the tools worded them (with their citation handles), whom to ask."""
    facts = [t.strip() for t in fact_texts if t.strip()]
    body = "From your record:\n" + "\n".join(facts) if facts else NOTHING_FOUND
    return f"{ADVICE_LEAD}\n\n{body}\n\n{ASK_WHOM}"
