"""Questions one computed tool answers whole (round fourteen, issue 16), read before the general
planner so that their words are not spread over sections:

- "am I on more meds now than 2 years ago" → `compare_active_medications` (both counts);
- "is my LDL better than last year" → `compare_lab` (both values, the direction, the aim as data);
- "who is my main doctor / GP" → `get_care_team` (registered GP, clinician seen most);
- "when was her last asthma review" → the newest visit whose reason or type names the condition;
- "how many times was I in hospital overnight" → `count_encounters`, its inpatient class (the
  encounters section's own lead).

Each reader is a plain function of the question (and the linked concepts); the leads are built
from tool rows only, each number and date cited.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from typing import Any

from agent.execution import ToolCall, ToolOutcome
from agent.offline.link import Linking
from agent.offline.parse import (
    MOVED_DOWN,
    MOVED_UP,
    SAID_DOWN,
    SAID_UP,
    asked_direction,
)
from agent.offline.windows import past_day, read_window
from agent.text import normalise
from tools.render import counted, fmt_num

# --- the wordings ------------------------------------------------------------------------------

MED_WORDS = re.compile(
    r"\b(meds?|medications?|medicines?|medication|pills?|tablets?|drugs?|prescriptions?|rx)\b"
)
# a comparison with the past day said ("than 2 years ago", "compared with 2021", "vs last year")
COMPARED = re.compile(
    r"\b(than|compared (to|with)|comparing|vs|versus|against|from|relative to|in comparison (to|with))\b(?: \w+){0,3} ?$"
)
# the past day said first: "was I on more meds 2 years ago than now" (what is asked is of then)
THEN_FIRST = re.compile(
    r"\bthan (now|today|currently|at present|these days|i am now|i do now|(s)?he is now|she does now|he does now)\b"
)
MORE = re.compile(r"\b(more|mroe|moar|extra)\b")
FEWER = re.compile(r"\b(fewer|less|lesser)\b")
# a lab compared with a past day: a judgement, a change, or a direction (the words of
# `parse.ASKED_UP` / `ASKED_DOWN`, but "more" / "less": "more than a year ago" is an age)
LAB_COMPARE_WORDS = re.compile(
    rf"\b(better|worse|improv\w*|changed?|different|compare\w*|vs|versus|{SAID_UP}|{SAID_DOWN}|{MOVED_UP}|{MOVED_DOWN})\b"
)
# the doctor of the patient: "main / usual / family doctor", "GP", "PCP", "general practitioner"
DOCTOR_OF_PATIENT = re.compile(
    r"\b(main|usual|regular|normal|primary|family|registered|own|assigned|named)( care)? "
    r"(doctor|doc|dr|gp|physician|clinician|provider|practitioner)s?\b|"
    r"\b(gps?|g p|pcps?|general practitioners?|primary care (physician|provider|doctor)s?)\b"
)
# asked as who it is: "who is my GP", "my gp's name?", "which doctor do I usually see"
WHO_IS = re.compile(r"\b(who|whos|who s)\b|\bnames?\b")
WHICH_USUALLY = re.compile(
    r"\b(which|what) (doctor|doc|dr|clinician|physician|gp|provider)s? .*\b(usually|normally|mostly|most|regularly|often|always)\b|"
    r"\bwho (do|does) (i|she|he|they|the patient) (usually|normally|mostly|regularly|always) see\b"
)
# "who is my doctor", "who's her doctor?": the doctor of the patient, not of one visit or letter
WHO_IS_MY_DOCTOR = re.compile(
    r"^(so |and |ok |okay )?(who|whos|who s) (is |are )?(my|her|his|their|the patient s) (doctor|doc|dr|physician|provider|clinician)s?$"
)
NOT_WHO = re.compile(
    r"\b(say|said|says|write|wrote|written|prescrib\w*|order\w*|refer\w*|book\w*|appointment|slot|notes?|"
    r"how|register|registering|registration|change|switch|phone|number|contact|address|email|where|hours|open)\b"
)
REVIEW = re.compile(
    r"\b(reviews?|reviewed|reveiws?|reviw|check ?ups?|checks?|checked|follow ?ups?|followups?|f ?u|appointments?|appts?|"
    r"visits?|clinic|seen|see (someone|anyone|a doctor|the doctor|the nurse)|come in|came in)\b"
)
LAST = re.compile(r"\b(last|latest|most recent|recent|newest|lately)\b")
INPATIENT_WORDS = re.compile(
    r"\b(admitted|admissions?|admisions?|admittance|hospitali[sz]\w*|inpatient|in patient|"
    r"(in|at) (the )?hospital overnight|overnight (in|at) (the )?hospital|overnight (hospital )?stays?|"
    r"stay(ed|s)? overnight|hospital stays?|kept in( hospital)?)\b"
)
# "how many times have I been in hospital": a stay, counted ("how many visitors in hospital" is not)
TIMES_IN_HOSPITAL = re.compile(
    r"\b(how many times|how often|number of times|times)\b.*\b(in|at) (the )?hospital\b"
)
NOT_STAYS = re.compile(r"\b(visitors?|visiting|parking|beds?|nurses?|staff|wards?|meals?)\b")
COUNT_WORDS = re.compile(r"\b(how many|how often|number of|count|times|total)\b")


def _compares_with_past(text: str, said: str) -> bool:
    before = text.split(said, 1)[0] if said in text else ""
    return bool(COMPARED.search(before.strip() + " "))


def medicine_count_day(text: str, today: dt.date) -> tuple[dt.date, str] | None:
    """The past day of "am I on more meds now than <then>", or None."""
    if not MED_WORDS.search(text):
        return None
    found = past_day(text, today)
    if found is None or not (_compares_with_past(text, found[1]) or THEN_FIRST.search(text)):
        return None
    if not (MORE.search(text) or FEWER.search(text) or re.search(r"\b(how many|number|count)\b", text)):
        return None
    return found


def lab_compare_day(text: str, today: dt.date) -> tuple[dt.date, str] | None:
    found = past_day(text, today)
    if found is None or not _compares_with_past(text, found[1]) or not LAB_COMPARE_WORDS.search(text):
        return None
    return found


def asks_main_doctor(text: str) -> bool:
    """Who the patient's own doctor is (never how to register with one, or what one wrote)."""
    if NOT_WHO.search(text):
        return False
    return bool(
        (DOCTOR_OF_PATIENT.search(text) and WHO_IS.search(text))
        or WHICH_USUALLY.search(text)
        or WHO_IS_MY_DOCTOR.search(text)
    )


