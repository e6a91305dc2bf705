"""The typed request one question becomes: operation, time window, follow-up reference.

Sections come from the intent patterns (`parse.keyword_scores`) and from the linked
concepts (`link`); this module reads what is asked OF them.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from agent.offline.parse import MOVED_DOWN, MOVED_UP, VACCINE_DUE
from agent.offline.windows import Event, Window, read_event, read_window
from agent.text import normalise

# a visit or appointment said as the question's occasion, not asked about: "before my appointment
# tomorrow, what's my newest weight", "ahead of her check-up next week - is she still on X?" (round
# sixteen: the diary's "No: your record has no upcoming appointments booked" led over the value,
# medicine or allergy asked about, paraphrase frozen12's confident false negatives). Its time words
# are the occasion's too ("later today" is no period to search for a weight).
APPOINTMENT_AS_CONTEXT = re.compile(
    r"\b(before|ahead of|prior to|in time for|for) (my|her|his|their|the|this|our|an?|tomorrows|todays) "
    r"((gp|gps|doctors?|drs?|nurses?|hospital|clinic|follow.?up|next|upcoming|annual|yearly|routine|review) )?"
    r"(appointment|appt|visit|check.?up|consultation|review)s?\b"
    r"( (tomorrow|today|tonight|later( today| on)?|this (morning|afternoon|evening|week)|next (week|month)|"
    r"(on |this |next )?(mon|tues|wednes|thurs|fri|satur|sun)day))*"
)

# "the top number (ever) for my weight", "top number on record for her a1c": the highest of the
# measure named, not "the top number" that is the systolic pressure (round sixteen, frozen12)
TOP_NUMBER_OF = (
    r"top numbers? ((ever|recorded|on record|so far|of all time) )?(for|of|on) (my|her|his|their|the patient s|the)\b"
    r"(?! ((blood )?pressure|bp|readings?|values?|numbers?|last|latest|most recent|newest|recent|current|previous|chart|file|record)\b)"
)

# operation → its wording, checked in this order (the first that matches wins)
OPERATIONS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern))
    for name, pattern in (
        ("due", VACCINE_DUE.pattern),  # a vaccine due: read before "overdue" as older than a year
        (
            "conflict",
            r"\b(contraindicat\w*|conflicts?|clash\w*|safe with (my|her|his|their) allerg\w*|drug.?allergy|allergy.?drug|interact\w* with (my|her|his) allerg\w*|on anything .{0,25}allergic|allergic to any of|"
            r"(meds|medicines|medications|tablets|pills|prescriptions) .{0,30}(contain|problem with|set off|trigger) .{0,30}allerg\w*|"
            r"allergy check on (my |the |her |his |their )?(current )?(meds|medicines|medications|prescriptions))\b",
        ),
        (
            "older_than_year",
            r"\b(older than (a|one|1) ?(year|yr|y)|more than (a|one|1) year (old|ago)|over (a|one|1) year (old|ago)|out of date|overdue|"
            r"(more|over|longer) than (a|one|1) year since|been (a|one|1) year since|over (a|one|1) year since)\b|"
            # a year said as twelve months: "more than 12 months ago", ">12 months", "over twelve months old"
            # (a bare "over 12 months" is a span, "wt change over 12 months"; "over 12 months ago" is old)
            r"(\b(older|more|over|longer) than |>\s*)(12|twelve) months?\b|\bover (12|twelve) months? (ago|old)\b|"
            r"\b(12|twelve) months? (old|passed|since)\b",
        ),
        (
            # (a record high is the extreme, not the range: "A1C - all-time high?", "record low hr?")
            "range",
            r"\b(normal|abnormal\w*|abnl|out-of-range|(are|is|were|was) off|(?<!all time )(?<!all-time )(?<!alltime )(?<!record )(?<!at its )(?<!at their )(high|low|elevated|raised)\?*$|reference range|in range|out of range|within range|above range|below range|flagged|been off|normal limits?|outside (the )?(normal )?range|healthy|too (high|low)|above (the )?(normal|reference)|below (the )?(normal|reference)|"
            # the range in other words: "over the limit", "higher than it should be", "on the high side"
            r"exceed\w* (the )?(normal|range|limit|reference|upper)|beyond (the )?(usual |normal |reference |healthy )?(limits?|range)|(usual|normal) limits|(over|above|under|below) the (upper |lower )?limit|"
            r"(higher|lower) than (it |they )?(should|ought to) be|(higher|lower) than (normal|expected)|on the (high|low) side|"
            # "is that ok?", not the "ok," a run-on question opens with ("ok random question but …")
            r"(is|are|was|were|looks?|seems?|it s|its|that s|thats|it|that|this) (ok|okay)|(ok|okay)\W*$)\b",
        ),
        (
            "max",
            r"\b(highest|maximum|max|peak|heaviest|most ever|worst|how high|biggest|largest|greatest|topmost|uppermost|"
            r"the top(?! numbers?\b)|top(?! numbers?\b)( \w+)? (reading|value|result|number|level|score|measurement)s?|(record|all.?time) high|at (its|their) high|"
            # "my top weight", "what's my record weight", "the most I've ever weighed", "what was the most?"
            # ("the top number" is the systolic pressure, not its maximum)
            r"(my|her|his|their|a) top (?!numbers?\b)\w+|record (high|weight|reading|value|level|result|number)|"
            # "the top number ever for my weight": the top of a measure named, not the systolic idiom
            rf"{TOP_NUMBER_OF}|"
            r"the most (?!recent|common|often|frequent|important|likely)\w*)\b",
        ),
        (
            "min",
            r"\b(lowest|minimum|min|lightest|best reading|nadir|how low|smallest|(record|all.?time) low|at (its|their) low)\b",
        ),
        # "mean" as the average, not the "I mean" / "you mean" of a run-on sentence
        ("mean", r"\b(averag\w*|avg|(?<!\bi )(?<!\byou )mean|typical(ly)?)\b"),
        (
            "change",
            r"\b((better|worse|higher|lower) than (last time|before|the last one|the previous one|previously)|change[ds]?|gone (up|down)|went (up|down)|go (up|down)|going (up|down)|(crept|creeping|creep|edged|edging|come|came|coming) (up|down)|(up|down) (over|since|across|during|vs|versus)|jump\w*|climb\w*|delta|gap (between|in)|(two|2) newest|newest (two|2)|the one before|(vs|versus|compared to|against|relative to) (the )?(prior|preceding)|up or down|last two|two most recent|two latest|(up|down|higher|lower|above|below) (on|from|than|the) (the |my )?(previous|last|prior|preceding|one before|one preceding)|increase[ds]?|decrease[ds]?|risen|rise|fallen|dropped|difference|by how much|compared (with|to)|since the (last|previous) (one|time|measurement|reading|test)|since (the )?(last|previous)( (one|reading|result|test|measurement|value|time))?$)\b"
            # "how has it changed over time / over the years" is the whole series (a trend), not
            # the change since the previous value (round fifteen: "How has my LDL changed over
            # time?" led "Yes: … went down by 2.3" from the previous result while 82.7 → 96.8 rose)
            r"(?! (over|through|across) (time|the years))"
            # a pronoun asked whether it moved ("did it dip?", "has it risen?", "did they drop?"):
            # the change since the one before, in the verbs `parse.MOVED_UP` / `MOVED_DOWN` hold
            rf"|^(so |and |ok )?(did|has|have|is|are|was|were) (it|they|that|this|those|these) (\w+ )?({MOVED_UP}|{MOVED_DOWN})\b",
        ),
        (
            # the value before the newest: "my previous a1c", "before it was last checked", "the
            # time before", "two readings ago" (after "change": "compared to the one before" compares)
            "previous",
            r"\b(previous|prior|preceding|before (it was |they were )?(last|latest)|before (the|my|its) (last|latest|most recent|newest)|"
            r"the (time|one|reading|result|test|value|check|measurement) before|"
            r"(\d|one|two|three|four|five) (readings?|results?|tests?|times?|checks?|measurements?|values?) ago|"
            r"second (newest|latest|most recent|to last|last))\b",
        ),
        (
            "trend",
            # "have I been gaining weight", "is her renal function declining", "going the right way"
            r"\b(trend\w*|gain(ed|ing)?( weight)?|los(ing|t) weight|losing|put(ting)? on weight|declin(e|es|ing)|"
            r"(going|heading|moving) (in )?the (right|wrong) (way|direction)|getting (heavier|lighter|thinner|bigger)|been doing|doing over time|over time|(over|through|across) the years|progress\w*|graph|chart of|series|trajectory|direction|getting (better|worse)|improv\w*|worsen\w*|history of (my|her|his) \w+ (results?|readings?|values?|levels?)|since (19|20)\d\d)\b",
        ),
        (
            "count",
            r"\b(how many|number of|count of|total (number|count)|in total|(encounter|visit|appointment|measurement|result|test|reading)s? count|how often|times)\b"
            r"|^(count|tally|#)\s|^(please |can you )?count (my|the|all|his|her|their)\b|^# ?\w",
        ),
        ("summary", r"\b(summari[sz]e|summary|overview|recap|tell me about (my|her|his|the) last)\b"),
        (
            "earliest",
            # "how long have I had …" / "since when …": asked as the first date; "my oldest a1c", "the
            # original reading", "what did it start out at": the first value (round fifteen)
            # ("my first language", "first of all" are no first value: paraphrase frozen14's "English
            # is not my first language, sorry. In the record, is written that I have X?")
            r"\b(first(?! (language|of all)\b)|earliest|oldest|initial|very first|original(ly)?|baseline|start(ed)? (on|taking|using)|"
            r"(start|started|starts) (out|off) (at|as)|at the (very )?(start|beginning)|"
            r"how long (have|has) (i|you|she|he|they|the patient)|since when)\b",
        ),
        # "when", and shorthand that ends on the date asked for ("Hep A imm date?"; not "up to date")
        (
            "when",
            r"^(when|what date|which date|on what day)\b|\bwhen (was|did|were)\b|(?<!to )\b(date|dated|dt)\W*$",
        ),
        (
            "latest",
            r"\b(latest|last|most recent(ly)?|newest|current(ly)?|right now|now|today|at the moment|these days|still|recent)\b",
        ),
        (
            "exists",
            r"^(am|is|are|do|does|did|has|have|was|were|any|ever|is there|are there|hx of|h/o)\b|\b(ever|any)\b",
        ),
    )
)
FOLLOW_UP = re.compile(
    r"^(and |what about |how about )|\b(that|this|it|those|these|them|the same)( one| result| value| reading| test)?\b"
    r"(?! (year|month|week|morning|afternoon|evening|spring|summer|autumn|fall|winter|time)\b)|"
    r"\b(the (first|second|last|previous|latest|newest|oldest) one|which one|which of (them|those|these))\b|"
    r"^(what|which) is the (latest|newest|most recent|first|earliest|last) (value|result|reading|one)\b|"
    r"\bbefore (that|last|the last( one)?)$|\bthe (one|reading|result|time|value) before\b"
)
FOLLOW_UP_MAX_WORDS = 12
# number words people write for small counts ("two readings ago", "the last three notes")
NUMBER_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}
_AGO = re.compile(
    r"\b(\d|one|two|three|four|five) (readings?|results?|tests?|times?|checks?|measurements?|values?) ago\b"
)


# "the mean of my last 5 readings", "BP at the last 3 visits": that many newest values (values or
# visits counted, never a span of time: "the last 5 years" is a window)
_NEWEST_N = re.compile(
    r"\b(?:last|latest|past|previous|most recent|newest) (\d+|two|three|four|five|six|seven|eight|nine|ten) "
    r"(?:\w+ )?(?:readings?|results?|values?|measurements?|checks?|tests?|visits?|encounters?|appointments?|sets?)\b"
)


def newest_count(text: str) -> int | None:
    """N when the question asks about the newest N values ("last 5 readings"), else None."""
    m = _NEWEST_N.search(text)
    if m is None:
        return None
    word = m.group(1)
    return int(word) if word.isdigit() else NUMBER_WORDS[word]


def previous_offset(text: str) -> int:
    """How many results before the newest the "previous" operation asks for: "two readings ago"
    is 2, every other wording ("the one before", "my previous a1c") is 1."""
    m = _AGO.search(text)
    if not m:
        return 1
    word = m.group(1)
    return max(1, int(word) if word.isdigit() else NUMBER_WORDS[word])


# a value to compare results with: "ever over 200", "a1c above 6.5", "potassium under 3.5", "> 140";
# never a span of time or a count ("over the past 5 years", "over 2 years", "more than 3 times")
THRESHOLD = re.compile(
    r"(?:\b(over|above|greater than|more than|higher than|exceed(?:s|ed|ing)?|under|below|less than|lower than)\s+|([<>])\s*)"
    r"(\d+(?:\.\d+)?)"
    r"(?![\d/.:]|\s*(?:years?|yrs?|months?|mos?|weeks?|wks?|days?|hours?|hrs?|minutes?|mins?|times?|x\b|am\b|pm\b|visits?|doses?|pills?|tablets?|of\b))"
)
_BELOW_WORDS = ("under", "below", "less than", "lower than", "<")


def threshold_of(text: str) -> tuple[str, float] | None:
    """(">" | "<", the number) when the question compares results with a value it names."""
    m = THRESHOLD.search(text)
    if m is None:
        return None
    word = m.group(1) or m.group(2)
    return ("<" if word in _BELOW_WORDS else ">", float(m.group(3)))


# the first or newest ROW of a section, no thing named: "the very first medicine they put me on",
# "the most recent thing they diagnosed me with", "my first surgery" ("my latest med list" is the list)
_ROW_NOUNS = (
    r"(prescriptions?|medications?|medicines?|meds|rx|pills?|tablets?|drugs?|diagnos\w*|dx|conditions?|illness\w*|"
    r"procedures?|surger(y|ies)|operations?|vaccines?|vaccinations?|shots?|jabs?|immuni[sz]ations?)"
)
# up to three words between ("the newest thing i've been diagnosed with"), never "the last time …"
_BETWEEN = r"( (?!time\b)\w+){0,3}"
_FIRST_ROW = re.compile(rf"\b(first|earliest|oldest){_BETWEEN} {_ROW_NOUNS}\b(?! (list|history)\b)")
_NEWEST_ROW = re.compile(
    rf"\b(newest|most recent|latest|last){_BETWEEN} {_ROW_NOUNS}\b(?! (list|history|review)\b)"
)


def row_ordinal(text: str) -> str | None:
    """ "earliest" | "last" when the question asks for a section's first or newest row."""
    if _FIRST_ROW.search(text):
        return "earliest"
    if _NEWEST_ROW.search(text):
        return "last"
    return None


