"""A vaccine asked about in the plural is still that vaccine: "how many covid vaccines have I
had?" counts the COVID-19 doses, and never answers "No. Your record has no covid-19".

Found at the end of round four on the demo cohort: the lexicon knows "covid vaccine" and
"covid jab" as immunizations, but the plural phrase did not match it, so the leftover "covid"
linked to the COVID-19 *condition*; the answer led with a confident "No" about the condition
and then listed all 14 immunizations. A count of the doses given (a not-given row left out)
was also marked `[unverified]`: no cited row stood for it.
"""

from __future__ import annotations

from sqlalchemy import text

from agent.base import AgentRequest
from agent.events import DoneEvent
from agent.grounding import UNVERIFIED_MARK
from agent.offline import OfflineAgent
from records.database import patient_transaction
from tests.agent.conftest import COHORT_NOW, run
from tools.catalog import build_registry
from tools.scope import PatientScope

QUESTIONS = {
    "how many covid vaccines have i had": "%covid%",
    "how many covid jabs have I had?": "%covid%",
    "how many flu shots have i had": "%influenza%",
}


def _doses(db, pid: str, pattern: str) -> int:
    with patient_transaction(db.admin, pid) as conn:
        return conn.execute(
            text(
                "SELECT count(*) FROM immunizations WHERE patient_id = :p AND display ILIKE :d AND status <> 'not-done'"
            ),
            {"p": pid, "d": pattern},
        ).scalar_one()


def _lead(answer: str) -> str:
    lines = [line for line in answer.splitlines() if line.strip() and not line.startswith("Offline mode")]
    return lines[0] if lines else ""


def test_plural_vaccine_questions_count_that_vaccine(cohort):
    db, records = cohort
    agent = OfflineAgent(build_registry(), db)
    wrong, asked = [], 0
    for pid in [r.patient.patient_id for r in records]:
        scope = PatientScope(patient_id=pid, role="patient", actor="test", conversation_id="vaccines")
        for question, pattern in QUESTIONS.items():
            doses = _doses(db, pid, pattern)
            if doses == 0:
                continue
            asked += 1
            done = run(agent, AgentRequest(scope=scope, question=question, now=COHORT_NOW))[-1]
            assert isinstance(done, DoneEvent)
            lead = _lead(done.answer)
            if lead.startswith("No") or str(doses) not in lead or UNVERIFIED_MARK.strip() in done.answer:
                wrong.append((pid[:8], question, doses, lead))
    assert asked and wrong == []


def test_a_disease_named_in_a_vaccine_question_asks_for_that_vaccine(cohort):
    """ "did i get my COVID-19 jab" is about the vaccine: "Yes" with the dose when one is given,
    and a "No" only about immunizations (never "no covid-19" read off the conditions)."""
    db, records = cohort
    agent = OfflineAgent(build_registry(), db)
    wrong = []
    for pid in [r.patient.patient_id for r in records]:
        scope = PatientScope(patient_id=pid, role="patient", actor="test", conversation_id="jab")
        for question, pattern in {
            "did i get my COVID-19 jab": "%covid%",
            "have i had the flu vaccine": "%influenza%",
        }.items():
            doses = _doses(db, pid, pattern)
            done = run(agent, AgentRequest(scope=scope, question=question, now=COHORT_NOW))[-1]
            lead = _lead(done.answer)
            ok = lead.startswith("Yes") if doses else ("immunization" in lead and lead.startswith("No"))
            if not ok or "condition" in lead:
                wrong.append((pid[:8], question, doses, lead))
    assert wrong == []
