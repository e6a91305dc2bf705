"""Planning: the typed request and its linked concepts → tool calls, topic by topic.

A topic is one part of the answer (a section, what is asked of it, the concept if one
linked, the calls that answer it); `compose` leads each topic with its conclusion. Booking
and cancelling keep their two-step flow (offer, then act on the confirming reply).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from dateutil.relativedelta import relativedelta
from rapidfuzz.distance import DamerauLevenshtein

from agent.base import Turn
from agent.discourse import RECORD_TAIL, core
from agent.execution import ToolCall, ToolOutcome
from agent.intent import asks_to_book, asks_to_cancel
from agent.offline.direct import direct_plan
from agent.offline.embedding import EmbeddingIntents
from agent.offline.link import Concept, Linking, Vocabulary, link
from agent.offline.parse import (
    _GENERAL_INFO,
    _PERSONAL,
    ALLERGY_WORDING,
    INTENT_BY_NAME,
    INTENT_WORDS,
    INTENTS,
    MAX_INTENTS,
    REASON_QUESTION,
    SCOPE_FILLER,
    STOP_WORDS,
    VACCINE_DUE,
    WHOLE_RECORD,
    _clean,
    asks_the_record,
    asks_what_to_avoid,
    keyword_scores,
    leaflet_query,
    notes_query,
    scoped_wording,
    specialty_in,
)
from agent.offline.request import (
    APPOINTMENT_AS_CONTEXT,
    FOLLOW_UP,
    HISTORY_WORDS,
    NUMBER_WORDS,
    OPERATIONS,
    TOP_NUMBER_OF,
    Request,
    operation_of,
    read_request,
    row_ordinal,
)
from agent.offline.spelling import respell, rule_words
from agent.offline.windows import Event, Window, slot_window
from agent.scoping import SECTION_LABELS
from tools.lexicon import load_lexicon
from tools.search_tools import mention_words

OPERATION_WORDS = frozenset(
    [
        "back",  # "back in 2018"
        "resolved",
        "cleared",
        "inactive",
        "healed",
        "highest",
        "lowest",
        "maximum",
        "minimum",
        "max",
        "min",
        "peak",
        "average",
        "mean",
        "trend",
        "trends",
        "change",
        "changed",
        "changes",
        "increase",
        "decrease",
        "gone",
        "went",
        "up",
        "down",
        "since",
        "first",
        "earliest",
        "latest",
        "last",
        "recent",
        "most",
        "newest",
        "normal",
        "abnormal",
        "range",
        "reference",
        "count",
        "many",
        "number",
        "often",
        "times",
        "summarise",
        "summarize",
        "summary",
        "overview",
        "right",
        "now",
        "ever",
        "still",
        "currently",
        "taking",
        "take",
        "on",
        "using",
        "use",
        "prescribed",
        "started",
        "stopped",
        "new",
        "allergic",
        "allergy",
        "allergies",
        "diagnosed",
        "diagnosis",
        "had",
        "have",
        "has",
        "got",
        "do",
        "does",
        "did",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "will",
        "would",
        "what",
        "which",
        "when",
        "where",
        "who",
        "how",
        "any",
        "some",
        "there",
        "years",
        "year",
        "months",
        "month",
        "weeks",
        "week",
        "days",
        "day",
        "hours",
        "hour",
        "ago",
        "past",
        "previous",
        "between",
        "and",
        "from",
        "to",
        "until",
        "in",
        "during",
        "this",
        "next",
        "visit",
        "visits",
        "encounter",
        "encounters",
        "value",
        "values",
        "result",
        "results",
        "reading",
        "readings",
        "level",
        "levels",
        "measured",
        "measurement",
        "test",
        "tests",
        "check",
        "checked",
        "recorded",
        "record",
        "file",
        "chart",
        "list",
        "show",
        "tell",
        "give",
        "me",
        "about",
        "pt",
        "hx",
        "h/o",
        "currently",
        "moment",
        "at",
        "time",
        "one",
        "ones",
        "please",
        "um",
        "so",
        "just",
        "like",
        "quick",
        "question",
        "wondering",
        "sure",
        "out",
        "of",
        "curiosity",
        "could",
        "can",
        "you",
        "would",
        "know",
        "let",
        "bit",
        "wanna",
        "want",
        "need",
        "am",
        "im",
        "i",
        "my",
        "she",
        "he",
        "her",
        "his",
        "him",
        "they",
        "them",
        "their",
        "patient",
        "patients",
        "the",
        "a",
        "an",
        "of",
        "for",
        "with",
        "by",
        "or",
        "if",
        "it",
        "its",
        "that",
        "this",
        "those",
        "these",
        "yes",
        "no",
        "not",
        "okay",
        "ok",
        "well",
        "also",
        "only",
    ]
)
STOP = frozenset(STOP_WORDS | INTENT_WORDS | SCOPE_FILLER | OPERATION_WORDS)
EMERGENCY = re.compile(r"\b(emergency|emergancy|emergence|er|ed|a&e|a and e|casualty|urgent(?! care))\b")
INPATIENT = re.compile(
    r"\b(inpatient|admitted|admissions?|hospitali[sz]\w*|hospital stays?|in hospital|overnight)\b"
)
# "the notes" said for the record as a whole, not a search of the note text
NOTES_AS_RECORD = re.compile(
    r"\b(?:according to|acording to|accoring to|going by|going through|looking through|looking at|as far as|down in|in|on|from|by|per) (?:my|the|her|his|their) "
    # "going by the latest notes", "according to her most recent chart": still the record as it stands
    r"(?:(?:latest|last|most recent|recent|newest|current|up to date|updated) )?(?:notes|chart|file|records?)\b|"
    # the notes as what lists the patient's problems ("would her notes list X as one of hers?",
    # "do my notes include X"): round seventeen, paraphrase frozen14 searched the note text for
    # "X as" and answered nothing
    r"\b(?:my|the|her|his|their) (?:notes|chart|file|records?) (?:list|lists|include|includes|count|counts)\b"
)
# ... unless what the notes say is the question ("what did the doctor write in my notes about …").
# "read me / read out / read back" asks the assistant to say a value aloud, not what a note's text
# says (round seventeen: "can you read me the last weight figure in my notes?" searched the notes
# of the last visit for "read weight" over a weight the record holds: paraphrase frozen13)
NOTE_TEXT_ASKED = re.compile(
    r"\b(?:write|wrote|written(?! down)|writes|say|said|says|mention\w*|document\w*|search\w*|look (?:through|in)|"
    r"read(?! (?:me|us|out|back|off|aloud|it out|it back)\b)|note about)\b"
)
# "written down" / "logged" said of the record itself, not of a note's text (lead, round six:
# paraphrase frozen4, measured once, asked for the top weight "they've ever written down" and
# whether an allergy was "written down anywhere", and the notes search said "No passage …
# matches" about a weight and an allergy the record holds)
RECORDED_AS_RECORD = re.compile(
    r"\b(?:written|wrote|jotted|noted|logged|put|marked|typed) down\b|\b(?:logged|recorded|on file|on the system)\b"
)
NOTE_SAID = re.compile(
    r"\bnotes?\b|\bletters?\b|\b(?:doctor|nurse|gp|consultant|they) (?:wrote|write|said|says)\b"
)


def notes_mean_the_record(text: str) -> bool:
    """Note words used as a name for the record: "have I ever had asthma, according to my notes?",
    "the highest weight they've ever written down for me" — not a question about a note's text."""
    return bool(
        (NOTES_AS_RECORD.search(text) and not NOTE_TEXT_ASKED.search(text))
        or (RECORDED_AS_RECORD.search(text) and not NOTE_SAID.search(text))
    )


def emergency_in_the_record(text: str) -> bool:
    """An emergency visit or a stay asked about with the notes named as the record ("was I ever in
    the ER waiting room, according to the notes?"): the visits answer. A notes search said "No
    passage … matches" over an ER visit (round sixteen: paraphrase frozen12)."""
    return bool((EMERGENCY.search(text) or INPATIENT.search(text)) and notes_mean_the_record(text))


# the allergy list named as where to look (not a reaction in a note): its rows answer
ALLERGY_SECTION = re.compile(r"\ballerg\w*")
# the patient's own stays, asked about ("any hospital stays overnight", "have I ever been kept in
# hospital"): the record's admissions, never the leaflets about staying on a ward
OWN_STAYS = re.compile(
    r"\b(any|ever|have i|has (she|he|the patient)|was i|were there|how many|my)\b.*"
    r"\b(hospital stays?|admissions?|admitted|hospitali[sz]\w*|inpatient stays?|kept in)\b"
)
# the patient's own record named as where to look, with a record section asked about: never the
# leaflets (lead, round eight: "is there an ER visit anywhere in my records?" reached the
# records-access leaflet); "my MEDICAL history / health record" is the same record (round sixteen:
# "Is ther any psoirasis in my medicl histroy?" reached the records-access leaflet)
OWN_RECORD = re.compile(
    r"\b(in|on|from|according to|going by|per) (my|her|his|their|the patient s) (medical |health |clinical |patient )?(records?|chart|file|notes|history)\b|"
    r"\b(my|her|his|their) (medical |health |clinical )?(records?|chart|file|notes) (show|shows|say|says|mention|mentions|list|lists|have|has)\b|\bon (file|record)\b"
)
WHOLE_RECORD_SECTIONS = ("conditions", "medications", "allergies")
# whether the patient has a condition, asked of the patient ("do I have X?", "has she got X?", "was he
# ever diagnosed with X?"): the problem list answers, even for a condition it does not hold and
# whatever the sentences before it are about (round seventeen: "New to helping out with
# appointments so sorry if this is obvious. Do I have X?" sounded like the appointments leaflet,
# which answered instead: paraphrase frozen13)
CONDITION_OF_PATIENT = re.compile(
    r"\b(?:do|does|did) (?:i|she|he|they|the patient|pt|my (?:mum|mom|dad|father|mother|son|daughter|husband|wife|partner)) "
    r"(?:still |currently |really |actually |now )?(?:have|suffer from|suffer with)\b(?! to\b)|"
    r"\b(?:have|has) (?:i|she|he|they|the patient) (?:ever |already |now )?(?:got|had|been diagnosed with|been told i have)\b|"
    r"\b(?:am|is|are|was|were) (?:i|she|he|they|the patient) (?:ever |now )?(?:diagnosed with|a \w+ sufferer)\b"
)


