"""Round seventeen: the classes behind paraphrase frozen13's planner misses (measured once on main
a7f4373: 0 confident false negatives, 110 planner misses; the part tunes now), and two known
issues. Each class is written here in fresh wordings (none of them the part's own) and checked
across the generated cohort against what each record holds (`evals.truth`):

1. "read me / read out / read back" a value "in my notes": the assistant asked to say the value,
   not the note text asked about — the last visit's notes were searched for "read weight" and a
   wrong value (the visit) led;
2. notes the asker keeps ("I have been trying to keep my own notes in order", "for my own notes")
   read as the record's notes: the last visit's notes were searched and whether a condition is
   current went unanswered;
3. a preamble about appointments before "Do I have X?" sounded like the appointments leaflet,
   which answered instead of the problem list;
4. (known issue) "What inhalers is she on?" led "Yes. 2 active prescriptions are inhalers": a
   which-question gets the medicines, never a "Yes."/"No." nobody asked for;
5. (known issue) with the leaflets indexed, "can i have penicillin v given my allergies" reached
   the leaflets: a permission asked beside the allergies gets the allergy list and the
   drug–allergy table, with no yes or no.
"""

from __future__ import annotations

import re

from agent.events import ToolCallEvent
from agent.offline import OfflineAgent
from evals.vocab import condition_name
from knowledge.embeddings import get_embedder
from tests.agent.test_lead_hunt_r8 import _events, _lead
from tests.agent.test_offline_r15 import A1C, BMI, CHOL, WEIGHT, _agent, _series
from tests.knowledge.helpers import ensure_test_leaflets
from tools.catalog import build_registry

ABSENT = ("gout", "epilepsy", "psoriasis", "hypothyroidism")


def _shows(value: float, lead: str) -> bool:
    return f"{value:g}" in lead or f"{value:.1f}" in lead


def _current(record) -> list[str]:
    """The record's current disorders as people say them ("major depressive disorder")."""
    return sorted(
        {
            condition_name(c.display).lower()
            for c in record.active_conditions()
            if "(disorder)" in c.display and c.abatement is None
        }
    )


def _absent(record) -> list[str]:
    held = " ".join(c.display.lower() for c in record.conditions)
    return [c for c in ABSENT if c not in held]


def _held_and_missing(record) -> list[tuple[str, str]]:
    """(condition, the lead's first word): one current condition ("Yes") and one absent ("No")."""
    return [*((n, "Yes") for n in _current(record)[:1]), *((n, "No") for n in _absent(record)[:1])]


def _served(cohort, settings) -> OfflineAgent:
    """The planner as served: the leaflets indexed and the embedding model loaded."""
    db, _ = cohort
    embedder = get_embedder(settings)
    ensure_test_leaflets(db, embedder)
    return OfflineAgent(build_registry(), db, embedder=embedder)


def _tools(events) -> list[str]:
    return [e.name for e in events if isinstance(e, ToolCallEvent)]


# --- 1. "read me" a value in the notes ------------------------------------------------------------
READ_ME = [
    ("could you read out my newest a1c from my notes please", "patient", A1C),
    ("read me her most recent total cholesterol in the notes", "clinician", CHOL),
    ("can you read back the latest weight on my chart?", "patient", WEIGHT),
    ("please read aloud my last bmi figure from my notes", "patient", BMI),
]


def test_a_value_read_out_from_the_notes_is_the_newest_value(cohort):
    agent, records = _agent(cohort)
    checked = 0
    for record in records:
        for question, role, code in READ_ME:
            series = _series(record, code)
            if not series:
                continue
            events = _events(agent, record.patient.patient_id, question, role=role)
            lead = _lead(events)
            assert "search_notes" not in _tools(events), (question, lead)
            assert _shows(series[-1].value, lead), (question, series[-1], lead)
            checked += 1
    assert checked >= 12


def test_the_notes_read_out_are_still_the_notes_and_read_is_no_topic(cohort):
    agent, records = _agent(cohort)
    for record in records[:3]:
        events = _events(agent, record.patient.patient_id, "read me the notes from my last visit")
        answer = events[-1].answer
        assert "matches 'read'" not in answer, answer
        assert "get_notes_by_date" in _tools(events) or "search_notes" in _tools(events), _tools(events)


# --- 2. the notes the asker keeps -----------------------------------------------------------------
OWN_NOTES = [
    ("for my own notes, do I currently have {x}?", "patient"),
    ("I keep notes at home on everything - is {x} listed as ongoing for me?", "patient"),
    ("I've been jotting down notes for the family; is {x} one of her current conditions?", "clinician"),
    ("sorry, updating my personal notes: is {x} an active problem of mine?", "patient"),
    ("taking notes here - does she have {x}?", "clinician"),
]


