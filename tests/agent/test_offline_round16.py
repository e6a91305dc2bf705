"""Round sixteen: the classes behind paraphrase frozen12's planner misses (measured once on main
1e850ce: 67 confident false negatives, 218 planner misses; the part tunes now). Each class is
written here in fresh wordings (none of them the part's own) and checked across the generated
cohort against what each record holds (`evals.truth`):

1. a visit or appointment said as the question's context ("before my appointment tomorrow", "ahead
   of her check-up next week") added the diary or the visit list, whose "No: your record has no
   upcoming appointments booked" led over the medicine, allergy or value asked about;
2. "what does my X come in at" read "come in" as a visit: the last visit led, not the value;
3. the visits said as the span of a highest value ("across all my past visits, the peak weight")
   listed the visits;
4. "the top number for my weight" read as the systolic pressure (the idiom) beside the weight,
   and answered with the latest values;
5. a kind of medicine said only in a general list ("all the tablets and inhalers - is X one of
   the ones I take?") became a concept: "No. Your record has no prescription of inhalers" led
   over an active X;
6. clinician shorthand for the patient's history ("hx of X rx?") went to the leaflets;
7. the notes named as the record of an emergency visit ("… the ER waiting room, according to the
   notes?") searched the note text and said "No passage … matches" over an ER visit.
"""

from __future__ import annotations

import re

from agent.offline import OfflineAgent
from knowledge.embeddings import get_embedder
from tests.agent.test_lead_hunt_r8 import _emergency_visits, _events, _lead
from tests.agent.test_offline_r15 import A1C, CHOL, WEIGHT, _agent, _series
from tests.knowledge.helpers import ensure_test_leaflets
from tools.catalog import build_registry


def _drug(med) -> str:
    """The drug's name as people say it: "metformin" of "24 HR Metformin hydrochloride …"."""
    return next(w for w in med.display.lower().split() if w.isalpha() and len(w) >= 4 and w != "actuat")


def _allergen(allergy) -> str:
    return allergy.display.split("(")[0].strip().lower()


def _shows(value: float, lead: str) -> bool:
    return f"{value:g}" in lead or f"{value:.1f}" in lead


# --- 1. a visit or appointment as context -------------------------------------------------------
CONTEXT_LATEST = [
    ("before my appointment tomorrow, what's my most recent a1c?", "patient", A1C),
    ("ahead of her check-up next week, what was her last total cholesterol?", "clinician", CHOL),
    ("for my appointment later today - whats my newest weight", "patient", WEIGHT),
]
CONTEXT_MED = [
    "before my appointment tomorrow i want to be sure {x} is on my list, is it?",
    "ahead of my visit next week: am I still taking {x}?",
    "for my gp appointment on friday, do i take {x}?",
]
CONTEXT_ALLERGY = [
    "quick one before my appointment on friday, is {x} on my allergy list?",
    "ahead of my check up tomorrow - do i have a {x} allergy?",
    "for my appointment later, am I allergic to {x}?",
]


def test_an_appointment_said_as_context_adds_no_diary_to_a_value(cohort):
    agent, records = _agent(cohort)
    checked = 0
    for record in records:
        for question, role, code in CONTEXT_LATEST:
            series = _series(record, code)
            if not series:
                continue
            lead = _lead(_events(agent, record.patient.patient_id, question, role=role))
            assert "appointment" not in lead.lower() and not lead.startswith("No"), (question, lead)
            assert _shows(series[-1].value, lead), (question, series[-1], lead)
            checked += 1
    assert checked >= 10


def test_an_appointment_said_as_context_adds_no_diary_to_a_medicine(cohort):
    agent, records = _agent(cohort)
    checked = 0
    for record in records:
        for med in record.active_medications()[:1]:
            for template in CONTEXT_MED:
                question = template.format(x=_drug(med))
                lead = _lead(_events(agent, record.patient.patient_id, question))
                assert lead.startswith("Yes"), (question, lead)
                checked += 1
    assert checked >= 6