def asks_own_condition(text: str, concepts: Sequence[Concept]) -> bool:
    """A named condition asked about as the patient's own: never the leaflets' to answer."""
    return bool(CONDITION_OF_PATIENT.search(text)) and any(c.section == "conditions" for c in concepts)


# the patient put on a named medicine ("does the record show me on X", "is she taking X", "i take X
# now?"): the medicine list answers, whatever the sentences before it are about (round seventeen:
# "Quick one before the pharmacy shuts …: does the record show me on X right now?" reached the
# pharmacy leaflet; paraphrase frozen14). "can I take X" is no such question: nothing stands between.
_ON_MEDICINE = r"\b(?:me|her|him|them|i|she|he|they|the patient) (?:still |currently |now )?(?:on|taking|takes|take|prescribed) (?:the |any )?"


def asks_own_medicine(text: str, concepts: Sequence[Concept]) -> bool:
    """A named medicine asked about as the patient's own: never the leaflets' to answer."""
    return any(
        c.section == "medications" and c.said and re.search(rf"{_ON_MEDICINE}{re.escape(c.said)}\b", text)
        for c in concepts
    )


# a clinician's shorthand for this patient's history ("hx of warfarin rx?", "h/o X", "pmh"): the
# record, never the leaflets (round sixteen: an anticoagulant leaflet answered "hx of warfarin rx?")
HISTORY_SHORTHAND = re.compile(r"\b(hx|h/o|pmh)\b")
LAST_VISIT = re.compile(
    r"\b(last|latest|most recent|previous|recent) (visit|encounter|appointment|consultation|check.?up|time i (saw|visited))\b"
)
CHANGE_WORDS = re.compile(
    r"\b(start(ed)?|stop(ped)?|new|changed?|discontinued|added|put on|taken off|c[ao]me off|quit|ended)\b"
)
# which side of a change the question asks about: "which meds did I stop this year" is the stopped ones
STOPPED_WORDS = re.compile(r"\b(stop(ped)?|discontinued|taken off|c[ao]me off|quit|ended)\b")
STARTED_WORDS = re.compile(r"\b(start(ed)?|new|added|put on)\b")
# the clinician of an earlier visit asked for by a booking ("the same doctor i saw last time")
SAME_DOCTOR = re.compile(
    r"\b(same (doctor|dr|gp|clinician|physician|provider|nurse|person)|"
    r"(doctor|dr|gp|clinician|physician|provider) (i|we) (saw|had|seen|visited|met)|my (usual|regular|own) (doctor|dr|gp))\b"
)
# the whole medicine list asked for ("everything i'm currently taking", "all my meds including …")
EVERYTHING_TAKEN = re.compile(
    r"\b(everything|every (medicine|medication|med|pill|tablet|prescription|thing)|all (of )?(my|her|his|their|the patient s) "
    r"(current )?(meds|medicines|medications|pills|tablets|prescriptions|drugs)|(full|complete|whole) (list|med list|medication list))\b"
)
# care plans named as such (the care_plans intent's words, without the looser "my plan")
CARE_PLAN_SAID = re.compile(
    r"\b(care ?plans?|plans? of care|treatment plans?|self.?management( plans?)?|care goals?)\b"
)
# a medicine's own start or end asked for by date ("when did i start metformin", "what date was
# the lisinopril stopped"): never "new" ("when did i get my new inhaler" is the newest)
START_ASKED = re.compile(r"\b(start(ed|ing)?|began|begin|begun|put (me |her |him |them )?on|commenced)\b")
WHEN_ASKED = re.compile(
    r"^(when|what date|which date|on what day|since when)\b|\bwhen (was|did|were|had|have|has)\b|\b(date|dated)\b"
)
RECORD_SECTIONS = (
    "medications",
    "conditions",
    "labs",
    "allergies",
    "encounters",
    "immunizations",
    "procedures",
)
EVERY_RESULT = 100
# "my last blood test", "latest bloods", "recent lab work": the laboratory results of the newest
# draw (vital signs are not a blood test)
_BLOOD_TEST = (
    r"(blood ?tests?|bloods|blood ?work|lab ?work|labs|lab tests?|lab results?|blood results?|"
    r"laboratory (tests?|results?))"
)
LAST_BLOOD_TEST = re.compile(
    rf"\b(last|latest|most recent|recent|newest)\b.*\b{_BLOOD_TEST}\b|\b{_BLOOD_TEST}\b.*\b(last (time|one)|most recent)\b"
)
# ... unless vital signs or any kind of result are asked for too ("bloods or vitals", "bloods or
# obs"): then the newest result of every kind answers (round fifteen: "no laboratory results are
# recorded" for a record of vital signs was a false negative)
ANY_RESULT = re.compile(
    r"\b(vitals?|vital signs|obs|observations?|measurements?|anything|(any|every) (kind|type|sort))\b"
)
# conditions that ended: "which of my conditions are resolved", "what has cleared up", "past problems"
RESOLVED_WORDS = re.compile(
    r"\b(resolved|cleared( up)?|gone away|went away|no longer active|not active (any ?more|now)|inactive|healed|"
    r"past (conditions|problems|diagnoses)|(conditions|problems|diagnoses) (i|she|he|they) (used to have|had before))\b"
)
# "the last 3 notes", "notes from the past two visits": that many newest notes, by date
NOTE_COUNT = re.compile(
    r"\b(last|latest|past|previous|most recent|newest) (\d+|two|three|four|five|six|seven|eight|nine|ten) "
    r"(\w+ )?(notes|visits|encounters|appointments)\b"
)
NEWEST_NOTE = re.compile(r"\b(last|latest|most recent|newest) (\w+ )?note\b")
NOTE_WORDS = frozenset(
    {
        "note",
        "notes",
        "progress",  # a progress note is a note, not a topic to search for
        "summarize",
        "summarise",
        "summary",
        "clinical",
        "doctor",
        "wrote",
        "write",
        "written",
        "said",
        "says",
        "say",
        "mention",
        "mentioned",
        "read",  # "read me the notes from my last visit": the notes asked for, "read" no topic
    }
)
# operations only the record can answer (a value, a count, a date): never routed to the leaflets
RECORD_OPERATIONS = frozenset(
    {
        "latest",
        "max",
        "min",
        "mean",
        "count",
        "change",
        "trend",
        "earliest",
        "when",
        "range",
        "older_than_year",
    }
)
EXTRA_RULE_WORDS = ("trend", "going", "higher", "lower", "first", "normal", "range", "recent", "result")
YEAR_AGO = re.compile(
    r"\b(than|compared (with|to)|versus|vs)( it was| they were| the (value|one|reading|result|level))? (a|one|1|12|twelve) ?(years?|yrs?|y|months?) "
    r"(ago|back|before|earlier)\b"
)


SUPERLATIVES = ("max", "min")


# a question about a topic anywhere in the record or the notes, and the topic it names
# "… say my X is": the value of X asked for, not whether the record mentions it
ASKS_A_VALUE = re.compile(
    r"\b(?:say|says|said|show|shows|list|lists|have|has) (?:my|her|his|their|the patient s) (?P<what>.+?) "
    r"(?:is|are|was|were|reads?|is at|came (?:back|out)(?: as| at)?)\W*$"
)
_MENTION = re.compile(
    # lead, round eight: "does anything in my notes say i have X" (the notes asked for a fact)
    r"\b(?:(?:(?:does|do|did|is there) )?anything (?:in|on) (?:my|her|his|their|the) (?:notes?|records?|chart|file|history) "
    r"(?:say|says|said|mention|mentions|show|shows|suggest|suggests) (?:that )?(?:i|she|he|they|the patient) "
    r"(?:have|has|had|got|am|is|was|suffer from|suffers from)(?: been)?(?: diagnosed with)?|"
    r"what (?:does|do|did) (?:my|her|his|their|the) (?:patient s )?(?:record|records|chart|file|notes?|history) "
    r"(?:say|said|says|mention|show)s? (?:anything )?(?:about|on|regarding|of)|"
    r"(?:(?:is|was) there )?any(?:thing)?(?: (?:mention(?:ed)?|written|recorded|noted|documented|on file|on record|at all))?"
    r"(?: (?:in|on) (?:my|her|his|their|the) (?:history|notes?|records?|chart|file))? (?:about|regarding|mentioning|on)|"
    r"(?:(?:is|was) there )?any (?:mention|record|note|sign|(?:past |previous )?history) of|"
    r"(?:do|does|did) (?:my|her|his|their|the) (?:notes?|record|chart|file) "
    # "… say anything about X", and (lead, round nine) "… say I ever had X" / "… mention X"
    r"(?:(?:say|mention|show) (?:anything )?(?:about|of|on)|say|mention))"
    r" (?P<topic>.+)$"
)
_TOPIC_LEAD = re.compile(
    # lead, round nine: "do my notes say i ever had a sinus infection" (the subject and verb too)
    r"^(?:(?:that )?(?:i|she|he|they|the patient) (?:ever )?(?:have|has|had|got|was|were|am|is)(?: ever)?"
    r"(?: (?:had|been|got))?(?: (?:diagnosed with|treated for))? )?"
    r"(?:(?:my|her|his|their|the|a|an|any|me|being|having|ever) )*"
)
# what may still close a topic once its wrapping is off (`agent.discourse.core`: "please", "as far
# as you can tell", "going by my notes" with its typos)
_TOPIC_TAIL = re.compile(r"(?: (?:at all|anywhere|ever|before))+$")
NOTES_ASKED = re.compile(r"\bnotes?\b")
# a topic that is still a clause once its lead is off ("i take sertraline now", "im living with X",
# "she cant have peanut because of an allergy"): its subject's words are no topic
_CLAUSE = re.compile(
    # "… about me reacting to peanut": the patient as the subject of a gerund is their clause too
    r"^(?:that )?(?:i|im|ive|id|she|shes|he|hes|they|theyre|theyve|the patient|the patients|me|her|him|them)\b"
)
_OBJECT = re.compile(r"\b(me|her|him|them|the patient)\b")
# the verbs that put a clause's concept in its section ("i take X", "she is allergic to X")
_SECTION_VERB = {
    "medications": re.compile(r"\b(take|takes|taking|took|on|prescribed|using|uses|use)\b"),
    "allergies": re.compile(
        r"\b(allerg\w*|react\w*|cant have|can t have|cannot have|intoleran\w*|(gives?|gave) (me|her|him|them) (a )?rash)\b"
    ),
    "conditions": re.compile(r"\b(suffer\w*|living with|lives with|have|has|had|diagnosed|got)\b"),
}