def test_the_askers_own_notes_are_no_notes_search(cohort):
    agent, records = _agent(cohort)
    held = missing = 0
    for record in records:
        pid = record.patient.patient_id
        for template, role in OWN_NOTES:
            for name, expected in _held_and_missing(record):
                question = template.format(x=name)
                events = _events(agent, pid, question, role=role)
                lead = _lead(events)
                assert "search_notes" not in _tools(events), (question, lead)
                assert lead.startswith(expected), (question, lead)
                held += expected == "Yes"
                missing += expected == "No"
    assert held >= 8 and missing >= 8


def test_notes_someone_else_took_are_still_the_notes(cohort):
    agent, records = _agent(cohort)
    events = _events(
        agent, records[0].patient.patient_id, "did the doctor take notes about my blood pressure?"
    )
    assert "search_notes" in _tools(events), _tools(events)


# --- 3. a preamble before "do I have X?" ----------------------------------------------------------
PREAMBLE = [
    ("I am new to managing appointments, sorry if it's obvious. Do I have {x}?", "patient"),
    (
        "Only just taken over her hospital bookings, apologies for the basic question. Has she got {x}?",
        "clinician",
    ),
    ("I'm new to arranging visits and parking for us, forgive me. Was I ever diagnosed with {x}?", "patient"),
]


def test_a_condition_asked_after_a_preamble_is_the_problem_lists(cohort, settings):
    agent = _served(cohort, settings)
    _, records = cohort
    held = missing = 0
    for record in records:
        pid = record.patient.patient_id
        for template, role in PREAMBLE:
            for name, expected in _held_and_missing(record):
                question = template.format(x=name)
                lead = _lead(_events(agent, pid, question, role=role))
                assert "leaflet" not in lead, (question, lead)
                assert lead.startswith(expected), (question, lead)
                held += expected == "Yes"
                missing += expected == "No"
    assert held >= 6 and missing >= 6


# --- 4. a which-question about a kind of medicine -------------------------------------------------
WHICH_CLASS = [
    ("What inhalers is she on?", "clinician", "inhaler"),
    ("which statins am I taking", "patient", "statin"),
    ("so what antidepressants is he prescribed?", "clinician", "antidepressant"),
]
WHETHER_CLASS = [
    ("is she on any inhalers?", "clinician", "inhaler"),
    ("am I taking a statin?", "patient", "statin"),
    ("is he prescribed any antidepressants?", "clinician", "antidepressant"),
]


def test_a_which_question_about_a_kind_of_medicine_has_no_yes_or_no(cohort):
    agent, records = _agent(cohort)
    answered = 0
    for record in records:
        for question, role, _kind in WHICH_CLASS:
            lead = _lead(_events(agent, record.patient.patient_id, question, role=role))
            assert not re.match(r"(yes|no)\b", lead, re.I), (question, lead)
            answered += bool(re.search(r"active prescription", lead))
    assert answered >= 3


def test_a_whether_question_about_a_kind_of_medicine_still_leads_yes_or_no(cohort):
    agent, records = _agent(cohort)
    for record in records:
        for question, role, _kind in WHETHER_CLASS:
            lead = _lead(_events(agent, record.patient.patient_id, question, role=role))
            assert re.match(r"(yes|no)\b", lead, re.I), (question, lead)


# --- 5. a permission asked beside the allergies, leaflets indexed ---------------------------------
PERMISSION = [
    ("can i have {x} given my allergies", "patient"),
    ("could she take {x}, bearing in mind her allergies?", "clinician"),
    ("may i be given {x} with my allergy list?", "patient"),
]


def test_a_permission_beside_the_allergies_gets_the_drug_allergy_check(cohort, settings):
    agent = _served(cohort, settings)
    _, records = cohort
    ruled_out = 0
    for record in records:
        pid = record.patient.patient_id
        for drug in ("penicillin v", "amoxicillin", "ibuprofen"):
            for template, role in PERMISSION:
                question = template.format(x=drug)
                events = _events(agent, pid, question, role=role)
                lead = _lead(events)
                assert "search_leaflets" not in _tools(events), (question, lead)
                assert {"get_allergies", "check_drug_allergies"} <= set(_tools(events)), (
                    question,
                    _tools(events),
                )
                assert not re.match(r"(yes|no)\b", lead, re.I), (question, lead)
                assert "clinician or pharmacist" in lead or "clinical all-clear" in lead, (question, lead)
                ruled_out += "rules out" in lead
    allergic = [r for r in records if any("penicillin" in a.display.lower() for a in r.current_allergies())]
    assert ruled_out >= 3 * len(allergic)


def test_what_to_avoid_asked_without_a_permission_still_leads_yes_or_no(cohort):
    agent, records = _agent(cohort)
    for record in records[:3]:
        lead = _lead(_events(agent, record.patient.patient_id, "is ibuprofen something i cant have?"))
        assert re.match(r"(yes|no)\b", lead, re.I), lead