def test_an_appointment_said_as_context_adds_no_diary_to_an_allergy(cohort):
    agent, records = _agent(cohort)
    checked = 0
    for record in records:
        for allergy in record.current_allergies()[:1]:
            for template in CONTEXT_ALLERGY:
                question = template.format(x=_allergen(allergy))
                lead = _lead(_events(agent, record.patient.patient_id, question))
                assert lead.startswith("Yes"), (question, lead)
                checked += 1
    assert checked >= 3


def test_the_appointment_itself_is_still_the_diary(cohort):
    agent, records = _agent(cohort)
    for record in records[:2]:
        lead = _lead(_events(agent, record.patient.patient_id, "when is my next appointment?"))
        assert "appointment" in lead.lower(), lead


# --- 2. "come in at": a value, not a visit --------------------------------------------------------
COME_IN_AT = [
    ("what does my a1c come in at these days?", "patient", A1C),
    ("where does her weight come in at right now?", "clinician", WEIGHT),
    ("what is my total cholesterol coming in at at the moment", "patient", CHOL),
]


def test_a_value_that_comes_in_at_is_the_newest_value(cohort):
    agent, records = _agent(cohort)
    checked = 0
    for record in records:
        for question, role, code in COME_IN_AT:
            series = _series(record, code)
            if not series:
                continue
            lead = _lead(_events(agent, record.patient.patient_id, question, role=role))
            assert "visit" not in lead.lower(), (question, lead)
            assert _shows(series[-1].value, lead), (question, series[-1], lead)
            checked += 1
    assert checked >= 10


def test_coming_in_for_a_visit_is_still_a_visit(cohort):
    agent, records = _agent(cohort)
    lead = _lead(_events(agent, records[0].patient.patient_id, "when did I last come in to see the doctor?"))
    assert re.search(r"visit|encounter", lead, re.I), lead


# --- 3. the visits as the span of a highest value -------------------------------------------------
VISITS_AS_SPAN = [
    ("across all my past visits, what was my highest weight?", "patient", WEIGHT),
    ("over all of her appointments, what's the peak a1c?", "clinician", A1C),
    ("from every one of my check-ups, what's the highest cholesterol?", "patient", CHOL),
]


def test_the_visits_as_the_span_of_a_highest_value_give_the_highest(cohort):
    agent, records = _agent(cohort)
    checked = 0
    for record in records:
        for question, role, code in VISITS_AS_SPAN:
            series = _series(record, code)
            if len(series) < 2:
                continue
            top = max(m.value for m in series)
            lead = _lead(_events(agent, record.patient.patient_id, question, role=role))
            assert not lead.startswith(("Encounters", "No")), (question, lead)
            assert _shows(top, lead), (question, top, lead)
            checked += 1
    assert checked >= 10


# --- 4. "the top number for my X" -----------------------------------------------------------------
TOP_NUMBER_FOR = [
    ("what's the top number ever for my a1c?", "patient", A1C),
    ("top number on record for her total cholesterol?", "clinician", CHOL),
    ("what's the top number for my weight so far", "patient", WEIGHT),
]


def test_the_top_number_for_a_named_measure_is_its_highest(cohort):
    agent, records = _agent(cohort)
    checked = 0
    for record in records:
        for question, role, code in TOP_NUMBER_FOR:
            series = _series(record, code)
            if len(series) < 2:
                continue
            top = max(m.value for m in series)
            lead = _lead(_events(agent, record.patient.patient_id, question, role=role))
            assert "systolic" not in lead.lower(), (question, lead)
            assert _shows(top, lead), (question, top, lead)
            checked += 1
    assert checked >= 10


def test_the_top_number_alone_is_still_the_systolic(cohort):
    agent, records = _agent(cohort)
    checked = 0
    for record in records:
        if not _series(record, "8480-6"):
            continue
        lead = _lead(_events(agent, record.patient.patient_id, "what was my top number last time?"))
        assert "systolic" in lead.lower(), lead
        checked += 1
    assert checked >= 3


