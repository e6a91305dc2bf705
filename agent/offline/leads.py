"""The conclusion each topic's answer opens with: yes/no, the number, the direction.

Every sentence is built from tool rows (values, dates, handles), never from the question's
words alone. "No" is said only when the concept was recognised and the whole history of its
section was searched (status=all, no window), and the sentence says what was searched; a
concept that linked to nothing is never denied. Returns (sentence, abstained): abstained is
True when the sentence says the record does not show it (absent after searching, not matched,
nothing in the window), the `done` event's marker that evaluators read (issue 15).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from typing import Any

from dateutil import parser as date_parser
from dateutil.relativedelta import relativedelta

from agent.execution import ToolOutcome
from agent.offline.direct import LEADS as DIRECT_LEADS
from agent.offline.parse import PERMISSION_ASKED, asked_direction
from agent.offline.plan import Topic, event_day
from agent.offline.request import previous_offset
from agent.text import normalise
from tools.render import counted, fmt_num
from tools.search_tools import mention_words, mentions

Lead = tuple[str, bool]
CERTAIN_KINDS = ("record", "term", "drug", "brand", "class")
FOCUSED = 5  # a one-fact lead cites at most this many rows


class Voice:
    """Patient: "you / your record"; clinician or evaluator: "the patient / the record"."""

    def __init__(self, role: str) -> None:
        self.patient = role == "patient"
        self.your = "your" if self.patient else "the patient's"
        self.Your = "Your" if self.patient else "The patient's"
        self.record = "your record" if self.patient else "the record"
        self.you = "you" if self.patient else "the patient"
        self.have = "have" if self.patient else "has"
        self.are = "are" if self.patient else "is"


def _when(topic: Topic) -> str:
    """The window in words; its dates are on the answer's "Searched:" line (a lookup, not a claim)."""
    return " in the period you asked about" if topic.window else ""


def _period(topic: Topic) -> str:
    """The window in the question's own words ("since last summer"): its dates are on the
    "Searched:" line, and a date the record does not hold would read as a claim."""
    w = topic.window
    if w is None:
        return ""
    return f" {w.said}" if w.said else _when(topic)


def _rows(outcomes: Sequence[ToolOutcome]) -> list[dict[str, Any]]:
    return [r for o in outcomes if o.result.ok for r in o.result.rows]


def _handle_of(outcomes: Sequence[ToolOutcome], record_id: str | None) -> str:
    for o in outcomes:
        for c in o.result.citations:
            if c.record_id == record_id:
                return f" [{c.handle}]"
    return ""


def _day(value: Any) -> str:
    return str(value or "")[:10] or "date unknown"


def _value(row: dict[str, Any]) -> str:
    if row.get("systolic") is not None or row.get("diastolic") is not None:
        return f"{fmt_num(row.get('systolic')) or '?'}/{fmt_num(row.get('diastolic')) or '?'} {row.get('unit') or ''}".strip()
    value = row.get("value")
    shown = fmt_num(value) if isinstance(value, int | float) else str(value)
    unit = row.get("unit") or ""
    return f"{shown} {unit if not unit.startswith('{') else ''}".strip()


DATE_FIELDS = {
    "medication": "authored_on",
    "condition": "onset",
    "immunization": "date",
    "procedure": "performed",
}
ROW_NAME = {"medication": "name", "condition": "name", "immunization": "vaccine", "procedure": "name"}
ROW_VERB = {"medication": "prescribed", "condition": "recorded", "immunization": "given", "procedure": "done"}


def dated(topic: Topic, rows: list[dict[str, Any]]) -> Lead | None:
    """ "When was X first / last?": the row with the earliest or the latest date, cited."""
    if topic.operation not in ("earliest", "last") or not rows:
        return None
    kind = rows[0].get("kind", "")
    key = DATE_FIELDS.get(kind)
    named = set(topic.concept.record_names) if topic.concept and kind == "condition" else set()
    if named and any(r.get("name") in named for r in rows):  # "diabetes" is not "prediabetes"
        rows = [r for r in rows if r.get("name") in named]
    with_date = [r for r in rows if key and r.get(key)]
    if not with_date:
        return None
    pick = min if topic.operation == "earliest" else max
    r = pick(with_date, key=lambda row: str(row[key]))
    word = "first" if topic.operation == "earliest" else "most recently"
    verb = ROW_VERB[kind]
    n = f" ({len(with_date)} in all)" if len(with_date) > 1 else ""
    now = ""
    if kind == "medication" and topic.operation == "earliest" and not any(x.get("active") for x in with_date):
        # "start date of my current statin" when none is current: the start, and that it is over
        last = max(with_date, key=lambda row: str(row.get("ended_at") or row[key]))
        ended = (
            f", ended {_day(last['ended_at'])}"
            if last.get("ended_at")
            else f", {last.get('status') or 'not active'}"
        )
        now = f" It is not an active prescription now (the latest{ended} [{last['handle']}])."
    return (
        f"{r.get(ROW_NAME[kind]) or 'It'} was {word} {verb} on {_day(r[key])} [{r['handle']}]{n}.{now}",
        False,
    )


DIAGNOSIS_WORDS = re.compile(r"\b(diagnos\w*|dx)\b")
SURGERY_WORDS = re.compile(r"\b(surger(y|ies)|surgical|operations?|operated)\b")
ROW_NOUN = {
    "medication": "prescription",
    "condition": "condition",
    "immunization": "vaccine",
    "procedure": "procedure",
}


def _ordinal_row(topic: Topic, outcomes: Sequence[ToolOutcome], v: Voice) -> Lead | None:
    """ "The very first medicine they put me on", "my most recent procedure": the section's row
    with the earliest or the latest date, cited, out of how many were read."""
    rows = [r for r in _rows(outcomes) if r.get("kind") in DATE_FIELDS]
    kind = rows[0]["kind"] if rows else ""
    key = DATE_FIELDS.get(kind, "")
    dated_rows = [r for r in rows if r.get(key) and r.get("status") != "entered-in-error"]
    if not dated_rows:
        return None  # the section's own lead says what the record holds
    diagnosed = [r for r in dated_rows if "(disorder)" in str(r.get("name"))]
    noun = ROW_NOUN[kind]
    if kind == "condition" and diagnosed and DIAGNOSIS_WORDS.search(normalise(topic.question)):
        # "my first diagnosis", "newest dx": a disorder, not a social finding ("Part-time employment")
        dated_rows, noun = diagnosed, "diagnosis"
    first = topic.operation == "earliest_row"
    pick = min if first else max
    r = pick(dated_rows, key=lambda row: str(row[key]))
    verb = ROW_VERB[kind]
    total = next((o.result.total for o in outcomes if o.result.ok and o.result.total), len(dated_rows))
    # (diagnoses are a part of the rows read: no total is said for them)
    of = f" (of {total} in {v.record})" if total and total > 1 and noun != "diagnosis" else ""
    same_day = [x for x in dated_rows if _day(x[key]) == _day(r[key]) and x is not r]
    # every row of that day cited at its count, the first three named
    named = ", ".join(str(x.get(ROW_NAME[kind])) for x in same_day[:3]) + (", …" if len(same_day) > 3 else "")
    also = f"; also that day {_cite_all(same_day)}: {named}" if same_day else ""
    caveat = (
        f"{v.record.capitalize()} does not mark which procedures were operations. "
        if kind == "procedure" and SURGERY_WORDS.search(normalise(topic.question))
        else ""
    )
    return (f"{caveat}{v.Your} {'first' if first else 'most recent'} recorded {noun} is {r.get(ROW_NAME[kind]) or 'unnamed'}, {verb} on {_day(r[key])} [{r['handle']}]{of}{also}.", False)  # fmt: skip


def lead_for(topic: Topic, outcomes: Sequence[ToolOutcome], voice: Voice) -> Lead | None:
    failed = [o for o in outcomes if not o.result.ok]
    if failed and len(failed) == len(outcomes):
        return None
    if topic.operation in ("earliest_row", "last_row"):
        return _ordinal_row(topic, outcomes, voice)
    if topic.operation in DIRECT_LEADS:
        return DIRECT_LEADS[topic.operation](topic, outcomes, voice)
    fn = {
        "medications": _medications,
        "conditions": _conditions,
        "labs": _labs,
        "encounters": _encounters,
        "allergies": _allergies,
        "immunizations": _immunizations,
        "procedures": _procedures,
        "profile": _profile,
        "appointments": _appointments,
        "notes": _notes,
        "care_plans": _care_plans,
    }.get(topic.section)
    return fn(topic, outcomes, voice) if fn else None


# --- medications --------------------------------------------------------------------------------


