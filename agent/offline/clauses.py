"""A message holding more than one thing: which of its clauses are requests, and which plan answers.

Why: the planner reads a message whole, so an aside could take a real request over ("that parking
fee nearly killed me lol, when is my next appointment" got the parking leaflet alone, round
seventeen), and of two requests one could go unanswered or lose its own lead. The behaviour:

* the message is cut into clauses at sentence marks, at a colon after more than a label's three
  words, and at a comma, a dash, "+", "and" /
  "also" / "plus" / "n" / "y" only when a question opens after it ("… a1c and am i still on X");
* a clause is a REQUEST when it is in the question form (a question word, an inverted verb, an
  imperative, a closing "?", or a "latest X" naming something of the record) and, read alone, plans
  to a lookup; anything else is an ASIDE (chit-chat, thanks, a figurative complaint, a preamble);
* a clause leaning on the one before (a pronoun and nothing of its own: "is that normal?", "has it
  gone up?") belongs to the request before it;
* ONE request: the whole message is planned as before (a preamble often carries the concept: "for
  my diabetes, what do I take"), unless the aside took the answer over — the whole message plans
  other kinds of lookup than the request alone, or an aside in a sentence of its own adds kinds
  the request does not ask — then the request alone is planned;
* TWO OR MORE requests: each is planned and answered on its own, under a heading quoting the
  user's words, in the order asked (one answer each, never one silently dropped); requests that
  ask the same kind of lookup are read together as one; a clause only the leaflets could answer and that
  no leaflet answers ("can you help me?") was an aside after all and is left out.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from agent.base import Turn
from agent.execution import ToolOutcome
from agent.offline.link import Vocabulary
from agent.offline.parse import content_words, keyword_scores
from agent.offline.plan import RECORD_SECTIONS, Plan, Planner
from agent.text import normalise

# fillers a clause may open with before its question ("so", "ok and", "btw", "two things:")
_FILLER = re.compile(
    r"^((and|also|plus|so|ok|okay|oh|btw|but|then|n|y|well|um|hmm|right|sorry|please|pls|plz|hey|hi|hello|"
    r"hola|quick question|one more thing|two things|and also|lastly|finally|doc|doctor)\b\s*)+"
)
_OPENER = (
    r"what|whats|wat|wats|wot|when|whens|where|wheres|which|who|whos|why|how|hows|"
    r"am|is|isnt|are|arent|was|wasnt|were|do|does|doesnt|did|didnt|have|has|hasnt|havent|had|"
    r"can|could|will|would|should|shall|any|anything|"
    r"show|list|tell|give|get|find|book|schedule|cancel|check|pull|look|read|summari[sz]e|"
    # Spanish openers (a Spanish message is glossed clause by clause afterwards)
    r"que|qu[eé]|cual|cu[aá]l|cuando|cu[aá]ndo|donde|tengo|tiene|estoy|esta|tomo|hay|cuanto|puedo|me"
)
_ASKS = re.compile(rf"^({_OPENER})\b")
# a request said as a noun phrase: "latest a1c pls", "newest hba1c?" (with a record concept linked)
_NOUN_REQUEST = re.compile(r"^(latest|newest|most recent|recent|last|current|my latest|my last|my newest)\b")
# a clause leaning on the one before: "is that normal?", "has it gone up?", "and since when?"
_LEANS = re.compile(
    r"\b(it|its|that|this|those|these|them|they|the first one|the last one|that one|since when)\b"
)

# hard boundaries: sentence marks, a line break, "...", a colon — but not the colon of a label of
# three words or fewer ("Allergies: aspirin listed? y/n", "PMH: asthma?"): the label scopes its
# question (round eighteen, tune_frozen15: cut there, "aspirin listed?" was read as a medicine
# and answered "No" beside a recorded aspirin allergy)
_SENTENCE = re.compile(r"\s*\n\s*|(?<=[.?!;])\s+|\s*\.\.\.+\s*")
_COLON = re.compile(r"\s*:\s+")
_LABEL_WORDS = 3
_RAW_OPENER = _OPENER.replace("wats|", "wats|wat's|what's|when's|where's|who's|how's|")
# soft boundaries: a comma, a dash, " + " or "and / also / plus / n / y / &" only where a question
# opens after it ("… a1c and am i still on X", "…, when is my next appointment"); ", going by my
# notes?" is no clause, nor the dash of "Body mass index 30+ - obesity"
_JOIN = re.compile(
    r"(?:\s*,\s*(?:(?:and|also|plus|but)\s+)?|\s+(?:and|also|plus|n|y|&|[-–—+])\s+)"
    rf"(?=(?:(?:also|so|and|ok|okay|oh|btw|well|then|please)\s+)*(?:¿\s*)?(?:{_RAW_OPENER})\b)",
    re.IGNORECASE,
)
_SOFT = "\x00"
# "we're" normalises to "were", an inverted verb: "We're planning a birthday dinner and I want to be
# careful" was taken for a question (round eighteen, tune_frozen15) and answered with a birth date
_CONTRACTED = re.compile(r"\b(we|you|they)['’]re\b", re.IGNORECASE)
_LEADING_JOIN = re.compile(r"^(?:and|also|plus|n|y|&)\s+", re.IGNORECASE)

# one kind of lookup, whichever tool serves it (the whole message and its request compared by kind)
_KIND = {
    "summarize_labs": "get_labs",
    "find_out_of_range_labs": "get_labs",
    "compare_lab": "get_labs",
    "get_medication_changes": "get_medications",
    "compare_active_medications": "get_medications",
    "count_encounters": "get_encounters",
    "get_notes_by_date": "search_notes",
    "cancel_appointment": "list_appointments",
    "book_appointment": "find_slots",
}
_ANSWERS = ("read", "offer_slots", "book", "offer_cancel", "cancel")


@dataclass(frozen=True)
class Clause:
    words: str  # the user's words
    soft: bool = False  # cut at a comma or "and" before a question, not at a sentence's end
    sentence: int = 0  # which sentence of the message it is in


def clauses(message: str) -> list[Clause]:
    """The message's clauses in the user's words (one clause: the message itself)."""
    out = []
    for k, sentence in enumerate(_sentences(message.strip())):
        for n, piece in enumerate(_JOIN.sub(_SOFT, sentence).split(_SOFT)):
            if words := _LEADING_JOIN.sub("", piece.strip(" ,;-–—+")):
                out.append(Clause(words, soft=n > 0, sentence=k))
    return out or [Clause(message)]


def _sentences(message: str) -> list[str]:
    """Sentences, a colon cutting only after more than a label's words."""
    out: list[str] = []
    for sentence in _SENTENCE.split(message):
        head = 0
        for colon in _COLON.finditer(sentence):
            if len(sentence[head : colon.start()].split()) > _LABEL_WORDS:
                out.append(sentence[head : colon.start()])
                head = colon.end()
        out.append(sentence[head:])
    return out