def mention_topic(text: str) -> str | None:
    """The topic words of a "what does my record say about …" question, or None."""
    m = _MENTION.search(text)
    if m is None:
        return None
    topic = _TOPIC_LEAD.sub("", m.group("topic").strip(" ?.!"))
    for _ in range(2):  # "x at all in my notes please": the wrapping, then the closing words, twice
        topic = _TOPIC_TAIL.sub("", core(topic).removesuffix(f" {RECORD_TAIL}")).strip()
    return topic if mention_words(topic) else None


def past_period(request: Request) -> bool:
    """The question names a period of the past ("before covid", "in 2019", "last spring"): the
    record has what happened then; a leaflet has no dates ("what was I taking before covid" reached
    the COVID-19 vaccine leaflet)."""
    w = request.window
    if w is None or w.soft:
        return False
    return (w.until is not None and w.until < request.today) or (
        w.since is not None and w.since < request.today - dt.timedelta(days=7)
    )


def when_words_out(request: Request) -> str:
    """The question's words without its window's: they say when, not what is asked about
    ("what was I taking before covid" asks for medicines, not about a covid diagnosis)."""
    w = request.window
    if w is None or not w.said or f" {w.said} " not in f" {request.text} ":
        return request.text
    return " ".join(f" {request.text} ".replace(f" {w.said} ", " ").split())


def without_concept_words(request: Request, linking: Linking) -> Request:
    """The operation read again without the words that named a concept: "white blood cell
    count" or "platelet count" is a test, not a request to count. A highest or lowest said around
    the name stays: taking "weight" out of "the top weight number they've got on file" left "the
    top number" (the systolic idiom), and the highest weight was answered with the latest one
    (lead, round thirteen: paraphrase frozen8)."""
    if request.operation in ("due", "older_than_year"):
        # "am i due a flu jab": the vaccine's name is what is due; "ldl > 1 year ago": the ">" is
        # read from the raw words only (`read_request`), so the question stays as it was read
        return request
    text = f" {request.text} "
    if request.window is not None:  # its words say when, not what (as in read_request)
        text = text.replace(f" {request.window.said} ", " ")
    for c in linking.concepts:
        # a word that names the measure AND the operation ("heaviest", "how heavy") keeps saying both
        if (" " in c.said or len(c.said) > 3) and operation_of(c.said) not in SUPERLATIVES:
            text = text.replace(f" {c.said} ", " ")
    operation = operation_of(text.strip()) if text.strip() else request.operation
    if operation == request.operation or operation == "list":
        return request
    if (
        request.operation in SUPERLATIVES
        and operation not in SUPERLATIVES
        and operation_of(" ".join(c.said for c in linking.concepts)) not in SUPERLATIVES
    ):
        return request  # the superlative's words were around the name, not in it
    return replace(request, operation=operation)


def planner_words() -> frozenset[str]:
    """Every word the planner's rules read: operations, sections, fillers (for `respell`)."""
    patterns = [p for _, p in OPERATIONS] + [p for i in INTENTS for p in i.patterns]
    patterns += [
        HOW_TO,
        RECORD_FACT,
        EMERGENCY,
        INPATIENT,
        LAST_VISIT,
        CHANGE_WORDS,
        YEAR_AGO,
        _GENERAL_INFO,
        HISTORY_WORDS,
        FOLLOW_UP,
        LAST_BLOOD_TEST,
    ]
    return rule_words(patterns, (*STOP, *EXTRA_RULE_WORDS))


SALT_WORDS = frozenset({"potassium", "sodium", "calcium", "magnesium", "hydrochloride"})
# kinds of medicine said as a general list around a medicine named ("with all the tablets and
# inhalers - is sertraline one of the ones I take?"): no kind asked about. Read as the inhaler
# class, its "No. Your record has no prescription of inhalers" led over an active sertraline
# (round sixteen: paraphrase frozen12's confident false negatives)
_FORM = r"(tablets|pills|meds|medicines|medications|capsules|inhalers|puffers|injections|jabs|creams|drops|patches|sprays)"
FORM_LIST = re.compile(rf"\b{_FORM}( (and|or|n|&) (all )?(the |my |her |his |their |other )?{_FORM})+\b")
TOP_NUMBER_OF_MEASURE = re.compile(rf"\b{TOP_NUMBER_OF}")


def resolve(linking: Linking, intents: list[str], text: str) -> Linking:
    """One reading per word: a word linked in several sections keeps the section the
    question's own wording asks about ("allergic to penicillin" → allergies, not a drug
    search); a salt word right after a drug's name is part of that name ("losartan potassium")."""
    by_word: dict[str, set[str]] = {}
    for c in linking.concepts:
        by_word.setdefault(c.said, set()).add(c.section)
    kept = []
    words = text.split()
    allergy_words = bool(re.search(ALLERGY_WORDING, text))
    systems = {c.said for c in linking.concepts if c.kind == "system"}
    forms = [m.group(0) for m in FORM_LIST.finditer(text)]
    named_drugs = [c for c in linking.concepts if c.section == "medications" and c.kind != "class"]
    top_of = TOP_NUMBER_OF_MEASURE.search(text)
    measures = [c for c in linking.concepts if c.section == "labs" and c.said != "top number"]
    for c in linking.concepts:
        if (
            c.section == "medications"
            and c.kind == "class"
            and named_drugs
            and any(c.said in f.split() for f in forms)
        ):
            continue  # "all the tablets and inhalers - is X one of them": the kinds are no question
        if c.said == "top number" and top_of and measures:
            continue  # "the top number for my weight": the weight's highest, not the systolic idiom
        sections = by_word[c.said]
        if c.said in systems:  # a body system is read in both its sections: its conditions and its labs
            kept.append(c)
            continue
        if allergy_words and c.section == "medications" and c.kind == "class" and "allergies" not in sections:
            # "do I have any allergies to antibiotics?": the class is what an allergy is to, not a
            # prescription search (which answered about an unasked amoxicillin course)
            kept.append(replace(c, section="allergies"))
            continue
        if len(sections) > 1 and c.section not in intents and sections & set(intents):
            continue
        # a drug word read as a substance someone is allergic to only when the question says so
        if {"medications", "allergies"} <= sections and c.section == (
            "medications" if allergy_words else "allergies"
        ):
            continue
        # "did I get my COVID-19 jab?": a disease named in a question about vaccines (or
        # procedures) is what the vaccine is for, not a diagnosis to look up; read as a
        # condition it gave "No. Your record has no covid-19" beside three COVID-19 doses
        if c.section == "conditions" and len(sections) == 1 and "conditions" not in intents:
            asked = [s for s in ("immunizations", "procedures") if s in intents]
            if len(asked) == 1:
                kept.append(replace(c, section=asked[0], kind="term", record_names=()))
                continue
        if c.section == "labs" and c.said in SALT_WORDS and c.said in words:
            i = words.index(c.said)
            meds = {m.said for m in linking.concepts if m.section == "medications"}
            if i > 0 and words[i - 1] in meds:
                continue
        kept.append(c)
    return replace(linking, concepts=kept)


# the mood of a question about how things are done (instructions, permissions, places,
# people to ask), as opposed to a question about what the record holds
HOW_TO = re.compile(
    r"\b(how (do|does|should|can|soon)|how (long|much) (does|is|will|should|would|can)|what (should|do|can|must) (i|we|they) (do|bring|pack|take|wear|"
    r"eat|drink|expect|need)|what happens (when|if|on|at|after|before|during)|where (can|do|should|is|are|will)|"
    r"(is|are) there (any |a |an )?(help|support|service|way|wifi|somewhere|anywhere|anyone|limit)|"
    r"who (do|should|can|will) (i|we)|who (organises|arranges|looks after|sorts)|"
    r"(can|may|could) (i|we|my|children|kids|visitors|family|someone|somebody|relatives)\b|"
    r"(am i|are \w+|is \w+) allowed|do (i|we) need to|should (i|we)|will (i|we) (need|have to|be able))"
)
# words that ask the record for a fact, whatever the mood ("can I see my latest A1C?")
RECORD_FACT = re.compile(
    r"\b(latest|last|most recent|results?|values?|levels?|readings?|history|ever|prescribed|diagnosed|"
    r"record|chart|file|mention\w*|documented|noted|my (doctor|gp) (say|said|write|wrote))\b"
)


def how_to(text: str) -> bool:
    return bool(HOW_TO.search(text)) and not RECORD_FACT.search(text)


DETAIL_WORDS = re.compile(
    r"\b(dose|dosage|doses|how much|how many (tablets|pills|puffs|capsules)|how often|frequency|times a day|"
    r"prescriber|prescribed by|who prescribed|which doctor|instructions)\b"
)
# a visit said as the time a value was taken, not as the thing asked about ("across all my past
# visits, the peak weight", "from every one of her check-ups": round sixteen, paraphrase frozen12)
VISIT_AS_TIME = re.compile(
    r"\b(at|during|from|in|on|across|over|for|as of|as at) ((each|every|all|any)( one)?( of)? )?(the |my |his |her |their |each |every |all |any |a )?"
    r"((most )?recent |last |latest |previous |next |past |first |earliest |very first )?(visits?|appointments?|check.?ups?|checks?|encounters?)\b"
)
# who wrote the prescription: the prescriber leads the answer, each prescription cited
PRESCRIBER_WORDS = re.compile(
    r"\b(prescriber|prescribed by|who (prescribed|prescribes|ordered|started|put)|"
    r"which (doctor|gp|clinician|physician|provider) (prescribed|ordered|started|put|gave)|whose prescription)\b"
)
# what a named medicine is for: its recorded reason ("what is my lisinopril for", "why am I on
# metformin", "is the metformin for my diabetes?", "indication for lisinopril")
MED_REASON = re.compile(
    r"\b((what (is|are|was|were|s)|whats) .{1,60}\bfor$|what (do|does|did) .{1,40}\b(take|taking|use) .{1,40}\bfor$|"
    r"why (am|is|are|was|were|do|does|did|have|has) .{1,40}\b(on|taking|take|prescribed|given|using)\b|"
    r"(reason|indication)s? (for|of))\b"
)
# "is the metformin for my diabetes?": asked of a named condition only (not "… prescribed for her?")
BEING_TREATED_FOR = re.compile(
    r"\b(?:am i|is she|is he|are they|have i been|has she been|has he been|i am|im|she is|he is) (?:\w+ )?(?:being )?treated for\b"
)
MED_FOR_CONDITION = re.compile(
    r"\b(is|are|was|were) (the |my |his |her |their |this |that )?.{1,60} (for|to treat|treating) "
    r"(my|his|her|their|the)\b"
)
AFTER_ONSET = re.compile(r"\b(after|since|post|following|from|once)\b")
LAST_WORDS = re.compile(r"\b(last|latest|most recent|newest|recently|previous)\b")