def asks_last_review(text: str) -> bool:
    # the newest one asked for, or when one was (past tense): "when is the diabetes clinic open" and
    # "my next asthma review" are not the record's last visit
    if re.search(r"\b(next|upcoming|coming up|open|opening|hours)\b", text):
        return False
    return bool(REVIEW.search(text) and (LAST.search(text) or re.search(r"\bwhen (was|were|did)\b", text)))


def asks_inpatient_count(text: str) -> bool:
    if NOT_STAYS.search(text):
        return False
    return bool((INPATIENT_WORDS.search(text) and COUNT_WORDS.search(text)) or TIMES_IN_HOSPITAL.search(text))


# --- the plans -----------------------------------------------------------------------------------


def direct_plan(question: str, today: dt.date, linking: Linking, available: set[str]) -> Any:
    """A Plan for one of round fourteen's questions, or None (the general planner reads it)."""
    from agent.offline.plan import Plan, Topic

    text = normalise(question)

    def plan(section: str, operation: str, calls: list[ToolCall], **topic: Any) -> Plan:
        t = Topic(section, operation, call_ids=[c.id for c in calls], today=today, question=text, **topic)
        return Plan("read", intents=[section], calls=calls, topics=[t])

    labs = linking.of("labs")
    conditions = linking.of("conditions")
    if "compare_active_medications" in available and not labs and (found := medicine_count_day(text, today)):
        day, _ = found
        call = ToolCall("offline_1", "compare_active_medications", {"on": day.isoformat()})
        asked = "more" if MORE.search(text) else "fewer" if FEWER.search(text) else ""
        if asked and THEN_FIRST.search(text) and not _compares_with_past(text, found[1]):
            asked = {"more": "fewer", "fewer": "more"}[asked]  # "more then than now" = fewer now
        return plan("medications", "compare_count", [call], asked=asked)
    if "compare_lab" in available and labs and (found := lab_compare_day(text, today)):
        day, _ = found
        concept = labs[0]
        calls = [ToolCall("offline_1", "compare_lab", {"query": concept.queries[0], "on": day.isoformat()})]
        return plan("labs", "compare_lab", calls, concept=concept)
    if "get_care_team" in available and asks_main_doctor(text):
        return plan("profile", "care_team", [ToolCall("offline_1", "get_care_team", {})])
    if (
        "get_encounters" in available
        and conditions
        and not labs
        and asks_last_review(text)
        and not asks_inpatient_count(text)
        and not re.search(r"\b(how many|how often|number of|count)\b", text)
    ):
        c = conditions[0]
        words = list(dict.fromkeys([c.said, *c.queries]))[:3]
        calls = [
            ToolCall(
                f"offline_{i + 1}", "get_encounters", {"query": w, "until": today.isoformat(), "limit": 5}
            )
            for i, w in enumerate(words)
        ]
        calls.append(
            ToolCall(f"offline_{len(calls) + 1}", "get_conditions", {"status": "all", "query": c.queries[0]})
        )
        return plan("encounters", "last_visit_for", calls, concept=c)
    if (
        "count_encounters" in available
        and asks_inpatient_count(text)
        and not conditions
        and read_window(question, today) is None
    ):
        # the encounters section's own count of inpatient stays (its lead names emergency visits
        # beside a zero); only the words "in hospital overnight" had sent it to the leaflets
        call = ToolCall("offline_1", "count_encounters", {"until": today.isoformat()})
        return plan("encounters", "count", [call], inpatient=True)
    return None