# --- 5. a kind of medicine said only in a general list --------------------------------------------
LIST_OF_KINDS = [
    ("with all the tablets and inhalers i lose track - is {x} one of the ones i take?", "patient"),
    ("so many pills and puffers, is {x} one she takes?", "clinician"),
    ("i mix up my tablets and injections: is {x} among them?", "patient"),
]


def test_a_kind_said_in_a_general_list_is_no_concept_and_no_denial(cohort):
    agent, records = _agent(cohort)
    checked = 0
    for record in records:
        for med in record.active_medications()[:2]:
            for template, role in LIST_OF_KINDS:
                question = template.format(x=_drug(med))
                lead = _lead(_events(agent, record.patient.patient_id, question, role=role))
                assert lead.startswith("Yes"), (question, lead)
                assert not re.search(r"no prescription of (inhalers|puffers|injections)", lead), lead
                checked += 1
    assert checked >= 12


def test_a_kind_asked_about_is_still_a_kind(cohort):
    agent, records = _agent(cohort)
    for record in records[:3]:
        lead = _lead(_events(agent, record.patient.patient_id, "am I on any inhalers?"))
        assert re.search(r"inhaler", lead, re.I), lead


# --- 6. clinician shorthand for the history -------------------------------------------------------
HX_PRESENT = ["hx of {x} rx?", "h/o {x}?", "pmh - {x} rx?"]
HX_ABSENT = ["hx of warfarin rx?", "h/o warfarin tx?", "pt hx of warfarin rx"]


def test_history_shorthand_is_a_record_question(cohort, settings):
    """With the leaflets indexed, as served: the anticoagulant leaflet is not the answer."""
    db, records = cohort
    embedder = get_embedder(settings)
    ensure_test_leaflets(db, embedder)
    agent = OfflineAgent(build_registry(), db, embedder=embedder)
    checked = 0
    for record in records:
        pid = record.patient.patient_id
        for med in record.valid_medications()[:1]:
            for template in HX_PRESENT:
                question = template.format(x=_drug(med))
                lead = _lead(_events(agent, pid, question, role="clinician"))
                assert lead.startswith("Yes"), (question, lead)
                checked += 1
        if any("warfarin" in m.display.lower() for m in record.medications):
            continue
        for question in HX_ABSENT:
            lead = _lead(_events(agent, pid, question, role="clinician"))
            assert lead.startswith("No") and "searched" in lead, (question, lead)
            checked += 1
    assert checked >= 12


# --- 7. the notes named as the record of an emergency visit ---------------------------------------
NOTES_ER = [
    "according to my notes, have I ever been to A&E?",
    "going by her notes, was she ever seen in the ER?",
    "was I ever one of those people waiting in the emergency department, according to my notes?",
]


def test_the_notes_named_as_the_record_of_an_emergency_visit_give_the_visits(cohort):
    agent, records = _agent(cohort)
    checked = held = 0
    for record in records:
        visits = _emergency_visits(record)
        for question in NOTES_ER:
            role = "clinician" if " her " in question else "patient"
            lead = _lead(_events(agent, record.patient.patient_id, question, role=role))
            assert "No passage" not in lead, (question, lead)
            if visits:
                assert lead.startswith("Yes"), (question, lead)
                held += 1
            else:
                assert lead.startswith("No"), (question, lead)
            checked += 1
    assert checked >= 12 and held >= 3


# --- guards: relative words that are no window, and indirect asks (right before this round) -------
RELATIVE_LATEST = [
    ("at the moment, what does my a1c stand at?", "patient", A1C),
    ("her weight these days?", "clinician", WEIGHT),
    ("what's my total cholesterol right now", "patient", CHOL),
]
RELATIVE_MAX = [
    ("so far, what's the highest my weight has been?", "patient", WEIGHT),
    ("what is the highest a1c she has ever had?", "clinician", A1C),
    ("up to now, what was my peak total cholesterol", "patient", CHOL),
]
INDIRECT_MED = [
    "can you check if I'm on {x}?",
    "does the chart show that I take {x} at the moment?",
    "my pharmacist asked whether I'm on {x} - am I?",
]


