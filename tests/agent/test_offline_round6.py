"""Round six of the offline planner (issue 16): body-system questions answered from the record,
an allergy to a drug class, medicines asked for by what they treat. Each test failed before its fix
(a leaflet or "I can't answer that" for the kidneys; an unasked amoxicillin paragraph for the
antibiotics; the whole medication list for blood pressure)."""

from __future__ import annotations

import re

import pytest

from agent.base import AgentRequest
from agent.events import DoneEvent
from agent.offline import OfflineAgent
from evals.paraphrase.grade import lead_of
from evals.paraphrase.hunt import SYSTEMS as HUNT_SYSTEMS
from evals.truth import EIE
from evals.vocab import drug_name
from tests.agent.conftest import COHORT_NOW, run
from tools.catalog import build_registry
from tools.scope import PatientScope

# test-side knowledge (BNF chapter 2.5 / ATC C02–C09), not the planner's lexicon
ANTIHYPERTENSIVES = ("lisinopril", "losartan", "amlodipine", "hydrochlorothiazide")
ANTIBIOTIC_ALLERGENS = ("penicillin", "amoxicillin", "cefdinir", "cephalexin", "sulfa")
# the hunt's organ words; the heart's "circulation" also holds hypertension (ICD-10 chapter IX, I10)
SYSTEMS = [
    (organ, re.compile(pattern.pattern + "|hypertens") if organ == "heart" else pattern, words)
    for organ, pattern, words in HUNT_SYSTEMS
]
ORGAN_LABS = {"kidneys": ("eGFR", "creatinine")}


@pytest.fixture(scope="module")
def agent(cohort):
    return OfflineAgent(build_registry(), cohort[0])


def _answer(agent, patient_id: str, question: str) -> str:
    scope = PatientScope(patient_id=patient_id, role="patient", actor="test", conversation_id="r6")
    done = run(agent, AgentRequest(scope=scope, question=question, now=COHORT_NOW))[-1]
    assert isinstance(done, DoneEvent) and done.answer.strip()
    return done.answer


def _conditions(record) -> list[str]:
    return sorted({c.display for c in record.conditions if c.verification_status not in (EIE, "refuted")})


@pytest.mark.parametrize(
    "wording",
    [
        "Anything wrong with my {o}?",
        "Did they ever find anything wrong with my {o}?",
        "Is my {o} ok on paper?",
    ],
)
def test_a_body_system_is_answered_from_the_record_s_conditions_never_a_leaflet(cohort, agent, wording):
    yes = no = 0
    for record in cohort[1]:
        for organ, pattern, _ in SYSTEMS:
            held = [d for d in _conditions(record) if pattern.search(d.lower())]
            text = _answer(agent, record.patient.patient_id, wording.format(o=organ))
            lead = lead_of(text)
            assert "[K" not in text, (organ, lead)  # the record answers, not a leaflet
            if held:
                assert lead.startswith("Yes") and re.search(r"\[C\d+\]", lead), (organ, held, lead)
                assert all(d in lead for d in held), (organ, held, lead)
                yes += 1
            else:
                assert lead.startswith("No") and "searched every condition" in lead, (organ, lead)
                no += 1
    assert yes >= 3 and no >= 3


def test_a_body_system_answer_cites_the_latest_related_labs(cohort, agent):
    asked = 0
    for record in cohort[1]:
        for organ, labs in ORGAN_LABS.items():
            text = _answer(agent, record.patient.patient_id, f"any problems with my {organ}?")
            for lab in labs:
                has = any(lab.lower() in m.display.lower() or (lab == "eGFR" and "glomerular" in m.display.lower()) for m in record.measurements)  # fmt: skip
                if has:
                    assert re.search(rf"latest {lab} is .* \[L\d+\]", text), (
                        lab,
                        [
                            (m.display, m.status)
                            for m in record.measurements
                            if lab.lower() in m.display.lower() or "glomerular" in m.display.lower()
                        ],
                        text,
                    )
                    asked += 1
    assert asked >= 2


def test_an_allergy_to_a_drug_class_answers_about_that_class_only(cohort, agent):
    seen = set()
    for record in cohort[1]:
        allergies = [a.display for a in record.allergies if a.verification_status not in (EIE, "refuted")]
        text = _answer(agent, record.patient.patient_id, "do i have any allergies to antibiotics")
        lead = lead_of(text)
        assert "[M" not in text, text  # no unasked prescription paragraph
        antibiotic = [a for a in allergies if any(x in a.lower() for x in ANTIBIOTIC_ALLERGENS)]
        if antibiotic:
            assert lead.startswith("Yes") and all(a in lead for a in antibiotic), lead
            seen.add("yes")
        elif allergies:
            assert lead.startswith("No") and all(a in lead for a in allergies), (
                lead
            )  # "your allergies are: …"
            seen.add("no, others")
        else:
            assert lead.startswith("No") and "no allergies" in lead.lower(), lead
            seen.add("none")
    assert {"yes", "no, others"} <= seen


def test_on_anything_for_blood_pressure_names_each_active_antihypertensive(cohort, agent):
    seen = set()
    for record in cohort[1]:
        active = {
            drug_name(m.display)
            for m in record.medications
            if m.status == "active"
            and m.ended_reason is None
            and (m.ended_at is None or m.ended_at > COHORT_NOW)
            and any(d in m.display.lower() for d in ANTIHYPERTENSIVES)
        }
        lead = lead_of(_answer(agent, record.patient.patient_id, "Am I on anything for blood pressure?"))
        if active:
            assert lead.startswith("Yes"), lead
            assert all(d.split()[0] in lead.lower() for d in active), (active, lead)
            assert re.search(r"\[M\d+\]", lead), lead
            seen.add("yes")
        else:
            assert lead.startswith("No"), lead
            seen.add("no")
    assert seen == {"yes", "no"}
