"""Reading a question: section intents, wording helpers, time windows, slot wording."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from agent.intent import MEASURES
from agent.text import normalise

MAX_INTENTS = 3
# why a medicine is prescribed: the record's reason, not a leaflet about the drug
REASON_QUESTION = (
    r"\b((prescribed|given|taking|take|on) (it |this |that )?for|why (am|is|are|was|were) .{1,40}\b"
    r"(on|taking|prescribed|given))\b"
)
# asking the hospital for a person or a service, not the record for a fact
SERVICE_QUESTION = (
    r"\b(who (can|should|do) (i|we) (phone|call|ring|contact|speak to|talk to)|who to (phone|call|contact)|"
    r"(phone|contact|telephone) number (for|of)|(questions|help|advice) (about|with) living with|"
    r"(is there|do (we|you) have|have you got) (an? |any )?(hospital |patient )?(leaflet|booklet|information))\b"
)
# "is aspirin (on file as) something he can't have?", "is penicillin something i'm not allowed to
# have": what the record says the patient must avoid — the allergy list and the drug–allergy table,
# not the prescriptions (round fifteen: "No. The record has no prescription of aspirin" over an
# aspirin allergy) and not a how-to question (round sixteen: "is … allowed" reached the leaflets)
FORBIDDEN_WORDING = (
    r"\b(something|anything|a thing|things|stuff) (that )?(i|she|he|they|the patient|im|shes|hes) "
    r"(cant|cannot|can not|mustnt|must not|shouldnt|should not|(?:is |am |are )?not allowed to|isnt allowed to|arent allowed to) "
    r"(have|take|be given|get)\b"
)
# a permission asked beside an allergy ("can i have prawns given my allergies", "is it ok for her to
# take amoxicillin"): a "Yes." or "No." in front would read as a go-ahead or a ban the record cannot
# give, so the allergy leads say what is recorded instead (round sixteen's closing questions: "can i
# have prawns" was answered "Yes. An allergy to Shellfish is recorded")
PERMISSION_ASKED = re.compile(
    r"\b(can|could|may|should) (i|she|he|they|we|the patient|pt) (still )?(have|eat|take|drink|use|be given|get)\b|"
    r"\b(is it|its|it is) (ok|okay|alright|all right|safe|fine) (for (me|her|him|them|the patient) )?to (have|eat|take|drink|use|be given)\b|"
    r"\b(am i|is (she|he)|are they) (allowed|ok|okay|safe) to (have|eat|take|drink|use)\b"
)
ALLERGY_NAMED = re.compile(r"\b(allerg\w*|intoleran\w*)")


def asks_what_to_avoid(text: str) -> bool:
    """Whether a normalised question asks what the record says the patient must avoid: "is X
    something I can't have", or a permission asked beside the allergies ("can i have penicillin v
    given my allergies"). With a medicine named, the allergy list and the drug–allergy table
    answer (round seventeen: with the leaflets indexed, the permission wording reached the
    leaflets, its "can i" read as how things are done here)."""
    return bool(
        re.search(FORBIDDEN_WORDING, text) or (PERMISSION_ASKED.search(text) and ALLERGY_NAMED.search(text))
    )


# an allergy asked about in lay words too: "sensitive to", "reacts to", "disagrees with",
# "can't tolerate" (the record's allergy rows are what answers them, not the medication list)
ALLERGY_WORDING = (
    r"\b(allerg\w*|intoleran\w*|hypersensitiv\w*|nkda|nka|sensitiv\w* to|(bad |adverse )?reactions?( to)?|"
    r"react\w* (badly )?to|(makes?|made|making) (\w+ )?react|disagrees? with|(cant|cannot|can not|unable to|not|never) tolerate|"
    r"(gives?|cause[sd]?) (\w+ )?(an? )?(rash|hives|reaction))\b|" + FORBIDDEN_WORDING
)
# The direction a question asks a value to have moved ("did my weight drop", "has my a1c gone
# down", "is my LDL climbing", "did it dip", "has it risen"): ONE definition, read by the computed
# comparison (`direct`: "is it higher than a year ago?") and by the change leads (`leads`: "did it
# climb relative to the one before"). Round sixteen: the two had drifted apart ("dip", "lost",
# "gained", "smaller" were a direction in one and not the other, so the same question got a yes or
# no on one path and none on the other). The verbs alone also make a pronoun follow-up a change
# ("did it dip?" after "what's my weight?": `request`).
MOVED_UP = r"rose|risen|rise|rises|rising|climb\w*|increas\w*|gain\w*|jump\w*|exceed\w*|went up|gone up|go up|going up"
MOVED_DOWN = r"fell|fallen|fall|falls|falling|drop\w*|decreas\w*|dip\w*|sank|sunk|sink\w*|lost|lose|losing|reduc\w*|went down|gone down|go down|going down"
SAID_UP = r"up|higher|bigger|above"
SAID_DOWN = r"down|lower\w*|smaller|below"
# "more" / "less" are a direction in a yes/no ("is it more than last time?") but not a comparison
# of their own ("was it last done more than a year ago" is an age)
ASKED_UP = re.compile(rf"\b(more|{SAID_UP}|{MOVED_UP})\b")
ASKED_DOWN = re.compile(rf"\b(less|{SAID_DOWN}|{MOVED_DOWN})\b")


def asked_direction(text: str) -> tuple[bool, bool]:
    """(up asked, down asked) of a question, read on its normalised form; both or neither means
    no one direction was asked ("up or down?", "has it changed?")."""
    t = normalise(text)
    return bool(ASKED_UP.search(t)), bool(ASKED_DOWN.search(t))


# "how much is my weight now?", "how high has her HbA1c gone?", "where is my cholesterol at?":
# a value of something measured, whatever the how-to mood ("how much is the parking?" is a
# price, for the leaflets)
_QUANTITY = re.compile(
    r"\bhow (much|high|low|heavy) (is|was|are|were|has|have|had|did)\b|"
    r"\bwhere (is|are|was|were|s) .{1,40} at( (now|right now|present|the moment|these days|today|currently))?$|"
    # round sixteen: "where does her cholesterol come in at right now?", "where does my a1c sit at the moment"
    r"\bwhere (does|do|did) .{1,40} (sit|sits|stand|stands|come in|come out|land|lands|end up) at\b"
)
_PRICE = re.compile(r"\b(cost|costs|pay|paid|charge\w*|price\w*|fees?)\b")
# a vaccine asked about as due or overdue ("what jabs am i due", "am i due a flu jab", "when is my
# next tetanus shot due"): an immunization question, never the appointment diary. The record holds
# the doses given, not a schedule of doses due, so the answer says so beside what was given.
VACCINE_WORDS = r"vaccin\w*|immuni[sz]\w*|imms?|immz|shots?|jabs?|boosters?|tetanus|tdap|flu shot"
VACCINE_DUE = re.compile(
    rf"\b(due|overdue|owed|next)\b.*\b({VACCINE_WORDS})\b|\b({VACCINE_WORDS})\b.*\b(due|overdue|owed)\b"
)


def asks_the_record(text: str, sections: Iterable[str]) -> bool:
    """Whether a normalised question in the how-to mood still asks the record: how much / how
    high a linked lab or vital is, what is taken for a linked condition ("what do I take
    for my sinusitis?"), or whether a linked medicine or allergen is something the patient
    must not have (the allergy list)."""
    linked = set(sections)
    if _QUANTITY.search(text) and not _PRICE.search(text) and "labs" in linked:
        return True
    if asks_what_to_avoid(text) and linked & {"allergies", "medications"}:
        return True  # "is aspirin something the patient is not allowed to have": the allergy list
    return bool(re.search(REASON_QUESTION, text)) and "conditions" in linked


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


# a summary of the whole record, not of one section ("hpi style overview", "summary of my health")
WHOLE_RECORD = re.compile(
    r"\b(summar\w*|overview|rundown|run down|recap|snapshot|synopsis)\b.{0,40}\b(my (health|record|chart|medical \w+)|"
    r"this patient|the patient|(her|his|their) (health|record|chart)|me)\b|\bhpi\b"
)

INTENTS: tuple[Intent, ...] = (
    Intent(
        "profile",
        "get_patient_profile",
        _rx(
            r"\b(who am i|my name|full name|date of birth|birth ?date|birth ?days?|born|dob|d\.o\.b|how old|age|years old|"
            r"checking (id|identity)|id check|(verify|confirm|check) (my |the patients |their |his |her )?(identity|id)|"
            r"down as|registered as|on file as|(am i|is this|is the patient|are they) \w+\d+|"
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
            r"medical history|dx|ddx|pmh|wrong with (me|them|him|her)|health issues?|medical issues?|"
            r"sick (with|from)|ill with|was i (sick|ill)|(got|had|caught) sick)\b",
            # a summary of the whole record: the planner turns it into problems, medicines and allergies
            WHOLE_RECORD.pattern,
            rf"\b(do i have|have i (ever )?had|was i diagnosed with|am i) .*\b({_CONDITION_WORDS})\b",
            rf"\b({_CONDITION_WORDS})\b",
        ),
        (
            "What health problems do I have?",
            "Do I have diabetes?",
            "What am I diagnosed with?",
            "Have I ever been diagnosed with asthma?",
            "Is hypertension on the patient's problem list?",
        ),
    ),
    Intent(
        "medications",
        "get_medications",
        _rx(
            r"\b(medications?|medicines?|meds|drugs?|prescri\w*|pills?|tablets?|inhalers?|insulin|rx|"
            r"given (for|to treat)|been given|treated (with|for)|treatments?|indications?|"
            r"(started|put) (me |them |him |her )?on)\b",
            REASON_QUESTION,
            r"\bam i (still |currently )?(on|taking)\b",
            r"\bwhat am i (on|taking)\b",
            rf"\b{_DRUG_SUFFIX}\b",
        ),
        (
            "What medicines do I take?",
            "Am I still on lisinopril?",
            "List my prescriptions",
            "Is she taking metformin?",
            "Am I on a statin?",
        ),
    ),
    Intent(
        "labs",
        "get_labs",
        _rx(
            r"\b(labs?|lab results?|test results?|blood (tests?|work)|bloods|results?|levels?|readings?|vitals?|"
            r"vital signs|measurements?|tests?|obs|observations?|check(ed)? (anything|something) on|(my|her|his|their) numbers|abnormals|"
            # round fifteen: "my latest figure of any kind", "when was anything last measured"
            r"figures?(?! out)|(anything|something)( at all)?( last)?( (was|were|been|got|being))? (measured|tested|taken|checked)|(measur\w*|test\w*) (anything|something)|"
            r"(reference|normal|usual) (range|limits?))\b",
            rf"\b({_MEASURE_WORDS})\b",
        ),
        (
            "What was my last cholesterol test?",
            "Show my blood test results",
            "How much do I weigh?",
            "What was my highest weight ever?",
            "Show the HbA1c trend since 2020",
        ),
    ),
    Intent(
        "allergies",
        "get_allergies",
        _rx(ALLERGY_WORDING),
        ("What am I allergic to?", "Do I have any allergies?"),
    ),
    Intent(
        "encounters",
        "get_encounters",
        _rx(
            r"\b(er|ed|a&e|a and e|casualty|attendances?|emergency|emergancy|inpatient|contacts? with (me|this|the|him|her|them))\b",
            # ("what does my weight come in at these days": a value said, not a visit; round sixteen)
            r"\b(visits?|encounters?|admissions?|admitted|hospital stays?|hospitali[sz]\w*|er trips?|"
            r"emergency (room |department )?visits?|when did i (last )?(see|visit|go)|last time i (saw|visited|went)|"
            r"was i seen|been seen|last (saw|seen|see)|in to see|(last|latest|most recent|previous) "
            r"(appointment|consultation|check.?up)|(go|come|came|went|gone|been) in\b(?! (the|a|an|my|hospital)\b)(?! at\b(?! (the|a|an|my|her|his|their)\b))|see (a|the) (doctor|gp|nurse)|"
            r"(appointments|encounters) (i|they|he|she|we)( ve| have)? had|contacts? with|(number of|how many|total|count of) "
            r"(appointments|encounters|visits)|encounter count|visit count)\b",
            # check-ups had (not the next one booked): "how many checkups since 2018", "first wellness exam"
            r"\b(how many|number of|count of|all|first|earliest|past|previous|list of|my) (?!next\b|upcoming\b)(\w+ )?"
            r"(check.?ups|physicals|wellness (exams?|visits?|checks?)|annual (exams?|physicals?))\b|"
            r"\b(first|earliest) (check.?up|physical|wellness (exam|visit|check))\b|\bwellness (exams?|visits?) (on record|since|in)\b",
        ),
        (
            "When was my last visit?",
            "Have I been to the emergency room?",
            "List my recent visits",
            "Any ED visits in recent years?",
            "How many times was the patient admitted?",
        ),
    ),
    Intent(
        "immunizations",
        "get_immunizations",
        _rx(rf"\b({VACCINE_WORDS})\b"),
        ("Which vaccines have I had?", "Am I up to date with my shots?", "When was my last flu jab?"),
    ),
    Intent(
        "procedures",
        "get_procedures",
        _rx(
            r"\b(procedures?|surger(y|ies)|surgical|operations?|operated|colonoscop\w*|biops\w*|x.?rays?|mri|ct scan|scans?|"
            r"echo|echocardiogra\w*|intubat\w*)\b"
        ),
        (
            "What procedures have I had?",
            "Have I had any surgery?",
            "When was my colonoscopy?",
            "When was my last MRI?",
        ),
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
            r"\b(my (upcoming |next |booked |scheduled |future )?(appointments?|appts?)|when is my (next )?appointment|"
            r"(next|upcoming) appts?|appts? (soon|booked|coming up)|(come|go) in next|"
            r"appointments? (do i have|booked|scheduled|coming up)|do i have (an |any )?appointments?|"
            r"(next|am i|are they|is she|is he) booked|booked in|anything (booked|coming up|scheduled)|"
            r"upcoming|next (appointment|visit|booking))\b",
            # "any future appointments?", "any appointments for me coming up?", "an appt soon"
            r"\b((any|future|forthcoming) (appointments?|appts?|bookings?)|(appointments?|appts?)\b.{0,25}"
            r"\b(coming up|soon|in the future|planned|ahead)|do i have (an |any )?appts?)\b",
            # round seven: "when am I due back in", "when do I next see the doctor", "when's my
            # follow-up", "next scheduled visit", "in the diary", "am I scheduled to come in"
            r"\b(due back( in)?|next (see|seeing|check ?up|review|follow[- ]?up)|when do i (next|see \w+( \w+)? next)|"
            r"when(s| is) (my |the )?(next )?follow[- ]?up|next follow[- ]?up|am i (scheduled|due)|(anything|visits?) scheduled|next scheduled|scheduled (to|for) "
            r"(come|see|a|an)|in the diary|diary)\b",
            # round fifteen: "any future visit", "anything reserved in my name", "when am i next
            # expected in" (a visit not yet had is an appointment, not an encounter)
            r"\b((future|forthcoming) (visits?|consultations?|check.?ups?)|reserved|"
            r"(next )?expected (in|at|back|to (attend|come|be seen))|expected in next)\b",
        ),
        ("When is my next appointment?", "What appointments do I have booked?"),
    ),
    Intent(
        "find_slots",
        "find_slots",
        _rx(
            r"\b(slots?|availability|available (times?|appointments?)|openings?|free times?)\b",
            r"\b(appointments?|times?) (are |is )?(still )?(free|available|open)\b",
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
            r"what (was|is|got) documented|wrote|written down)\b"
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
            SERVICE_QUESTION,
            r"^(what|who) (is|are) (an? )?(?!my\b|your\b|the patient|her\b|his\b|their\b|she\b|he\b)",
        ),
        (
            "What are the visiting hours?",
            "How do I prepare for a colonoscopy?",
            "What is HbA1c?",
            "Can my partner stay overnight on the ward?",
            "Do I need to fast before a blood test?",
            "What should I bring to my appointment?",
            "Is there wifi in the hospital?",
            "How do I get a copy of my medical records?",
            "Where is the pharmacy and when is it open?",
            "How do I make a complaint?",
            "Can I eat before my operation?",
            "Where can I park?",
        ),
        record=False,
    ),
)
INTENT_BY_NAME = {i.name: i for i in INTENTS}

# questions about how things work here, whoever asks them: always the leaflets
_GENERAL_INFO = re.compile(
    r"\b(leaflets?|how (do|should|can) i prepare|prepare for|visiting hours|parking|where (can|do|should) i park|"
    r"car parks?|getting (here|there|to the hospital)|opening hours|side effects?|"
    r"information (about|on))\b|" + SERVICE_QUESTION
)
_PERSONAL = re.compile(
    r"\b(my|me|i|im|am i|mine|do i|have i|was i|the patient|patient s|pt|their|they|them|his|her|he|she|him)\b"
)

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
        "whats",
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
        # greetings, thanks and laughter beside a request are no topic (round eighteen: "hola!
        # ¿tengo alergias?" said "I could not match 'hola'")
        "hi",
        "hello",
        "hey",
        "hola",
        "thanks",
        "thank",
        "thx",
        "cheers",
        "lol",
        "haha",
        "pls",
        "plz",
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
        "nkda",  # clinicians' "no known drug allergies?": the allergy section, no concept
        "nka",
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
        "figure",
        "figures",
    ]
)


def _tokens(text: str) -> list[str]:
    return normalise(text).split()


def _clean(text: str) -> str:
    return normalise(text)


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


_LEAFLET_ASK = re.compile(
    r"^\s*(is there|are there|do (we|you) have|have (we|you) got|can i (get|have|see)|got)( an?| any)?"
    r"( hospital| patient)?( information)? (leaflets?|booklets?|information|info)( (sheets?|leaflets?))?"
    r"( (about|on|for|regarding|covering))?\s+",
    re.I,
)


def leaflet_query(question: str) -> str:
    """What to search the leaflets for: the topic, without "is there a hospital leaflet about"
    (words every leaflet matches, which would let any passage through the relevance gate)."""
    stripped = _LEAFLET_ASK.sub("", question, count=1).strip()
    return stripped or question


def notes_query(question: str) -> str:
    """What to search the notes for: the asked-about words, routed to Social History for life facts."""
    words = content_words(question, keep_measures=True) or question
    if _SOCIAL_TOPICS.search(_clean(question)):
        return f"social history {words}"
    return words


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
    # a blood pressure check is a GP's, not a blood test's
    "blood pressure": "general practice",
    "bp": "general practice",
    "hypertension": "general practice",
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


# notes the asker keeps themselves ("I have been trying to keep my own notes in order", "I'm taking
# notes for Mum"): their notebook, not the record's clinical notes (round seventeen: paraphrase
# frozen13 searched the last visit's notes and left "is X recorded as a current condition" unanswered)
ASKERS_OWN_NOTES = re.compile(
    r"\b(?:my|our) own notes?\b|\b(?:my|our) (?:personal|private) notes?\b|"
    r"\b(?:i|we|im|ive|i am|i have|i have been|ive been|we have been|weve been)(?: \w+){0,3} "
    r"(?:keep|keeping|kept|take|taking|took|make|making|made|jot|jotting|jotted)(?: down)?"
    r"(?: (?:my|our|some|a few|the))? notes?\b|\bnotes? (?:i|we) (?:keep|kept|take|took|make|made)\b|"
    # the asker's own doing said with no subject: "taking notes here - does she have X?"
    r"^(?:(?:just|sorry|ok|okay|hi)\W+)*(?:taking|making|jotting|keeping)(?: down)?(?: (?:some|a few|my))? notes?\b"
)


def keyword_scores(question: str) -> dict[str, int]:
    """{intent: patterns matched} of a question; the notes the asker keeps are no section."""
    text = ASKERS_OWN_NOTES.sub(" ", _clean(question))
    scores = {}
    for intent in INTENTS:
        hits = sum(1 for p in intent.patterns if p.search(text))
        if hits:
            scores[intent.name] = hits
    return scores