def test_relative_words_are_no_window_for_the_newest_or_the_highest(cohort):
    agent, records = _agent(cohort)
    checked = 0
    for record in records:
        for wordings, pick in (
            (RELATIVE_LATEST, lambda s: s[-1].value),
            (RELATIVE_MAX, lambda s: max(m.value for m in s)),
        ):
            for question, role, code in wordings:
                series = _series(record, code)
                if len(series) < 2:
                    continue
                lead = _lead(_events(agent, record.patient.patient_id, question, role=role))
                assert not lead.startswith("No"), (question, lead)
                assert _shows(pick(series), lead), (question, pick(series), lead)
                checked += 1
    assert checked >= 20


def test_an_indirect_ask_about_a_medicine_held_is_a_yes(cohort):
    agent, records = _agent(cohort)
    checked = 0
    for record in records:
        for med in record.active_medications()[:2]:
            for template in INDIRECT_MED:
                question = template.format(x=_drug(med))
                lead = _lead(_events(agent, record.patient.patient_id, question))
                assert lead.startswith("Yes"), (question, lead)
                checked += 1
    assert checked >= 9


# --- a permission asked beside an allergy (round sixteen's closing questions) --------------------
# "can i have prawns given my allergies" was answered "Yes. An allergy to Shellfish is recorded":
# a "Yes." in front of a permission question reads as a go-ahead. The recorded allergy is said, with
# no yes or no, and whose call it is; a missing allergy is never a permission either.
PERMISSION = [
    ("can i have {x} given my allergies", "patient"),
    ("is it ok for me to eat {x} with my allergies?", "patient"),
    ("can she take {x}, checking her allergies", "clinician"),
]


def _answers_about_allergies(lead: str) -> bool:
    """With the leaflets indexed, as served, a permission wording reached the leaflet search until
    round seventeen (`parse.asks_what_to_avoid`): the allergy list answers every one now."""
    assert "leaflet passages" not in lead, lead
    return True


def test_a_permission_asked_beside_an_allergy_gets_the_record_and_no_yes(cohort, settings):
    db, _ = cohort
    ensure_test_leaflets(db, get_embedder(settings))
    agent, records = _agent(cohort)
    checked = 0
    for record in records:
        for allergy in record.current_allergies()[:1]:
            for template, role in PERMISSION:
                question = template.format(x=_allergen(allergy))
                lead = _lead(_events(agent, record.patient.patient_id, question, role=role))
                assert not re.match(r"(yes|no)\b", lead, re.I), (question, lead)
                if _answers_about_allergies(lead):
                    assert re.search(r"allergy to", lead, re.I), (question, lead)
                    assert "clinician or pharmacist" in lead, (question, lead)
                    checked += 1
    assert checked >= 2


def test_a_permission_asked_about_an_allergen_not_recorded_is_no_go_ahead(cohort, settings):
    db, _ = cohort
    ensure_test_leaflets(db, get_embedder(settings))
    agent, records = _agent(cohort)
    checked = 0
    for record in records:
        held = " ".join(_allergen(a) for a in record.current_allergies())
        for allergen in [a for a in ("penicillin", "peanuts", "shellfish", "latex") if a not in held][:1]:
            question = f"can i have {allergen} given my allergies"
            lead = _lead(_events(agent, record.patient.patient_id, question))
            assert not re.match(r"(yes|no)\b", lead, re.I), (question, lead)
            if _answers_about_allergies(lead):
                assert "not permission" in lead or "clinician or pharmacist" in lead, (question, lead)
                checked += 1
    assert checked >= 1


def test_whether_an_allergy_is_recorded_is_still_a_yes(cohort):
    agent, records = _agent(cohort)
    record = next(r for r in records if r.current_allergies())
    question = f"am i allergic to {_allergen(record.current_allergies()[0])}?"
    assert _lead(_events(agent, record.patient.patient_id, question)).startswith("Yes"), question
