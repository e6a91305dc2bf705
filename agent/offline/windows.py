"""Time windows in a question ("since 2020", "last 6 months", "past 24 hours",
"between 3 and 9 December", "in 2023", "next week") → inclusive (since, until) days.

Calendar arithmetic is python-dateutil's (`relativedelta` for "6 months ago", its parser for
day-month phrases), so month lengths and leap years are its problem, not ours. A phrase that
names no date gives no window: nothing is guessed.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from dateutil import parser as date_parser
from dateutil.relativedelta import relativedelta

from agent.text import normalise

NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "twelve": 12, "few": 3, "couple": 2, "several": 3,
}  # fmt: skip
_N = r"(\d+|" + "|".join(NUMBERS) + r")"
_UNIT = r"(hours?|days?|weeks?|fortnights?|months?|years?|yrs?|decades?)"
_MONTH = (
    r"(jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|may|june?|july?|aug(ust)?|sep(t(ember)?)?|oct(ober)?|"
    r"nov(ember)?|dec(ember)?)"
)
_DAY_MONTH = rf"(\d{{1,2}}(st|nd|rd|th)? {_MONTH}( (19|20)\d\d)?|{_MONTH} \d{{1,2}}(st|nd|rd|th)?( (19|20)\d\d)?|{_MONTH} (19|20)\d\d|\d{{4}}-\d\d-\d\d)"


@dataclass(frozen=True)
class Window:
    since: dt.date | None
    until: dt.date | None
    said: str  # the words it was read from
    soft: bool = False  # "recently", "in recent years": a hint, not a boundary

    def describe(self) -> str:
        if self.since and self.until:
            return f"between {self.since} and {self.until}"
        if self.since:
            return f"since {self.since}"
        return f"up to {self.until}"


def _count(word: str) -> int:
    return int(word) if word.isdigit() else NUMBERS[word]


def _back(today: dt.date, n: int, unit: str) -> dt.date:
    if unit.startswith("hour"):
        return today - dt.timedelta(days=max(1, -(-n // 24)))
    if unit.startswith("day"):
        return today - dt.timedelta(days=n)
    if unit.startswith("week"):
        return today - dt.timedelta(weeks=n)
    if unit.startswith("fortnight"):
        return today - dt.timedelta(weeks=2 * n)
    if unit.startswith("decade"):
        return today - relativedelta(years=10 * n)
    if unit.startswith("month"):
        return today - relativedelta(months=n)
    return today - relativedelta(years=n)


def _day(text: str, today: dt.date, *, end: bool = False) -> dt.date | None:
    """'3 december', 'march 2021', '2024-05-01' → a day (a bare month: its first or last day)."""
    try:
        default = dt.datetime(today.year, 1, 1)
        day = date_parser.parse(text, default=default, fuzzy=False).date()
    except (ValueError, OverflowError):
        return None
    if re.fullmatch(rf"{_MONTH} (19|20)\d\d", text):
        day = day.replace(day=1)
        if end:
            day = day + relativedelta(months=1, days=-1)
    return day


# meteorological seasons of the northern hemisphere (Synthea's patients live in the US):
# the month each starts in, and how many months it lasts
SEASONS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}
_MONTHS = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
    "august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
}  # fmt: skip
_MONTH_NAME = "|".join(_MONTHS)
_SEASON_NAME = "|".join(SEASONS)


def _season(name: str, today: dt.date, *, ended: bool) -> tuple[dt.date, dt.date]:
    """The latest season of that name that has begun by today (`ended`: that has ended)."""
    for year in (today.year, today.year - 1, today.year - 2):
        start = dt.date(year, SEASONS[name], 1)
        end = start + relativedelta(months=3, days=-1)
        if start <= today and (not ended or end < today):
            return start, end
    raise AssertionError("a season begins every year")


def _month(name: str, today: dt.date) -> tuple[dt.date, dt.date]:
    """The latest month of that name that has begun by today."""
    start = dt.date(today.year, _MONTHS[name], 1)
    if start > today:
        start = start.replace(year=today.year - 1)
    return start, start + relativedelta(months=1, days=-1)


# "before covid", "pre-pandemic": up to the day before the WHO called COVID-19 a pandemic (WHO
# Director-General's opening remarks at the media briefing on COVID-19, 11 March 2020)
PANDEMIC_DECLARED = dt.date(2020, 3, 11)
_BEFORE_PANDEMIC = re.compile(
    r"\b(before|prior to|pre) (the )?(covid(-19| 19)?|coronavirus|corona|pandemic|lockdowns?)( (pandemic|outbreak|hit|started|began|lockdowns?))?\b|"
    r"\bpre-?(covid|pandemic|lockdown)\b"
)
# "this (flu) season": the influenza season now under way, counted from 1 August (US flu vaccines
# ship from late July and August, and CDC's season runs from about October to May: CDC, "Who Needs
# a Flu Vaccine and When", https://www.cdc.gov/flu/vaccines/vaccinations.html)
FLU_SEASON_START = (8, 1)
_THIS_SEASON = re.compile(r"\b(this|the current|current|this year s) (flu |influenza )?season\b")


def _named_period(text: str, today: dt.date) -> Window | None:
    """Periods named without a date: "this month", "since last year", "since the spring",
    "last summer", "in March", "since Christmas", "before covid", "this flu season"."""
    if m := _BEFORE_PANDEMIC.search(text):
        return Window(None, PANDEMIC_DECLARED - dt.timedelta(days=1), m.group(0))
    if m := _THIS_SEASON.search(text):
        start = dt.date(today.year, *FLU_SEASON_START)
        return Window(start if start <= today else start - relativedelta(years=1), today, m.group(0))
    if m := re.search(r"\bthis (month|week)\b", text):
        start = today.replace(day=1) if m.group(1) == "month" else today - dt.timedelta(days=today.weekday())
        return Window(start, today, m.group(0))
    if m := re.search(r"\bsince (last|the last|the previous) (week|month|year)\b", text):
        unit = m.group(2)
        if unit == "year":
            start = dt.date(today.year - 1, 1, 1)
        elif unit == "month":
            start = (today.replace(day=1) - dt.timedelta(days=1)).replace(day=1)
        else:
            start = today - dt.timedelta(days=today.weekday() + 7)
        return Window(start, None, m.group(0))
    # "since last spring" runs to today; "readings from last spring" are that season's ("from the
    # spring on" runs to today again)
    season = re.search(rf"\b(since|after|from) (the )?(last |this )?({_SEASON_NAME})( on| onwards?)?\b", text)
    if season and (season.group(1) != "from" or season.group(5)):
        start, _ = _season(season.group(4), today, ended=season.group(3) == "last ")
        return Window(start, None, season.group(0))
    if m := re.search(
        rf"\b(last|this|in the|in|during the|during|over the|from the|from last|from this|from) ({_SEASON_NAME})\b",
        text,
    ):
        start, end = _season(m.group(2), today, ended=m.group(1).endswith("last"))
        return Window(start, min(end, today), m.group(0))
    if m := re.search(rf"\b(since|after|from) (the start of |the beginning of )?({_MONTH_NAME})\b", text):
        return Window(_month(m.group(3), today)[0], None, m.group(0))
    if m := re.search(rf"\b(in|during|last) ({_MONTH_NAME})( ((19|20)\d\d))?\b", text):
        start, end = _month(m.group(2), today)
        if m.group(4):  # "in May 2023": that month
            start = start.replace(year=int(m.group(4)))
            end = start + relativedelta(months=1, days=-1)
        elif m.group(1) == "last" and end >= today:  # "last March", asked in March: a year before
            start, end = start - relativedelta(years=1), end - relativedelta(years=1)
        return Window(start, min(end, today), m.group(0))
    if m := re.search(r"\bsince (christmas|xmas|new year)\b", text):
        day = dt.date(today.year, 12, 25) if m.group(1) != "new year" else dt.date(today.year, 1, 1)
        return Window(day if day <= today else day - relativedelta(years=1), None, m.group(0))
    return None


# a period counted from an event the record dates, not the calendar: "since starting metformin",
# "since i was put on lisinopril", "since my 40th birthday", "since i turned 50", "since being
# diagnosed (with diabetes)". The day is the record's (the first prescription's start, the birth
# date plus those years, the diagnosis's first onset): read by the planner, never guessed here.
@dataclass(frozen=True)
class Event:
    kind: str  # "start" (a medicine named in the question) | "birthday" | "diagnosis"
    said: str  # the words it was read from ("since starting metformin")
    years: int = 0  # birthday: the age turned


_SINCE = r"\b(?:since|after|from|following)"
_WHO = r"(?:(?:i|she|he|they|the patient|we) (?:was |were |got |have been |has been |had been )?)?"
_EVENT_START = re.compile(
    rf"{_SINCE} {_WHO}(?:first )?(?:start(?:ed|ing)?|began|beginning|begun|going on|went on|being put on|put on|"
    r"(?:was|were|got|been|being) (?:started|put) on|(?:was|were|got) prescribed|being prescribed|taking|took)\b"
)
_EVENT_BIRTHDAY = re.compile(
    rf"{_SINCE} (?:(?:my|her|his|their|the patient s) (?P<n>\d{{1,3}})(?:st|nd|rd|th)? birthday|"
    rf"{_WHO}(?:turn(?:ed|ing)) (?P<m>\d{{1,3}})|(?:the )?age (?:of )?(?P<a>\d{{1,3}}))\b"
)
_EVENT_DIAGNOSIS = re.compile(
    rf"{_SINCE} {_WHO}(?:(?:being|was|were|got|been|getting) )?(?:(?:my|her|his|their|the|first) )?(?:diagnos\w*|dx)\b"
)


def read_event(question: str) -> Event | None:
    """The event a "since …" period is counted from, when the question names one."""
    text = normalise(question)
    if m := _EVENT_BIRTHDAY.search(text):
        return Event("birthday", m.group(0), int(m.group("n") or m.group("m") or m.group("a")))
    if m := _EVENT_DIAGNOSIS.search(text):
        return Event("diagnosis", m.group(0))
    if m := _EVENT_START.search(text):
        return Event("start", m.group(0))
    return None


def read_window(question: str, today: dt.date) -> Window | None:
    """The time window a question about the record names, or None. A day-month phrase without
    a year that would lie in the future ("between 3 and 9 December", asked in November) is
    last year's: the record holds the past."""
    window = _read_window(question, today)
    if window is not None and window.since is not None and window.since > today:
        since = window.since - relativedelta(years=1)
        until = window.until - relativedelta(years=1) if window.until else None
        return Window(since, until, window.said, window.soft)
    return window