HISTORY_WORDS = re.compile(
    r"\b(ever|all|every|history|previous\w*|past|stopped|used to|former\w*|old|resolved|had|before|prescribed|"
    r"over the years|incl|including|inactive|h/o|hx|pmh|at some point)\b"
)


@dataclass(frozen=True)
class Request:
    text: str  # normalised question
    operation: str  # one of OPERATIONS' names, or "list"
    window: Window | None
    history: bool  # asks about the past too ("ever", "all", "stopped")
    follow_up: bool  # leans on the previous answer ("is that normal?", "and the first one?")
    today: dt.date = dt.date(1970, 1, 1)
    threshold: tuple[str, float] | None = None  # "ever over 200": (">", 200.0)
    newest: int | None = None  # "the last 5 readings": the newest N values only
    event: Event | None = None  # "since starting metformin": a period counted from a dated event


def operation_of(text: str) -> str:
    for name, pattern in OPERATIONS:
        if pattern.search(text):
            return name
    return "list"


# "ldl >12 months ago?", "weight > 1 year ago": the ">" the normaliser drops says "more than"
OLDER_SHORTHAND = re.compile(r">\s*(?:(?:a|one|1)\s*(?:years?|yrs?|y)|(?:12|twelve)\s*(?:months?|mos?|m))\b")


