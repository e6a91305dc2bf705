"""A count the offline planner leads with is grounded like any other number: asked "how many
…" on a generated cohort, no answer may carry the grounding check's `[unverified]` or
`unknown source` marks (a user reads those as "this number may be wrong").

Found on the demo cohort: "How many visits do I have?" led with "Your record has 19
[unverified] visit(s)", because the lead sentence cited no row.
"""

from __future__ import annotations

from agent.base import AgentRequest
from agent.events import DoneEvent
from agent.grounding import UNKNOWN_MARK, UNVERIFIED_MARK
from agent.offline import OfflineAgent
from tests.agent.conftest import COHORT_NOW, run
from tools.catalog import build_registry
from tools.scope import PatientScope

NOW = COHORT_NOW
QUESTIONS = (
    "How many visits do I have?",
    "how many times have I been to the doctor",
    "How many allergies do I have?",
    "how many ER visits have I had",
)


def test_counts_are_grounded_in_the_rows_they_cite(cohort):
    db, records = cohort
    ids = [r.patient.patient_id for r in records]
    agent = OfflineAgent(build_registry(), db)
    flagged = []
    for pid in ids:
        scope = PatientScope(patient_id=pid, role="patient", actor="test", conversation_id="counts")
        for question in QUESTIONS:
            done = run(agent, AgentRequest(scope=scope, question=question, now=NOW))[-1]
            assert isinstance(done, DoneEvent) and done.answer.strip(), question
            if UNVERIFIED_MARK.strip() in done.answer or UNKNOWN_MARK in done.answer:
                flagged.append((pid, question, done.answer.splitlines()[0:3]))
    assert ids and flagged == []