# the present state said with "today" ("as of today", "as it stands today", "to date", "up to
# today"): "now", no period to search. Read as the 24 hours of "today" it hides every result
# older than a day, and "what's my A1C as of today?" became "no A1C results in that period".
_PRESENT = re.compile(
    r"\b(as (of|at|from) (today|this day|the present( day)?)|as (it stands|things stand|they stand) (today|right now|now)|"
    r"(up to|up till|up until|until|till|to) (and including )?(today|this day|the present( day)?|date))\b"
)


# "between 2020 and today", "from March 2021 till now": since that day, to the present (left to
# `_PRESENT`, "and today" was a 24-hour window that hid every result of the years asked for)
_UNTIL = r"(?:and|to|until|till|through|thru)"  # the word between a period's two ends
_TO_NOW = re.compile(
    rf"\b(between|from) ({_DAY_MONTH}|(19|20)\d\d) (?:{_UNTIL}|up to|up till) "
    r"(today|now|right now|the present( day)?|present|date|this day)\b"
)


def _read_window(question: str, today: dt.date) -> Window | None:
    text = _TO_NOW.sub(lambda m: f"since {m.group(2)}", normalise(question))
    text = _PRESENT.sub(" ", text)
    m = re.search(
        rf"\bbetween (\d{{1,2}})(st|nd|rd|th)? and (\d{{1,2}})(st|nd|rd|th)? {_MONTH}( (19|20)\d\d)?\b", text
    )
    if m:
        tail = text[m.start(5) : m.end()].strip()
        a, b = _day(f"{m.group(1)} {tail}", today), _day(f"{m.group(3)} {tail}", today)
        if a and b:
            return Window(min(a, b), max(a, b), m.group(0))
    m = re.search(rf"\b(between|from) ({_DAY_MONTH}|(19|20)\d\d) {_UNTIL} ({_DAY_MONTH}|(19|20)\d\d)\b", text)
    if m:
        parts = re.split(rf" {_UNTIL} ", m.group(0).split(" ", 1)[1], maxsplit=1)
        if len(parts) == 2:
            a = dt.date(int(parts[0]), 1, 1) if re.fullmatch(r"\d{4}", parts[0]) else _day(parts[0], today)
            b = (
                dt.date(int(parts[1]), 12, 31)
                if re.fullmatch(r"\d{4}", parts[1])
                else _day(parts[1], today, end=True)
            )
            if a and b:
                return Window(min(a, b), max(a, b), m.group(0))
    m = re.search(rf"\b(since|after|from) {_DAY_MONTH}\b", text)
    if m and (day := _day(text[m.start() + len(m.group(1)) + 1 : m.end()], today)):
        return Window(day, None, m.group(0))
    if m := re.search(r"\b(since|after|from) ((19|20)\d\d)\b", text):
        return Window(dt.date(int(m.group(2)), 1, 1), None, m.group(0))
    if m := re.search(r"\b(before|until|prior to) ((19|20)\d\d)\b", text):
        return Window(None, dt.date(int(m.group(2)) - 1, 12, 31), m.group(0))
    if m := re.search(r"\b(in|during|for|of|across|throughout|over) ((19|20)\d\d)\b", text):
        year = int(m.group(2))
        return Window(dt.date(year, 1, 1), dt.date(year, 12, 31), m.group(0))
    if (named := _named_period(text, today)) is not None:
        return named
    if m := re.search(
        rf"\b(last|past|previous|recent|within the last|in the last|over the last) {_N}( of)? {_UNIT}\b", text
    ):
        return Window(_back(today, _count(m.group(2)), m.group(4)), today, m.group(0))
    # "wt change over 12 months", "BP across 2 years": that span back from today
    if m := re.search(rf"\b(over|across|within) {_N} {_UNIT}\b(?! (ago|old|back)\b)", text):
        return Window(_back(today, _count(m.group(2)), m.group(3)), today, m.group(0))
    # clinicians' shorthand for a span: "6/12" six months, "2/52" two weeks, "3/7" three days
    # ("any abx in last 6/12", "abnormal labs last 12/12"); read only after a word that says a span
    if m := re.search(
        r"\b(last|past|previous|within|over|in the last|over the last|within the last) (\d{1,2})/(12|52|7)\b",
        text,
    ):
        unit = {"12": "months", "52": "weeks", "7": "days"}[m.group(3)]
        return Window(_back(today, int(m.group(2)), unit), today, m.group(0))
    if m := re.search(rf"\b{_N}( of)? {_UNIT} (ago|back)\b", text):
        return Window(_back(today, _count(m.group(1)), m.group(3)), today, m.group(0))
    if m := re.search(r"\b(past|last|previous) (hour|day|24 hours|week|fortnight|month|year|decade)\b", text):
        unit = "hours" if m.group(2) == "24 hours" else m.group(2)
        n = 24 if m.group(2) == "24 hours" else 1
        if m.group(1) == "last" and unit == "year":  # "last year" = the previous calendar year
            return Window(dt.date(today.year - 1, 1, 1), dt.date(today.year - 1, 12, 31), m.group(0))
        return Window(_back(today, n, unit), today, m.group(0))
    if re.search(r"\bthis year\b", text):
        return Window(dt.date(today.year, 1, 1), today, "this year")
    if re.search(
        r"\b(in )?recent years\b|\blately\b|(?<!\bmost )\brecently\b", text
    ):  # "most recently" = latest
        return Window(today - relativedelta(years=3), today, "recent years (the last 3 years)", soft=True)
    if re.search(r"\b(today|24 hours|yesterday)\b", text):
        return Window(today - dt.timedelta(days=1), today, "the last 24 hours")
    years = re.findall(r"\b((?:19|20)\d\d)\b", text)
    if len(years) == 1 and int(years[0]) <= today.year:  # "2021 avg creatinine": that calendar year
        year = int(years[0])
        return Window(dt.date(year, 1, 1), dt.date(year, 12, 31), years[0])
    return None