def question_form(clause: Clause) -> bool:
    """Whether a clause is worded as a question or a request (not whether it is about the record):
    a question word, an inverted verb or an imperative first, or a sentence closing with "?"."""
    text = _FILLER.sub("", normalise(_CONTRACTED.sub(r"\1 are", clause.words)))
    return bool(_ASKS.match(text)) or (not clause.soft and clause.words.rstrip().endswith("?"))


def leans_on_previous(clause: str, plan: Plan) -> bool:
    """A clause with nothing of its own to look up: a pronoun ("is that normal?", "when were they
    done") or neither a thing nor a section named ("and by how much?")."""
    own = plan.linking is not None and any(c.section in RECORD_SECTIONS for c in plan.linking.concepts)
    if own:
        return False
    return bool(_LEANS.search(normalise(clause))) or (
        content_words(clause) is None and not keyword_scores(clause)
    )


def unanswered_probe(part: Part, outcomes: Sequence[ToolOutcome]) -> bool:
    """A part only the leaflets could answer, that no leaflet (nor the record after them)
    answered ("Whats the deal, …"): an aside after all, left out when another part answers."""
    return part.probe and not any(o.result.ok and o.result.citations for o in outcomes)


def kinds(plan: Plan) -> frozenset[str]:
    """The kinds of lookup a plan makes (its first calls, not a fallback's)."""
    return frozenset(_KIND.get(c.name, c.name) for c in plan.calls)


@dataclass
class Part:
    words: str  # the user's words this part answers ("" for the whole message)
    plan: Plan
    alone: bool = True  # asks without leaning on the words around it (no pronoun)
    probe: bool = False  # planned as a leaflet search (its plan may turn into the record's fallback)
    sentence: int = 0  # the sentence of the message its words open in