def _medications(topic: Topic, outcomes: Sequence[ToolOutcome], v: Voice) -> Lead | None:
    # one row per cited prescription: a class is looked up by its members and by its reason, and
    # a prescription found both ways is still one prescription
    rows = list(
        {r.get("handle") or id(r): r for r in _rows(outcomes) if r.get("kind") == "medication"}.values()
    )
    if topic.operation == "conflict":
        return _conflicts(outcomes, v)
    if topic.operation == "changes_after":
        started = [r for r in rows if r.get("change") == "started"]
        name = topic.concept.name if topic.concept else "the diagnosis"
        if not started:
            return (
                f"No prescription in {v.record} was started on or after {name} was first recorded.",
                False,
            )
        return (
            f"{counted(len(started), 'prescription')} {'was' if len(started) == 1 else 'were'} started on or after {name} was first recorded:",
            False,
        )
    if topic.operation == "changes":
        started = [r for r in rows if r.get("change") == "started"]
        stopped = [r for r in rows if r.get("change") == "stopped"]
        if topic.asked in ("started", "stopped"):  # "which of my meds did I stop this year"
            side = stopped if topic.asked == "stopped" else started
            ended = [r for r in started if r.get("status") not in (None, "active", "on-hold")]
            if not side and topic.asked == "stopped" and ended:
                # a course that ran out ("completed") carries no stop date: say so, never a bare "none"
                named = "; ".join(
                    f"{r['name']} (started {str(r['date'])[:10]}, now {r['status']}) [{r['handle']}]"
                    for r in ended
                )
                return (
                    f"No prescription in {v.record} has a stop date{_when(topic)}, but "
                    f"{counted(len(ended), 'prescription')} started in it {'is' if len(ended) == 1 else 'are'} no longer active: {named}.",
                    False,
                )
            if not side:
                return (f"No prescription in {v.record} was {topic.asked}{_when(topic)}.", False)
            named = "; ".join(
                f"{r['name']} ({topic.asked} {str(r['date'])[:10]}) [{r['handle']}]" for r in side
            )
            verb = "was" if len(side) == 1 else "were"
            return (
                f"{counted(len(side), 'prescription')} {verb} {topic.asked}{_when(topic)}: {named}.",
                False,
            )
        return (
            f"{counted(len(started), 'prescription')} started and {len(stopped)} stopped{_when(topic)}.",
            False,
        )
    if topic.operation in ("started_in", "stopped_in") and topic.concept is not None:
        return _changed_in(topic, rows, v)
    if topic.operation == "prescriber":
        return _prescribers(topic, rows, v)
    if topic.operation == "reason" and topic.concept is not None:
        return _reason(topic, rows, v)
    if topic.operation == "stopped" and topic.concept is not None:
        return _stopped(topic, rows, v)
    if topic.operation not in ("exists", "earliest", "last", "detail") or topic.concept is None:
        active = [r for r in rows if r.get("active")]
        if topic.concept is not None:  # medications for a condition (the reason)
            if not rows:
                return (
                    f"No prescription in {v.record} names {topic.concept.name} as its reason or in its name.",
                    True,
                )
            return (
                f"{counted(len(rows), 'prescription')} in {v.record} {'relates' if len(rows) == 1 else 'relate'} to {topic.concept.name} ({len(active)} active now).",
                False,
            )
        if topic.window is not None and topic.operation == "list" and topic.asked == "count":
            # "how many prescriptions did i get in the past 18 months": the number written in the
            # window leads; those written before and still running in it are said apart
            written = _newest_first([r for r in rows if _in_window(topic, r.get("authored_on"))])
            earlier = [r for r in rows if _running_in(topic, r) and r not in written]
            # (said without a number: the paragraph's count is the prescriptions written in the window)
            also = (
                " Prescriptions written earlier and still running in it are not counted." if earlier else ""
            )
            if not written:
                return (f"0 prescriptions were written{_when(topic)} (I counted those written in it, searching every prescription, active and past).{also}", False)  # fmt: skip
            return (f"{counted(len(written), 'prescription')} {'was' if len(written) == 1 else 'were'} written{_when(topic)} (counting those written in it): {_prescriptions(written)}.{also}", False)  # fmt: skip
        if topic.window is not None and topic.operation == "list":
            # "what pills was i taking back in 2018": the prescriptions running then, not all of them
            running = _newest_first([r for r in rows if _running_in(topic, r)])
            if not running:
                return (f"No prescription in {v.record} was written or running{_when(topic)}: I searched every prescription, active and past.", False)  # fmt: skip
            return (f"{counted(len(running), 'prescription')} {'was' if len(running) == 1 else 'were'} written or running{_when(topic)}: {_prescriptions(running)}.", False)  # fmt: skip
        if not rows:
            return (f"{v.record.capitalize()} has no active medications.", True)
        return (f"{v.you.capitalize()} {v.have} {counted(len(active), 'active medication')}" + (f" and {counted(len(rows) - len(active), 'past one')} listed" if len(rows) > len(active) else "") + ":", False)  # fmt: skip
    c = topic.concept
    if topic.window is not None:
        return _prescribed_in_window(topic, rows, v)
    if (lead := dated(topic, rows)) is not None:
        return lead
    if topic.operation == "detail" and rows:
        r = next((r for r in rows if r.get("active")), rows[0])
        dosage = " ".join((r.get("dosage") or "").split()) or "no dosage instructions recorded"
        by = f"; prescribed by {r['requester']}" if r.get("requester") else "; prescriber not recorded"
        state = "active" if r.get("active") else "not active"
        # "am I on X, and if so, what dose?": the yes or no first (lead, round thirteen: paraphrase
        # frozen8 got the dose alone, no answer to whether)
        verdict = ("Yes. " if r.get("active") else "No, not now. ") if topic.asked == "exists" else ""
        return (f"{verdict}{r['name']} ({state}): dosage {dosage}{by} [{r['handle']}].", False)
    active = [r for r in rows if r.get("active")]
    # (a drug named in a which-question is still asked about: "which of my pills - is X one?")
    whether = c.kind != "class" or yes_no_asked(topic.question)
    yes = "Yes. " if whether else ""
    if active and c.kind == "class" and len({r["name"] for r in active}) > 1:
        # a class ("inhalers", "statins"): every active member, each cited
        named = "; ".join(
            f"{r['name']}, prescribed {_day(r.get('authored_on'))} [{r['handle']}]" for r in active
        )
        return (f"{yes}{len(active)} active prescriptions are {c.name}: {named}.", False)
    if active:
        r = active[0]
        more = (
            f" (and {counted(len(active) - 1, 'more active prescription')} of the same drug)"
            if len(active) > 1
            else ""
        )
        return (f"{yes}{r['name']} is an active prescription, prescribed {_day(r.get('authored_on'))} [{r['handle']}]{more}.", False)  # fmt: skip
    if rows:
        past = _newest_first(rows) or rows
        r = past[0]
        state = (
            f"ended {_day(r.get('ended_at'))}"
            if r.get("ended_at")
            else f"is {r.get('status') or 'not active'}"
        )
        ever = EVER_ASKED.search(normalise(topic.question))
        if c.kind == "class" and len({x.get("name") for x in past}) > 1:
            # every drug of the class, newest first: the first one found is not the answer
            named = _prescriptions(past)
            if ever:
                said = "Yes, in the past: " if whether else "In the past: "
                return (f"{said}{counted(len(past), 'prescription')} of {c.name}, none active now: {named}.", False)  # fmt: skip
            said = "No, not now: none" if whether else "None now: none"
            return (f"{said} of {counted(len(past), 'prescription')} of {c.name} is active: {named}.", False)  # fmt: skip
        if ever:
            # "have I ever been prescribed X?", "was I ever put on X?": the past is the question's yes
            said = "Yes, in the past" if whether else "In the past"
            return (f"{said}: {r['name']} was prescribed {_day(r.get('authored_on'))} and {state} [{r['handle']}]. It is not an active prescription now.", False)  # fmt: skip
        said = "No, not now" if whether else "None now"
        return (f"{said}: {r['name']} was prescribed {_day(r.get('authored_on'))} and {state} [{r['handle']}]. It is not an active prescription.", False)  # fmt: skip
    return _never_prescribed(c, v, whether)


def _stopped(topic: Topic, rows: list[dict[str, Any]], v: Voice) -> Lead:
    """ "When did they stop my blood pressure tablet?": each drug's end date (its newest
    prescription's), or that it is still active; never a prescribing date as the answer."""
    c = topic.concept
    assert c is not None
    kept = [r for r in rows if r.get("status") != "entered-in-error"]
    if not kept:
        return _never_prescribed(c, v)
    parts, active = [], 0
    by_name: dict[str, list[dict[str, Any]]] = {}
    for r in kept:
        by_name.setdefault(str(r.get("name")), []).append(r)
    for name, mine in by_name.items():
        live = [r for r in mine if r.get("active")]
        if live:
            active += 1
            r = max(live, key=lambda x: str(x.get("authored_on")))
            earlier = [x for x in mine if not x.get("active")]
            also = (
                f" (an earlier prescription of it, from {_day(earlier[0].get('authored_on'))}, is {_state(earlier[0])} [{earlier[0]['handle']}])"
                if len(earlier) == 1
                else f" ({counted(len(earlier), 'earlier prescription')} of it ended {_cite_all(earlier)})"
                if earlier
                else ""
            )
            parts.append(f"{name} has not been stopped: it is still active, prescribed {_day(r.get('authored_on'))} [{r['handle']}]{also}")  # fmt: skip
            continue
        ended = [r for r in mine if r.get("ended_at")]
        if ended:
            r = max(ended, key=lambda x: str(x["ended_at"]))
            parts.append(f"{name} ended on {_day(r['ended_at'])} [{r['handle']}]")
        else:
            r = max(mine, key=lambda x: str(x.get("authored_on")))
            parts.append(f"{name} is {r.get('status') or 'not active'} with no stop date recorded; it was last prescribed {_day(r.get('authored_on'))} [{r['handle']}]")  # fmt: skip
    return ("; ".join(parts) + ".", False)


def _prescriptions(rows: list[dict[str, Any]]) -> str:
    """Each prescription with its date and state, cited ("Amoxicillin … (prescribed 2024-01-19, completed) [M1]")."""
    shown = "; ".join(
        f"{r['name']} (prescribed {_day(r.get('authored_on'))}, {_state(r)}) [{r['handle']}]"
        for r in rows[:FOCUSED]
    )
    more = rows[FOCUSED:]  # cited too, so the count said is the count cited
    return shown + (f"; and {counted(len(more), 'more', 'more')} {_cite_all(more)}" if more else "")


def _state(r: dict[str, Any]) -> str:
    """A prescription's state by the record's rule: a status still "active" after its end (a
    patient who died, a course that ran out) is the end date, never "active"."""
    if r.get("active"):
        return "active"
    if r.get("ended_at"):
        return f"ended {_day(r.get('ended_at'))}"
    status = r.get("status")
    return status if status and status != "active" else "not active"


def _prescribed_in_window(topic: Topic, rows: list[dict[str, Any]], v: Voice) -> Lead:
    """ "Any antibiotics this year?": a prescription counts when it was written in the window or
    was still running in it (active, or stopped after the window began). Every prescription was
    read, so an empty window is a certain no, said with the newest one outside it."""
    c = topic.concept
    inside = _newest_first([r for r in rows if _running_in(topic, r)])
    what = c.name
    if inside:
        return (f"Yes: {counted(len(inside), 'prescription')} of {what}{_when(topic)}: {_prescriptions(inside)}.", False)  # fmt: skip
    newest = _newest_first(rows)
    if newest:
        r = newest[0]
        return (f"No. {v.record.capitalize()} has no prescription of {what}{_when(topic)}; the most recent, {r['name']}, was prescribed {_day(r.get('authored_on'))} [{r['handle']}].", False)  # fmt: skip
    return _never_prescribed(c, v)


def _running_in(topic: Topic, r: dict[str, Any]) -> bool:
    start, w = _as_date(r.get("authored_on")), topic.window
    if start is None or w is None:
        return False
    if _in_window(topic, start):
        return True
    ended = _as_date(r.get("ended_at"))
    running = bool(r.get("active")) or (ended is not None and (w.since is None or ended >= w.since))
    return (w.until is None or start <= w.until) and running