# --- the leads -----------------------------------------------------------------------------------


def _rows(outcomes: Sequence[ToolOutcome], tool: str | None = None) -> list[dict[str, Any]]:
    return [
        r for o in outcomes if o.result.ok and (tool is None or o.call.name == tool) for r in o.result.rows
    ]


def _cites(rows: list[dict[str, Any]], limit: int = 8) -> str:
    handles = list(dict.fromkeys(r["handle"] for r in rows))
    return " ".join(f"[{h}]" for h in handles[:limit])


def compare_count_lead(topic: Any, outcomes: Sequence[ToolOutcome], v: Any) -> tuple[str, bool] | None:
    rows = _rows(outcomes, "compare_active_medications")
    ok = [o for o in outcomes if o.call.name == "compare_active_medications" and o.result.ok]
    if not ok:
        return None
    day = ok[0].call.input["on"]
    summary = rows[0]["summary"] if rows else None
    now = int(summary["now"]) if summary else 0
    then = int(summary["then"]) if summary else 0
    asked = topic.asked
    if asked == "more":
        verdict = "Yes" if now > then else "No"
    elif asked == "fewer":
        verdict = "Yes" if now < then else "No"
    else:
        verdict = "More now" if now > then else "Fewer now" if now < then else "The same"
    now_rows = [r for r in rows if r.get("active_now")]
    then_rows = [r for r in rows if r.get("active_then")]
    if not rows:
        unsure = (
            " (some prescriptions ended on a date it does not give)"
            if "ended on a date" in ok[0].result.text
            else ""
        )
        return (f"{verdict}: {now} active now against {then} on {day}: {v.record} has no prescription active now or known to be running then{unsure}.", False)  # fmt: skip
    now_cites = f" {_cites(now_rows)}" if now_rows else ""
    then_cites = f" {_cites(then_rows)}" if then_rows else ""
    unknown = int(summary.get("unknown_end") or 0) if summary else 0
    tail = (
        f" ({counted(unknown, 'more prescription')} written by then ended on a date {v.record} does not give, so "
        "they are not counted as running then.)"
        if unknown
        else ""
    )
    return (f"{verdict}: {now} active now{now_cites} against {then} on {day}{then_cites}.{tail}", False)


