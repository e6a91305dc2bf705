"""Round eighteen (issue 16): a message holding more than one thing.

Written down BEFORE the planner was changed, as the users' own words, each labelled with what
must be looked up and what the answer must lead with, and checked across the generated cohort
against what each record holds (`evals.truth`):

1. an ASIDE (chit-chat, a figurative complaint, thanks) beside one real request: the request is
   answered; the aside never takes the answer over ("that parking fee nearly killed me lol, when is
   my next appointment" was answered with the parking leaflet alone, round seventeen);
2. TWO REAL REQUESTS in one message ("what's my latest a1c and am i still on metformin"): both are
   answered, each under its own heading with its own lead and cited rows, in the order asked.

The behaviour (`agent/offline/clauses.py`): the message is cut into clauses; a clause in the
question form (a question word, an inverted verb, an imperative, a "?") that plans to a lookup on
its own is a request; a pronoun clause ("is that normal?") belongs to the request before it. One
request: the whole message is planned as before (a preamble often carries its concept: "for my
diabetes, what do I take"), unless the aside took the answer over (the whole message plans other
lookups than the request would alone): then the request alone is planned. Two or more: each is
planned and answered on its own, in the order asked.

Each class has TUNING wordings (looked at while changing the planner) and HELD_OUT wordings (a
third, never looked at while tuning; checked once at the end, the result in the report).
"""

from __future__ import annotations

import re

from agent.events import ToolCallEvent
from evals.vocab import condition_name, drug_name
from tests.agent.test_lead_hunt_r8 import _events, _lead
from tests.agent.test_offline_r15 import A1C, WEIGHT, _agent, _series
from tests.agent.test_offline_round17 import _served

# what the user must see, per label:
#   appt    — the appointment diary was read and the lead speaks of appointments
#   a1c     — the latest HbA1c value leads, cited
#   weight  — the latest weight leads, cited
#   med     — "{med}" (one of the record's active medicines) gets "Yes", cited
#   cond    — "{cond}" (one of the record's current conditions) gets "Yes"
#   allergy — the allergy list was read

# --- 1. an aside beside one request ------------------------------------------------------------
ASIDE_TUNING = [
    ("that parking fee nearly killed me lol, when is my next appointment", "patient", "appt"),
    ("ugh the traffic this morning was murder. whats my latest a1c?", "patient", "a1c"),
    ("the cafe coffee is to die for haha - am i still on {med}?", "patient", "med"),
    ("thanks so much for earlier!! when's my next appt", "patient", "appt"),
    (
        "my feet are killing me after that walk from the car park, what's my latest weight",
        "patient",
        "weight",
    ),
    ("lol the lift took forever. is she still taking {med}?", "clinician", "med"),
    ("sorry, long day on the ward. latest hba1c for this patient?", "clinician", "a1c"),
    ("the car park machine ate my card, typical. do i have {cond}?", "patient", "cond"),
    ("hola! ¿tengo alergias?", "patient", "allergy"),
    ("that waiting room nearly bored me to death, any appointments coming up for me", "patient", "appt"),
    ("my daughter says hi :) what does my last weight say", "patient", "weight"),
    ("wifi here is dead again, what is my most recent a1c", "patient", "a1c"),
]
ASIDE_HELD_OUT = [
    ("the canteen prices are criminal lol. when do i next see someone?", "patient", "appt"),
    ("honestly that form nearly finished me off - is {med} still on my list?", "patient", "med"),
    ("phew what a week. whats my newest a1c reading", "patient", "a1c"),
    ("the queue at reception was a killer, do I have any upcoming appointments", "patient", "appt"),
    ("cheers for the help yesterday, is he on {med} at the moment?", "clinician", "med"),
    ("my back is killing me from these chairs haha, how much did i weigh last time", "patient", "weight"),
]

