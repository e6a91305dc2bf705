"""Round sixteen (issue 16): the users' own words, written down before the planner was changed.

1. "Is ther any psoirasis in my medicl histroy?" was sent to the leaflet search: "my medical
   history" was not read as the patient's own record (only "my history" was);
2. "is aspirin something the patient is not allowed to have" (clinician) reached the leaflets:
   "is … allowed" read as a how-to question, although the wording is the allergy list's;
3. a patient's "is penicillin something i'm not allowed to have" got the advice refusal with no
   row shown; it asks what the record says they must avoid (the allergy list and the drug–allergy
   table), so it is answered from the record, and a "no" is never a go-ahead;
4. "D2": the direction a question asks about ("did it dip", "has it risen") was defined twice and
   the two lists differed, so the computed comparison and the change leads read it differently.
"""

from __future__ import annotations

import pytest

from agent.base import AgentRequest, Turn
from agent.events import DoneEvent
from agent.offline import direct, leads, parse
from tests.agent.conftest import run
from tests.agent.test_lead_hunt_r8 import _events, _lead
from tests.agent.test_offline_r14 import _ago, _nearest_before
from tests.agent.test_offline_r14 import _series as _measured
from tests.agent.test_offline_r15 import A1C, CHOL, LDL, WEIGHT, _agent
from tools.scope import PatientScope


def _answer(events) -> str:
    done = events[-1]
    assert isinstance(done, DoneEvent)
    return done.answer


def _ask(agent, pid: str, question: str, role: str = "patient", history: list[Turn] | None = None):
    from tests.agent.conftest import COHORT_NOW

    scope = PatientScope(patient_id=pid, role=role, actor="test", conversation_id="r16")
    return run(agent, AgentRequest(scope=scope, question=question, now=COHORT_NOW, history=history or []))


# --- 4. one reading of the direction asked ------------------------------------------------------
# (wording, (up asked, down asked)): the phrasings the two lists used to read differently
DIRECTIONS = [
    ("did my weight drop", (False, True)),
    ("has my a1c gone down", (False, True)),
    ("is my LDL climbing", (True, False)),
    ("did it dip", (False, True)),
    ("has it risen", (True, False)),
    ("did i lose weight compared with a year ago", (False, True)),
    ("has my weight gained since last year", (True, False)),
    ("is her weight smaller than a year ago", (False, True)),
    ("is his ldl bigger than 2 years ago", (True, False)),
    ("up or down since the last one?", (True, True)),
]


@pytest.mark.parametrize(("wording", "asked"), DIRECTIONS)
def test_one_definition_reads_the_direction_asked(wording: str, asked: tuple[bool, bool]) -> None:
    assert parse.asked_direction(wording) == asked


def test_the_comparison_and_the_change_leads_share_the_definition() -> None:
    for module in (direct, leads):  # no list of their own left beside the shared one
        for name in ("ASKED_UP", "ASKED_DOWN", "_UP_ASKED", "_DOWN_ASKED"):
            assert getattr(module, name, parse.ASKED_UP) in (parse.ASKED_UP, parse.ASKED_DOWN), (module, name)
    for wording, (up, down) in DIRECTIONS:
        if up != down:  # one direction asked: both readers give that change the yes
            change = 1.0 if up else -1.0
            assert leads._direction_asked(wording, change) and not leads._direction_asked(wording, -change)
            assert leads._asks_yes_or_no(wording), wording


# (wording, role, code, direction asked): a lab now against a year ago (`compare_lab`)
COMPARE_WORDINGS = [
    ("did my weight drop compared with a year ago", "patient", WEIGHT, "down"),
    ("has my a1c gone down compared to last year", "patient", A1C, "down"),
    ("is my LDL climbing compared with a year ago", "patient", LDL, "up"),
    ("did her weight dip compared with a year ago", "clinician", WEIGHT, "down"),
    ("has my cholesterol risen compared to last year", "patient", CHOL, "up"),
    ("did i lose weight compared with a year ago", "patient", WEIGHT, "down"),
    ("is his weight smaller than last year", "clinician", WEIGHT, "down"),
]


def test_a_comparison_with_a_year_ago_answers_the_direction_asked(cohort):
    agent, records = _agent(cohort)
    checked = 0
    for record in records:
        pid = record.patient.patient_id
        for question, role, code, asked in COMPARE_WORDINGS:
            series = _measured(record, code)
            if len(series) < 2:
                continue
            earlier = _nearest_before(series, series[-1], _ago(1))
            if earlier is None:
                continue
            change = round(series[-1].value, 2) - round(earlier.value, 2)
            went = change > 1e-9 if asked == "up" else change < -1e-9
            lead = _lead(_events(agent, pid, question, role=role))
            assert lead.startswith("Yes." if went else "No."), (
                pid,
                question,
                series[-1].value,
                earlier.value,
                lead,
            )
            checked += 1
    assert checked >= 15


# a pronoun follow-up asked whether it moved: the change since the one before, yes or no
FOLLOW_UPS = [
    ("what is my weight", "did it dip", WEIGHT, "down"),
    ("what's my a1c", "has it risen", A1C, "up"),
    ("her latest weight?", "did it drop", WEIGHT, "down"),
]