def compare_lab_lead(topic: Any, outcomes: Sequence[ToolOutcome], v: Any) -> tuple[str, bool] | None:
    ok = [o for o in outcomes if o.call.name == "compare_lab" and o.result.ok]
    if not ok:
        return None
    day = ok[0].call.input["on"]
    name = topic.concept.name if topic.concept else ok[0].call.input["query"]
    rows = [r for r in _rows(outcomes, "compare_lab") if "latest" in r]
    if not rows:
        return (f"No {name} result is recorded in {v.record}, so there is nothing to compare.", True)
    out = []
    newest = max(str(r["latest"]["date"]) for r in rows)
    stale = (
        f"No {name} result has been taken since {day}. " if newest < day else ""
    )  # the latest, then, is older
    for r in rows[:2]:
        unit = r.get("unit") or ""
        unit = "" if unit.startswith("{") else f" {unit}"
        latest = r["latest"]
        earlier = r.get("earlier")
        if not earlier:
            out.append(
                f"{r['test']}: only one result, {fmt_num(latest['value'])}{unit} on {latest['date']} [{r['handle']}], so no earlier result to compare with"
            )
            continue
        other = next((x["handle"] for x in _rows(outcomes, "compare_lab") if x.get("earlier_of") == r["code"] and x.get("date") == earlier["date"]), r["handle"])  # fmt: skip
        change = r.get("change") or 0
        moved = "unchanged" if change == 0 else f"{r['direction']} {fmt_num(abs(change))}{unit}"
        out.append(
            f"{r['test']}: {fmt_num(latest['value'])}{unit} on {latest['date']} [{r['handle']}] against "
            f"{fmt_num(earlier['value'])}{unit} on {earlier['date']} [{other}] (the earlier result nearest {day}): {moved}"
        )
    aims = [r for r in rows[:2] if r.get("aim")]
    aim = ""
    if aims:
        a = aims[0]
        aim = (
            f" For {a['aim_name']} a {a['aim']} value is usually the aim ({a['typical']}; source: {a['aim_source']}); "
            f"whether the change is right for {v.you} is for {v.your} clinician to say."
        )
    return (_yes_no(topic, rows) + stale + "; ".join(out) + "." + aim, False)


def _yes_no(topic: Any, rows: list[dict[str, Any]]) -> str:
    """ "Yes. " / "No. " when the question asks whether one value went a named way ("is my
    glucose higher than a year ago?"); nothing for "better"/"worse" (a judgement, not asked of
    the numbers) or when the answer compares several tests."""
    text = getattr(topic, "question", "") or ""
    up, down = asked_direction(text)
    with_earlier = [r for r in rows[:2] if r.get("earlier")]
    if up == down or len(with_earlier) != 1:
        return ""
    change = with_earlier[0].get("change") or 0
    return "Yes. " if (change > 0 if up else change < 0) else "No. "


def care_team_lead(topic: Any, outcomes: Sequence[ToolOutcome], v: Any) -> tuple[str, bool] | None:
    rows = _rows(outcomes, "get_care_team")
    if not rows:
        return None
    gp = next((r for r in rows if r.get("role") == "registered_gp"), None)
    most = next((r for r in rows if r.get("role") == "most_seen"), None)
    if gp is not None and gp.get("general_practitioner"):
        where = f" ({gp['organization']})" if gp.get("organization") else ""
        first = f"{v.Your} registered general practitioner is {gp['general_practitioner']}{where} [{gp['handle']}]."
    else:
        first = f"{v.record.capitalize()} names no general practitioner" + (
            f" [{gp['handle']}]." if gp else "."
        )
    if most is not None:
        same = gp is not None and most["practitioner"] == gp.get("general_practitioner")
        also = " (the same clinician)" if same else ""
        second = (
            f" The clinician {v.you} {'have' if v.patient else 'has'} seen most often is {most['practitioner']}{also}: "
            f"{counted(int(most['visits']), 'visit')}, the newest on {str(most['start'])[:10]} [{most['handle']}]."
        )
    else:
        second = f" No visit in {v.record} names a clinician."
    return (first + second, False)


def last_visit_lead(topic: Any, outcomes: Sequence[ToolOutcome], v: Any) -> tuple[str, bool] | None:
    c = topic.concept
    visits = {r["handle"]: r for r in _rows(outcomes, "get_encounters")}
    name = c.said if c else "that condition"
    conditions = _rows(outcomes, "get_conditions")
    if visits:
        last = max(visits.values(), key=lambda r: str(r.get("start") or ""))
        kind = last.get("type") or "visit"
        why = f"; reason: {last['reason']}" if last.get("reason") else ""
        who = f", with {last['practitioner']}" if last.get("practitioner") else ""
        return (
            f"{v.Your} most recent visit for {name} was on {str(last.get('start'))[:10]}: {kind}{why}{who} [{last['handle']}].",
            False,
        )
    if conditions:
        r = conditions[0]
        since = f", recorded since {str(r.get('onset'))[:10]}" if r.get("onset") else ""
        return (
            f"No visit in {v.record} names {name} as its reason or type, so no {name} review can be dated; "
            f"{r['name']} is on {v.your} problem list{since} [{r['handle']}].",
            True,
        )
    return (
        f"No visit in {v.record} names {name} as its reason or type, and no such condition is recorded.",
        True,
    )


LEADS = {
    "compare_count": compare_count_lead,
    "compare_lab": compare_lab_lead,
    "care_team": care_team_lead,
    "last_visit_for": last_visit_lead,
}
