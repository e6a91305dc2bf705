"""Composing answers: the conclusion first, then the cited rows; record-scoped answers."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from agent.background import BACKGROUND_HEADING
from agent.events import Searched
from agent.execution import ToolCall, ToolOutcome
from agent.offline.leads import Voice, lead_for, outside_reference
from agent.offline.parse import WHOLE_RECORD
from agent.offline.plan import EVERYTHING_TAKEN, Plan
from agent.scoping import ScopeUse
from tools.registry import Registry
from tools.render import fmt_num
from tools.scoped_record import KIND_WORDS

OFFLINE_BANNER = "Offline mode (answered from the record without the AI model):"
UNKNOWN_REPLY = (
    "Offline mode: I can't answer that from the record or the hospital's leaflets. Without the AI "
    "model I can look up conditions, medications, lab results and vitals, allergies, visits, "
    "immunizations, procedures, care plans, clinical notes and hospital leaflets, and find, book or "
    'cancel appointments. Try, for example: "What medications am I taking right now?", '
    '"Show my HbA1c trend over the years", "Any emergency visits?", "What did the doctor write at '
    'my last visit?" or "What are the visiting hours?"'
)

_CITED_LINE = re.compile(r"^\[([A-Z]{1,2}\d+)\]\s*(.*)$")
# sentences a tool addresses to the model ("Ask the user … before calling book_appointment")
_FOR_THE_MODEL = re.compile(
    r"\b(the user|the model|(get|find|book|list|cancel|search|summarize|count|check)_[a-z_]+)\b|^(Say|Tell|Ask|Call|Use) "
)


def for_people(text: str) -> str:
    """Drop the sentences of a tool's explanation that are instructions to the model."""
    sentences = re.split(r"(?<=[.!?])\s+", text.strip())
    return " ".join(s for s in sentences if not _FOR_THE_MODEL.search(s))


# "… 242 more not shown; choose a later from_date to see them.": the hint names a tool argument
_MORE_NOT_SHOWN = re.compile(r"^… (\d+) more not shown; .*$")
MORE_FOR_PEOPLE = "… {n} more not shown (ask a narrower question, or about a later date, to see them)."


_HANDLE = re.compile(r"\[([A-Z]{1,2}\d+)\]")
# one fact (a drug, a diagnosis, a value): its few rows, not the section pasted around it
FOCUSED_ROWS = 5
HIDDEN_ROWS = "… more rows of the same not shown (ask for the whole list to see them)."


def focused(topic: Any) -> bool:
    """A topic that answers one fact (a concept asked about, or a computed value)."""
    if topic.operation in ("list", "changes_after", "changes", "conflict"):
        return False
    return topic.concept is not None or topic.operation in (
        "latest", "earliest", "when", "max", "min", "mean", "change", "trend", "range", "year_ago",
        "older_than_year",
    )  # fmt: skip


def render_result(
    text: str, *, limit: int | None = None, keep: set[str] | frozenset[str] = frozenset()
) -> str:
    """A tool's cited text as an answer block: "[M1] line" → "- line [M1]". With `limit`, at
    most that many cited rows (those in `keep` first), the rest counted, not shown."""
    out = []
    cited = [m.group(1) for line in text.strip().splitlines() if (m := _CITED_LINE.match(line.strip()))]
    shown = set(cited) if limit is None else set([h for h in cited if h in keep][:limit])
    if limit is not None:
        shown |= set([h for h in cited if h not in shown][: max(0, limit - len(shown))])
    hidden = len(cited) - len(shown)
    for line in text.strip().splitlines():
        m = _CITED_LINE.match(line.strip())
        if m and m.group(1) not in shown:
            continue
        if m:
            out.append(f"- {m.group(2)} [{m.group(1)}]")
        elif more := _MORE_NOT_SHOWN.match(line.strip()):
            out.append(MORE_FOR_PEOPLE.format(n=more.group(1)))
        elif kept := for_people(line):  # a tool's own words, without its instructions to the model
            out.append(kept)
    if hidden:
        out.append(HIDDEN_ROWS)
    return "\n".join(out)


def uncited_lines(outcomes: Sequence[ToolOutcome]) -> set[str]:
    """A tool's own headers and notes (query windows, counts): copied (or reworded for
    people, as render_result does), not claims."""
    lines = {
        line.strip()
        for o in outcomes
        for line in o.result.text.splitlines()
        if line.strip() and not _CITED_LINE.match(line.strip())
    }
    return (
        lines
        | {for_people(line) for line in lines}
        | {MORE_FOR_PEOPLE.format(n=m.group(1)) for line in lines if (m := _MORE_NOT_SHOWN.match(line))}
    )