def _newest_first(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Active prescriptions first, then the rest, each newest first (entered-in-error never)."""
    kept = [r for r in rows if r.get("status") != "entered-in-error"]
    return sorted(kept, key=lambda r: (not r.get("active"), -_stamp(r.get("authored_on"))))


def _stamp(value: Any) -> float:
    day = _as_date(value)
    return dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC).timestamp() if day else 0.0


def _prescribers(topic: Topic, rows: list[dict[str, Any]], v: Voice) -> Lead:
    """Who prescribed the medicine (or the medicines for a condition): the prescriber(s) lead,
    each prescription cited; a prescription without one says so rather than naming nobody."""
    if topic.concept is not None:
        noun = topic.concept.name
    else:
        noun = f"medicines for {topic.reason.name if topic.reason else 'that'}"
    what = f"{v.your} {noun}"
    rows = _newest_first(rows)
    if not rows:
        if topic.concept is not None and topic.concept.kind not in CERTAIN_KINDS:
            return (
                f"I could not find '{topic.concept.said}' among the medication names in {v.record}.",
                True,
            )
        return (f"{v.record.capitalize()} has no prescription of {noun}: I searched every prescription, active and past.", True)  # fmt: skip
    by: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by.setdefault(r.get("requester") or "", []).append(r)
    named = [p for p in by if p]

    def listed(mine: list[dict[str, Any]]) -> str:
        return "; ".join(
            f"{r['name']} ({'active' if r.get('active') else 'not active'}, prescribed {_day(r.get('authored_on'))}) [{r['handle']}]"
            for r in mine[:FOCUSED]
        )

    if len(by) == 1 and named:
        return (f"{named[0]} prescribed {what}: {listed(rows)}.", False)
    parts = "; ".join(f"{person or 'no prescriber recorded'}: {listed(mine)}" for person, mine in by.items())
    if not named:
        return (f"{v.record.capitalize()} does not name who prescribed {what}: {parts}.", False)
    who = ", ".join(named[:-1]) + " and " + named[-1] if len(named) > 1 else named[0]
    return (f"{what[0].upper() + what[1:]} {'was' if len(rows) == 1 else 'were'} prescribed by {who} — {parts}.", False)  # fmt: skip


def _in_window(topic: Topic, value: Any) -> bool:
    day = _as_date(value)
    w = topic.window
    if day is None or w is None:
        return False
    return (w.since is None or day >= w.since) and (w.until is None or day <= w.until)


def _as_date(value: Any) -> dt.date | None:
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str) and value:
        try:
            return date_parser.isoparse(value).date()
        except ValueError:
            return None
    return None


def _never_prescribed(c: Any, v: Voice, whether: bool = True) -> Lead:
    """No row for a drug after every prescription was read: a certain no for a recognised
    drug, and for words that matched no medication name, only that they did not match. Asked
    which ("what inhalers am I on?"), the answer is "None", not a "No." to an unasked yes/no."""
    if c.kind in CERTAIN_KINDS:
        what = f"{c.name} (any of: {', '.join(_class_members(c.name))})" if c.kind == "class" else c.name
        said = f"No. {v.record.capitalize()}" if whether else f"None: {v.record}"
        return (f"{said} has no prescription of {what}: I searched every prescription, active and past.", True)  # fmt: skip
    return (f"I could not find '{c.said}' among the medication names in {v.record}.", True)


def _changed_in(topic: Topic, rows: list[dict[str, Any]], v: Voice) -> Lead:
    """Whether one drug was started (or stopped) in the window asked about. Every prescription
    of it was read, so a drug never prescribed is a plain, certain no."""
    c = topic.concept
    assert c is not None
    rows = _newest_first(rows)
    if not rows:
        return _never_prescribed(c, v)
    key, verb = ("ended_at", "stopped") if topic.operation == "stopped_in" else ("authored_on", "started")
    hits = [r for r in rows if _in_window(topic, r.get(key))]
    if hits:
        r = hits[0]
        more = f" ({counted(len(hits) - 1, 'more')} in that period)" if len(hits) > 1 else ""
        return (f"Yes. {r['name']} was {verb} on {_day(r.get(key))} [{r['handle']}]{more}.", False)
    undated = [r for r in rows if verb == "stopped" and not r.get("active") and not r.get("ended_at")]
    if undated:  # stopped, but the record does not say when: neither yes nor no
        r = undated[0]
        return (f"{v.record.capitalize()} does not date when {r['name']} was stopped: it was prescribed {_day(r.get('authored_on'))} and is {r.get('status') or 'not active'}, with no end date [{r['handle']}].", False)  # fmt: skip
    r = rows[0]
    state = "active now" if r.get("active") else "not active now"
    return (f"No: no {c.name} prescription was {verb} in the period you asked about. The most recent, {r['name']}, was prescribed {_day(r.get('authored_on'))} and is {state} [{r['handle']}].", False)  # fmt: skip


def _reason(topic: Topic, rows: list[dict[str, Any]], v: Voice) -> Lead:
    """What a named medicine is for: the prescription's recorded reason, cited; with a condition
    named ("is the metformin for my diabetes?") a yes/no against that reason."""
    c = topic.concept
    assert c is not None
    rows = _newest_first(rows)
    if not rows:
        return _never_prescribed(c, v)
    with_reason = [r for r in rows if r.get("reason")]
    if topic.reason is not None:
        wanted = normalise(topic.reason.name)
        hits = [r for r in with_reason if _names_condition(wanted, topic.reason, str(r["reason"]))]
        if hits:
            r = hits[0]
            return (f"Yes. {r['name']} is recorded as prescribed for {r['reason']} [{r['handle']}].", False)
        if with_reason:
            r = with_reason[0]
            return (f"No: {v.record} gives the reason for {r['name']} as {r['reason']}, not {topic.reason.name} [{r['handle']}].", False)  # fmt: skip
    if not with_reason:
        r = rows[0]
        return (f"{v.record.capitalize()} does not say what {r['name']} is for: no reason is recorded with the prescription [{r['handle']}].", False)  # fmt: skip
    if len({r["name"] for r in with_reason}) > 1:
        # a class ("which heart medicine was it and what was it for"): each medicine with its own
        # reason, never every reason under the first medicine's name
        by_drug: dict[tuple[str, str], list[str]] = {}
        for r in with_reason:
            by_drug.setdefault((r["name"], str(r["reason"])), []).append(r["handle"])
        parts = "; ".join(
            f"{name} for {why} [{', '.join(hs[:FOCUSED])}]" for (name, why), hs in by_drug.items()
        )
        return (
            f"{c.name[0].upper() + c.name[1:]} in {v.record}, each with its recorded reason: {parts}.",
            False,
        )
    reasons: dict[str, list[str]] = {}
    for r in with_reason:
        reasons.setdefault(str(r["reason"]), []).append(r["handle"])
    said = "; ".join(f"{why} [{', '.join(handles[:FOCUSED])}]" for why, handles in reasons.items())
    return (f"{with_reason[0]['name']} is recorded as prescribed for {said}.", False)


def _names_condition(wanted: str, concept: Any, reason: str) -> bool:
    """Whether a prescription's recorded reason is the condition asked about (its linked
    names, or the words said)."""
    text = normalise(reason)
    names = {wanted, *(normalise(q) for q in getattr(concept, "queries", ()) or ())}
    return any(n and n in text for n in names)


def _class_members(name: str) -> list[str]:
    from tools.lexicon import load_lexicon

    return list(load_lexicon().classes[name].members)


def _conflicts(outcomes: Sequence[ToolOutcome], v: Voice) -> Lead:
    conflicts = [r for r in _rows(outcomes) if r.get("ingredient")]
    if conflicts:
        parts = "; ".join(
            f"{r['name']} against the {r['allergy']} allergy [{r['handle']}]" for r in conflicts[:3]
        )
        return (
            f"Yes: {counted(len(conflicts), 'possible drug–allergy conflict')} in {v.record}: {parts}.",
            False,
        )
    return (f"No drug–allergy conflict found between {v.your} active prescriptions and recorded allergies (checked against the allergen ↔ drug-class table).", False)  # fmt: skip


# --- conditions ---------------------------------------------------------------------------------


def _conditions(topic: Topic, outcomes: Sequence[ToolOutcome], v: Voice) -> Lead | None:
    rows = [r for r in _rows(outcomes) if r.get("kind") == "condition"]
    if topic.operation == "diagnoses":
        names = {str(r.get("name")) for r in rows if "(disorder)" in str(r.get("name"))}
        if topic.window:
            if not names:
                return (f"No diagnosis (disorder) in {v.record} has its onset{_when(topic)}: I searched every condition, active and resolved.", True)  # fmt: skip
            return (f"{v.Your} diagnoses with their onset{_when(topic)} (disorders; findings and situations are not shown):", False)  # fmt: skip
        if not names:
            return (f"{v.record.capitalize()} has no diagnoses (disorders), past or present.", False)
        return (f"{v.Your} diagnoses over the years (disorders, past and present; findings and situations are not shown):", False)  # fmt: skip
    if topic.operation == "resolved":
        if not rows:
            return (f"No condition in {v.record} is recorded as resolved{_when(topic)}.", False)
        return (
            f"{v.record.capitalize()} lists {counted(len(rows), 'resolved condition')}{_when(topic)}:",
            False,
        )
    if topic.concept is None and topic.window:
        if not rows:
            return (f"No condition in {v.record} has its onset{_when(topic)}: I searched every condition, active and resolved.", True)  # fmt: skip
        return (f"{v.Your} conditions with their onset{_when(topic)}:", False)
    if topic.concept is None:
        active = [r for r in rows if r.get("active")]
        return (f"{v.record.capitalize()} lists {counted(len(active), 'active condition')}" + (f" of {len(rows)} in all" if len(rows) > len(active) else "") + ":", False)  # fmt: skip
    c = topic.concept
    if c.kind == "system":
        return _system(c, rows, v)
    if topic.operation in ("count", "cleared") and rows:
        return _episodes(topic, rows, v)
    if (lead := dated(topic, rows)) is not None:
        return lead
    active = [r for r in rows if r.get("active")]
    if active:
        r = active[0]
        return (
            f"Yes. {r['name']} is recorded as active since {_day(r.get('onset'))} [{r['handle']}].",
            False,
        )
    if rows:
        r = rows[0]
        ended = f", resolved {_day(r.get('abatement'))}" if r.get("abatement") else ""
        status = r.get("clinical_status") or "not active"
        if EVER_ASKED.search(normalise(topic.question)):
            # "have I ever had X?", "any history of X?": a resolved diagnosis is the question's yes
            return (f"Yes, in the past: {r['name']} was recorded {_day(r.get('onset'))} and is {status}{ended} [{r['handle']}]. It is not active now.", False)  # fmt: skip
        return (f"Not now: {r['name']} was recorded {_day(r.get('onset'))} and is {status}{ended} [{r['handle']}].", False)  # fmt: skip
    if c.kind in CERTAIN_KINDS:
        return (
            f"No. {v.record.capitalize()} has no {c.name}: I searched every condition, active and resolved.",
            True,
        )
    return (f"I could not find '{c.said}' among the conditions in {v.record}.", True)


def _episodes(topic: Topic, rows: list[dict[str, Any]], v: Voice) -> Lead:
    """A condition's episodes: "how many times have I had strep throat" counts them (each dated and
    cited, newest first); "when did my sinus infection clear up" is the newest episode's end."""
    c = topic.concept
    assert c is not None
    named = set(c.record_names)
    if named and any(r.get("name") in named for r in rows):  # "diabetes" is not "prediabetes"
        rows = [r for r in rows if r.get("name") in named]
    rows = sorted(
        {r["handle"]: r for r in rows}.values(), key=lambda r: str(r.get("onset") or ""), reverse=True
    )

    def span(r: dict[str, Any]) -> str:
        end = (
            _day(r.get("abatement"))
            if r.get("abatement")
            else ("still active" if r.get("active") else "no end date")
        )
        return f"{r['name']}, {_day(r.get('onset'))} → {end} [{r['handle']}]"

    if topic.operation == "count":
        listed = "; ".join(span(r) for r in rows[:FOCUSED])
        more = (
            f"; and {counted(len(rows) - FOCUSED, 'more', 'more')} {_cite_all(rows[FOCUSED:])}"
            if len(rows) > FOCUSED
            else ""
        )
        return (
            f"{counted(len(rows), 'episode')} of {c.name} in {v.record}, newest first: {listed}{more}.",
            False,
        )
    r = rows[0]
    n = f" ({counted(len(rows), 'episode')} in all)" if len(rows) > 1 else ""
    if r.get("abatement"):
        return (f"{v.Your} most recent {c.name}, {r['name']} recorded {_day(r.get('onset'))}, is recorded as resolved on {_day(r['abatement'])} [{r['handle']}]{n}.", False)  # fmt: skip
    if r.get("active"):
        return (f"{r['name']} has not cleared up in {v.record}: it is recorded as active since {_day(r.get('onset'))} [{r['handle']}]{n}.", False)  # fmt: skip
    return (f"{r['name']}, recorded {_day(r.get('onset'))}, is {r.get('clinical_status') or 'not active'}, with no resolution date recorded [{r['handle']}]{n}.", False)  # fmt: skip


def _system(c: Any, rows: list[dict[str, Any]], v: Voice) -> Lead:
    """A body system asked about as a whole ("anything wrong with my kidneys?"): every condition of
    that system the record holds, active first, each cited; or a "no" that says what was searched.
    The system's latest labs follow as their own topics."""
    seen: dict[str, dict[str, Any]] = {}
    for r in sorted(rows, key=lambda r: (not r.get("active"), -_stamp(r.get("onset")))):
        seen.setdefault(str(r.get("name")), r)
    if not seen:
        searched = ", ".join(c.queries)
        return (f"No {c.name} condition is recorded in {v.record}: I searched every condition, active and resolved, for {searched}.", True)  # fmt: skip
    parts = []
    for r in seen.values():
        if r.get("active"):
            parts.append(f"{r['name']}, active since {_day(r.get('onset'))} [{r['handle']}]")
        else:
            state = (
                f"resolved {_day(r.get('abatement'))}"
                if r.get("abatement")
                else (r.get("clinical_status") or "not active")
            )
            parts.append(f"{r['name']}, recorded {_day(r.get('onset'))}, {state} [{r['handle']}]")  # fmt: skip
    active = sum(1 for r in seen.values() if r.get("active"))
    return (f"Yes. {v.record.capitalize()} has {counted(len(seen), f'{c.name} condition')} ({active} active now): {'; '.join(parts)}.", False)  # fmt: skip


# --- labs ---------------------------------------------------------------------------------------


def range_verdict(asked: str, where: str, outside: int) -> str:
    """Yes/no to what was asked about the range ("above?", "ever outside?", "normal?")."""
    position = {"above": "above the range", "below": "below the range", "within": "within the range"}[where]
    if asked == "above":
        return f"{'Yes' if where == 'above' else 'No'}, it is {position}"
    if asked == "below":
        return f"{'Yes' if where == 'below' else 'No'}, it is {position}"
    if asked == "ever_outside":
        return f"{'Yes' if outside else 'No'}, {counted(outside, 'result')} {'was' if outside == 1 else 'were'} outside the range; the latest is {position}"
    if asked == "outside":
        return f"{'No' if where == 'within' else 'Yes'}, it is {position}"
    return f"{'Yes' if where == 'within' else 'No'}, it is {position}"