def _is_request(clause: Clause, plan: Plan, hospital: Callable[[], bool]) -> bool:
    """Whether a clause asks something on its own: question-worded (or a "latest X" of the record)
    and planned to a lookup; a hospital question only as a sentence of its own that sounds like the
    leaflets (", like regularly?", "Whats the deal" are none)."""
    if plan.kind not in _ANSWERS or not plan.calls:
        return False
    if plan.leaflet_probe and (clause.soft or content_words(clause.words) is None or not hospital()):
        return False
    if question_form(clause):
        return True
    said = _FILLER.sub("", normalise(clause.words))
    linked = plan.linking is not None and any(c.section in RECORD_SECTIONS for c in plan.linking.concepts)
    return bool(_NOUN_REQUEST.match(said)) and linked


def plan_message(
    planner: Planner,
    message: str,
    history: Sequence[Turn],
    today: dt.date,
    vocab: Vocabulary,
    english: Callable[[str], str] = lambda s: s,
) -> list[Part]:
    """The parts to answer: one (the whole message, or its one request) or one per request.

    `english` reads a clause in the planner's words (Spanish glossed), as the whole is read."""
    whole = planner.plan(english(message), history, today, vocab)
    pieces = clauses(message)
    if len(pieces) < 2:
        return [Part("", whole)]
    requests: list[Part] = []
    # sentences where a clause besides the requests names something of the record ("once X was
    # found, which medicines got added?"): context for a request of the same sentence only — a
    # sentence of its own is a preamble ("I've got a follow-up next week and I want to go in
    # prepared. What's my most recent weight?" was answered with the follow-up visit, round eighteen)
    context: set[int] = set()
    for piece in pieces:
        plan = planner.plan(english(piece.words), history, today, vocab)
        asks = _is_request(piece, plan, lambda w=piece.words: planner.sounds_like_leaflets(english(w)))
        same = next((r for r in requests if kinds(r.plan) & kinds(plan)), None)
        if requests and (leans_on_previous(piece.words, plan) or (same and asks)):
            # leaning on the request before it, or asking the same kind of lookup ("pull up my drug
            # chart, is X on it?"): one request, its words read together as the planner reads them
            into = requests[-1] if same is None else same
            merged = f"{into.words}, {piece.words}"
            requests[requests.index(into)] = Part(
                merged, planner.plan(english(merged), history, today, vocab), sentence=into.sentence
            )
        elif asks:
            alone = not _LEANS.search(normalise(piece.words))
            requests.append(
                Part(piece.words, plan, alone=alone, probe=plan.leaflet_probe, sentence=piece.sentence)
            )
        elif _names_the_record(plan):
            context.add(piece.sentence)
    if not requests:
        return [Part("", whole)]
    if len(requests) == 1:
        # the aside took the answer over when the whole message plans other lookups than the
        # request, which asks the record on its own ("Sertraline - current med?" leans on its
        # aside for its subject, and "Once X was found, which medicines got added?" dates its
        # request by it: the whole message answers them)
        # — also when an aside of a sentence of its own only ADDS lookups, and leads with them
        # ("I've got a follow-up next week and I want to go in prepared. What's my most recent
        # weight?" led with the last visit, round eighteen)
        only = requests[0]
        own_sentence = any(p.sentence != only.sentence for p in pieces)
        taken_over = (
            only.alone
            and only.sentence not in context
            and not only.plan.leaflet_probe
            and (not kinds(only.plan) <= kinds(whole) or (own_sentence and kinds(only.plan) != kinds(whole)))
        )
        return [Part(only.words, only.plan)] if taken_over else [Part("", whole)]
    return requests


def _names_the_record(plan: Plan) -> bool:
    return plan.linking is not None and any(c.section in RECORD_SECTIONS for c in plan.linking.concepts)


def _calls(plan: Plan) -> list[tuple[str, str]]:
    return sorted((c.name, repr(sorted(c.input.items()))) for c in plan.calls)


def prefixed(plan: Plan, prefix: str) -> Plan:
    """The plan with its call ids in a namespace of their own (each part's calls are numbered
    from one, and one answer's events must not share ids)."""
    if not prefix:
        return plan

    def name(ident: str) -> str:
        return ident if ident.startswith(prefix) else f"{prefix}{ident}"

    plan.calls = [replace(c, id=name(c.id)) for c in plan.calls]
    for topic in plan.topics:
        topic.call_ids = [name(i) for i in topic.call_ids]
        topic.before_ids = [name(i) for i in topic.before_ids]
        topic.event_ids = [name(i) for i in topic.event_ids]
    if plan.fallback is not None:
        plan.fallback = prefixed(plan.fallback, prefix)
    return plan