# a condition's end asked for ("when did my sinus infection clear up", "when was the bronchitis resolved")
CLEARED_ASKED = re.compile(
    r"\b(clear(ed|s)? up|cleared|resolved?|resolution|go(ne)? away|went away|got better|get better|heal(ed)?|"
    r"was (it )?over|ended|end)\b"
)


def visit_types(kind: Concept | None) -> tuple[str, ...]:
    """The visit types a kind of visit is counted by: a lexicon kind ("checkup") covers each type
    it lists; a record's own type ("urgent care clinic") is itself."""
    if kind is None:
        return ()
    return kind.queries if kind.kind == "term" else (kind.name,)


def visit_queries(kind: Concept | None) -> list[dict[str, str]]:
    """get_encounters' query per visit type of the kind asked about ([{}]: any visit)."""
    return [{"query": t} for t in visit_types(kind)] or [{}]


def date_operation(section: str, request: Request) -> str:
    """What a question about one named thing asks: its first date, its latest date, or whether
    it is there ("exists"). A bare "when" is the diagnosis date for a condition, the latest
    date for the rest."""
    op = request.operation
    if (
        section == "conditions"
        and op in ("when", "earliest", "latest")
        and CLEARED_ASKED.search(request.text)
    ):
        return "cleared"  # "when did my sinus infection clear up": the resolution date, not the onset
    if section == "medications" and op in ("when", "latest", "earliest") and WHEN_ASKED.search(request.text):
        # "when did they stop my blood pressure tablet": the end date (or still active), not a
        # prescribing date; "when did i start metformin": the first start ever, not the newest
        if STOPPED_WORDS.search(request.text):
            return "stopped"
        if START_ASKED.search(request.text):
            return "earliest"
    if op == "earliest":
        return "earliest"
    if op == "when":
        return "earliest" if section == "conditions" and not LAST_WORDS.search(request.text) else "last"
    if op == "latest" and section in ("immunizations", "procedures") and LAST_WORDS.search(request.text):
        return "last"
    if op == "count" and section in ("immunizations", "procedures", "conditions"):
        return "count"  # "how many covid vaccines have I had?", "how many episodes of bronchitis": the number leads
    return "exists"


def asked_about_range(text: str) -> str:
    if re.search(
        r"\b(ever|any)\b.*\b(outside|out of|out-of-range|abnormal|abnl|not normal|off|flagged|beyond)\b|\b(outside|out of|beyond)\b.*\bever\b",
        text,
    ):
        return "ever_outside"
    if re.search(r"\b(above|over|high|higher|too high|elevated|raised|exceed\w*)\b", text):
        return "above"
    if re.search(r"\b(below|low|lower|too low|under)\b", text):
        return "below"
    if re.search(r"\b(outside|out of range|abnormal|beyond)\b", text):
        return "outside"
    return "normal"


@dataclass
class Topic:
    section: str
    operation: str
    concept: Concept | None = None
    call_ids: list[str] = field(default_factory=list)
    window: Window | None = None
    emergency: bool = False  # encounters: the question is about emergency visits
    inpatient: bool = False
    # labs vs a range: above | below | outside | ever_outside | normal; medication changes: started |
    # stopped; a medicine's dose: exists when whether it is taken was asked too
    asked: str = ""
    today: dt.date | None = None  # "older than a year?" is measured from this day
    question: str = ""  # the question's own words (identity checks compare them with the record)
    # medications: the condition the question names as the medicines' reason ("for my diabetes")
    reason: Concept | None = None
    # labs in a window: the second call holds the newest result of the whole history, said when
    # the window is empty ("what's my weight today?" → none today, the latest is 80 kg on …)
    latest_beyond_window: bool = False
    # a change over a window ("gone up over the past year"): the call reading the newest result
    # before the window, the baseline when the window holds one result only
    before_ids: list[str] = field(default_factory=list)
    # labs "since starting metformin", "since my 40th birthday": the event the window starts at,
    # the medicine or condition that dates it, and the calls that read it (phase one)
    event: Event | None = None
    anchor: Concept | None = None
    event_ids: list[str] = field(default_factory=list)


def event_day(topic: Topic, outcomes: Sequence[ToolOutcome]) -> tuple[dt.date, dict[str, Any]] | None:
    """The day a "since <event>" period starts and the row that dates it: the medicine's first
    prescription, the condition's first onset, the birth date plus the years said. None when the
    record does not hold the event (or the birthday is still to come)."""
    event = topic.event
    rows = [r for o in outcomes if o.call.id in topic.event_ids and o.result.ok for r in o.result.rows]
    if event is None or not rows:
        return None
    if event.kind == "birthday":
        row = next((r for r in rows if r.get("kind") == "patient" and r.get("birth_date")), None)
        if row is None:
            return None
        born = dt.date.fromisoformat(str(row["birth_date"])[:10])
        return born + relativedelta(years=event.years), row
    key, kind = ("authored_on", "medication") if event.kind == "start" else ("onset", "condition")
    named = set(topic.anchor.record_names) if topic.anchor else set()
    dated = [
        r
        for r in rows
        if r.get("kind") == kind
        and r.get(key)
        and r.get("status") != "entered-in-error"
        and (not named or kind == "medication" or r.get("name") in named)
    ]
    if not dated:
        return None
    first = min(dated, key=lambda r: str(r[key]))
    return dt.date.fromisoformat(str(first[key])[:10]), first


@dataclass
class Plan:
    kind: str  # read | offer_slots | book | offer_cancel | cancel | clarify | unknown | record
    intents: list[str] = field(default_factory=list)
    calls: list[ToolCall] = field(default_factory=list)
    message: str = ""  # for clarify
    follow_up: bool = False  # re-planned from the previous question
    request: Request | None = None
    linking: Linking | None = None
    topics: list[Topic] = field(default_factory=list)
    then: str | None = None  # "notes_of_visit": read the notes of the visit phase 1 found
    then_query: str | None = None  # what to look for in that visit's notes (None: the whole note)
    then_args: dict[str, Any] = field(default_factory=dict)  # "same_doctor": phase two's find_slots input
    leaflet_probe: bool = False  # not about the record: the leaflet search decides
    fallback: Plan | None = None  # when the leaflets have nothing relevant

    @property
    def searched(self) -> list[str]:
        """What was looked up, in words (for the `done` event and "no X" sentences)."""
        out = []
        for t in self.topics:
            what = SECTION_LABELS.get(t.section, t.section)
            out.append(
                f"{what}"
                + (f" for {t.concept.name}" if t.concept else "")
                + (f" ({t.window.describe()})" if t.window else "")
            )
        return out


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
# offers are listed earliest first: "the earliest (one you found)", "the soonest" is the first shown
_EARLIEST = re.compile(r"\b(earliest|soonest|next available|first available)\b")
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
    if _EARLIEST.search(text) and offered:
        return offered[0][1]
    if re.search(r"\b(last one|the last)\b", text) and offered:
        return offered[-1][1]
    if _YES.search(text):
        return offered[0][1] if len(offered) == 1 else False
    return None


