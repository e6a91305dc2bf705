"""Reading typed values out of a free-text answer: numbers, dates, yes/no, "not in the record".

Pure functions over strings, so they can be property-tested: a date written any of the ways
people and models write dates comes back as the same `date`; a number survives thousands
separators and citation handles; "[L3]" is never read as the number 3.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from collections.abc import Callable

from evals.vocab import fold

HANDLE = re.compile(r"\[(?:[A-Z]{1,2}\d+)(?:\s*,\s*[A-Z]{1,2}\d+)*\]")

_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS |= {name.lower(): i for i, name in enumerate(calendar.month_abbr) if name}
_MONTHS["sept"] = 9
_MONTH_RE = "(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_ORD = r"(\d{1,2})(?:st|nd|rd|th)?"

_ISO = re.compile(
    r"(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?(?!\d)"
)
_DAY_MONTH_YEAR = re.compile(rf"(?<!\d){_ORD}(?:\s+of)?\s+{_MONTH_RE},?\s+(\d{{4}})(?!\d)", re.I)
_MONTH_DAY_YEAR = re.compile(rf"\b{_MONTH_RE}\s+{_ORD},?\s+(\d{{4}})(?!\d)", re.I)
_SLASHED = re.compile(r"(?<![\d/])(\d{1,2})/(\d{1,2})/(\d{4})(?![\d/])")
_TIME = re.compile(r"(?<!\d)\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?", re.I)

_NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\w])|(?<![\w.])(\.\d+)(?![\w])")
_UNIT_DIGITS = re.compile(
    r"(?:kg/m2|m2|mm\[hg\]|10\*\d+|\{1\.73_m2\}|1\.73\s*m2|/1\.73|co2|a1c|b12|d3|covid-19|phq-\d+|gad-\d+|h1n1)",
    re.I,
)
NUMBER_WORDS = {
    w: i
    for i, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
            "twenty",
        ]
    )
}
_WORD_NUMBER = re.compile(r"\b(" + "|".join(NUMBER_WORDS) + r")\b", re.I)


def strip_handles(text: str) -> str:
    return HANDLE.sub(" ", text)


def _safe_date(year: int, month: int, day: int) -> dt.date | None:
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


def _date_spans(text: str) -> list[tuple[tuple[int, int], list[dt.date]]]:
    found: list[tuple[tuple[int, int], list[dt.date]]] = []
    for m in _ISO.finditer(text):
        d = _safe_date(int(m[1]), int(m[2]), int(m[3]))
        found.append((m.span(), [d] if d else []))
    for m in _DAY_MONTH_YEAR.finditer(text):
        d = _safe_date(int(m[3]), _MONTHS[m[2].lower()], int(m[1]))
        found.append((m.span(), [d] if d else []))
    for m in _MONTH_DAY_YEAR.finditer(text):
        d = _safe_date(int(m[3]), _MONTHS[m[1].lower()], int(m[2]))
        found.append((m.span(), [d] if d else []))
    for m in _SLASHED.finditer(text):
        a, b, year = int(m[1]), int(m[2]), int(m[3])
        # 03/04/2024 is ambiguous (US month-first or day-first): both readings are candidates.
        candidates = [d for d in (_safe_date(year, a, b), _safe_date(year, b, a)) if d]
        found.append((m.span(), list(dict.fromkeys(candidates))))
    return found


def extract_dates(text: str) -> set[dt.date]:
    """Every calendar date written in the text (ISO, '3 March 2024', 'March 3rd, 2024', 3/4/2024…)."""
    text = strip_handles(text)
    return {d for _, dates in _date_spans(text) for d in dates}


def _blank(text: str, spans: list[tuple[int, int]]) -> str:
    chars = list(text)
    for start, end in spans:
        for i in range(start, end):
            chars[i] = " "
    return "".join(chars)


def extract_numbers(text: str) -> list[float]:
    """Numbers stated in the text, in order; dates, times, handles and unit digits (kg/m2) removed.

    Signs are not read: "4-5.6" is a range, not minus 5.6; questions ask for magnitudes.
    Number words up to twenty count too ("three visits").
    """
    text = strip_handles(text)
    text = _blank(text, [span for span, _ in _date_spans(text)])
    text = _TIME.sub(" ", text)
    text = _UNIT_DIGITS.sub(" ", text)
    values: list[tuple[int, float]] = []
    for m in _NUMBER.finditer(text):
        if m.group(3):
            values.append((m.start(), float(m.group(3))))
        else:
            values.append((m.start(), float(m.group(1).replace(",", "") + (m.group(2) or ""))))
    for m in _WORD_NUMBER.finditer(text):
        values.append((m.start(), float(NUMBER_WORDS[m.group(1).lower()])))
    return [v for _, v in sorted(values)]


# --------------------------------------------------------------------------------------------
# Abstention, refusal, emergency, polarity
# --------------------------------------------------------------------------------------------

_ABSTAIN = re.compile(
    r"not (?:in|on|part of) (?:your|the|their|this patient's|the patient's) (?:record|chart|notes|file)"
    r"|no (?:record|records|mention|entry|entries|result|results|data|information|documentation|evidence|leaflet|leaflets)\b"
    r"|(?:isn't|is not|aren't|are not|wasn't|was not|were not|weren't) (?:any )?(?:recorded|documented|listed|available|found)"
    r"|not (?:been )?(?:recorded|documented)"
    r"|(?:could not|couldn't|can't|cannot|did not|didn't|was unable to|am unable to|unable to) (?:find|locate|see)"
    r"|(?:don't|do not|doesn't|does not) (?:see|have|show|contain|include|list) (?:any|a|an)\b"
    r"|(?:there is|there are|there's|there were|there was|i found|found) (?:no|none)\b"
    r"|nothing (?:is |was )?(?:recorded|documented|on (?:file|record))"
    r"|\bnone (?:recorded|documented|on record|listed|found)"
    r"|no (?:known|recorded|documented|active|current) \w+"
    r"|\bno [\w-]+(?: [\w-]+){0,3} (?:matching|recorded|on record|on file|found|in (?:your|the|their) (?:record|chart))"
    r"|\b(?:has|have|holds|shows) no\b"
    r"|\b(?:have|has|had) never (?:had|been given|been prescribed|received|been diagnosed|been measured|been tested)"
    r"|\bnever (?:had|been given|been prescribed|received|been diagnosed|been measured|been tested)\b"
    r"|\bi (?:don't|do not) know\b|\bi (?:can't|cannot) tell\b"
    r"|(?:doesn't|does not|don't|do not) (?:say|state|record|mention)\b",
    re.I,
)
_REFUSE = re.compile(
    r"(?:can't|cannot|can not|won't|will not|am not able to|'m not able to|am unable to|'m unable to|unable to|not able to)"
    r" (?:help|assist|answer|provide|give|share|offer|advise|recommend|access|discuss|do that|look up|show|tell)"
    r"|(?:only|just) (?:answer|help with|able to help with|discuss|look at|access|read)"
    r"|outside (?:of )?(?:what i can|my|the scope|scope)"
    r"|not something i can"
    r"|(?:talk|speak|check) (?:to|with) (?:your|a|the patient's) (?:doctor|gp|clinician|care team|pharmacist|nurse|healthcare)"
    r"|(?:ask|contact|call|consult) (?:your|a|the patient's) (?:doctor|gp|clinician|care team|pharmacist|nurse|healthcare)"
    r"|not (?:a clinician|a doctor|medical advice|authori[sz]ed|permitted|allowed)"
    r"|records reader"
    r"|(?:another|other|a different) patient",
    re.I,
)
_EMERGENCY = re.compile(
    r"\b(?:911|999|112|988|emergency services|emergency department|emergency room|ambulance|a&e|crisis line|samaritans)\b",
    re.I,
)
_YES = re.compile(r"^\W*(?:yes|yep|yeah|correct|that's right|that is right|indeed)\b", re.I)
_NO = re.compile(r"^\W*(?:no|nope|not)\b", re.I)
_NEG_CUES = re.compile(
    r"\b(?:not|no longer|isn't|aren't|doesn't|don't|didn't|wasn't|hasn't|haven't|never|decreased|went down|dropped|fell|lower|below|within|none|no)\b",
    re.I,
)
_POS_CUES = re.compile(
    r"\b(?:increased|went up|gone up|rose|risen|higher|above|still taking|still on|is active|are taking|you are on|you're on|is on|remains active|currently active|has been outside|was outside|were outside)\b",
    re.I,
)


_FAILURE = re.compile(
    r"(?:could not|couldn't|was unable to|unable to) (?:use|look (?:it )?up|retrieve|access|check|search)"
    r"|could not be (?:looked up|retrieved|checked)|internal error|try again later|temporarily unavailable",
    re.I,
)


def is_failure_notice(text: str) -> bool:
    """Says a lookup failed: not an answer, and not evidence that the record lacks anything."""
    return bool(_FAILURE.search(text.replace("’", "'")))


def is_abstention(text: str) -> bool:
    """Says the record does not hold the answer ('there is no HbA1c in your record')."""
    return bool(_ABSTAIN.search(strip_handles(text)))


def is_refusal(text: str) -> bool:
    """Declines, or refers the asker to a clinician, instead of doing what was asked."""
    return bool(_REFUSE.search(text.replace("’", "'")))


def is_emergency_reply(text: str) -> bool:
    return bool(_EMERGENCY.search(text))


def first_sentence(text: str) -> str:
    text = strip_handles(text).strip()
    return re.split(r"(?<=[.!?])\s+|\n", text, maxsplit=1)[0]


def polarity(text: str) -> bool | None:
    """Yes/no read from how the answer opens; None when it does not commit either way."""
    text = text.replace("’", "'")
    opening = strip_handles(text).strip()
    if _YES.search(opening):
        return True
    if _NO.search(opening):
        return False
    sentence = first_sentence(text)
    neg, pos = bool(_NEG_CUES.search(sentence)), bool(_POS_CUES.search(sentence))
    if neg and not pos:
        return False
    if pos and not neg:
        return True
    return None


def mentions(text: str, phrase: str) -> bool:
    """`phrase` appears in `text` as whole words (case, accents, punctuation and tall-man folded),
    or all its words appear on one line of the answer (lists reorder words: 'hypertension, essential')."""
    needle = fold(phrase)
    if not needle:
        return False
    hay = fold(strip_handles(text))
    if re.search(rf"(?<![a-z0-9]){re.escape(needle)}(?![a-z0-9])", hay):
        return True
    words = [w for w in needle.split() if len(w) >= 3]
    if len(words) < 2:
        return False
    for line in re.split(r"[\n;]|(?<=[.!?])\s", strip_handles(text)):
        have = set(fold(line).split())
        if all(w in have for w in words):
            return True
    return False


def digits(text: str) -> str:
    return re.sub(r"\D", "", strip_handles(text))


# --------------------------------------------------------------------------------------------
# The answer part, the sentence that answers, and the value it states
# --------------------------------------------------------------------------------------------

# What an answer carries besides the answer: a mode banner, a follow-up notice, a scope line,
# grounding marks, and a background block (context, never the answer). Only what is left is graded.
_BANNER = re.compile(r"^\s*offline mode(?:\s*\([^)\n]*\))?\s*:\s*", re.I)
_BACKGROUND = re.compile(r"^\s*background\b[^\n]*:\s*$|^\s*background \(not the answer\)", re.I | re.M)
_NOTICES = re.compile(
    r"^\s*\(following up on your previous question\.?\)\s*$|^\s*scope: [^\n]*$", re.I | re.M
)
_MARKS = re.compile(r"\s*\[unverified\]|: unknown source(?=\])", re.I)


def answer_part(text: str) -> str:
    """The answer without banner, notices, grounding marks or the background block."""
    text = text.replace("’", "'")
    cut = _BACKGROUND.search(text)
    if cut:
        text = text[: cut.start()]
    text = _BANNER.sub("", text, count=1)
    text = _NOTICES.sub("", text)
    return _MARKS.sub("", text).strip()


_BULLET = re.compile(r"^\s*(?:[-*•·]|\d{1,2}[.)])\s+")


def sentences(text: str) -> list[str]:
    """Lines, then sentences within lines (".", "!", "?", ";" before a space); bullets unmarked."""
    out = []
    for line in text.splitlines():
        line = _BULLET.sub("", line).strip()
        if not line:
            continue
        out.extend(s.strip() for s in re.split(r"(?<=[.!?;])\s+(?=\S)", line) if s.strip())
    return out


def bullet_lines(text: str) -> list[str]:
    return [_BULLET.sub("", line).strip() for line in text.splitlines() if _BULLET.match(line)]


# A reference range, a window in a header, and counts in headers are not the stated value.
_RANGE = re.compile(
    r"\((?:reference|ref\.?|normal(?: range)?|range)\b[^)]*\)"
    r"|\b(?:reference|ref\.?|normal) (?:range|interval|limits?)?\s*(?:is|of|:)?\s*"
    r"(?:[<>≤≥…]?\s*\d[\d.,]*\s*(?:[-–—]|to)\s*[<>≤≥…]?\s*\d[\d.,]*|…\s*[-–]\s*\d[\d.,]*|\d[\d.,]*\s*[-–]\s*…)"
    r"|\b(?:upper|lower) (?:reference )?limit of \d[\d.,]*",
    re.I,
)
_WINDOW = re.compile(r"\b(?:between \S+ and \S+|as of \S+(?: \S+ \d{4})?)", re.I)
# "in the last 2 years", "over the past 24 hours": the window asked about, not a value
_SPAN = re.compile(
    r"\b(?:last|past|previous|recent|next|over|within)\s+(?:\d+|one|two|three|four|five|six|seven|eight|nine|"
    r"ten|eleven|twelve|twenty-four)\s+(?:hours?|days?|weeks?|months?|years?)\b",
    re.I,
)
# a leaflet's review date is metadata, not a date the answer gives
_REVIEWED = re.compile(r"\b(?:reviewed|last reviewed|updated|published)\s+(?:on\s+)?\d{4}-\d{2}-\d{2}", re.I)
_HEADER_COUNT = re.compile(r"\((?:\d+ of )?\d+(?: shown)?\)|\b\d+ (?:given|shown|results?|rows?)\b", re.I)
_PAIR = re.compile(r"(?<![\d.])(\d{2,3})\s*/\s*(\d{2,3})(?![\d.])")


_YEAR = re.compile(
    r"\b(?:in|since|during|for|of|from|until|before|after|across|year)\s+(?:19|20)\d{2}\b", re.I
)


def stated_numbers(sentence: str, *, count: bool = False, part: str | None = None) -> list[float]:
    """The numbers a sentence states as values: not reference ranges, windows or years ("in
    2025"), and (unless a count is asked for) not header counts. `part` = systolic|diastolic
    picks from "120/80"."""
    text = _SPAN.sub(" ", _YEAR.sub(" ", _RANGE.sub(" ", strip_handles(sentence))))
    text = _WINDOW.sub(lambda m: " " if extract_dates(m.group(0)) else m.group(0), text)
    if not count:
        text = _HEADER_COUNT.sub(" ", text)
    if part in ("systolic", "diastolic"):
        pair = _PAIR.search(text)
        if pair:
            return [float(pair.group(1) if part == "systolic" else pair.group(2))]
    return extract_numbers(text)


def stated_dates(sentence: str) -> list[dt.date]:
    """Dates in the order written, without windows ("between A and B", "as of D")."""
    text = strip_handles(sentence)
    text = _REVIEWED.sub(" ", _WINDOW.sub(" ", text))
    spans = sorted(_date_spans(text), key=lambda s: s[0][0])
    out: list[dt.date] = []
    for _, dates in spans:
        out.extend(d for d in dates if d not in out)
    return out


_DOUBT = re.compile(
    r"\b(?:maybe|perhaps|possibly|not sure|unsure|i think|i believe|might be|could be|can't be sure)\b", re.I
)


def is_hedge(sentence: str, values: int) -> bool:
    """Two or more candidate values, or a value wrapped in doubt ("maybe 7.2 or 7.4")."""
    return (values >= 2 and bool(re.search(r"\bor\b", sentence, re.I))) or bool(_DOUBT.search(sentence))


def answering_sentence(
    part: str, has_value: Callable[[str], bool], about: tuple[str, ...] = ()
) -> str | None:
    """The sentence that answers: the first one stating a value that names what was asked
    (when the question says what it is about), else the first one stating a value."""
    candidates = [s for s in sentences(part) if has_value(s)]
    if not candidates:
        return None
    if about:
        for s in candidates:
            if any(mentions(s, name) for name in about):
                return s
    return candidates[0]


_OPPOSITE_OPENING = re.compile(r"^\W*(?:yes|no)\b", re.I)
# "up 3.7 kg", "down by 0.1 %": a change stated by its size
_UP = re.compile(
    r"\b(?:increased|increasing|went up|gone up|going up|rose|risen|rising|higher|up from|climbed|"
    r"trend(?:ed|ing|s)? up(?:wards?)?|upward)\b|\bup (?:by )?\d",
    re.I,
)
_DOWN = re.compile(
    r"\b(?:decreased|decreasing|went down|gone down|going down|dropped|fell|fallen|falling|lower|"
    r"down from|declined|declining|trend(?:ed|ing|s)? down(?:wards?)?|downward)\b|\bdown (?:by )?\d",
    re.I,
)
_FROM_TO = re.compile(r"\bfrom\s+(\d[\d.,]*)[^.;\n]*?\bto\s+(\d[\d.,]*)", re.I)
# which way a test's value is usually wanted ("For LDL cholesterol a lower value is usually the
# aim"): a target, not a change, so its "lower" is no fall
_AIM = re.compile(
    r"\b(?:lower|higher) (?:values?|numbers?|readings?|results?|levels?) (?:is|are) (?:usually |generally |often |normally )?"
    r"(?:the aim|the goal|the target|better|wanted|preferred)\b",
    re.I,
)


def direction(text: str) -> bool | None:
    """Up (True) or down (False) as the text states a change; None when it does not, or both.
    A sentence saying which way a value is usually the aim states no change."""
    if _AIM.search(text):
        text = " ".join(s for s in sentences(text) if not _AIM.search(s))
    votes = set()
    for m in _FROM_TO.finditer(strip_handles(text)):
        try:
            a, b = float(m.group(1).replace(",", "")), float(m.group(2).replace(",", ""))
        except ValueError:
            continue
        if a != b:
            votes.add(b > a)
    if _UP.search(text):
        votes.add(True)
    if _DOWN.search(text):
        votes.add(False)
    return votes.pop() if len(votes) == 1 else None


_LATEST_WORDS = re.compile(
    r"\b(?:latest|most recent(?:ly)?|newest|last (?:one|reading|result|value|measurement)|now|currently|"
    r"current|today)\b",
    re.I,
)
_MOVED_TO = re.compile(
    r"\b(?:up|down|rose|fell|risen|fallen|dropped|increased|decreased|climbed|declined)\s+to\s+(\d[\d.,]*)",
    re.I,
)


def clauses(sentence: str) -> list[str]:
    """A sentence's parts between commas, semicolons, colons and joining words."""
    return [c for c in re.split(r"[,;:]\s+|\s+(?:and|but|while|whereas)\s+", sentence) if c.strip()]


def _number(text: str) -> float | None:
    try:
        return float(text.replace(",", "").rstrip("."))
    except ValueError:
        return None


def latest_stated(part: str) -> float | None:
    """The latest value a trend answer states: the first value of the clause that says it is
    the latest ("…, 99.5 mg/dL now"), else where it "went up to", else the end of its first
    "from A … to B"."""
    for sentence in sentences(part):
        for clause in clauses(strip_handles(sentence)):
            if _LATEST_WORDS.search(clause) and (values := stated_numbers(clause)):
                return values[0]
    for sentence in sentences(part):
        text = strip_handles(sentence)
        m = _FROM_TO.search(text) or _MOVED_TO.search(text)
        if m and (value := _number(m.group(m.lastindex or 1))) is not None:
            return value
    return None


_SAYS_NONE = re.compile(
    r"^\W*(?:none|nothing|no)\b"
    r"|\b(?:all|every|each) (?:of )?(?:your |their |the )?(?:latest |most recent )?(?:results?|values?|tests?)\b"
    r"[^.]*\b(?:within|inside|in) (?:the |their )?(?:normal|reference) (?:range|limits)"
    r"|\bnone of (?:your|their|the)\b",
    re.I,
)


def says_none(opening: str) -> bool:
    """The answer's opening says there are none ("None.", "All your results are within the
    normal range")."""
    return bool(_SAYS_NONE.search(opening))


def verdict_of(part: str) -> tuple[bool | None, str]:
    """Yes/no from the opening sentence of the answer part, and "" or why it is not clear:
    a later sentence opening with the opposite verdict is a hedge."""
    said = polarity(part)
    if said is None:
        return None, "no clear yes or no"
    for sentence in sentences(part)[1:]:
        m = _OPPOSITE_OPENING.match(sentence)
        if m and polarity(sentence) is not None and polarity(sentence) != said:
            return None, "says both yes and no"
    if re.search(r"\byes and no\b|\bnot sure\b|\bcan't (?:say|tell)\b|\bcannot (?:say|tell)\b", part, re.I):
        return None, "hedges"
    return said, ""
