"""`get_scoped_record`: the one record a record-scoped question is about, as a cited line.

When a user clicks "ask about this" on a row of the record panel, the agent (not the model)
calls this tool with the row's kind and id before the model is asked anything, so the model
is handed exactly that record with a citation handle. It is deliberately NOT in the model's
tool catalogue (`tools.catalog`): the model never chooses record ids. The id is the user's
click, so it is untrusted; it is read under the session's patient binding, so another
patient's id is "not found" like a missing one, and the refusal is audited by the registry.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from records.queries import single
from records.queries.observations import ObservationRow
from tools.record_tools import _observation_value
from tools.registry import ToolContext, ToolError, ToolInput, Toolset
from tools.render import ResultBuilder, facts_of, fmt_date, fmt_num
from tools.results import ToolResult

TOOL_NAME = "get_scoped_record"
NOTE_CHARS = 4000  # a note is handed in full up to this length (the model sees the rest is cut)

RecordKind = Literal[
    "condition",
    "medication",
    "observation",
    "allergy",
    "encounter",
    "immunization",
    "procedure",
    "care_plan",
    "note",
]
KIND_WORDS: dict[str, str] = {
    "condition": "condition",
    "medication": "prescription",
    "observation": "result",
    "allergy": "allergy",
    "encounter": "visit",
    "immunization": "immunization",
    "procedure": "procedure",
    "care_plan": "care plan",
    "note": "clinical note",
}


class ScopedRecordInput(ToolInput):
    kind: RecordKind = Field(description="The kind of record the user selected.")
    record_id: str = Field(min_length=1, max_length=200, description="The selected row's id.")


def _parts(pairs: list[tuple[str, Any]]) -> tuple[str, list[str]]:
    shown = [(label, value) for label, value in pairs if value not in (None, "", [])]
    return "; ".join(f"{label} {value}" for label, value in shown), [str(v) for _, v in shown]


def _describe(found: single.SingleRecord) -> tuple[str, str, list[str], dict[str, Any]]:
    """(line, label, facts, fields) for one row of any supported kind."""
    r, kind = found.row, found.kind
    if kind == "observation":
        name = r.display or r.code or "(unnamed result)"
        value_text, value_facts, value = _observation_value(ObservationRow(r, found.components))
        when = fmt_date(r.effective)
        detail, facts = _parts(
            [
                ("category", r.category),
                ("status", r.status),
                ("LOINC", r.code),
                ("issued", fmt_date(r.issued)),
            ]
        )
        line = f"{name} {value_text} ({when or 'date unknown'})" + (f" — {detail}" if detail else "")
        fields = {"name": name, "code": r.code, "category": r.category, "effective": r.effective, **value}
        fields.update({"ref_low": r.ref_low, "ref_high": r.ref_high, "interpretation": r.interpretation})
        facts = facts_of(name, *value_facts, when, fmt_num(r.ref_low), fmt_num(r.ref_high), *facts)
        return line, f"{name} ({when})" if when else name, facts, fields
    if kind == "condition":
        name = r.display or "(unnamed condition)"
        detail, facts = _parts(
            [
                ("status", r.clinical_status),
                ("verification", r.verification_status),
                ("onset", fmt_date(r.onset)),
                ("resolved", fmt_date(r.abatement)),
                ("recorded", fmt_date(r.recorded_date)),
                ("SNOMED CT", r.code),
            ]
        )
        fields = {"name": name, "code": r.code, "clinical_status": r.clinical_status, "onset": r.onset}
        return f"{name} — {detail}", name, facts_of(name, *facts), fields
    if kind == "medication":
        name = r.display or "(unnamed medication)"
        detail, facts = _parts(
            [
                ("status", r.status),
                ("prescribed", fmt_date(r.authored_on)),
                ("ended", fmt_date(r.ended_at)),
                ("for", r.reason_display),
                ("dosage:", r.dosage_text),
                ("as needed", "yes" if r.as_needed else None),
                ("by", r.requester_name),
                ("RxNorm", r.code),
            ]
        )
        fields = {"name": name, "code": r.code, "status": r.status, "authored_on": r.authored_on}
        fields.update({"ended_at": r.ended_at, "reason": r.reason_display, "dosage": r.dosage_text})
        return f"{name} — {detail}", name, facts_of(name, *facts), fields
    if kind == "allergy":
        name = r.display or "(unnamed substance)"
        reactions = [
            (x.manifestation_display or "reaction") + (f" ({x.severity})" if x.severity else "")
            for x in found.reactions
        ]
        detail, facts = _parts(
            [
                ("type", r.type),
                ("categories", ", ".join(r.categories or [])),
                ("status", r.clinical_status),
                ("verification", r.verification_status),
                ("criticality", r.criticality),
                ("reactions", ", ".join(reactions)),
                ("onset", fmt_date(r.onset)),
                ("recorded", fmt_date(r.recorded_date)),
            ]
        )
        fields = {"substance": name, "criticality": r.criticality, "reactions": reactions}
        return f"{name} — {detail}", name, facts_of(name, *facts, *reactions), fields
    if kind == "encounter":
        name = r.type_display or "Encounter"
        start = fmt_date(r.start)
        detail, facts = _parts(
            [
                ("class", r.class_code),
                ("reason", r.reason_display),
                ("with", r.practitioner_name),
                ("at", r.organization_name),
                ("until", fmt_date(r.end)),
                ("status", r.status),
            ]
        )
        fields = {"type": name, "start": r.start, "end": r.end, "reason": r.reason_display}
        label = f"{name} {start or ''}".strip()
        return f"{start or 'date unknown'} {name} — {detail}", label, facts_of(name, start, *facts), fields
    if kind == "immunization":
        name = r.display or "(unnamed vaccine)"
        when = fmt_date(r.occurrence)
        given = r.status not in ("not-done",)
        state = (
            f"given {when or '(date unknown)'}" if given else f"NOT GIVEN (recorded {when or 'date unknown'})"
        )
        detail, facts = _parts([("reason", r.status_reason), ("CVX", r.vaccine_code)])
        fields = {"vaccine": name, "given": given, "date": r.occurrence, "status": r.status}
        line = f"{name} — {state}" + (f"; {detail}" if detail else "")
        return line, name, facts_of(name, when, *facts, None if given else "not given"), fields
    if kind == "procedure":
        name = r.display or "(unnamed procedure)"
        when = fmt_date(r.performed_start)
        detail, facts = _parts([("status", r.status), ("reason", r.reason_display), ("SNOMED CT", r.code)])
        fields = {
            "name": name,
            "performed": r.performed_start,
            "status": r.status,
            "reason": r.reason_display,
        }
        return f"{when or 'date unknown'} {name} — {detail}", name, facts_of(name, when, *facts), fields
    if kind == "care_plan":
        name = r.category_display or "Care plan"
        addresses = [
            found.condition_names[c] for c in r.addresses_condition_ids or [] if c in found.condition_names
        ]
        activities = [
            (a.get("display") or a.get("code") or "activity")
            + (f" ({a['status']})" if a.get("status") else "")
            for a in r.activities or []
            if isinstance(a, dict)
        ]
        detail, facts = _parts(
            [
                ("status", r.status),
                ("started", fmt_date(r.period_start)),
                ("ended", fmt_date(r.period_end)),
                ("addresses", ", ".join(addresses)),
                ("activities", ", ".join(activities)),
            ]
        )
        fields = {"name": name, "status": r.status, "addresses": addresses, "activities": activities}
        return f"{name} — {detail}", name, facts_of(name, *facts, *addresses, *activities), fields
    # note
    name = r.type_display or "Clinical note"
    when = fmt_date(r.date)
    body = (
        r.text
        if len(r.text) <= NOTE_CHARS
        else r.text[:NOTE_CHARS] + " … (the rest of the note is not shown)"
    )
    detail, facts = _parts([("by", r.author_name), ("status", r.doc_status)])
    fields = {"type": name, "date": r.date, "author": r.author_name}
    line = f"{when or 'date unknown'} {name}" + (f" — {detail}" if detail else "") + f"\nNote text:\n{body}"
    return line, f"{name} {when or ''}".strip(), facts_of(name, when, *facts), fields


# internal: the agent adds it to its executing registry (agent.scoping), never to the model's list
TOOLS = Toolset()


@TOOLS.tool(TOOL_NAME, section="record", status_text="Opening the record you chose…")
def get_scoped_record(ctx: ToolContext, args: ScopedRecordInput) -> ToolResult:
    """The one record the user selected in their record panel, with its citation handle."""
    found = single.get_record(
        ctx.connection, patient_id=ctx.scope.patient_id, kind=args.kind, record_id=args.record_id
    )
    word = KIND_WORDS[args.kind]
    if found is None:
        raise ToolError("not_found", f"That {word} is not in this patient's record.")
    if found.entered_in_error:
        raise ToolError(
            "not_found", f"That {word} was marked as entered in error, so it is not part of the record."
        )
    line, label, facts, fields = _describe(found)
    out = ResultBuilder(ctx)
    out.add(args.kind, args.record_id, line, label=label, facts=facts, fields=fields)
    return out.build(title=f"The {word} the question is about", total=1, empty="")