def slot_window(question: str, today: dt.date) -> tuple[dt.date, dt.date]:
    """The days to look for appointment slots in (two weeks from today unless said)."""
    text = normalise(question)
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
    # clinicians' shorthand for when a follow-up is due: "f/u 3/12" (in three months), "review in
    # 6/52" (six weeks), "in 2 months": two weeks of slots from then
    m = re.search(r"\b(?:in|f/?u|follow.?up|review|rv|see|book)\s+(\d{1,2})/(12|52|7)\b", text) or re.search(
        rf"\bin {_N} (weeks?|months?)( time)?\b", text
    )
    if m:
        n = int(m.group(1)) if m.group(1).isdigit() else NUMBERS[m.group(1)]
        unit = {"12": "months", "52": "weeks", "7": "days"}.get(m.group(2), m.group(2))
        start = today + (relativedelta(months=n) if unit.startswith("month") else dt.timedelta(weeks=n) if unit.startswith("week") else dt.timedelta(days=n))  # fmt: skip
        return start, start + dt.timedelta(days=13)
    said = _read_window(question, today)  # "between 10 and 16 December", "from 3 to 9 March 2027"
    if said is not None and said.since and said.until and said.said.startswith(("between", "from")):
        since, until = said.since, said.until
        if until < today and not re.search(r"\b(19|20)\d\d\b", said.said):  # no year said: the next one
            since, until = since + relativedelta(years=1), until + relativedelta(years=1)
        return since, until
    if m := re.search(r"\b(\d{4}-\d{2}-\d{2})\b", text):
        day = dt.date.fromisoformat(m.group(1))
        return day, day + dt.timedelta(days=6)
    m = re.search(rf"\b(on|for) {_DAY_MONTH}\b", text)
    if m and (day := _day(m.group(0).split(" ", 1)[1], today)):
        if day < today:
            day = day + relativedelta(years=1)
        return day, day
    return today, today + dt.timedelta(days=14)


# --- a past DAY to compare with ("more meds now than 2 years ago", "better than last year") ------
_PAST_DAY = re.compile(
    rf"\b(?P<n>{_N}) (?P<unit>{_UNIT}) (ago|back)\b|\b(?P<last>last|past|previous) (?P<lunit>year|yr|month)\b|"
    r"\b(in |back in )?(?P<year>(19|20)\d\d)\b"
)


def past_day(question: str, today: dt.date) -> tuple[dt.date, str] | None:
    """The one past day a comparison names, and the words it was read from: "2 years ago" is
    today two years back, "last year" / "a year ago" one year back, "in 2020" the same calendar
    day of 2020. None when no past day is named (or the year named is not in the past)."""
    text = normalise(question)
    for m in _PAST_DAY.finditer(text):
        if m.group("n"):
            return _back(today, _count(m.group("n")), m.group("unit")), m.group(0)
        if m.group("last"):
            unit = "months" if m.group("lunit") == "month" else "years"
            return _back(today, 1, unit), m.group(0)
        year = int(m.group("year"))
        if year < today.year:
            return today - relativedelta(years=today.year - year), m.group(0).strip()
    return None