# --- 2. two requests in one message ------------------------------------------------------------
TWO_TUNING = [
    ("what's my latest a1c and am i still on {med}", "patient", ("a1c", "med")),
    ("when is my next appointment? also what is my latest weight", "patient", ("appt", "weight")),
    ("is she on {med} and what was her last a1c", "clinician", ("med", "a1c")),
    ("whats my most recent weight, and do i have {cond}?", "patient", ("weight", "cond")),
    ("Am I still taking {med}? When is my next appointment?", "patient", ("med", "appt")),
    ("latest a1c pls + do i have any allergies", "patient", ("a1c", "allergy")),
    ("do i have {cond}... and whats my newest weight", "patient", ("cond", "weight")),
    ("what allergies does he have and is he still on {med}", "clinician", ("allergy", "med")),
    ("wats my latest a1c n am i stil on {med}", "patient", ("a1c", "med")),
    ("¿tengo alergias? y cual es mi peso mas reciente", "patient", ("allergy", "weight")),
    (
        "two things: is {med} still active for her, and when is her next appointment",
        "clinician",
        ("med", "appt"),
    ),
    ("can you tell me my last weight; also is {cond} still on my record", "patient", ("weight", "cond")),
]
TWO_HELD_OUT = [
    ("what was my last a1c? and am i still prescribed {med}?", "patient", ("a1c", "med")),
    ("does she have {cond} and what is her most recent weight", "clinician", ("cond", "weight")),
    ("any upcoming appointments for me, plus what's my newest a1c", "patient", ("appt", "a1c")),
    ("is {med} one of my current meds. whats my last weight", "patient", ("med", "weight")),
    ("do i have any allergies and when is my next appt?", "patient", ("allergy", "appt")),
    ("newest hba1c? is he still on {med}?", "clinician", ("a1c", "med")),
]

# not two requests: a pronoun clause belongs to the request before it (one answer, no headings)
ONE_REQUEST = [
    ("what's my latest a1c, is that normal?", "patient", "a1c"),
    ("whats my latest weight? has it gone up?", "patient", "weight"),
    ("for my records, what is my latest a1c", "patient", "a1c"),
]

PART = re.compile(r'^(\d)\. "(.*)"$')
TAGS = ("appt", "a1c", "weight", "med", "cond", "allergy")


def _tools(events) -> list[str]:
    return [e.name for e in events if isinstance(e, ToolCallEvent)]


def _shows(value: float, lead: str) -> bool:
    return f"{value:g}" in lead or f"{value:.1f}" in lead


def _parts(answer: str) -> list[tuple[str, list[str]]]:
    """(heading's words, the part's non-blank lines) for an answer in parts; [] for one answer."""
    parts: list[tuple[str, list[str]]] = []
    for line in answer.splitlines():
        if m := PART.match(line.strip()):
            parts.append((m.group(2), []))
        elif parts and line.strip():
            parts[-1][1].append(line.strip())
    return parts


def _fill(template: str, record) -> str | None:
    """The wording with the record's own active medicine and current condition, or None when it
    holds neither asked about."""
    meds = sorted({drug_name(m.display) for m in record.active_medications()})
    conds = sorted(
        {
            condition_name(c.display).lower()
            for c in record.active_conditions()
            if "(disorder)" in c.display and c.abatement is None
        }
    )
    if ("{med}" in template and not meds) or ("{cond}" in template and not conds):
        return None
    return template.format(med=meds[0] if meds else "", cond=conds[0] if conds else "")


def _sees(tag: str, record, lead: str, lines: list[str], tools: list[str]) -> str | None:
    """What is wrong with what the user sees for `tag` (None: right)."""
    text = "\n".join(lines)
    if tag == "appt":
        return None if "list_appointments" in tools and "appointment" in lead.lower() else "no diary"
    if tag in ("a1c", "weight"):
        series = _series(record, A1C if tag == "a1c" else WEIGHT)
        if not series:
            return None  # nothing of it recorded: any honest answer
        if not _shows(series[-1].value, lead) or not re.search(r"\[(L|V)\d+\]", lead):
            return f"latest {tag} {series[-1].value} not led and cited"
        return None
    if tag == "med":
        ok = lead.startswith("Yes") and re.search(r"\[M\d+\]", text)
        return None if ok else "active medicine not confirmed with its row"
    if tag == "cond":
        return None if lead.startswith("Yes") else "current condition not confirmed"
    if tag == "allergy":
        return None if "get_allergies" in tools and "allerg" in lead.lower() else "allergy list not read"
    raise AssertionError(tag)


def _false_no(lead: str) -> bool:
    return bool(re.match(r"no\b", lead, re.I)) and "appointment" not in lead.lower()