BP_PARTS = {"systolic": "8480-6", "diastolic": "8462-4"}  # LOINC codes of the panel's components


# a medicine question about the past, not about now: "ever", "was I put on", "have I taken", "been prescribed"
EVER_ASKED = re.compile(
    # "any psoriasis in my medical history?" (round sixteen): the history named as where to look
    r"\bin (my|her|his|their|the patient s) (past |medical |health |clinical )?history\b|"
    r"\b(ever|at any (point|time)|at some point|in the past|previously|before|history of|h/o|hx of|pmh( of)?|used to|was i|were (you|they)|"
    r"did (a |the |my |any )?(doctor|gp|they|you|anyone|i)|have i (taken|had|been (on|given|prescribed))|"
    r"(has|have) (she|he|the patient|they) (taken|had|been (on|given|prescribed))|been prescribed)\b"
)
# "what inhalers is she on?", "which statins am I taking?": a question that asks WHICH, answered by
# the medicines found; a "Yes."/"No." in front answers a question nobody asked (round seventeen). "What
# about X?" is still a yes/no ("and what about metformin, am I on it?")
WHICH_ASKED = re.compile(
    r"^(?:(?:so|and|ok|okay|um|hi|hey|quick one|just wondering|please|can you tell me|tell me)\W+)*"
    r"(?:what|which|whats|list|show|name)\b(?! about\b)"
)


def yes_no_asked(question: str) -> bool:
    """Whether the lead may open with "Yes."/"No.": the question asked whether, not which."""
    return not WHICH_ASKED.match(normalise(question))


_REFERENCE = re.compile(r"(-?\d+(?:\.\d+)?)(?: [^\s(]+)? \(reference (-?[\d.]+|…)–(-?[\d.]+|…)\)")


def outside_reference(line: str) -> bool | None:
    """Whether a result line's value lies outside the reference range printed with it (None:
    no range on the line). Only the lab's own range counts here, never a typical one."""
    m = _REFERENCE.search(line)
    if m is None:
        return None
    value, low, high = float(m.group(1)), m.group(2), m.group(3)
    return (low != "…" and value < float(low)) or (high != "…" and value > float(high))


def _out_of_range(topic: Topic, outcomes: Sequence[ToolOutcome], v: Voice) -> Lead:
    computed = [o for o in outcomes if o.result.ok and o.call.name == "find_out_of_range_labs"]
    if computed:
        rows = _rows(computed)
        # the tool's own "Note: compared N tests …" line, said as a sentence of the lead
        said = computed[0].result.text.splitlines()
        tally = next(("C" + line.removeprefix("Note: c") for line in said if line.startswith("Note: compared ")), "")  # fmt: skip
        when = _when(topic)
        if not rows:
            return (f"None of {v.your} newest results{when} is outside its range. {tally}".strip(), False)
        typical = any("typical" in str(r.get("ref_label", "")) for r in rows)
        kind = " (a typical adult range where the lab recorded none)" if typical else ""
        return (f"{len(rows)} of {v.your} newest results{when} {'is' if len(rows) == 1 else 'are'} outside a range{kind}:", False)  # fmt: skip
    lines = [line for o in outcomes if o.result.ok for line in o.result.text.splitlines()]
    ranged = [line for line in lines if outside_reference(line) is not None]
    outside = [line for line in ranged if outside_reference(line)]
    if not ranged:
        return (f"None of {v.your} latest results has a reference range recorded with it, so I cannot say which are outside it.", True)  # fmt: skip
    if not outside:
        return (f"None of {v.your} latest results is outside the reference range recorded with it.", False)
    return (
        f"{len(outside)} of {v.your} latest results are outside the reference range recorded with them:",
        False,
    )