def read_request(question: str, today: dt.date) -> Request:
    text = normalise(question)
    occasion = APPOINTMENT_AS_CONTEXT.search(text)
    window = read_window(text.replace(occasion.group(0), " ") if occasion else question, today)
    event = read_event(question) if window is None else None
    if operation_of(text) == "older_than_year" or OLDER_SHORTHAND.search(question.lower()):
        # "more than a year ago" is the question's test, not a period to search
        operation, window = "older_than_year", None
    else:
        # the window's own words say when, not what: the "last" of "in the last 30 days" is no "latest"
        # (nor is the "started" of "since I started taking metformin" a first date)
        said = window.said if window is not None else event.said if event is not None else None
        asked = text.replace(said, " ") if said and said in text else text
        operation = operation_of(asked)
    if window is not None and window.soft and operation == "latest":
        window = None  # "my weight most recently?", "what was it recently?": the newest, wherever it falls
    return Request(
        text=text,
        operation=operation,
        window=window,
        history=bool(HISTORY_WORDS.search(text)),
        follow_up=bool(FOLLOW_UP.search(text)) and len(text.split()) <= FOLLOW_UP_MAX_WORDS,
        today=today,
        threshold=threshold_of(question.lower()),  # the raw words: normalising drops ">"
        newest=newest_count(text),
        event=event,
    )