def compose(plan: Plan, outcomes: Sequence[ToolOutcome], role: str) -> tuple[str, bool]:
    """(answer, abstained). Each topic opens with its conclusion, then its cited rows; an
    answer is never blank: a lookup that gives nothing to say gets the helpful reply."""
    if plan.kind == "unknown":
        return UNKNOWN_REPLY, True
    if plan.kind == "clarify":
        return f"Offline mode: {plan.message}", True
    if plan.leaflet_probe and not any(o.result.ok and o.result.citations for o in outcomes):
        return UNKNOWN_REPLY, True
    blocks = [OFFLINE_BANNER]
    voice = Voice(role)
    by_id = {o.call.id: o for o in outcomes}
    used: set[str] = set()
    abstained: list[bool] = []
    answers: list[tuple[bool, list[str]]] = []  # (leads with yes/no, its blocks) per topic
    for topic in plan.topics:
        mine = [by_id[i] for i in (*topic.call_ids, *topic.before_ids) if i in by_id]
        used |= {o.call.id for o in mine}
        # (a "since <event>" topic whose event is not in the record still says so)
        lead = lead_for(topic, mine, voice) if mine or topic.event is not None else None
        unmatched = unmatched_words(plan, topic)
        if unmatched:
            said = ", ".join(f"'{w}'" for w in unmatched)
            note = f"I could not match {said} to anything in {voice.record}, so this is the whole section."
            lead = (f"{note} {lead[0]}" if lead else note, True)
        own: list[str] = []
        if lead is not None:
            own.append(lead[0])
            abstained.append(lead[1])
        shown = mine[:1] if topic.operation == "count" and len(mine) > 1 else mine
        if topic.operation == "latest" and topic.concept is not None and topic.concept.kind == "term":
            shown = [o for o in mine if o.result.rows] or mine[:1]  # the visit types that have visits
        if topic.operation == "count" and topic.concept is not None and topic.concept.section == "encounters":
            # a kind of visit counted type by type: each type's visits in the window that has any
            counts = mine[: len(mine) // 2] if topic.window is not None and len(mine) > 1 else mine
            shown = [o for o in counts if o.result.ok and o.result.total] or mine[:1]
        if topic.event is not None and topic.event.kind == "birthday":
            # the birth date is said and cited in the lead; the profile's address is not the answer
            shown = [o for o in shown if o.call.id not in topic.event_ids]
        if topic.concept is not None and topic.concept.kind == "system" and lead is not None:
            # a body system is searched by several words; its lead says what was searched, and only
            # the searches that found rows are shown ("no conditions matching 'renal'" is noise)
            shown = [o for o in mine if o.result.rows] or mine[:1]
        if plan.then == "meds_after_onset" and topic.section == "conditions" and lead is not None:
            shown = []  # the diagnosis is the starting date, said and cited in its lead; the medicines are the list
        if topic.operation == "mention" and lead is not None:
            # a topic searched in every condition and note: the notes that mention it and the
            # condition the lead names, not the whole condition list it was read from
            cited = set(_HANDLE.findall(lead[0]))
            for o in mine:
                if o.call.name == "get_conditions" and any(c.handle in cited for c in o.result.citations):
                    own.append(_block(o, drop=_not_cited(cited), untitled=True))
                elif o.call.name != "get_conditions" and o.result.rows:
                    own.append(_block(o, limit=FOCUSED_ROWS))
            answers.append((bool(_VERDICT.match(lead[0])), own))
            continue
        limit = FOCUSED_ROWS if focused(topic) else None
        keep = set(_HANDLE.findall(lead[0])) if lead else set()
        drop = ROW_FILTERS.get(topic.operation)
        if topic.operation == "last_draw" and lead and (day := _DAY.search(lead[0])):
            drop = _not_on(day.group(0))  # only the results of the draw the lead names
        untitled = lead is not None and lead[0].endswith(":")  # the lead introduces the rows
        own += [_block(o, limit=limit, keep=keep, drop=drop, untitled=untitled) for o in shown]
        answers.append((bool(lead and _VERDICT.match(lead[0])), own))
    # a yes/no conclusion opens the answer, before any list asked about alongside it; a summary of
    # the whole record keeps its order (problems, medicines, allergies: "no allergies" is no verdict)
    for _, own in answers if _whole_record(plan) else sorted(answers, key=lambda a: not a[0]):
        blocks += own
    first_slot = None
    if plan.then == "same_doctor":
        lead, first_slot = same_doctor_lead(outcomes, voice)
        blocks.append(lead)
        used |= {o.call.id for o in outcomes if o.call.name == "get_encounters"}  # cited in the lead
        theirs = [
            o
            for o in outcomes
            if o.call.name == "find_slots" and o.call.input.get("clinician") and o.result.rows
        ]
        if theirs:  # that clinician's own slots were found: any clinician's are not the answer
            used |= {
                o.call.id
                for o in outcomes
                if o.call.name == "find_slots" and not o.call.input.get("clinician")
            }
    blocks += [_block(o) for o in outcomes if o.call.id not in used]
    if plan.kind == "offer_slots" and any(o.result.ok and o.result.citations for o in outcomes):
        first = first_slot or next(
            c.handle for o in outcomes if o.call.name == "find_slots" for c in o.result.citations
        )
        blocks.append(f"Nothing is booked yet. Reply 'book {first}' (or another slot's handle) to book it.")
    if plan.kind == "offer_slots" and outcomes and not any(o.result.citations for o in outcomes):
        blocks.append("Nothing is booked. Ask about other dates (for example 'next week') to see free slots.")
    if plan.kind == "offer_cancel" and any(o.result.ok and o.result.citations for o in outcomes):
        first = next(c.handle for o in outcomes for c in o.result.citations)
        blocks.append(
            f"Nothing is cancelled yet. Reply 'cancel {first}' (or another appointment's handle) to cancel it."
        )
    if plan.follow_up:
        blocks.insert(1, "(Following up on your previous question.)")
    if line := searched_line(plan):
        blocks.append(line)
    blocks = [b for b in blocks if b]
    if len(blocks) == 1:
        return UNKNOWN_REPLY, True
    return "\n\n".join(blocks), bool(abstained) and all(abstained)


def compose_parts(parts: Sequence[tuple[str, Plan, Sequence[ToolOutcome]]], role: str) -> tuple[str, bool]:
    """(answer, abstained) for a message holding several requests (`clauses`): each answered
    under a heading quoting the user's words, in the order asked, with its own lead and rows;
    a request with nothing to say still gets its heading and the helpful reply, so none of
    them is silently dropped."""
    blocks = [OFFLINE_BANNER, PARTS_INTRO]
    abstained = []
    for number, (words, plan, outcomes) in enumerate(parts, start=1):
        answer, gave_up = compose(plan, outcomes, role)
        body = answer.removeprefix(OFFLINE_BANNER).strip()
        if body.startswith("Offline mode: "):
            body = body.removeprefix("Offline mode: ")
        blocks.append(f"{part_heading(number, words)}\n{body}")
        abstained.append(gave_up)
    return "\n\n".join(blocks), all(abstained)


PARTS_INTRO = "Your message asks more than one thing; each is answered below, in the order asked."


def part_heading(number: int, words: str) -> str:
    """A part's heading: its number and the user's own words (quoted: not a claim to ground)."""
    quoted = " ".join(words.replace('"', "'").split())
    return f'{number}. "{quoted}"'


def _doctor(name: Any) -> str:
    return re.sub(r"^dr\.? ", "", str(name or "").strip().lower())


def same_doctor_lead(outcomes: Sequence[ToolOutcome], voice: Voice) -> tuple[str, str | None]:
    """ "Book a follow up with the same doctor I saw last time": who that was (the newest visit
    naming a clinician, cited) and the free slots found with them first; said plainly when none
    of the slots found is theirs. Returns (lead, the first of their slots' handle)."""
    visits = [
        r
        for o in outcomes
        if o.call.name == "get_encounters" and o.result.ok
        for r in o.result.rows
        if r.get("practitioner")
    ]
    slots = [r for o in outcomes if o.call.name == "find_slots" and o.result.ok for r in o.result.rows]
    if not visits:
        return (f"{voice.record.capitalize()} names no clinician at {voice.your} recent visits, so the free slots below are with any doctor.", None)  # fmt: skip
    last = max(visits, key=lambda r: str(r.get("start") or ""))
    name = str(last["practitioner"])
    seen = f"{voice.Your} last visit with a named clinician was with {name} on {str(last.get('start'))[:10]} [{last['handle']}]."
    theirs = [r for r in slots if _doctor(r.get("practitioner")) == _doctor(name)]
    if not theirs:
        return (f"{seen} None of the free slots found is with {name}; the slots below are with other clinicians (ask about other dates to look again).", None)  # fmt: skip
    listed = "; ".join(
        f"{str(r.get('starts_at'))[:16].replace('T', ' ')} UTC [{r['handle']}]" for r in theirs[:5]
    )
    return (f"{seen} Free slots with {name}: {listed}.", theirs[0]["handle"])


def abstention(plan: Plan, outcomes: Sequence[ToolOutcome], composed: bool) -> tuple[bool, list[Searched]]:
    """Whether this answer abstains, and what was looked at (the `done` event's marker, issue 15).

    Abstaining means "the record does not show it" or "I can't answer": the composed answer
    says so (`composed`: not recognised, nothing matched, or a searched-for concept is absent),
    the planner could not read the question, or every lookup made for the answer found nothing
    or failed. Background and vocabulary lookups are not the answer and are not passed here.
    """
    searched = [
        Searched(tool=o.call.name, input=dict(o.call.input), rows=o.result.total, ok=o.result.ok)
        for o in outcomes
    ]
    if composed or plan.kind in ("unknown", "clarify") or not outcomes:
        return True, searched
    answered = any(o.result.ok and (o.result.total > 0 or o.result.citations) for o in outcomes)
    return not answered, searched


def _whole_record(plan: Plan) -> bool:
    """A summary of the whole record (the planner read problems, medicines and allergies for it)."""
    return plan.request is not None and bool(WHOLE_RECORD.search(plan.request.text))


def unmatched_words(plan: Plan, topic: Any) -> list[str]:
    """Content words of the question that linked to nothing, for a section answered whole."""
    if (
        topic.concept is not None
        or plan.linking is None
        or topic.operation not in ("list", "latest", "exists")
    ):
        return []
    if topic.section not in ("medications", "conditions", "labs", "immunizations", "procedures", "allergies"):
        return []
    if _whole_record(plan):
        return []  # "a one paragraph hpi style overview": the words say the form, not a thing to find
    if (
        topic.section == "medications"
        and plan.request is not None
        and EVERYTHING_TAKEN.search(plan.request.text)
    ):
        return []  # "everything i'm taking (for my pharmacist)": the whole list is what was asked
    return [w for w in plan.linking.unlinked if len(w) >= 4 and w.isalpha() and w not in _ASKING_WORDS][:3]


# words that say what is asked of a section (a date, any kind), not which thing in it
_ASKING_WORDS = frozenset({"date", "dates", "dated", "time", "times", "when", "kind", "sort", "type", "anything", "something", "test", "tests", "result", "results", "done", "recorded", "whats", "newest", "latest", "measured", "measurement", "measurements", "checked", "taken", "drawn", "bloods", "reading", "readings", "numbers", "showed", "show", "surgical", "history", "written", "everything", "including", "included", "doses", "dose"})  # fmt: skip


def searched_line(plan: Plan) -> str:
    """What was looked up, with the windows' dates: a description of the lookup, not a claim."""
    if not any(t.window for t in plan.topics):
        return ""
    return "Searched: " + "; ".join(plan.searched) + "."


# a tool's title that only counts its rows ("Active medications (3):"), all of them shown
_COUNT_TITLE = re.compile(r"^[A-Z][^\[\]():]*\(\d+\):$")
_VERDICT = re.compile(r"^(Yes|No)\b")


def _block(
    outcome: ToolOutcome,
    *,
    limit: int | None = None,
    keep: set[str] | frozenset[str] = frozenset(),
    drop: Any = None,
    untitled: bool = False,
) -> str:
    """One tool's rows as an answer block. `untitled`: the lead already says what the rows
    are and how many ("You have 3 active medications:"), so a title that only repeats it goes."""
    result = outcome.result
    if not result.ok:
        return f"That lookup did not work: {for_people(result.text) or 'please try again.'}"
    text = result.text
    if drop is not None:  # cited rows that are not the answer to this topic
        text = "\n".join(line for line in text.splitlines() if not drop(line.strip()))
    if untitled:
        first, _, rest = text.strip().partition("\n")
        if _COUNT_TITLE.match(first.strip()) and rest:
            text = rest
    return render_result(text, limit=limit, keep=keep)


_DAY = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")


def _not_cited(cited: set[str]) -> Any:
    """A row filter: the cited rows the lead does not name."""

    def drop(line: str) -> bool:
        m = _CITED_LINE.match(line)
        return bool(m) and m.group(1) not in cited

    return drop


def _not_on(day: str) -> Any:
    """A row filter: the cited rows not dated `day`."""
    return lambda line: bool(_CITED_LINE.match(line)) and day not in line


_COMPUTED_OUTSIDE = re.compile(r"\): (above|below) ")


# per topic operation: the cited rows its answer leaves out
ROW_FILTERS = {
    # prescriptions started from a date: the stopped ones are not the answer
    "changes_after": re.compile(r"^\[[A-Z]{1,2}\d+\]\s*stopped ").match,
    # diagnoses over the years: findings and situations are not diagnoses
    "diagnoses": re.compile(r"^\[[A-Z]{1,2}\d+\](?!.*\(disorder\))").match,
    # abnormal results: the cited rows inside their range (or without one) are not the answer
    # (a computed line says where it lies itself: "…: above ≤ 200 mg/dL (…)")
    "out_of_range": lambda line: (
        bool(_CITED_LINE.match(line)) and not outside_reference(line) and not _COMPUTED_OUTSIDE.search(line)
    ),
}


SAME_TEST_HEADING = "Other results of the same test, newest first:"
BLOCK_HEADINGS = (SAME_TEST_HEADING, f"{BACKGROUND_HEADING}:")
SAME_TEST_LIMIT = 10


def broaden(outcomes: Sequence[ToolOutcome], registry: Registry) -> list[ToolCall]:
    """The same lookups without their query words, for those that found nothing with them
    (only where the query is optional: a search without words is no search)."""

    def optional_query(name: str) -> bool:
        tool = registry.get(name)
        field = tool.input_model.model_fields.get("query") if tool else None
        return field is not None and not field.is_required()

    return [
        ToolCall(f"{o.call.id}_all", o.call.name, {k: v for k, v in o.call.input.items() if k != "query"})
        for o in outcomes
        if o.result.ok and o.result.total == 0 and o.call.input.get("query") and optional_query(o.call.name)
    ]


def explain_calls(use: ScopeUse, record: ToolOutcome) -> list[ToolCall]:
    """What the planner adds to explain one record: a result's history of the same test."""
    if use.scope.record_kind != "observation" or "get_labs" not in use.tools:
        return []
    code = next((row.get("code") for row in record.result.rows if row.get("code")), None)
    if not code:
        return []
    args = {"query": code, "latest_only": False, "limit": SAME_TEST_LIMIT}
    return [ToolCall("offline_1", "get_labs", args)]


def compose_record(use: ScopeUse, record: ToolOutcome, outcomes: Sequence[ToolOutcome], role: str) -> str:
    word = KIND_WORDS.get(use.scope.record_kind or "", "record")
    blocks = [
        OFFLINE_BANNER,
        f"The {word} you asked about:\n" + render_result(record.result.text).split("\n", 1)[-1],
    ]
    if use.scope.record_kind == "observation" and record.result.rows:
        blocks.append(reference_sentence(record.result.rows[0], use.handle or "", role))
    for outcome in outcomes:
        if not outcome.result.ok:
            blocks.append(
                f"That lookup did not work: {for_people(outcome.result.text) or 'please try again.'}"
            )
            continue
        others = [c for c in outcome.result.citations if c.handle != use.handle]
        if outcome.call.name == "get_labs" and others:
            lines = [
                line
                for line in render_result(outcome.result.text).splitlines()
                if line.startswith("- ") and f"[{use.handle}]" not in line
            ]
            blocks.append(SAME_TEST_HEADING + "\n" + "\n".join(lines))
    return "\n\n".join(b for b in blocks if b)


def reference_sentence(row: dict[str, Any], handle: str, role: str) -> str:
    """Where a result sits against the reference range recorded WITH it (the lab's own range,
    not a judgement): above, below or within; nothing when the record gives no range."""
    value, low, high = row.get("value"), row.get("ref_low"), row.get("ref_high")
    if not isinstance(value, int | float) or (low is None and high is None):
        return ""
    shown = f"{fmt_num(value)} {row.get('unit') or ''}".strip()
    if high is not None and value > high:
        where = f"above the upper reference limit of {fmt_num(high)}"
    elif low is not None and value < low:
        where = f"below the lower reference limit of {fmt_num(low)}"
    else:
        where = "within the reference range"
    sentence = f"{shown} is {where} recorded with this result [{handle}]."
    if role == "patient":
        sentence += " What that means for you is a question for your care team."
    return sentence


def background_block(outcomes: Sequence[ToolOutcome]) -> str:
    """Background lookups under their own heading, apart from the answer."""
    parts = [f"{BACKGROUND_HEADING}:"]
    for outcome in outcomes:
        if outcome.result.ok:
            parts.append(render_result(outcome.result.text))
    return "\n".join(parts)