def test_did_it_dip_and_has_it_risen_are_the_change_since_the_one_before(cohort):
    agent, records = _agent(cohort)
    checked = 0
    for record in records:
        pid = record.patient.patient_id
        for first, then, code, asked in FOLLOW_UPS:
            series = _measured(record, code)
            if len(series) < 2 or series[-1].effective == series[-2].effective:
                continue
            role = "clinician" if first.startswith("her") else "patient"
            history = [Turn(question=first, answer=_answer(_ask(agent, pid, first, role)))]
            lead = _lead_after_banner(_answer(_ask(agent, pid, then, role, history)))
            change = round(series[-1].value, 2) - round(series[-2].value, 2)
            went = change > 1e-9 if asked == "up" else change < -1e-9
            assert lead.startswith("Yes" if went else "No"), (pid, then, series[-2:], lead)
            assert series[-2].effective.date().isoformat() in lead, (then, lead)
            checked += 1
    assert checked >= 10


def _lead_after_banner(answer: str) -> str:
    lines = [
        line
        for line in answer.splitlines()
        if line.strip() and not line.startswith(("Offline mode", "(Following up"))
    ]
    return lines[0] if lines else ""


# --- 1. "my medical history" is the record ---------------------------------------------------------
PSORIASIS = "Is ther any psoirasis in my medicl histroy?"


def test_psoriasis_in_my_medical_history_is_a_condition_search(cohort):
    agent, records = _agent(cohort)
    checked = 0
    for record in records:
        events = _events(agent, record.patient.patient_id, PSORIASIS)
        had = any("psoriasis" in c.display.lower() for c in record.valid_conditions())
        lead = _lead(events)
        searched = [e for e in events if getattr(e, "name", None) == "search_leaflets"]
        assert not searched, (PSORIASIS, lead)
        if had:
            assert lead.startswith("Yes"), lead
        else:
            assert lead.startswith("No") and "searched every condition" in lead, lead
        checked += 1
    assert checked >= 5


def test_the_same_wording_says_yes_for_a_condition_the_record_holds(cohort):
    agent, records = _agent(cohort)
    checked = 0
    for record in records:
        names = {c.display.lower() for c in record.valid_conditions()}
        for word in ("asthma", "sinusitis", "prediabetes", "anemia"):
            if any(word in n for n in names):
                lead = _lead(
                    _events(agent, record.patient.patient_id, f"Is ther any {word} in my medicl histroy?")
                )
                assert lead.startswith("Yes"), (word, lead)  # a resolved one too: "Yes, in the past"
                checked += 1
    assert checked >= 3


# --- 2 and 3. "something I'm not allowed to have": the allergy list and the drug–allergy table -----
def _current_allergy(record, word: str) -> bool:
    return any(word in (a.display or "").lower() for a in record.current_allergies())


FORBIDDEN = [
    ("is aspirin something the patient is not allowed to have", "clinician", "aspirin"),
    ("is penicillin something i'm not allowed to have", "patient", "penicillin"),
    ("is penicillin something she can't have?", "clinician", "penicillin"),
    ("is ibuprofen something i'm not allowed to take", "patient", "ibuprofen"),
]


def test_something_not_allowed_is_answered_from_the_allergy_list(cohort):
    """Through the production gate (the patient's wording was refused as advice, no row shown)."""
    from agent.runner import GuardedAgent

    agent, records = _agent(cohort)
    guarded = GuardedAgent(agent)
    yes = no = 0
    for record in records:
        pid = record.patient.patient_id
        for question, role, drug in FORBIDDEN:
            answer = _answer(_ask(guarded, pid, question, role))
            lead = _lead_after_banner(answer)
            assert "can't give medical advice" not in answer, (question, answer)
            assert "leaflet" not in answer.lower(), (question, answer)
            if _current_allergy(record, drug):
                assert lead.startswith("Yes") and "[A" in lead, (pid, question, lead)
                yes += 1
            else:
                assert lead.startswith("No"), (pid, question, lead)
                # a confident no says what was checked, and is never permission
                assert "allergy list" in lead and "drug–allergy table" in lead, lead
                assert "not permission" in lead or "not a clinical all-clear" in lead, lead
                if role == "patient":
                    assert "ask your clinician or pharmacist before taking it" in lead, lead
                no += 1
    assert yes >= 1 and no >= 10, (yes, no)


def test_a_medicine_the_table_links_to_an_allergy_is_a_yes(cohort):
    """Amoxicillin against a penicillin allergy: the table's link, the allergy cited."""
    agent, records = _agent(cohort)
    checked = 0
    for record in records:
        if not _current_allergy(record, "penicillin"):
            continue
        lead = _lead(
            _events(agent, record.patient.patient_id, "is amoxicillin something i'm not allowed to have")
        )
        assert lead.startswith("Yes") and "penicillin" in lead.lower() and "[A" in lead, lead
        checked += 1
    assert checked >= 1


@pytest.mark.parametrize(
    "text",
    [
        "is penicillin something i'm not allowed to have",
        "is aspirin something im not allowed to have",
        "is amoxicillin something i cant have",
    ],
)
def test_the_gate_lets_the_allergy_question_through(production_gate, text: str) -> None:
    assert production_gate(text, "patient")[0] == "allow", text


@pytest.mark.parametrize(
    "text",
    ["am i allowed to have ibuprofen", "is grapefruit something i can't have with my simvastatin"],
)
def test_asking_for_permission_stays_advice(production_gate, text: str) -> None:
    assert production_gate(text, "patient")[0] == "advice", text