def _check_aside(agent, records, wordings) -> list[tuple[str, str]]:
    misses = []
    for record in records:
        pid = record.patient.patient_id
        for template, role, tag in wordings:
            question = _fill(template, record)
            if question is None:
                continue
            events = _events(agent, pid, question, role=role)
            answer, lead, tools = events[-1].answer, _lead(events), _tools(events)
            wrong = _sees(tag, record, lead, answer.splitlines(), tools)
            if "search_leaflets" in tools and "leaflet" in answer.lower():
                wrong = wrong or "a leaflet answered the aside"
            if wrong:
                misses.append((question, f"{wrong}: {lead}"))
    return misses


def _check_two(agent, records, wordings) -> list[tuple[str, str]]:
    misses = []
    for record in records:
        pid = record.patient.patient_id
        for template, role, tags in wordings:
            question = _fill(template, record)
            if question is None:
                continue
            events = _events(agent, pid, question, role=role)
            answer, tools = events[-1].answer, _tools(events)
            parts = _parts(answer)
            if len(parts) != len(tags):
                misses.append((question, f"{len(parts)} parts: {answer[:300]}"))
                continue
            for tag, (_heading, lines) in zip(tags, parts, strict=True):
                lead = lines[0] if lines else ""
                if wrong := _sees(tag, record, lead, lines, tools):
                    misses.append((question, f"{tag}: {wrong}: {lead}"))
                elif tag in ("med", "cond") and _false_no(lead):
                    misses.append((question, f"false no: {lead}"))
    return misses


def test_an_aside_never_takes_the_answer_over(cohort, settings):
    agent = _served(cohort, settings)
    _, records = cohort
    misses = _check_aside(agent, records, ASIDE_TUNING)
    assert not misses, misses[:8]


def test_two_requests_are_both_answered_in_order(cohort, settings):
    agent = _served(cohort, settings)
    _, records = cohort
    misses = _check_two(agent, records, TWO_TUNING)
    assert not misses, misses[:8]


def test_a_pronoun_clause_belongs_to_the_request_before_it(cohort):
    agent, records = _agent(cohort)
    for record in records[:4]:
        for question, role, tag in ONE_REQUEST:
            events = _events(agent, record.patient.patient_id, question, role=role)
            answer = events[-1].answer
            assert not _parts(answer), (question, answer[:300])
            series = _series(record, A1C if tag == "a1c" else WEIGHT)
            if series:
                assert _shows(series[-1].value, answer), (question, answer[:300])


def test_a_single_request_is_answered_as_before(cohort):
    """No aside, no second request: no headings, the answer as it always was."""
    agent, records = _agent(cohort)
    events = _events(agent, records[0].patient.patient_id, "what is my latest a1c?")
    assert not _parts(events[-1].answer)


def held_out_result(cohort, settings) -> tuple[int, int, list[tuple[str, str]]]:
    """(wordings asked, right, misses) on the held-out wordings: run once at the end, reported."""
    agent = _served(cohort, settings)
    _, records = cohort
    misses = _check_aside(agent, records, ASIDE_HELD_OUT) + _check_two(agent, records, TWO_HELD_OUT)
    asked = sum(1 for r in records for t, _, _ in [*ASIDE_HELD_OUT, *TWO_HELD_OUT] if _fill(t, r) is not None)
    return asked, asked - len({q for q, _ in misses}), misses


def test_where_a_message_is_cut():
    """Sentence marks always cut; a comma, a dash, " + " or "and" only before a question."""
    from agent.offline.clauses import clauses

    def cut(message: str) -> list[str]:
        return [c.words for c in clauses(message)]

    assert cut("that parking fee nearly killed me lol, when is my next appointment") == [
        "that parking fee nearly killed me lol",
        "when is my next appointment",
    ]
    assert cut("what's my latest a1c and am i still on metformin") == [
        "what's my latest a1c",
        "am i still on metformin",
    ]
    assert cut("latest a1c pls + do i have any allergies") == ["latest a1c pls", "do i have any allergies"]
    assert cut("Do I have asthma, going by the notes?") == ["Do I have asthma, going by the notes?"]
    assert cut("is she on metformin and insulin") == ["is she on metformin and insulin"]
    assert cut("How many times was I seen for body mass index 30+ - obesity?") == [
        "How many times was I seen for body mass index 30+ - obesity?"
    ]