def series_for(topic: Topic, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The summary row the question is about: the one whose name carries the words asked for
    ("systolic" among a blood-pressure panel's parts), else the series with the most values."""
    summaries = [r for r in rows if "count" in r] or rows
    if topic.concept is not None:
        query = topic.concept.queries[0].lower()
        part = next((code for word, code in BP_PARTS.items() if word in query), None)
        if part and (coded := [r for r in summaries if str(r.get("code")) == part]):
            return coded[0]
        words = [w for w in topic.concept.queries[0].lower().split() if len(w) >= 3]
        named = [r for r in summaries if words and all(w in str(r.get("name", "")).lower() for w in words)]
        if named:
            return named[0]
    return summaries[0]


def _group_of(topic: Topic, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The series of a group of tests asked about as one ("lipid panel", "which cholesterol
    number"): every test's own summary, when the question names no single one of them."""
    summaries = [r for r in rows if "count" in r and r.get("latest")]
    if len({str(r.get("code")) for r in summaries}) < 2 or topic.concept is None:
        return []
    words = [w for w in topic.concept.queries[0].lower().split() if len(w) >= 3]
    named = [r for r in summaries if words and all(w in str(r.get("name", "")).lower() for w in words)]
    return [] if len(named) == 1 else summaries


def _group_range(
    topic: Topic, group: list[dict[str, Any]], outcomes: Sequence[ToolOutcome], v: Voice
) -> Lead:
    """ "Which cholesterol number is out of range?": each test of the group against its own
    range (never the total alone), those outside first."""
    name = topic.concept.name if topic.concept else "results"

    def said(s: dict[str, Any]) -> str:
        unit = f" {s['unit']}" if s.get("unit") and not str(s["unit"]).startswith("{") else ""
        last = s["latest"]
        h = _handle_of(outcomes, last.get("record_id")) or f" [{s['handle']}]"
        where = s.get("latest_position")
        if not s.get("ref_label") or where not in ("above", "below", "within"):
            return f"{s.get('name')} {fmt_num(last['value'])}{unit} on {last['date']} (no range recorded){h}"
        # (the handle after the range: the row cited for the value and its range alike)
        return f"{s.get('name')} {fmt_num(last['value'])}{unit} on {last['date']} ({where} the range {_range_text(s, unit)}){h}"

    ranged = [
        s for s in group if s.get("ref_label") and s.get("latest_position") in ("above", "below", "within")
    ]
    outside = [s for s in ranged if s["latest_position"] != "within"]
    inside = [s for s in group if s not in outside]
    asked = topic.asked
    if asked == "above":
        yes = any(s["latest_position"] == "above" for s in outside)
    elif asked == "below":
        yes = any(s["latest_position"] == "below" for s in outside)
    elif asked == "normal":
        yes = bool(ranged) and not outside
    else:  # "which one is out of range", "anything abnormal"
        yes = bool(outside)
    verdict = "Yes" if yes else "No"
    if outside:
        head = f"{verdict}: {len(outside)} of {v.your} latest {name} results {'is' if len(outside) == 1 else 'are'} outside {'its' if len(outside) == 1 else 'their'} range: " + "; ".join(said(s) for s in outside)  # fmt: skip
        rest = f". The others: {'; '.join(said(s) for s in inside)}." if inside else "."
        return (head + rest, False)
    return (f"{verdict}: none of {v.your} latest {name} results is outside its range: " + "; ".join(said(s) for s in group) + ".", False)  # fmt: skip


def _last_draw(rows: list[dict[str, Any]], v: Voice, question: str = "") -> Lead:
    """My last blood test: the newest draw date of the laboratory results, and each result drawn
    that day (the newest of every test, so a result of that day is that test's newest)."""
    dated = [r for r in rows if r.get("effective")]
    if not dated:
        return (f"No laboratory results are recorded in {v.record}: I searched every lab result.", True)
    # a measured value, not a certificate entry (a cause of death is filed as a "laboratory" row)
    measured = [r for r in dated if isinstance(r.get("value"), int | float) or r.get("systolic") is not None]
    dated = measured or dated
    day = max(_day(r["effective"]) for r in dated)
    drawn = [r for r in dated if _day(r["effective"]) == day]
    cites = "".join(f"[{r['handle']}]" for r in drawn if r.get("handle"))
    who = (
        f" ({v.record.capitalize()} does not say who ordered it.)"
        if re.search(r"\bwho\b", normalise(question)) and not any(r.get("requester") for r in drawn)
        else ""
    )
    return (
        f"{v.Your} last blood test was on {day} {cites}: {counted(len(drawn), 'result')} from that day.{who} The results:",
        False,
    )


# "better" or "worse" is a judgement the record does not make (a lower eGFR or HDL is not better):
# such a change is said by its direction, with no yes or no
JUDGED = re.compile(r"\b(better|worse|improv\w*|worsen\w*|good|bad)\b")


# how much it changed, not whether: "by how much", "the difference", "the gap between the two newest"
AMOUNT_ASKED = re.compile(
    r"\b(how (much|big|far|large)|by how|difference|delta|gap|what (was|is) the change)\b"
)


# "how has it changed?" asks the way it went, not whether: no "Yes:" in front
HOW_ASKED = re.compile(r"^((so|and|ok|okay|um|hey|hi|just wondering),? )*how\b")


def _asks_yes_or_no(question: str) -> bool:
    """Whether a change is answered "Yes:" / "No:": not for a judgement ("better or worse", which
    the record does not make), either way ("up or down?") or an amount ("how much did it
    change?"): those are said by the direction and the values (round fifteen: "up or down vs
    prior?" was answered "Yes: … went down")."""
    text = normalise(question)
    both = all(asked_direction(text))
    return not (JUDGED.search(text) or both or AMOUNT_ASKED.search(text) or HOW_ASKED.match(text))


def _direction_asked(question: str, change: float) -> bool:
    """Whether a change answers the question's yes: "gone down?" is yes for a fall, "gone up?" for a
    rise, "changed?" for either (never "No: it went down" to "has it gone down?")."""
    up, down = asked_direction(question)
    if down and not up:
        return change < 0
    if up and not down:
        return change > 0
    return change != 0


def _previous(topic: Topic, rows: list[dict[str, Any]], name: str, v: Voice) -> Lead:
    """ "My previous a1c", "before it was last checked", "two readings ago": the series of the test
    asked about, newest first, and the result that many before the newest, dated and cited beside
    the newest (never the newest alone)."""
    dated = [r for r in rows if r.get("effective")]
    words = [w for w in (topic.concept.queries[0].lower().split() if topic.concept else []) if len(w) >= 3]
    named = [r for r in dated if words and all(w in str(r.get("name", "")).lower() for w in words)]
    pool = named or dated
    newest = max(pool, key=lambda r: str(r["effective"]))
    series = sorted((r for r in pool if r.get("code") == newest.get("code")), key=lambda r: str(r["effective"]), reverse=True)  # fmt: skip
    back = previous_offset(topic.question)
    latest = f"{_value(newest)} on {_day(newest['effective'])} [{newest['handle']}]"
    if len(series) <= back:
        only = "only one" if len(series) == 1 else f"only {len(series)}"
        return (f"There is no earlier {name} result to show: {v.record} holds {only} (the latest is {latest}).", False)  # fmt: skip
    r = series[back]
    which = "before the latest" if back == 1 else f"{back} results before the latest"
    return (f"{v.Your} {name} {which} was {_value(r)}, taken {_day(r['effective'])} [{r['handle']}]; the latest is {latest}.", False)  # fmt: skip


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _since_event(topic: Topic, outcomes: Sequence[ToolOutcome], v: Voice) -> Lead | None:
    """ "Has my A1C gone down since starting metformin?", "weight since my 40th birthday": the
    results from the event's day, the event cited; an event the record does not hold is said so,
    with what was searched, and no change is given (the last two values are not "since" it)."""
    event, anchor = topic.event, topic.anchor
    assert event is not None
    name = topic.concept.name if topic.concept else "result"
    if event.kind != "birthday" and anchor is None:
        which = "medicine" if event.kind == "start" else "diagnosis"
        return (f"I can't tell from the question which {which} to count from ('{event.said}'), so I give no {name} change: ask again naming it (e.g. \"since starting metformin\").", True)  # fmt: skip
    found = event_day(topic, outcomes)
    if found is None:
        if event.kind == "birthday":
            return (f"{v.record.capitalize()} holds no birth date, so I can't count from {v.your} {_ordinal(event.years)} birthday and give no {name} change.", True)  # fmt: skip
        assert anchor is not None
        if event.kind == "start":
            searched = f"has no prescription of {anchor.name}: I searched every prescription, active and past"
            start = f"{v.you} started {anchor.name}"
        else:
            searched = f"has no diagnosis of {anchor.name}: I searched every condition, active and past"
            start = f"{anchor.name} was diagnosed"
        return (f"{v.record.capitalize()} {searched}. So there is no date when {start} to measure {v.your} {name} from, and I give no change since it.", True)  # fmt: skip
    day, row = found
    h = f" [{row['handle']}]" if row.get("handle") else ""
    if event.kind == "birthday":
        born = f"born {_day(row.get('birth_date'))}{h}"
        if topic.today is not None and day > topic.today:
            return (f"{v.Your} {_ordinal(event.years)} birthday has not come yet ({born}), so there is no {name} change since it to give.", True)  # fmt: skip
        counted_from = f"{v.your} {_ordinal(event.years)} birthday ({born})"
    elif event.kind == "start":
        counted_from = (
            f"the first prescription of {anchor.name if anchor else 'it'}, {_day(row.get('authored_on'))}{h}"
        )
    else:
        counted_from = (
            f"the first diagnosis of {anchor.name if anchor else 'it'}, {_day(row.get('onset'))}{h}"
        )
    rest = [o for o in outcomes if o.call.id not in topic.event_ids]
    lead = _labs(topic, rest, v, from_event=False) if rest else None
    if lead is None:
        return (f"{v.record.capitalize()} has no {name} results since {counted_from}.", True)
    return (f"{lead[0]} Counted from {counted_from}.", lead[1])


def _labs(topic: Topic, outcomes: Sequence[ToolOutcome], v: Voice, *, from_event: bool = True) -> Lead | None:
    if from_event and topic.event is not None:
        return _since_event(topic, outcomes, v)
    before = [
        r
        for o in outcomes
        if o.call.id in topic.before_ids
        for r in _rows([o])
        if r.get("kind") == "observation"
    ]
    outcomes = [o for o in outcomes if o.call.id not in topic.before_ids]
    if topic.operation == "out_of_range":
        return _out_of_range(topic, outcomes, v)
    if topic.latest_beyond_window and len(outcomes) == 2:
        outcomes, beyond = outcomes[:1], [r for r in _rows(outcomes[1:]) if r.get("kind") == "observation"]
        if beyond and not [r for r in _rows(outcomes) if r.get("kind") == "observation"]:
            name = topic.concept.name if topic.concept else "result"
            r = beyond[0]
            return (f"No {name} result is recorded{_when(topic)}. The most recent {name} in {v.record} is {_value(r)}, taken {_day(r.get('effective'))} [{r['handle']}].", True)  # fmt: skip
    rows = [r for r in _rows(outcomes) if r.get("kind") == "observation"]
    if topic.operation == "last_draw":
        return _last_draw(rows, v, topic.question)
    name = topic.concept.name if topic.concept else "result"
    when = _when(topic)
    if topic.operation == "previous" and rows:
        return _previous(topic, rows, name, v)
    if topic.operation == "newest" and rows:
        # "BP readings at the last 3 visits": each of the newest values, newest first
        listed = "; ".join(f"{_value(r)} on {_day(r.get('effective'))} [{r['handle']}]" for r in rows)
        return (f"{v.Your} last {counted(len(rows), f'{name} result')}, newest first: {listed}.", False)
    if topic.operation == "previous_unnamed" and rows:
        return ("You asked for the result before the latest without saying of which test (ask, e.g., \"my previous cholesterol\"). The latest of each test, newest first:", True)  # fmt: skip
    if not rows:
        if topic.concept is None:
            return (f"{v.record.capitalize()} has no results{when}.", True)
        if topic.window:
            return (
                f"{v.record.capitalize()} has no {name} results{when} (I looked only in that period).",
                True,
            )
        return (
            f"No {name} is recorded in {v.record}: I searched every lab result and observation for {name}.",
            True,
        )
    if topic.operation == "latest" or "count" not in rows[0]:
        if topic.concept is None:  # "when was my last test of any kind": the newest date leads
            dates = [r for r in rows if r.get("effective")]
            # a measured value (not a certificate entry such as a cause of death), when there is one
            measured = [
                r for r in dates if isinstance(r.get("value"), int | float) or r.get("systolic") is not None
            ]
            dates = measured or dates
            if not dates:
                return (f"{v.Your} latest results, newest first:", False)
            newest = max(dates, key=lambda r: str(r["effective"]))
            return (
                f"{v.Your} most recent result was recorded on {_day(newest['effective'])} [{newest['handle']}]. "
                "The latest of each test, newest first:",
                False,
            )
        if len({row.get("name") for row in rows}) > 1:
            # a group of tests ("lipid panel": cholesterol, LDL, HDL, triglycerides): each by its
            # own name; one value under the group's name would say 185 is "the lipid panel"
            parts = "; ".join(
                f"{row.get('name')} {_value(row)} on {_day(row.get('effective'))} [{row['handle']}]"
                for row in rows[:FOCUSED]
            )
            return (f"{v.Your} latest {name} results: {parts}.", False)
        r = rows[0]
        shown = _value(r)
        query = topic.concept.queries[0].lower() if topic.concept else ""
        part = next((word for word in BP_PARTS if word in query), None)
        if part and r.get(part) is not None:  # "the top number": the systolic alone, not the pair
            shown = f"{fmt_num(r[part])} {r.get('unit') or ''}".strip()
        return (
            f"{v.Your} latest {name} is {shown}, taken {_day(r.get('effective'))} [{r['handle']}].",
            False,
        )
    panel = bp_panel(topic, rows)
    if topic.operation in ("threshold", "threshold_first"):
        if panel:
            return _joined([_threshold_lead(topic, p, _part_name(p), outcomes, v) for p in panel])
        return _threshold_lead(topic, series_for(topic, rows), name, outcomes, v)
    if panel and topic.operation == "range":
        return _panel_range(topic, panel, outcomes, v)
    if not panel and topic.operation == "range" and (group := _group_of(topic, rows)):
        return _group_range(topic, group, outcomes, v)
    if panel and topic.operation == "count" and len({p["count"] for p in panel}) == 1:
        sys_, dia = (p["latest"] for p in panel)
        unit = f" {panel[0]['unit']}" if panel[0].get("unit") else ""
        cite = _handle_of(outcomes, sys_["record_id"]) or f" [{panel[0]['handle']}]"
        return (f"{v.Your} {name} has been measured {counted(panel[0]['count'], 'time')}{when}, most recently {fmt_num(sys_['value'])}/{fmt_num(dia['value'])}{unit} on {sys_['date']}{cite}.", False)  # fmt: skip
    if panel:
        return _joined([_summary_lead(topic, p, _part_name(p), outcomes, v, before) for p in panel])
    return _summary_lead(topic, series_for(topic, rows), name, outcomes, v, before)


def _threshold_lead(
    topic: Topic, s: dict[str, Any], name: str, outcomes: Sequence[ToolOutcome], v: Voice
) -> Lead:
    """ "Was my glucose ever over 200?": how many of the results crossed the value, the first and
    the latest that did (each cited); none did is a plain no with the extreme that came nearest."""
    limit = s.get("threshold")
    if not limit or "beyond_count" not in s:
        return _summary_lead(topic, s, name, outcomes, v)
    side, value, count, total = limit["side"], limit["value"], s["beyond_count"], s["count"]
    unit = f" {s['unit']}" if s.get("unit") and not str(s["unit"]).startswith("{") else ""
    said = f"{side} {fmt_num(value)}{unit}"

    def at(point: dict[str, Any]) -> str:
        cite = _handle_of(outcomes, point.get("record_id")) or f" [{s['handle']}]"
        return f"{fmt_num(point['value'])}{unit} on {point['date']}{cite}"

    results = "result" if total == 1 else "results"
    if not count:
        nearest = s["highest"] if side == "above" else s["lowest"]
        word = "highest" if side == "above" else "lowest"
        return (f"No: 0 of {v.your} {total} {name} {results}{_when(topic)} {'was' if total == 1 else 'were'} {said}; the {word} was {at(nearest)}.", False)  # fmt: skip
    first, latest = s["beyond_first"], s["beyond_latest"]
    if topic.operation == "threshold_first":
        cite = _handle_of(outcomes, first.get("record_id")) or f" [{s['handle']}]"
        return (f"{v.Your} {name} first went {said} on {first['date']}, at {fmt_num(first['value'])}{unit}{cite} ({count} of {total} {results}{_when(topic)} {'was' if count == 1 else 'were'} {said}).", False)  # fmt: skip
    verdict = "" if topic.asked == "count" else "Yes: "
    tail = f"the first {at(first)}, the latest {at(latest)}" if count > 1 else at(first)
    lead = f"{count} of {v.your} {total} {name} {results}{_when(topic)} {'was' if count == 1 else 'were'} {said}: {tail}."
    return (verdict + (lead if verdict else lead[0].upper() + lead[1:]), False)


def bp_panel(topic: Topic, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The systolic and diastolic summaries, in that order, when both are there and neither the
    question nor its concept names one: a blood pressure is two numbers, and a lead that gives
    one of them ("your highest blood pressure was 83") answers a different question."""
    summaries = {str(r.get("code")): r for r in rows if "count" in r}
    if not all(code in summaries for code in BP_PARTS.values()):
        return []
    said = normalise(topic.question) + " " + (topic.concept.queries[0].lower() if topic.concept else "")
    if any(word in said for word in BP_PARTS) or re.search(r"\b(sbp|dbp)\b", said):
        return []
    return [summaries[BP_PARTS["systolic"]], summaries[BP_PARTS["diastolic"]]]


_VERDICT = re.compile(r"^(Yes|No): ")


def _joined(leads: list[Lead]) -> Lead:
    """Each number's sentence, one verdict in front when they agree ("No: the systolic went down;
    the diastolic went down"), each its own when they do not (never a lone "Yes" for half)."""
    texts = [text for text, _ in leads]
    abstained = any(a for _, a in leads)
    verdicts = [m.group(1) if (m := _VERDICT.match(t)) else None for t in texts]
    if verdicts[0] and len(set(verdicts)) == 1:
        rest = [_VERDICT.sub("", t).rstrip(".") for t in texts]
        return (f"{verdicts[0]}: " + "; ".join(rest) + ".", abstained)
    if any(verdicts):
        return ("The two numbers differ. " + " ".join(texts), abstained)
    return (" ".join(texts), abstained)


def _part_name(summary: dict[str, Any]) -> str:
    name = str(summary.get("name") or "")
    return name[:1].lower() + name[1:] if name else "blood pressure"


def _range_text(s: dict[str, Any], unit: str) -> str:
    low, high = s.get("ref_low"), s.get("ref_high")
    if low is not None and high is not None:
        return f"{fmt_num(low)}–{fmt_num(high)}{unit}"
    return f"≥ {fmt_num(low)}{unit}" if low is not None else f"≤ {fmt_num(high)}{unit}"


def _panel_range(
    topic: Topic, panel: list[dict[str, Any]], outcomes: Sequence[ToolOutcome], v: Voice
) -> Lead:
    """ "Is my blood pressure normal?": one verdict over both numbers (normal only when both are
    within; high, low or ever outside when either is), then each number against its own range."""
    ranged = [p for p in panel if p.get("ref_label")]
    if len(ranged) < len(panel):
        leads = [_summary_lead(topic, p, _part_name(p), outcomes, v) for p in panel]
        return (" ".join(text for text, _ in leads), False)
    wanted = {"above": ("above",), "below": ("below",), "outside": ("above", "below")}.get(topic.asked)
    if topic.asked == "ever_outside":
        hits = [p["outside_count"] > 0 for p in panel]
    elif wanted:
        hits = [p["latest_position"] in wanted for p in panel]
    else:
        hits = [p["latest_position"] == "within" for p in panel]
    yes = all(hits) if wanted is None and topic.asked != "ever_outside" else any(hits)
    clauses, counts = [], []
    for p in panel:
        unit = f" {p['unit']}" if p.get("unit") and not str(p["unit"]).startswith("{") else ""
        last = p["latest"]
        cite = _handle_of(outcomes, last["record_id"]) or f" [{p['handle']}]"
        position = {"above": "above", "below": "below", "within": "within"}[p["latest_position"]]
        clauses.append(
            f"{_part_name(p)} is {fmt_num(last['value'])}{unit} on {last['date']}{cite}, {position} {_range_text(p, unit)}"
        )
        counts.append(f"{_part_name(p).split()[0]} {p['outside_count']} of {p['count']}")
    label = panel[0]["ref_label"]
    return (
        f"{'Yes' if yes else 'No'}: {v.your} latest {'; '.join(clauses)} ({label}). "
        f"Results outside the range: {', '.join(counts)}.",
        False,
    )


def _before_window(s: dict[str, Any], before: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The newest result before a window, as a summary point (value, date, record id), of the
    series' own test; None when there is none."""
    code = str(s.get("code") or "")
    part = {"8462-4": "diastolic", "8480-6": "systolic"}.get(code)
    for r in before:
        value = r.get(part) if part else r.get("value")
        if isinstance(value, int | float) and (not code or str(r.get("code")) == code or part):
            return {
                "value": value,
                "date": _day(r.get("effective")),
                "record_id": r.get("record_id"),
                "handle": r.get("handle"),
            }
    return None


def _summary_lead(
    topic: Topic,
    s: dict[str, Any],
    name: str,
    outcomes: Sequence[ToolOutcome],
    v: Voice,
    before: Sequence[dict[str, Any]] = (),
) -> Lead:
    """One series' summary said as the operation asks (highest, average, change, trend, …);
    `before`: the newest result before the window, a change's baseline when the window holds one."""
    when = _when(topic)
    h = f" [{s['handle']}]"
    unit = f" {s['unit']}" if s.get("unit") and not str(s["unit"]).startswith("{") else ""
    last, first = s["latest"], s["first"]
    op = topic.operation

    def at(point: dict[str, Any] | None) -> str:
        if not point:
            return ""
        cite = (
            f" [{point['handle']}]" if point.get("handle") else _handle_of(outcomes, point["record_id"]) or h
        )
        return f"{fmt_num(point['value'])}{unit} on {point['date']}{cite}"

    if op == "max":
        return (f"{v.Your} highest {name}{when} was {at(s['highest'])}, of {s['count']} results.", False)
    if op == "min":
        return (f"{v.Your} lowest {name}{when} was {at(s['lowest'])}, of {s['count']} results.", False)
    if op == "mean":
        return (f"{v.Your} average {name}{when} was {fmt_num(s['mean'])}{unit}, over {s['count']} results from {first['date']} to {last['date']}{h}.", False)  # fmt: skip
    if op == "count":
        return (
            f"{v.Your} {name} has been measured {counted(s['count'], 'time')}{when}, most recently {at(last)}.",
            False,
        )
    if op == "earliest":
        return (f"{v.Your} first {name}{when} was {at(first)}.", False)
    if op == "change":
        # "since last year": the first result of the window is the baseline, not the one before the newest
        prev = first if topic.window and first and first.get("record_id") != last.get("record_id") else s.get("previous")  # fmt: skip
        if topic.window and prev is not first and (then := _before_window(s, before)) is not None:
            # one result in "the past year": the baseline is the value then, the newest before it
            prev = first = then
        if not prev:
            return (f"There is only one {name} result{when}: {at(last)}; nothing to compare it with.", False)
        change = last["value"] - prev["value"] if prev is first else s["change"]
        judged = not _asks_yes_or_no(topic.question)
        verdict = "" if judged else ("Yes: " if _direction_asked(topic.question, change) else "No: ")
        whose = v.Your if judged else v.your
        if change == 0:
            return (f"{verdict}{whose} {name} is the same, {at(last)}, as {at(prev)}.", False)
        word = "up" if change > 0 else "down"
        # the tool computes the change since the previous value; a window's own change is said by its two ends
        by = "" if prev is first else f" by {fmt_num(abs(change))}{unit}"
        return (f"{verdict}{whose} {name} went {word}{by}, from {at(prev)} to {at(last)}.", False)  # fmt: skip
    if op == "year_ago":
        before = next((r for o in outcomes if o.call.name == "get_labs" for r in o.result.rows), None)
        part = {"8462-4": "diastolic", "8480-6": "systolic"}.get(str(s.get("code")))
        if before is not None and part and before.get(part) is not None:
            before = {**before, "value": before[part], "unit": before.get("unit")}
            before.pop("systolic", None), before.pop("diastolic", None)
        if before is None or not isinstance(before.get("value"), int | float):
            return (f"{v.Your} latest {name} is {at(last)}; there is no result from a year or more before it to compare with.", False)  # fmt: skip
        diff = last["value"] - before["value"]
        verdict = "Yes" if diff > 0 else "No"
        word = "higher" if diff > 0 else ("lower" if diff < 0 else "the same")
        return (f"{verdict}: {v.your} latest {name}, {at(last)}, is {word} than a year ago: {_value(before)} on {_day(before.get('effective'))} [{before['handle']}].", False)  # fmt: skip
    if op == "range" and s.get("ref_label"):
        verdict = range_verdict(topic.asked, s["latest_position"], s["outside_count"])
        return (f"{verdict}: {v.your} latest {name} is {at(last)}; the range is {_range_text(s, unit)} ({s['ref_label']}). {s['outside_count']} of {s['count']} results were outside it.", False)  # fmt: skip
    if op == "range":
        return (f"{v.Your} latest {name} is {at(last)}. No reference range is recorded with it and I have no typical range for this test.", False)  # fmt: skip
    if op == "older_than_year":
        if topic.today is None:
            return (f"{v.Your} latest {name} is {at(last)}.", False)
        cutoff = topic.today - relativedelta(years=1)
        old = str(last["date"])[:10] < cutoff.isoformat()
        verdict = "Yes, it is more than a year old" if old else "No, it is less than a year old"
        return (f"{verdict}: {v.your} latest {name} is {at(last)}.", False)
    direction = s["direction"]
    if direction == "single value" or s["count"] == 1:
        # one result in the window: no trend to speak of, and no "from X to X over 1 results"
        return (f"{v.Your} only {name}{_period(topic)} is {at(last)}: a single result, so there is no trend to show.", False)  # fmt: skip
    trend = {"up": "went up", "down": "went down", "about the same": "stayed about the same", "single value": "has a single value"}[direction]  # fmt: skip
    return (f"{v.Your} {name}{when} {trend}: from {at(first)} to {at(last)} over {s['count']} results; lowest {at(s['lowest'])}, highest {at(s['highest'])}.", False)  # fmt: skip


# --- encounters ---------------------------------------------------------------------------------


def _encounters(topic: Topic, outcomes: Sequence[ToolOutcome], v: Voice) -> Lead | None:
    lead = _encounter_verdict(topic, outcomes, v)
    if lead is not None and topic.operation == "count" and topic.asked == "count":
        # "how many ER trips have I had": the number is the answer; "Yes:"/"No:" answer a
        # question nobody asked (and "No: … 0 visits" read as a refusal to count)
        text = re.sub(r"^(?:Yes|No): ", "", lead[0])
        return (text[:1].upper() + text[1:], lead[1])
    return lead


def _encounter_verdict(topic: Topic, outcomes: Sequence[ToolOutcome], v: Voice) -> Lead | None:
    if topic.operation == "count":
        per_call = [[r for r in o.result.rows if r.get("summary")] for o in outcomes if o.result.ok]
        if not per_call:
            return None
        empty = {"total": 0, "by_class": {}}
        windowed = per_call[0][0]["summary"] if per_call[0] else empty
        overall = per_call[-1][0]["summary"] if per_call[-1] else empty
        when = _when(topic)
        if topic.emergency or topic.inpatient:
            klass = "emergency" if topic.emergency else "inpatient"
            word = "emergency visit" if topic.emergency else "hospital admission"
            n_win, n_all = windowed["by_class"].get(klass, 0), overall["by_class"].get(klass, 0)
            visits = list(
                {r["handle"]: r for o in outcomes for r in o.result.rows if r.get("class") == klass}.values()
            )
            cites = ", ".join(f"{_day(r.get('start'))} {r.get('type')} [{r['handle']}]" for r in visits[:3])
            if n_all and topic.window is not None and topic.window.soft:
                recent = f"{n_win} of them recently" if n_win else "none of them in the last three years"
                return (f"Yes: {counted(n_all, word)} in {v.record} ({recent}): {cites}.", False)
            if n_win:
                return (f"Yes: {counted(n_win, word)}{when} in {v.record}: {cites}.", False)
            if n_all:
                return (f"None{when}; {v.record} has {counted(n_all, word)} earlier: {cites}.", False)
            if topic.inpatient and not topic.emergency:
                # no inpatient stay, but emergency visits — whose Synthea type may itself read
                # "Emergency hospital admission for asthma" — are named beside the zero, never left
                # under a bare "0 hospital admissions" (round thirteen's closing run)
                er = list(
                    {
                        r["handle"]: r
                        for o in outcomes
                        for r in o.result.rows
                        if r.get("class") == "emergency"
                    }.values()
                )
                if er:
                    er_cites = ", ".join(
                        f"{_day(r.get('start'))} {r.get('type')} [{r['handle']}]" for r in er[:3]
                    )
                    n_er = overall["by_class"].get("emergency", len(er))
                    return (
                        f"No inpatient stay{when} is recorded (I searched every visit); {v.record} has "
                        f"{counted(n_er, 'emergency visit')}: {er_cites}.",
                        False,
                    )
            # every visit was searched: zero is the answer, not an abstention
            if topic.window is not None:
                return (
                    f"No: {counted(0, word)}{when}, and none earlier: I searched every visit in {v.record}.",
                    False,
                )
            return (f"No: {v.record} has {counted(0, word)}. I searched every visit.", False)
        classes = ", ".join(
            f"{k} {n}" for k, n in sorted(windowed["by_class"].items(), key=lambda kv: -kv[1])
        )
        if topic.concept is not None and topic.concept.section == "encounters":
            # visits of one type ("urgent care clinic") or kind ("checkups": each of its types counted
            # apart, windowed counts first): counted by the visit's type, each cited
            name = topic.concept.name
            n = len(per_call) // 2 if topic.window is not None and len(per_call) > 1 else len(per_call)
            windowed = {"total": sum(c[0]["summary"]["total"] for c in per_call[:n] if c)}
            overall = (
                {"total": sum(c[0]["summary"]["total"] for c in per_call[n:] if c)}
                if n < len(per_call)
                else windowed
            )
            inside = [r for c in per_call[:n] for r in c]
            outside = [r for c in per_call[n:] for r in c]
            per_call = [inside, outside]
            if not windowed["total"] and overall["total"] and topic.window is not None:
                cites = "".join(f"[{r['handle']}]" for r in per_call[-1][:FOCUSED])
                return (f"None{when}; {v.record} has {counted(overall['total'], name + ' visit')} outside it {cites}.", False)  # fmt: skip
            if not windowed["total"]:
                return (f"No: {v.record} has no {name} visit{when}. I searched the type of every visit.", False)  # fmt: skip
            # every counted visit cited, so the number said is the visits it stands for
            cites = "".join(f"[{r['handle']}]" for r in per_call[0])
            return (f"{v.record.capitalize()} has {counted(windowed['total'], name + ' visit')}{when} (counted by the visit's type) {cites}.", False)  # fmt: skip
        if topic.concept is not None:  # visits for one reason: what was counted, each visit cited
            name = topic.concept.name
            if not windowed["total"]:
                return (
                    f"No: {v.record} has no visit for {name}{when}. I searched every visit's reason and "
                    "the diagnoses recorded at each visit.",
                    False,
                )
            cites = "".join(f"[{r['handle']}]" for r in per_call[0])
            return (f"{v.record.capitalize()} has {counted(windowed['total'], 'visit')} for {name}{when} (counted by the visit's reason or a diagnosis made at it) {cites}.", False)  # fmt: skip
        # cite the counted result (its rows carry the totals), so the number is grounded
        cite = f" [{per_call[0][0]['handle']}]" if per_call[0] and per_call[0][0].get("handle") else ""
        return (f"{v.record.capitalize()} has {counted(windowed['total'], 'visit')}{when}" + (f" ({classes})" if classes else "") + f"{cite}.", False)  # fmt: skip
    rows = [r for r in _rows(outcomes) if r.get("kind") == "encounter"]
    if topic.operation == "list" and topic.window is not None and all(o.result.ok for o in outcomes):
        # "visits in the last 30 days?": how many, then the visits; every visit of the period
        # was searched, so 0 is the answer, not an abstention
        n = sum(o.result.total for o in outcomes)
        return (
            f"{v.record.capitalize()} has {counted(n, 'visit')}{_when(topic)}" + (":" if n else "."),
            False,
        )
    if not rows and topic.concept is not None and topic.concept.section == "encounters":
        return (f"No: {v.record} has no {topic.concept.name} visit{_when(topic)}. I searched the type of every visit.", False)  # fmt: skip
    if not rows:
        return (f"{v.record.capitalize()} has no visits{_when(topic)}.", True)
    if topic.operation == "latest":
        r = max(rows, key=lambda x: str(x.get("start") or ""))  # each type of a kind asked apart
        reason = f" for {r['reason']}" if r.get("reason") else ""
        who = f" with {r['practitioner']}" if r.get("practitioner") else ""
        kind = (
            f"{topic.concept.name} "
            if topic.concept is not None and topic.concept.section == "encounters"
            else ""
        )
        return (f"{v.Your} last {kind}visit was on {_day(r.get('start'))}: {r.get('type')}{reason}{who} [{r['handle']}].", False)  # fmt: skip
    return None


# --- care plans --------------------------------------------------------------------------------


def _care_plans(topic: Topic, outcomes: Sequence[ToolOutcome], v: Voice) -> Lead | None:
    """ "What care plans am I on?": the active plans, each cited; "do I have a diabetes care
    plan?", "date diabetic care plan initiated": the plans addressing that condition (by the
    condition the plan addresses or its own name), yes or no, and when each began."""
    rows = [r for r in _rows(outcomes) if r.get("kind") == "care_plan"]
    active = [r for r in rows if r.get("status") == "active"]

    def said(r: dict[str, Any]) -> str:
        since = f"started {_day(r.get('start'))}" if r.get("start") else "start not recorded"
        ended = f", ended {_day(r.get('end'))}" if r.get("end") else ""
        return f"{r.get('name')} ({r.get('status') or 'status unknown'}, {since}{ended}) [{r['handle']}]"

    c = topic.concept
    if c is None and rows and topic.operation == "earliest":
        first = min((r for r in rows if r.get("start")), key=lambda r: str(r["start"]), default=None)
        if first is not None:
            return (f"{v.Your} first recorded care plan is {said(first)}.", False)
    if c is None and rows and topic.operation == "count":
        # (the count said is the rows cited in this sentence, so it is grounded)
        closed = [r for r in rows if r.get("status") != "active"]
        if not closed:
            return (f"None of {v.your} care plans is closed: all {counted(len(rows), 'care plan')} in {v.record} are marked active.", False)  # fmt: skip
        return (f"{counted(len(closed), 'care plan')} in {v.record} {'is' if len(closed) == 1 else 'are'} not active (completed, stopped or ended): " + "; ".join(said(r) for r in closed) + ".", False)  # fmt: skip
    if c is None:
        if not rows:
            return (f"{v.record.capitalize()} has no care plans.", True)
        if not active:
            return (f"{v.you.capitalize()} {v.have} no active care plan; {v.record} lists {counted(len(rows), 'past care plan')}:", False)  # fmt: skip
        past = " (past ones are listed below too)" if len(rows) > len(active) else ""
        return (f"{v.you.capitalize()} {v.have} {counted(len(active), 'care plan')} marked active{past}: " + "; ".join(said(r) for r in active) + ".", False)  # fmt: skip
    words = {w for q in c.queries for w in normalise(q).split() if len(w) >= 4}
    names = {normalise(n) for n in c.record_names}

    def addresses(r: dict[str, Any]) -> bool:
        text = normalise(" ".join([str(r.get("name") or ""), *map(str, r.get("addresses") or [])]))
        own = {normalise(str(a)) for a in r.get("addresses") or []}
        return bool(own & names) or any(re.search(rf"\b{re.escape(w)}", text) for w in words)

    mine = sorted((r for r in rows if addresses(r)), key=lambda r: str(r.get("start") or ""))
    # a plan addressing the condition itself outranks one only named like it (a "Diabetes self
    # management plan" for prediabetes is not the diabetes plan when there is one for diabetes)
    exact = [r for r in mine if {normalise(str(a)) for a in r.get("addresses") or []} & names]
    mine = exact or mine
    if not mine:
        return (f"No: none of {v.your} {counted(len(rows), 'care plan')} addresses {c.name}. I searched every care plan, active and past.", False)  # fmt: skip
    if topic.operation == "earliest":
        first = mine[0]
        return (f"{v.Your} {c.name} care plan, {first.get('name')}, was started on {_day(first.get('start'))} [{first['handle']}]" + (f" (the first of {counted(len(mine), 'plan')} for it {_cite_all(mine)})" if len(mine) > 1 else "") + ".", False)  # fmt: skip
    live = [r for r in mine if r.get("status") == "active"]
    if live:
        return (f"Yes: {counted(len(live), 'active care plan')} for {c.name}: " + "; ".join(said(r) for r in live) + ".", False)  # fmt: skip
    return (f"Not now: {v.record} has {counted(len(mine), 'past care plan')} for {c.name}, none active: " + "; ".join(said(r) for r in mine) + ".", False)  # fmt: skip


# --- notes -------------------------------------------------------------------------------------

PLANTED = (
    "a passage addressed to an AI assistant, not clinical content: I did not follow its instructions, "
    "and it is not shown."
)


def _mention(topic: Topic, outcomes: Sequence[ToolOutcome], v: Voice) -> Lead:
    """A topic looked for in every condition and every note (`Planner._mention_plan`): "Yes" with
    the newest dated mention cited, or a "No" that says what was searched (every condition, active
    and resolved, and how many notes). The notes' verdict leads when the notes were asked about."""
    said = topic.asked
    words = mention_words(said)
    c = topic.concept
    named = set(c.record_names) if c else set()
    conditions = [
        r
        for o in outcomes
        if o.call.name == "get_conditions" and o.result.ok
        for r in o.result.rows
        if r.get("kind") == "condition"
        and (r.get("name") in named or mentions(str(r.get("name", "")), words))
    ]
    notes_call = next((o for o in outcomes if o.call.name == "search_notes"), None)
    notes = [
        r for r in (notes_call.result.rows if notes_call and notes_call.result.ok else []) if r.get("mention")
    ]
    searched = notes_call.result.total if notes_call and notes_call.result.ok and not notes else None
    notes_first = topic.inpatient  # the question asked about the notes
    your_notes = "your notes" if v.patient else "the notes"
    if notes:
        n = notes_call.result.total if notes_call else len(notes)
        in_all = f" ({n} notes mention it in all)" if n > 1 else ""
        note_part = f"{your_notes} mention {said} on {notes[0]['date']} [{notes[0]['handle']}]{in_all}"
    else:
        note_part = f"no note mentions {said}: I searched {counted(searched or 0, 'note')}"
    if conditions:
        r = conditions[0]
        status = r.get("clinical_status") or "status not recorded"
        cond_part = f"{r['name']} is recorded ({status}, since {_day(r.get('onset'))}) [{r['handle']}]"
    else:
        cond_part = (
            f"no condition matching '{said}' is recorded: I searched every condition, active and resolved"
        )
    if notes_first:
        head = f"Yes: {note_part}." if notes else f"{note_part[0].upper()}{note_part[1:]}."
        tail = f" Among the conditions, {cond_part}." if conditions else ""
        return (head + tail, not notes)
    if conditions:
        return (f"Yes: {cond_part}; {note_part}.", False)
    if notes:
        return (f"Yes: {note_part}; {cond_part}.", False)
    return (f"No: {cond_part}, and {note_part}.", True)


def _notes(topic: Topic, outcomes: Sequence[ToolOutcome], v: Voice) -> Lead | None:
    """The newest note by date says which note it is; a note carrying orders to an AI says so
    (the tools withhold that passage: the answer reports it rather than passing it on)."""
    if topic.operation == "mention":
        return _mention(topic, outcomes, v)
    rows = [r for r in _rows(outcomes) if r.get("kind") == "note" or r.get("note_id")]
    planted = any(r.get("withheld") for r in rows)
    if topic.operation == "latest_few" and rows:
        listed = "; ".join(
            f"{_day(r.get('date'))}" + (f" ({r['type']})" if r.get("type") else "") + f" [{r['handle']}]"
            for r in rows
        )
        lead = f"{v.Your} {counted(len(rows), 'most recent clinical note')}: {listed}."
        return (f"{lead} One of them contains {PLANTED}" if planted else lead, False)
    if topic.operation == "latest" and rows and rows[0].get("date"):
        r = rows[0]
        kind = f" ({r['type']})" if r.get("type") else ""
        lead = f"{v.Your} most recent clinical note is of {_day(r.get('date'))}{kind} [{r['handle']}]."
        return (f"{lead} It contains {PLANTED}" if r.get("withheld") else lead, False)
    if planted:
        return (f"One of these notes contains {PLANTED}", False)
    return None


# --- allergies, immunizations, procedures -------------------------------------------------------


def _allergies(topic: Topic, outcomes: Sequence[ToolOutcome], v: Voice) -> Lead | None:
    if topic.operation == "conflict":
        return _conflicts(outcomes, v)
    if topic.operation == "forbidden":
        return _forbidden(topic, outcomes, v)
    rows = [r for r in _rows(outcomes) if r.get("kind") == "allergy"]
    if topic.concept is None:
        if not rows:
            return (f"No allergies are recorded in {v.record} (that is not proof there are none).", True)
        return (
            f"{counted(len(rows), 'allergy')} {'is' if len(rows) == 1 else 'are'} recorded in {v.record}:",
            False,
        )
    c = topic.concept
    permission = _permission_asked(topic)
    if c.kind == "class":
        return _class_allergy(c, rows, v, permission)
    words = [w for w in c.queries[0].lower().split() if len(w) > 2]
    hits = [r for r in rows if all(w in str(r.get("substance", "")).lower() for w in words)]
    if hits:
        r = hits[0]
        found = f"An allergy to {r['substance']} is recorded ({r.get('clinical_status') or 'status not recorded'}) [{r['handle']}]."  # fmt: skip
        if permission:  # "can i have prawns?": never "Yes." in front of an allergy
            return (f"{found} Whether {v.you} can have {c.name} is for {v.your} clinician or pharmacist to say.", False)  # fmt: skip
        return (f"Yes. {found}", False)
    if permission:
        return (f"{v.record.capitalize()} records no allergy to {c.name}: I searched every recorded allergy (that is not proof there is none, and not permission: ask {v.your} clinician or pharmacist).", True)  # fmt: skip
    return (f"No. {v.record.capitalize()} records no allergy to {c.name}: I searched every recorded allergy (that is not proof there is none).", True)  # fmt: skip


def _permission_asked(topic: Topic) -> bool:
    """ "Can I have X?" asked beside the allergies: no "Yes."/"No." in front of the record's facts,
    which would read as a go-ahead or a ban the record cannot give."""
    return bool(PERMISSION_ASKED.search(normalise(topic.question)))


def _forbidden(topic: Topic, outcomes: Sequence[ToolOutcome], v: Voice) -> Lead:
    """ "Is penicillin something I'm not allowed to have?": what the record says to avoid — the
    allergies to that medicine or that rule it out in the drug–allergy table, each cited — or a
    "no" that says both were checked and is never a go-ahead (round sixteen)."""
    assert topic.concept is not None
    name = topic.concept.name
    listed = [r for r in _rows(outcomes) if r.get("kind") == "allergy" and "medicine" not in r]
    conflicts = [r for r in _rows(outcomes) if r.get("medicine")]
    # "can I have X given my allergies?": a "Yes."/"No." would read as a ban or a go-ahead; the
    # record's facts and whose call it is instead (round seventeen)
    permission = _permission_asked(topic)
    yes, no = ("", "") if permission else ("Yes. ", "No. ")
    record = v.record.capitalize()
    if conflicts:
        parts = []
        for r in conflicts:
            why = "" if r.get("itself") else f": {r['why']}"
            parts.append(
                f"the allergy to {r['substance']} ({r.get('status') or 'status not recorded'}) [{r['handle']}]{why}"
            )
        ask = f" Whether {v.you} can have {name} is for {v.your} clinician or pharmacist to say." if permission else ""  # fmt: skip
        return (f"{yes}{record} lists an allergy that rules out {name}: {'; '.join(parts)}.{ask}", False)  # fmt: skip
    caution = (
        "That is not permission to take it: ask your clinician or pharmacist before taking it."
        if v.patient
        else "That is not a clinical all-clear."
    )
    if not listed:
        return (f"{no}{record} lists no allergies at all, so none to {name}: I checked the allergy list and the drug–allergy table. {caution}", True)  # fmt: skip
    return (f"{no}{record} lists no allergy to {name}, and the drug–allergy table links none of the recorded allergies {_cite_all(listed)} to it: I checked the allergy list and that table. {caution}", True)  # fmt: skip


def _class_allergy(c: Any, rows: list[dict[str, Any]], v: Voice, permission: bool = False) -> Lead:
    """An allergy to a drug class ("any allergies to antibiotics?"): the recorded allergies whose
    substance is a member of the class (lexicon), or a "no" that names the allergies there are.
    A permission asked ("can i take antibiotics?") gets the record's facts with no yes or no."""
    members = _class_members(c.name)
    hits = [r for r in rows if any(m in str(r.get("substance", "")).lower() for m in members)]
    verdict = ("", "") if permission else ("Yes. ", "No. ")
    ask = (
        f" Whether {v.you} can have {c.name} is for {v.your} clinician or pharmacist to say."
        if permission
        else ""
    )
    if hits:
        named = "; ".join(f"{r['substance']} ({r.get('clinical_status') or 'status not recorded'}) [{r['handle']}]" for r in hits)  # fmt: skip
        return (f"{verdict[0]}An allergy to {c.name} is recorded in {v.record}: {named}.{ask}", False)
    if not rows:
        return (f"{verdict[1]}No allergies at all are recorded in {v.record}, so none to {c.name} (that is not proof there are none).{ask}", True)  # fmt: skip
    others = "; ".join(f"{r['substance']} [{r['handle']}]" for r in rows)
    return (f"{verdict[1]}No allergy to {c.name} is recorded in {v.record} (I searched every recorded allergy for {', '.join(members[:6])}, …); the allergies recorded are: {others}.{ask}", True)  # fmt: skip


def _cite_all(rows: list[dict[str, Any]]) -> str:
    """Every counted row cited at the count, so the number is the rows it stands for."""
    return "[" + ", ".join(r["handle"] for r in rows) + "]"


def _immunizations(topic: Topic, outcomes: Sequence[ToolOutcome], v: Voice) -> Lead | None:
    if topic.window is not None and topic.concept is not None and len(outcomes) > 1:
        if (lead := _none_in_window(topic, outcomes, v)) is not None:
            return lead
        outcomes = outcomes[:1]  # the window's doses answer; the whole history only said when
    rows = [r for r in _rows(outcomes) if r.get("kind") == "immunization"]
    given = [r for r in rows if r.get("given")]
    if topic.operation == "due":
        return _vaccines_due(topic, given, v)
    if topic.concept is None:
        return (f"{counted(len(given), 'immunization')} given {'is' if len(given) == 1 else 'are'} recorded in {v.record}{_when(topic)}:", False) if rows else (f"No immunizations are recorded in {v.record}{_when(topic)}.", True)  # fmt: skip
    if (lead := dated(topic, given)) is not None:
        return lead
    if given and topic.operation == "count":
        return (f"{counted(len(given), 'dose')} of {topic.concept.name} {'is' if len(given) == 1 else 'are'} recorded as given in {v.record}, the latest on {_day(given[0].get('date'))} {_cite_all(given)}.", False)  # fmt: skip
    if given:
        r = given[0]
        return (f"Yes. {r['vaccine']} was given on {_day(r.get('date'))} [{r['handle']}]" + (f" ({len(given)} doses recorded {_cite_all(given)})" if len(given) > 1 else "") + ".", False)  # fmt: skip
    if rows:
        return (f"No: {topic.concept.name} is recorded only as NOT given [{rows[0]['handle']}].", False)
    return (f"No. {v.record.capitalize()} has no {topic.concept.name}: I searched every immunization.", True)


def _none_in_window(topic: Topic, outcomes: Sequence[ToolOutcome], v: Voice) -> Lead | None:
    """ "Have I had my covid booster this year?" with none this year: no, in that period, and the
    most recent dose from the whole history (never "your record has no covid-19"). None when the
    window holds a dose (the usual lead answers) or the whole history has none either."""
    inside = [r for r in _rows(outcomes[:1]) if r.get("kind") == "immunization" and r.get("given")]
    ever = [r for r in _rows(outcomes[1:]) if r.get("kind") == "immunization" and r.get("given")]
    if inside or not ever:
        return None
    r = max(ever, key=lambda row: str(row.get("date") or ""))
    name = topic.concept.name if topic.concept else "vaccine"
    return (f"No {name} dose is recorded{_period(topic)}. The most recent one in {v.record} was {r['vaccine']} on {_day(r.get('date'))} [{r['handle']}].", True)  # fmt: skip


def _vaccines_due(topic: Topic, given: list[dict[str, Any]], v: Voice) -> Lead:
    """ "Which jabs am I due?": the record holds the doses given, not a schedule of doses due, so
    the lead says that plainly and then what was given and when (never the appointment diary).
    Abstained: whether one is due is not in the record."""
    newest = sorted(given, key=lambda r: str(r.get("date") or ""), reverse=True)
    c = topic.concept
    name = (c.name if "vaccin" in c.name.lower() else f"{c.name} vaccine") if c else ""
    article = "an" if name[:1].lower() in "aeiou" else "a"
    what = f"whether {article} {name} is due" if c else "which vaccines are due"
    head = f"{v.record.capitalize()} has no schedule of due vaccines, so I can't say {what}; it holds the immunizations given."
    if not newest:
        missing = f"no {name} given: I searched every immunization" if c else "no immunizations given"
        return (f"{head} {v.record.capitalize()} has {missing}.", True)
    r = newest[0]
    also = f" ({len(newest)} given in all)" if len(newest) > 1 else ""
    word = "last" if c else "most recent"
    return (
        f"{head} {v.Your} {word} was {r['vaccine']} on {_day(r.get('date'))} [{r['handle']}]{also}.",
        True,
    )


WHY_ASKED = re.compile(r"\b(why|what (was|were) (it|that|they) for|reason|indication)\b")


def _procedures(topic: Topic, outcomes: Sequence[ToolOutcome], v: Voice) -> Lead | None:
    rows = [r for r in _rows(outcomes) if r.get("kind") == "procedure"]
    if topic.concept is None:
        return None
    if len(outcomes) > 1:  # one call per name of the concept: each row once, newest first
        rows = sorted(
            {r["handle"]: r for r in rows}.values(), key=lambda r: str(r.get("performed") or ""), reverse=True
        )
    if (lead := dated(topic, rows)) is not None:
        return lead
    # the tool returns the newest rows up to its limit: the count said is its total, never the page
    total = max([len(rows), *(o.result.total for o in outcomes if o.result.ok)])
    shown = (
        f"{total} in all; the newest {len(rows)} {_cite_all(rows)}"
        if total > len(rows)
        else f"{len(rows)} in all {_cite_all(rows)}"
    )
    if rows and topic.operation == "count":
        return (f"{counted(total, 'time', 'times')} in {v.record}: {topic.concept.name}, the latest on {_day(rows[0].get('performed'))} ({shown}).", False)  # fmt: skip
    if rows:
        r = rows[0]
        # "why did I have that x-ray?": the recorded reason is the answer
        why = f" for {r['reason']}" if r.get("reason") and WHY_ASKED.search(normalise(topic.question)) else ""
        return (f"Yes. {r['name']} was done on {_day(r.get('performed'))}{why} [{r['handle']}]" + (f" ({shown})" if len(rows) > 1 else "") + ".", False)  # fmt: skip
    if topic.window:
        return (f"{v.record.capitalize()} has no {topic.concept.name}{_when(topic)} (I looked only in that period).", True)  # fmt: skip
    return (f"No. {v.record.capitalize()} has no {topic.concept.name}: I searched every procedure.", True)


# --- profile, appointments ----------------------------------------------------------------------

_ISO_DAY = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")
_NAME_TOKEN = re.compile(r"\b([a-z]+\d+)\b")  # Synthea-style names carry digits ("allen278")


def _stated_birth(text: str) -> str | None:
    """A birth date the question states ("born 28 August 2000", "dob 2000-08-28"), ISO, or None."""
    if m := _ISO_DAY.search(text):
        return m.group(1)
    m = re.search(r"\b(\d{1,2} [a-z]+ (19|20)\d\d|[a-z]+ \d{1,2}(st|nd|rd|th)? (19|20)\d\d)\b", text)
    if not m:
        return None
    try:
        return date_parser.parse(m.group(1)).date().isoformat()
    except (ValueError, OverflowError):
        return None


def _profile(topic: Topic, outcomes: Sequence[ToolOutcome], v: Voice) -> Lead | None:
    """Date of birth and age first; an identity check ("am I down as X born D?") answered yes/no."""
    row = next((r for r in _rows(outcomes) if r.get("kind") == "patient"), None)
    if row is None:
        return None
    name, birth = str(row.get("name") or ""), _day(row.get("birth_date"))
    h = f" [{row['handle']}]"
    stated_birth = _stated_birth(topic.question)
    stated_names = _NAME_TOKEN.findall(topic.question)
    if stated_birth or stated_names:
        own = normalise(name)
        wrong = [n for n in stated_names if n not in own.split()]
        if stated_birth and stated_birth != birth:
            wrong.append(f"born {stated_birth}")
        if wrong:
            return (
                f"No: the record is for {name}, born {birth}{h}; it does not match {', '.join(wrong)}.",
                False,
            )
        return (f"Yes: the record is for {name}, born {birth}{h}.", False)
    age = f", age {row['age']}" if row.get("age") is not None else ""
    return (f"{v.Your} date of birth is {birth}{age}{h}.", False)


def _appointments(topic: Topic, outcomes: Sequence[ToolOutcome], v: Voice) -> Lead | None:
    rows = [r for r in _rows(outcomes) if r.get("kind") == "appointment"]
    today = (topic.today or dt.date.min).isoformat()
    upcoming = [
        r
        for r in rows
        if str(r.get("starts_at") or "")[:10] >= today and r.get("status") not in ("cancelled",)
    ]
    if not upcoming:
        return (f"No: {v.record} has no upcoming appointments booked.", False)
    r = min(upcoming, key=lambda row: str(row.get("starts_at")))
    more = f" ({len(upcoming)} upcoming in all)" if len(upcoming) > 1 else ""
    return (f"Yes. {v.Your} next appointment is on {_day(r.get('starts_at'))}: {r.get('department')} [{r['handle']}]{more}.", False)  # fmt: skip