class Planner:
    def __init__(self, available: Sequence[str], embeddings: EmbeddingIntents | None = None) -> None:
        self.available = set(available)
        self.embeddings = embeddings
        self.words = planner_words()

    def plan(
        self, question: str, history: Sequence[Turn], today: dt.date, vocab: Vocabulary | None = None
    ) -> Plan:
        vocab = vocab or Vocabulary()
        question = respell(question, self.words, vocab.known_words())
        previous = history[-1] if history else None
        if previous is not None:
            follow = self._confirmation(question, previous) or self._named_earlier_slot(question, history)
            if follow is not None:
                return follow
        if asks_to_cancel(question) and "list_appointments" in self.available:
            return self._cancel_offer(question)
        request = read_request(question, today)
        linking = link(when_words_out(request), vocab, STOP)
        if (
            not asks_to_book(question)
            and (direct := direct_plan(question, today, linking, self.available)) is not None
        ):
            direct.request, direct.linking = request, linking
            return direct  # one computed tool answers it whole (round fourteen)
        if (mention := self._mention_plan(request, linking)) is not None:
            return mention
        intents = self._wording_intents(question, linking)
        if (
            how_to(request.text)
            and not asks_the_record(request.text, linking.sections)
            and not asks_to_book(question)
            and "search_leaflets" in self.available
            and not request.follow_up
        ):
            # how things are done here (what to bring, how to prepare, where to go): the leaflet corpus
            # decides by its relevance gate; the record answers only when no leaflet is relevant
            probe = self._leaflet_probe(question, request, linking)
            rest = [i for i in intents if i not in ("find_slots", "leaflets")]
            probe.fallback = self._read_plan(rest, question, request, resolve(linking, rest, request.text))
            return probe
        if "find_slots" in intents:
            return self._slot_offer(question, today)
        linking = resolve(linking, intents, request.text)
        record_concepts = [c for c in linking.concepts if c.section in RECORD_SECTIONS]
        request = without_concept_words(request, linking)
        if (
            previous is not None
            and request.follow_up
            and not record_concepts
            and not ({"appointments", "notes", "profile"} & set(intents))
            and not _GENERAL_INFO.search(request.text)
        ):
            plan = self._follow_up(question, previous, today, vocab)
            if plan is not None:
                return plan
        if (
            intents != ["leaflets"]
            and self.embeddings is not None
            and "search_leaflets" in self.available
            and not any(c.in_record for c in record_concepts)
            and not request.follow_up
            and not {"notes", "profile", "appointments", "care_plans"} & set(intents)
            and request.operation not in RECORD_OPERATIONS
            and not OWN_STAYS.search(request.text)
            and not (
                OWN_RECORD.search(request.text)
                and any(i in RECORD_SECTIONS or i == "encounters" for i in intents)
            )
            and not past_period(request)
            and not HISTORY_SHORTHAND.search(request.text)
            and not asks_own_condition(request.text, record_concepts)
            and not asks_own_medicine(request.text, record_concepts)
            and self._sounds_like_leaflets(question)
        ):
            probe = self._leaflet_probe(question, request, linking)
            probe.fallback = self._read_plan(intents, question, request, linking)
            return probe
        if (
            intents == ["leaflets"]
            and MED_REASON.search(request.text)
            and any(c.in_record and c.section == "medications" for c in record_concepts)
        ):
            # "what is the lisinopril for": a medicine of this patient's, so the record's reason
            # answers (lead, round six: an ACE-inhibitor leaflet answered instead)
            intents = ["medications"]
        if intents == ["leaflets"] and asks_own_condition(request.text, record_concepts):
            # "new to arranging visits and parking for us, sorry. Was I ever diagnosed with X?":
            # the preamble's parking is no question; the problem list answers
            intents = ["conditions"]
        if intents == ["leaflets"] and asks_own_medicine(request.text, record_concepts):
            intents = ["medications"]  # "… before the pharmacy shuts: am I on X?": the medicine list
        if intents == ["leaflets"] or (not intents and not record_concepts):
            if previous is not None and not intents and request.follow_up:
                plan = self._follow_up(question, previous, today, vocab)
                if plan is not None:
                    return plan
            if (
                not intents
                and self.embeddings is not None
                and not request.follow_up
                and not _off_topic(question)
            ):
                if past_period(request):  # a period of the past: the nearest record section
                    sims = self.embeddings.similarities(when_words_out(request))
                    best = max((k for k in sims if k in RECORD_SECTIONS), key=lambda k: sims[k], default=None)
                    intents = [best] if best else []
                else:
                    nearest = self.embeddings.nearest(question)
                    if nearest is not None and nearest[0] not in ("leaflets", "find_slots"):
                        intents = [nearest[0]]
            if not intents or intents == ["leaflets"]:
                probe = self._leaflet_probe(question, request, linking)
                if record_concepts:
                    probe.fallback = self._read_plan([], question, request, linking)
                return probe
        return self._read_plan(intents, question, request, linking)

    def plan_section(
        self,
        section: str,
        question: str,
        today: dt.date,
        allowed: frozenset[str],
        vocab: Vocabulary | None = None,
    ) -> Plan:
        """A section-scoped question: no intent detection; the section's lookup with the
        question's concepts (of that section only), window and operation."""
        intent = INTENT_BY_NAME.get(section)
        if intent is None or intent.tool not in allowed:
            label = SECTION_LABELS.get(section, section)
            return Plan("clarify", message=f"the {label} section cannot be searched in this build.")
        wording = scoped_wording(question)
        request = read_request(wording, today)
        linking = link(when_words_out(request), vocab or Vocabulary(), STOP)
        linking = replace(linking, concepts=[c for c in linking.concepts if c.section == section])
        return self._read_plan([section], wording, request, linking)

    # -- follow-ups ------------------------------------------------------------------------
    def _follow_up(self, question: str, previous: Turn, today: dt.date, vocab: Vocabulary) -> Plan | None:
        """'Is that normal?', 'and the first one?': the previous question's subject, this
        question's operation and window."""
        prior = read_request(previous.question, today)
        prior_link = link(prior.text, vocab, STOP)
        prior_intents = self._choose_intents(previous.question, keyword_scores(previous.question))
        if not prior_link.concepts and not [i for i in prior_intents if i in RECORD_SECTIONS]:
            return None
        now = read_request(question, today)
        operation = now.operation if now.operation not in ("list", "exists") else prior.operation
        merged = Request(
            text=f"{prior.text} {now.text}",
            operation=operation,
            window=now.window or prior.window,
            history=now.history or prior.history,
            follow_up=True,
            today=today,
        )
        plan = self._read_plan(prior_intents, f"{previous.question} {question}", merged, prior_link)
        plan.follow_up = True
        return plan

    def _mention_plan(self, request: Request, linking: Linking) -> Plan | None:
        """ "What does my record say about my pregnancy?", "anything in her history about kidney
        stones?", "is there any mention of X in my notes?": every condition and every note read
        for the topic's words (a lexical verdict, not a similarity ranking), so a "no" says what
        was searched and a word the lexicon lacks is still looked for in the record's own text."""
        # read as linked: "do my notes say i take sertarline" names sertraline, which a misspelled
        # clause would never match (round seventeen: "No note mentions i take sertarline now" over
        # an active sertraline, a confident false negative; paraphrase frozen14)
        topic = mention_topic(linking.as_read(request.text))
        if topic is None or not {"get_conditions", "search_notes"} <= self.available:
            return None
        value = ASKS_A_VALUE.search(request.text)
        if value and not any(
            c.said and c.said in value.group("what") and c.section == "conditions" for c in linking.concepts
        ):
            # "what does her chart say her blood creatinine is?": the value, from the test's own
            # section (the words searched in conditions and notes led "No: no condition matching
            # 'blood creatinine is'" over a creatinine of 0.87: paraphrase frozen11, round fifteen)
            return None
        if ALLERGY_SECTION.search(request.text):
            # "is there anything about penicillin in my allergies?": the allergy list is the place
            # named; the words searched in conditions and notes led "No: no condition matching
            # 'penicillin in my allergies'" over an active Penicillin V allergy (round thirteen)
            return None
        if (EMERGENCY.search(topic) or INPATIENT.search(topic)) and not NOTES_ASKED.search(request.text):
            # "any record of her going to the emergency room?": the visits answer, counted (the
            # words searched in conditions and notes found nothing and led "No" over an ER visit)
            return None
        # "going by the notes", "according to my chart": the notes named as the record, not searched
        in_notes = bool(NOTES_ASKED.search(request.text)) and not notes_mean_the_record(request.text)
        said = {w for c in linking.concepts for w in c.said.split()}
        covered = not [w for w in mention_words(topic) if w not in said]  # the topic is a known concept
        named = [c for c in linking.concepts if c.said == topic or (covered and c.said in topic)]
        if not covered and not named:
            clause = _MENTION.search(linking.as_read(request.text)).group("topic")  # type: ignore[union-attr]
            # "does my chart say I take sertraline now", "… I'm living with X", "… I can't have
            # peanut because of an allergy": a clause around known concepts whose verb says their
            # section. Its other words are no topic: searched for as words they find nothing, and
            # that read as a "No" ("… say I have back pain" stays a search: "pain" is a lab's word)
            named = [
                c
                for c in linking.concepts
                if c.said
                and re.search(rf"\b{re.escape(c.said)}\b", topic)
                and (verb := _SECTION_VERB.get(c.section)) is not None
                and verb.search(clause)
                # the patient's own clause: "i take X", "X gives me a rash", or X then a clause about
                # the patient ("metformin i still take") — not "my dad had X"
                and (
                    _CLAUSE.match(clause)
                    or (clause.startswith(c.said) and _OBJECT.search(clause))
                    or _CLAUSE.match(clause.split(c.said, 1)[1].strip())
                )
            ]
            if named:
                topic = " ".join(dict.fromkeys(c.said for c in named))
        if covered and named and re.search(r"\bhistory of\b", request.text):
            # "any history of asthma (in my notes)?": a known condition's own lead ("Yes, in the past: …");
            # the notes there are where the record is, as in "according to my notes"
            return None
        if not in_notes and any(c.section not in ("conditions", "notes") for c in named):
            return None  # "what does my record say about my blood pressure": that section answers
        concept = next((c for c in named if c.section == "conditions"), None)
        if concept is not None and not concept.in_record:
            # "any record of me breaking a bone": the lexicon's word is what a record or note says
            # ("fracture"); the lay words would find nothing and call it a "no"
            topic = concept.name
        calls = [
            ToolCall("offline_1", "get_conditions", {"status": "all"}),
            ToolCall("offline_2", "search_notes", {"query": topic, "exact_words": True, "limit": 5}),
        ]
        t = Topic("notes", "mention", concept, [c.id for c in calls], asked=topic, question=request.text)
        t.inpatient = in_notes  # (reused flag) the notes were what was asked: their verdict leads
        return Plan("read", intents=["conditions", "notes"], calls=calls, request=request, linking=linking, topics=[t])  # fmt: skip

    def _wording_intents(self, question: str, linking: Linking) -> list[str]:
        """Sections the question's wording asks for, read without the words that linked to
        concepts ("allergic to penicillin" asks about allergies; "penicillin" alone is a
        concept, not a request for the medication list)."""
        whole = self._choose_intents(question, keyword_scores(question))
        if not linking.concepts:
            return whole
        said = {w for c in linking.concepts for w in c.said.split()}

        def linked(word: str) -> bool:  # the concept's word, or its typo ("pencillin" → penicillin)
            return word in said or (
                len(word) >= 5
                and any(DamerauLevenshtein.distance(word, s, score_cutoff=2) <= 2 for s in said)
            )

        rest = " ".join(w for w in _clean(question).split() if not linked(w))
        wording = self._choose_intents(rest, keyword_scores(rest)) if rest else []
        keep = [i for i in whole if i not in RECORD_SECTIONS and i not in wording]
        if VACCINE_DUE.search(_clean(question)):
            # "am i due a flu jab": the vaccine's own word linked, and "am i due" is not the diary
            wording = ["immunizations", *(i for i in wording if i not in ("appointments", "immunizations"))]
        return [*wording, *keep][:MAX_INTENTS]

    def sounds_like_leaflets(self, question: str) -> bool:
        """Whether a clause of a message is about the hospital rather than the record (no
        embedding model: never), for `clauses`."""
        return self.embeddings is not None and self._sounds_like_leaflets(question)

    def _sounds_like_leaflets(self, question: str) -> bool:
        """Closer in meaning to the leaflet examples than to any record section's."""
        assert self.embeddings is not None
        sims = self.embeddings.similarities(question)
        leaflet = sims.get("leaflets", 0.0)
        record = max((v for k, v in sims.items() if k in RECORD_SECTIONS or k == "encounters"), default=0.0)
        return leaflet > record

    def _forbidden_medicine(self, request: Request, linking: Linking) -> Concept | None:
        """The medicine of "is X something I can't / am not allowed to have" or "can I have X
        given my allergies", or None. An allergen the record names by a drug's form ("Penicillin
        V") is that drug: the table is checked for it too."""
        if "check_drug_allergies" not in self.available or not asks_what_to_avoid(request.text):
            return None
        drugs = load_lexicon().all_drug_names()
        return next(
            (
                c
                for c in linking.concepts
                if c.section == "medications"
                or (
                    c.section == "allergies"
                    and any(w in drugs for w in (c.name.lower(), *c.name.lower().split()))
                )
            ),
            None,
        )

    def _leaflet_probe(self, question: str, request: Request, linking: Linking) -> Plan:
        """Not about the record: search the leaflets; their relevance gate decides, and a miss
        is answered with what can be asked instead."""
        if "search_leaflets" not in self.available:
            return Plan("unknown", request=request, linking=linking)
        call = ToolCall("offline_1", "search_leaflets", {"query": leaflet_query(question)})
        topic = Topic("leaflets", "list", call_ids=[call.id])
        return Plan("read", intents=["leaflets"], calls=[call], request=request, linking=linking, topics=[topic], leaflet_probe=True)  # fmt: skip

    # -- reading the record ----------------------------------------------------------------
    def _sections(self, intents: list[str], linking: Linking, request: Request) -> list[str]:
        record_intents = [i for i in intents if i not in ("leaflets", "find_slots")]
        if "care_plans" in record_intents and CARE_PLAN_SAID.search(request.text):
            # "what care plans am i on", "do i have a diabetes care plan": the plans answer (a
            # condition named is the plan's subject, and "am i on" is no medicine question)
            return ["care_plans"]
        # (a kind of visit, "my last checkup", says whose notes: the visit's notes answer)
        structured = [
            s for s in linking.sections if s in RECORD_SECTIONS and s not in ("notes", "encounters")
        ]
        if (
            WHOLE_RECORD.search(request.text)
            and not structured
            and set(record_intents) <= {"conditions", "encounters"}
        ):
            return list(WHOLE_RECORD_SECTIONS)  # "brief summary of this patient": the record's core, cited
        if "notes" in record_intents and structured and notes_mean_the_record(request.text):
            # the section answers (a notes search would say "no passage matches" about a weight
            # the record holds)
            return structured[:MAX_INTENTS]
        visit_asked = "encounters" in record_intents or "encounters" in linking.sections
        if "notes" in record_intents and visit_asked and emergency_in_the_record(request.text):
            return [
                "encounters"
            ]  # "… the ER waiting room, according to the notes?" (as in `_choose_intents`)
        if "notes" in record_intents:  # "search my notes for metformin": the words are what to look for
            return ["notes"]
        concept_sections = [s for s in linking.sections if s in RECORD_SECTIONS]
        sections = list(record_intents)
        for s in concept_sections:
            if s not in sections:
                sections.append(s)
        # a stray section word should not add a section when a concept says what is asked:
        # "what meds for my diabetes" stays medications (the condition becomes the reason)
        if {"medications", "conditions"} <= set(concept_sections) and (
            MED_REASON.search(request.text) or MED_FOR_CONDITION.search(request.text)
        ):
            return ["medications"]  # "is the metformin for my diabetes?": the condition is the reason asked
        if "conditions" in concept_sections and BEING_TREATED_FOR.search(request.text):
            # "is diabetes one of the things I am being treated for?" asks whether the condition is
            # on the record (lead, round six: paraphrase frozen4 got only "1 prescription relates
            # to …", no answer to the question); the medicines for it follow
            return ["conditions", "medications"]
        if "medications" in record_intents and concept_sections == ["conditions"]:
            return ["medications"]  # "meds for / after my sinusitis": the condition is the reason
        if (
            record_intents[:1] == ["encounters"]
            and concept_sections == ["conditions"]
            and request.operation == "count"
        ):
            return ["encounters"]  # "how many times was I seen for my ear infection": the visits' reason
        visits = ("encounters", "appointments")
        if "labs" in concept_sections and set(visits) & set(sections) and VISIT_AS_TIME.search(request.text):
            # "my weight at the most recent visit", "across every visit, the top weight": the visit
            # says when the value was taken; the value is what is asked
            sections = [s for s in sections if s not in visits]
            record_intents = [s for s in record_intents if s not in visits]
        if (
            set(visits) & set(sections)
            and any(s not in (*visits, "notes") for s in concept_sections)
            and APPOINTMENT_AS_CONTEXT.search(request.text)
        ):
            # "before my appointment tomorrow, am I still on X?": the occasion, not a question about it
            sections = [s for s in sections if s not in visits]
            record_intents = [s for s in record_intents if s not in visits]
        if concept_sections and len(sections) > 1:
            keep = [s for s in sections if s in concept_sections or s in ("notes", "appointments")]
            primary = record_intents[0] if record_intents else None
            if primary and primary not in keep:
                keep.insert(0, primary)
            sections = keep
        if "notes" in sections and LAST_VISIT.search(request.text):
            sections = ["notes"]
        return sections[:MAX_INTENTS]

    def _read_plan(self, intents: list[str], question: str, request: Request, linking: Linking) -> Plan:
        calls: list[ToolCall] = []
        topics: list[Topic] = []
        then = None
        then_query = None

        def call(tool: str, args: dict[str, Any]) -> str:
            ident = f"offline_{len(calls) + 1}"
            calls.append(ToolCall(ident, tool, args))
            return ident

        window = request.window
        win = {"since": window.since.isoformat()} if window and window.since else {}
        if window and window.until:
            win["until"] = window.until.isoformat()
        sections = self._sections(intents, linking, request)
        event, anchor, event_ids = self._event_lookups(sections, request, linking, call)
        forbidden = self._forbidden_medicine(request, linking)
        if forbidden is not None:
            # "is aspirin something I'm not allowed to have": the allergy list and the drug–allergy
            # table for that medicine, in one topic (not the prescriptions); a "no" names both
            # and is no go-ahead (round sixteen)
            ids = [call("get_allergies", {}), call("check_drug_allergies", {"medicine": forbidden.name})]
            topics.append(Topic("allergies", "forbidden", forbidden, ids))
            sections = [s for s in sections if s not in ("allergies", "medications")]
        for section in sections:
            own = linking.of(section)
            if section == "medications" and EVERYTHING_TAKEN.search(request.text):
                # "everything i'm taking, including inhalers and creams": the whole list; the kinds
                # named are what it should include, not a filter
                own = [c for c in own if c.kind != "class"]
            op = request.operation
            if event is not None and (section == "profile" or (anchor is not None and own == [anchor])):
                continue  # the event's own lookup dates the period: read in the labs topic
            if section == "medications":
                if op == "conflict" and "check_drug_allergies" in self.available:
                    topics.append(Topic(section, "conflict", call_ids=[call("check_drug_allergies", {})]))
                elif own and window and CHANGE_WORDS.search(request.text):
                    # "was I started on warfarin in the last year?": that drug's prescriptions,
                    # every one, and whether one started (or stopped) in the window
                    stopped = STOPPED_WORDS.search(request.text)
                    for c in own:
                        ids = [call("get_medications", {"status": "all", "query": q}) for q in c.queries]
                        topics.append(
                            Topic(section, "stopped_in" if stopped else "started_in", c, ids, window=window)
                        )
                elif (
                    window
                    and CHANGE_WORDS.search(request.text)
                    and "get_medication_changes" in self.available
                ):
                    stopped, started = STOPPED_WORDS.search(request.text), STARTED_WORDS.search(request.text)
                    side = (
                        "stopped" if stopped and not started else "started" if started and not stopped else ""
                    )
                    topics.append(
                        Topic(
                            section,
                            "changes",
                            window=window,
                            call_ids=[call("get_medication_changes", dict(win))],
                            asked=side,
                        )
                    )
                elif (
                    (reason := next((c for c in linking.concepts if c.section == "conditions"), None))
                    and AFTER_ONSET.search(request.text)
                    and {"get_conditions", "get_medication_changes"} <= self.available
                ):
                    # started on or after a diagnosis: the diagnosis's first onset, then the
                    # prescriptions written from that day (phase two, `then_calls`)
                    ids = [call("get_conditions", {"status": "all", "query": reason.queries[0]})]
                    topics.append(Topic("conditions", "earliest", reason, ids))
                    topics.append(Topic(section, "changes_after", reason, ["offline_then"]))
                    then = "meds_after_onset"
                elif own:
                    reason = next((c for c in linking.concepts if c.section == "conditions"), None)
                    for c in own:
                        ids = [call("get_medications", {"status": "all", "query": q}) for q in c.queries]
                        if PRESCRIBER_WORDS.search(request.text):
                            operation = "prescriber"
                        elif DETAIL_WORDS.search(request.text):
                            operation = "detail"
                        elif MED_REASON.search(request.text) or (
                            reason is not None and MED_FOR_CONDITION.search(request.text)
                        ):
                            operation = "reason"
                        else:
                            operation = date_operation(section, request)
                        # "any antibiotics in 2025?": the lead answers for the window asked about
                        scoped = window if operation in ("exists", "earliest", "last") else None
                        # "am I on X, and if so, what dose?": whether, then the dose
                        asked = "exists" if operation == "detail" and request.operation == "exists" else ""
                        topics.append(
                            Topic(section, operation, c, ids, window=scoped, reason=reason, asked=asked)
                        )
                elif (
                    reason := next((c for c in linking.concepts if c.section == "conditions"), None)
                ) and PRESCRIBER_WORDS.search(request.text):
                    # "who prescribed my diabetes tablets": every prescription for that reason,
                    # active and past, and who wrote each
                    ids = [call("get_medications", {"status": "all", "query": reason.queries[0]})]
                    topics.append(Topic(section, "prescriber", None, ids, reason=reason))
                else:
                    reason = next((c for c in linking.concepts if c.section == "conditions"), None)
                    current = re.search(r"\b(take|taking|current|currently|now|still|active)\b", request.text)
                    ordinal = row_ordinal(request.text) if reason is None else None
                    # "everything i'm currently taking, including …": the "including" is no history
                    history = request.history and not (current and EVERYTHING_TAKEN.search(request.text))
                    status = "all" if history or window or ordinal or (reason and not current) else "active"
                    args: dict[str, Any] = {"status": status}
                    if reason is not None:
                        args["query"] = reason.queries[0]
                    topics.append(
                        Topic(
                            section,
                            f"{ordinal}_row" if ordinal else "list",
                            reason if reason else None,
                            [call("get_medications", args)],
                            # "what was i taking in 2018": the lead keeps the prescriptions of that period
                            window=window if reason is None and not ordinal else None,
                            # "how many prescriptions did i get in the past 18 months": those written then
                            asked="count" if op == "count" else "",
                        )
                    )
            elif section == "conditions":
                if any(t.section == "medications" and (t.concept or t.reason) for t in topics):
                    continue  # the condition is the medicines' reason (or start), already looked up
                if own:
                    for c in own:
                        ids = [call("get_conditions", {"status": "all", "query": q}) for q in c.queries]
                        topics.append(Topic(section, date_operation(section, request), c, ids))
                elif RESOLVED_WORDS.search(request.text):  # "which of my conditions are resolved now"
                    ids = [call("get_conditions", {"status": "resolved", **win})]
                    topics.append(Topic(section, "resolved", None, ids, window))
                elif ordinal := row_ordinal(request.text):  # "the earliest diagnosis in my file"
                    ids = [call("get_conditions", {"status": "all", **win})]
                    topics.append(Topic(section, f"{ordinal}_row", None, ids, window))
                else:
                    status = "all" if request.history or window else "active"
                    diagnoses = status == "all" and re.search(r"\b(diagnos\w*|dx|pmh)\b", request.text)
                    # "what was I diagnosed with in 2020": the window is the onset's
                    ids = [call("get_conditions", {"status": status, **win})]
                    topics.append(Topic(section, "diagnoses" if diagnoses else "list", None, ids, window))
            elif section == "labs":
                if not own and op == "range" and "find_out_of_range_labs" in self.available:
                    # which results are abnormal: the newest of each test against its range (the
                    # lab's own, else a labelled typical one), computed by the tool
                    ids = [call("find_out_of_range_labs", win)]
                    topics.append(Topic(section, "out_of_range", None, ids, window))
                    continue
                if not own and op == "range" and "get_labs" in self.available:
                    # without that tool: the newest of each test against its own range only
                    ids = [call("get_labs", {"latest_only": True, "limit": EVERY_RESULT})]
                    topics.append(Topic(section, "out_of_range", None, ids))
                    continue
                if not own and not window and LAST_BLOOD_TEST.search(request.text) and not ANY_RESULT.search(request.text) and "get_labs" in self.available:  # fmt: skip
                    ids = [call("get_labs", {"category": "lab", "latest_only": True, "limit": EVERY_RESULT})]
                    topics.append(Topic(section, "last_draw", None, ids))
                    continue
                lab_concepts = own or [None]
                for c in lab_concepts[:2]:
                    query = c.queries[0] if c else None
                    computed = op in ("max", "min", "mean", "count", "change", "trend", "range", "earliest", "summary", "older_than_year")  # fmt: skip
                    if query and event is not None:
                        # "has my a1c gone down since starting metformin": the series from the event's
                        # day (phase two, once phase one has dated it); no event, no change
                        topic = Topic(section, op if computed else "trend", c, [*event_ids, f"offline_then_{len(topics) + 1}"])  # fmt: skip
                        topic.event, topic.anchor, topic.event_ids = event, anchor, list(event_ids)
                        topic.asked = asked_about_range(request.text)
                        topic.today = request.today
                        topics.append(topic)
                        then = "since_event"
                        continue
                    # ("last checked more than a year ago" asks the latest's age: no comparison)
                    if query and op != "older_than_year" and YEAR_AGO.search(request.text) and "summarize_labs" in self.available:  # fmt: skip
                        cutoff = (request.today - relativedelta(years=1)).isoformat()
                        ids = [call("summarize_labs", {"query": query}), call("get_labs", {"query": query, "until": cutoff, "latest_only": True})]  # fmt: skip
                        topics.append(Topic(section, "year_ago", c, ids))
                        continue

                    if query and op == "previous" and "get_labs" in self.available:
                        # the value before the newest: the dated series, newest first (the lead picks it)
                        ids = [call("get_labs", {"query": query, "latest_only": False, "limit": EVERY_RESULT, **win})]  # fmt: skip
                        topics.append(Topic(section, "previous", c, ids, window, question=request.text))
                        continue
                    if query and request.newest and not window and "summarize_labs" in self.available:
                        # "mean SBP over the last 5 readings", "BP at the last 3 visits": the newest N
                        # values, summarised by the tool or listed newest first
                        if computed:
                            ids = [call("summarize_labs", {"query": query, "newest": request.newest})]
                            topic = Topic(section, op, c, ids)
                            topic.asked = asked_about_range(request.text)
                            topic.today = request.today
                        else:
                            ids = [call("get_labs", {"query": query, "limit": request.newest})]
                            topic = Topic(section, "newest", c, ids)
                        topics.append(topic)
                        continue
                    if query and request.threshold and "summarize_labs" in self.available:
                        # "ever over 200?", "how many A1C above 6.5", "when did my BMI first go over
                        # 30": the tool counts the results beyond the value and dates the crossings
                        side = "above" if request.threshold[0] == ">" else "below"
                        ids = [call("summarize_labs", {"query": query, side: request.threshold[1], **win})]
                        first = op == "earliest"
                        topic = Topic(section, "threshold_first" if first else "threshold", c, ids, window)
                        topic.asked = "count" if op == "count" else ""
                        topics.append(topic)
                        continue
                    if query and (computed or window) and "summarize_labs" in self.available:
                        ids = [call("summarize_labs", {"query": query, **win})]
                        if window and "get_labs" in self.available:
                            ids.append(call("get_labs", {"query": query, "latest_only": True}))
                        topic = Topic(section, op if computed else "trend", c, ids, window)
                        topic.latest_beyond_window = len(ids) == 2
                        if op == "change" and window and window.since and "get_labs" in self.available:
                            # "has it gone up over the past year": the value then is the newest before it
                            until = (window.since - dt.timedelta(days=1)).isoformat()
                            topic.before_ids = [
                                call("get_labs", {"query": query, "until": until, "latest_only": True})
                            ]
                        topic.asked = asked_about_range(request.text)
                        topic.today = request.today
                        topics.append(topic)
                    else:
                        args = {"latest_only": not window, **({"query": query} if query else {}), **win}
                        if window:
                            args["limit"] = EVERY_RESULT
                        topics.append(
                            Topic(
                                section,
                                # "the reading before last" of no named test: said so in the lead
                                ("previous_unnamed" if op == "previous" else "latest")
                                if not window
                                else "list",
                                c,
                                [call("get_labs", args)],
                                window,
                            )
                        )
            elif section == "encounters":
                emergency, inpatient = (
                    bool(EMERGENCY.search(request.text)),
                    bool(INPATIENT.search(request.text)),
                )
                # "any urgent care visits?", "wellness visits since 2020": visits of that kind, counted
                typed = bool(own) and (op in ("count", "exists") or (op == "list" and own[0].kind == "term"))
                if (
                    emergency or inpatient or op == "count" or typed
                ) and "count_encounters" in self.available:
                    # visits for a condition: counted by the visit's reason or the diagnosis made at it
                    reason = next((c for c in linking.concepts if c.section == "conditions"), None)
                    why = {"reason": reason.queries[0]} if reason and not (emergency or inpatient) else {}
                    kind = own[0] if own and not (emergency or inpatient or why) else None
                    if kind is not None:  # "how many times have I been to urgent care": that visit type
                        why = {"visit_type": kind.name}
                        reason = kind
                    # a kind of visit the lexicon names ("checkups") covers several visit types: one
                    # count per type, summed by the lead (windowed counts first, then the whole history)
                    kinds = [{"visit_type": t} for t in visit_types(kind)] if kind is not None else [why]
                    ids = [call("count_encounters", {**win, **k}) for k in kinds]
                    if window:
                        ids += [call("count_encounters", k) for k in kinds]
                    # asked=op: "how many ER trips" gets a number as its lead, not "No: … 0 visits"
                    topic = Topic(
                        section, "count", reason if why else None, ids, window, emergency, inpatient, asked=op
                    )
                    topics.append(topic)
                elif op in ("latest", "summary", "when") or LAST_VISIT.search(request.text):
                    # "why did i go to urgent care last time": the newest visit of that kind
                    kind = own[0] if own else None
                    ids = [call("get_encounters", {"limit": 1, **q, **win}) for q in visit_queries(kind)]
                    topics.append(Topic(section, "latest", kind, ids, window))
                    if op == "summary" and "get_notes_by_date" in self.available:
                        then = "notes_of_visit"
                else:
                    ids = [call("get_encounters", {**win, "limit": 20})]
                    topics.append(Topic(section, "list", None, ids, window))
            elif section == "notes":
                topic_words = [w for w in linking.unlinked if len(w) >= 4 and w not in NOTE_WORDS]
                if (few := NOTE_COUNT.search(request.text)) and "get_notes_by_date" in self.available:
                    # "notes from the last 3 visits": the newest notes by their own dates
                    count = few.group(2)
                    n = int(count) if count.isdigit() else NUMBER_WORDS[count]
                    ids = [call("get_notes_by_date", {"limit": min(n, 10), **win})]
                    topics.append(Topic(section, "latest_few", None, ids, window))
                elif (
                    (op == "latest" or NEWEST_NOTE.search(request.text))
                    and not LAST_VISIT.search(request.text)
                    and not linking.of("encounters")  # "at my last urgent care visit": that visit's notes
                    and not topic_words
                    and "get_notes_by_date" in self.available
                ):
                    # "my most recent note": the newest note by its own date (a note need not
                    # belong to the last visit)
                    ids = [call("get_notes_by_date", {"limit": 1, **win})]
                    topics.append(Topic(section, "latest", None, ids, window))
                elif LAST_VISIT.search(request.text) or op == "latest":
                    # "the plan in the notes from my last checkup": the newest visit of that kind
                    kind = next(iter(linking.of("encounters")), None)
                    ids = [call("get_encounters", {"limit": 1, **q, **win}) for q in visit_queries(kind)]
                    topics.append(Topic("encounters", "latest", kind, ids, window))
                    then = "notes_of_visit"
                    then_query = notes_query(question) if topic_words else None
                else:
                    ids = [call("search_notes", {"query": notes_query(question), **win})]
                    topics.append(Topic(section, "list", None, ids, window))
            elif section == "allergies":
                if op == "conflict" and any(t.operation == "conflict" for t in topics):
                    continue  # the one drug–allergy check already answers it
                if op == "conflict" and "check_drug_allergies" in self.available:
                    topics.append(Topic(section, "conflict", call_ids=[call("check_drug_allergies", {})]))
                else:
                    ids = [call("get_allergies", {})]
                    topics.append(Topic(section, "exists" if own else "list", own[0] if own else None, ids))
            elif section == "immunizations":
                c = own[0] if own else None
                args = {**({"query": c.queries[0]} if c else {}), **win}
                ordinal = row_ordinal(request.text) if c is None else None
                op_c = date_operation(section, request) if c else f"{ordinal}_row" if ordinal else "list"
                if op == "due":
                    op_c = "due"
                ids = [call("get_immunizations", args)]
                if c is not None and window is not None:
                    # none in the window is not none at all: the whole history says when the last one was
                    ids.append(call("get_immunizations", {"query": c.queries[0]}))
                topics.append(Topic(section, op_c, c, ids, window))
            elif section == "procedures":
                c = own[0] if own else None
                ordinal = row_ordinal(request.text) if c is None else None
                # "my first surgery": the oldest, not the oldest of the newest 20
                args = {**win, **({"oldest_first": True} if ordinal == "earliest" else {})}
                op_c = date_operation(section, request) if c else f"{ordinal}_row" if ordinal else "list"
                # one call per way the record names the concept ("x-ray": the lexicon's query and the
                # record's own "Plain chest X-ray"), as for conditions
                ids = (
                    [call("get_procedures", {"query": q, **args}) for q in c.queries]
                    if c
                    else [call("get_procedures", args)]
                )
                topics.append(Topic(section, op_c, c, ids, window))
            elif section == "leaflets":
                topics.append(
                    Topic(
                        section, "list", None, [call("search_leaflets", {"query": leaflet_query(question)})]
                    )
                )
            elif section == "care_plans":
                # every plan, active and past; the lead picks those for a condition named
                subject = next((c for c in linking.concepts if c.section == "conditions"), None)
                operation = "earliest" if op in ("earliest", "when") or WHEN_ASKED.search(request.text) else op if op == "count" else "list"  # fmt: skip
                topic = Topic(section, operation, subject, [call("get_care_plans", {})], question=request.text)  # fmt: skip
                topic.today = request.today
                topics.append(topic)
            else:
                intent = INTENT_BY_NAME[section]
                topic = Topic(section, "list", None, [call(intent.tool, {})], question=request.text)
                topic.today = request.today
                topics.append(topic)
        for topic in topics:  # the leads compare the question's own words (identity, "ever")
            topic.question = topic.question or request.text
        calls = [c for c in calls if c.name in self.available]
        return Plan("read", intents=sections, calls=calls, request=request, linking=linking, topics=topics, then=then, then_query=then_query)  # fmt: skip

    def _event_lookups(
        self, sections: list[str], request: Request, linking: Linking, call: Any
    ) -> tuple[Event | None, Concept | None, list[str]]:
        """Phase one of "since <event>" for lab results: the calls that date the event (the
        medicine's prescriptions, the condition's episodes, the birth date)."""
        event = request.event
        if event is not None and re.search(r"\bbefore\b", request.text):
            return None, None, []  # "bp before vs after starting amlodipine": not a change since it
        if (
            event is None
            or "labs" not in sections
            or not linking.of("labs")
            or "summarize_labs" not in self.available
        ):
            return None, None, []
        if event.kind == "birthday":
            return event, None, [call("get_patient_profile", {})]
        section = "medications" if event.kind == "start" else "conditions"
        anchor = next((c for c in linking.concepts if c.section == section), None)
        if anchor is None:
            return event, None, []  # "since starting the new tablets": which one is not said
        tool = "get_medications" if section == "medications" else "get_conditions"
        return event, anchor, [call(tool, {"status": "all", "query": q}) for q in anchor.queries]

    def then_calls(self, plan: Plan, outcomes: Sequence[ToolOutcome]) -> list[ToolCall]:
        """Phase two: the notes written at the visit phase one found (by date, not similarity);
        the prescriptions started from a diagnosis's first onset; lab results since an event."""
        if plan.then == "since_event":
            later = []
            for topic in plan.topics:
                found = event_day(topic, outcomes) if topic.event is not None else None
                if found is None or topic.concept is None or found[0] > plan.request.today:  # type: ignore[union-attr]
                    continue
                topic.window = Window(found[0], None, topic.event.said)  # type: ignore[union-attr]
                args = {"query": topic.concept.queries[0], "since": found[0].isoformat()}
                later.append(ToolCall(topic.call_ids[-1], "summarize_labs", args))
            return later
        if plan.then == "same_doctor":
            args = dict(plan.then_args)
            named = [
                r
                for o in outcomes
                if o.call.name == "get_encounters" and o.result.ok
                for r in o.result.rows
                if r.get("practitioner")
            ]
            calls = []
            if named:
                last = max(named, key=lambda r: str(r.get("start") or ""))
                calls.append(
                    ToolCall("offline_2", "find_slots", {**args, "clinician": str(last["practitioner"])})
                )
            calls.append(ToolCall(f"offline_{len(calls) + 2}", "find_slots", args))
            return calls
        if plan.then == "meds_after_onset":
            topic = next(t for t in plan.topics if t.operation == "changes_after")
            named = set(topic.concept.record_names) if topic.concept else set()
            onsets = [
                str(r.get("onset"))[:10]
                for o in outcomes
                if o.call.name == "get_conditions" and o.result.ok
                for r in o.result.rows
                if r.get("onset") and (not named or r.get("name") in named)
            ]
            if not onsets:
                return []
            ident = next(t.call_ids[0] for t in plan.topics if t.operation == "changes_after")
            return [ToolCall(ident, "get_medication_changes", {"since": min(onsets)})]
        if plan.then != "notes_of_visit" or "get_notes_by_date" not in self.available:
            return []
        # the newest visit found (of any kind, or of each type of the kind asked about)
        visits = [
            r for o in outcomes if o.call.name == "get_encounters" and o.result.ok for r in o.result.rows
        ]
        day = max((str(r.get("start") or "")[:10] for r in visits), default="")
        if day and plan.then_query and "search_notes" in self.available:
            args = {"query": plan.then_query, "since": day, "until": day}
            return [ToolCall(f"offline_{len(plan.calls) + 1}", "search_notes", args)]
        if day:
            args = {"since": day, "until": day, "limit": 1}
            return [ToolCall(f"offline_{len(plan.calls) + 1}", "get_notes_by_date", args)]
        return []

    # -- intent choice -------------------------------------------------------------------
    def _choose_intents(self, question: str, scores: dict[str, int]) -> list[str]:
        scores = {k: v for k, v in scores.items() if INTENT_BY_NAME[k].tool in self.available}
        if not scores:
            return []
        personal = bool(_PERSONAL.search(_clean(question)))
        record = {k: v for k, v in scores.items() if INTENT_BY_NAME[k].record}
        general = _GENERAL_INFO.search(_clean(question))
        reason = re.search(REASON_QUESTION, _clean(question))
        if "leaflets" in scores and ((not personal and not reason) or not record or general):
            return ["leaflets"]
        if "find_slots" in record and (
            "appointments" not in record
            or re.search(r"\b(book|free|available|open|slots?)\b", _clean(question))
        ):
            return ["find_slots"]
        record.pop("find_slots", None)
        if "immunizations" in record and VACCINE_DUE.search(_clean(question)):
            return ["immunizations"]  # "what jabs am i due": the doses given, not the diary
        if "appointments" in record:
            return ["appointments"]
        if "notes" in record and "encounters" in record and emergency_in_the_record(_clean(question)):
            return ["encounters"]
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

    # -- appointments --------------------------------------------------------------------
    def _slot_offer(self, question: str, today: dt.date) -> Plan:
        start, end = slot_window(question, today)
        args: dict[str, Any] = {
            "specialty_or_department": specialty_in(question),
            "from_date": start.isoformat(),
            "to_date": end.isoformat(),
        }
        if SAME_DOCTOR.search(_clean(question)) and "get_encounters" in self.available:
            # "a follow up with the same doctor i saw last time": phase one reads the recent visits
            # for who that was; phase two asks find_slots for that clinician's own slots (it had read
            # the 20 earliest slots of the department and looked for them there), then any clinician's
            args["limit"] = 8
            calls = [ToolCall("offline_1", "get_encounters", {"limit": 10, "until": today.isoformat()})]
            return Plan(
                "offer_slots", intents=["find_slots"], calls=calls, then="same_doctor", then_args=args
            )
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


def _off_topic(question: str) -> bool:
    """A request about something other than health ("who won the world cup in 2018"): the
    safety gate's own rule (`agent.safety.smalltalk.is_off_topic`), so a year in it never maps
    the question to the nearest record section (the generated set's out-of-scope questions had
    been answered with the conditions of 2018)."""
    from agent.safety.smalltalk import is_off_topic
    from agent.safety.text import prepare

    return is_off_topic(prepare(question)[0])
