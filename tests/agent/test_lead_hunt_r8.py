"""Silent failures found by the lead in round eight (paraphrase frozen6, measured once, and the
issue-16 helper's hunt), each checked across a generated cohort against the evaluator's own
reading of the record (`evals.truth`), with the safety gate in the loop where it decided.

- "Is there an ER visit anywhere in my records?" → a records-access leaflet, no verdict.
- "Do my records show any trips to the ER?" → triglycerides ("trips" fuzzy-linked to "trigs").
- "does anything in my notes say I have <condition>" → note passages ranked by similarity.
- "any record of me having a miscarriage" → the emergency reply; "Am I curently prescribd X?" and
  "Do I currnetly hav X?" → the advice refusal.
"""

from __future__ import annotations

from agent.base import AgentRequest
from agent.events import DoneEvent, ToolCallEvent
from agent.offline import OfflineAgent
from agent.runner import GuardedAgent
from agent.safety.gate import SafetyGate
from agent.safety.replies import CLINICAL_ADVICE_REPLY, EMERGENCY_REPLY
from evals.paraphrase.hunt import ABSENT_CONDITIONS
from tests.agent.conftest import COHORT_NOW, run
from tests.conftest import test_settings as make_settings
from tools.catalog import build_registry
from tools.scope import PatientScope


def _events(agent, pid: str, question: str, role: str = "patient"):
    scope = PatientScope(patient_id=pid, role=role, actor="test", conversation_id="hunt-r8")
    return run(agent, AgentRequest(scope=scope, question=question, now=COHORT_NOW))


def _lead(events) -> str:
    done = events[-1]
    assert isinstance(done, DoneEvent)
    lines = [
        line for line in done.answer.splitlines() if line.strip() and not line.startswith("Offline mode")
    ]
    return lines[0] if lines else ""


def _emergency_visits(record) -> int:
    return sum(1 for e in record.encounters if (e.class_code or "").lower() == "emer")


def test_an_emergency_visit_asked_about_in_my_records_gets_the_records_verdict(cohort):
    db, records = cohort
    agent = OfflineAgent(build_registry(), db)
    for record in records:
        pid = record.patient.patient_id
        for question in (
            "Is there an ER visit anywhere in my records?",
            "Do my records show any trips to the ER?",
        ):
            events = _events(agent, pid, question)
            tools = [e.name for e in events if isinstance(e, ToolCallEvent)]
            lead = _lead(events)
            assert "search_leaflets" not in tools and "get_labs" not in tools, (question, tools)
            expected = "Yes" if _emergency_visits(record) else "No"
            assert lead.startswith(expected), (question, _emergency_visits(record), lead)


def test_does_anything_in_my_notes_say_i_have_x_gets_a_verdict(cohort):
    db, records = cohort
    agent = OfflineAgent(build_registry(), db)
    asked = 0
    for record in records:
        every = " ".join(c.display.lower() for c in record.conditions)
        for condition in (c for c in ABSENT_CONDITIONS if c not in every):
            lead = _lead(
                _events(
                    agent,
                    record.patient.patient_id,
                    f"Just curious, does anything in my notes say I have {condition}?",
                )
            )
            # a verdict about the condition, never "no passage matches 'curious psoriasis'"
            assert lead.startswith((f"No note mentions {condition}", "Yes: your notes mention")), (
                condition,
                lead,
            )
            asked += 1
    assert asked


def test_record_questions_with_mistyped_verbs_pass_the_gate(cohort):
    db, records = cohort
    guarded = GuardedAgent(OfflineAgent(build_registry(), db), gate=SafetyGate(None, make_settings()))
    record = records[0]
    pid = record.patient.patient_id
    med = next(m.display.split()[0] for m in record.medications)
    for question in (
        "any record of me having a miscarriage",
        f"Am I curently prescribd {med}?",
        "Do I currnetly hav diabetes?",
        "Have I evr been seen in the emergancy room?",
    ):
        answer = _events(guarded, pid, question)[-1].answer
        assert EMERGENCY_REPLY not in answer and CLINICAL_ADVICE_REPLY not in answer, (question, answer[:200])
