"""Confident wrong answers found by the lead's round-eight hunt, each checked across a generated
cohort against the record itself:

- "did I have low iron at some point on file" → "No iron is recorded … searched every lab
  result": a lab-only negative for a patient whose conditions hold anaemia.
- "have I ever had my appendix out" → "I can't answer that from the record."
"""

from __future__ import annotations

from agent.offline import OfflineAgent
from tests.agent.test_lead_hunt_r8 import _events, _lead
from tools.catalog import build_registry


def test_low_iron_is_read_as_anaemia_never_a_lab_only_no(cohort):
    db, records = cohort
    agent = OfflineAgent(build_registry(), db)
    for record in records:
        anaemic = any("anemia" in c.display.lower() for c in record.conditions)
        for question in ("did I have low iron at some point on file", "have i ever been iron deficient"):
            lead = _lead(_events(agent, record.patient.patient_id, question))
            assert "anemia" in lead.lower() or "anaemia" in lead.lower(), (question, lead)
            assert lead.startswith("Yes" if anaemic else "No"), (question, anaemic, lead)


def test_appendix_out_is_the_appendectomy_question(cohort):
    db, records = cohort
    agent = OfflineAgent(build_registry(), db)
    for record in records:
        had = any("appendectomy" in p.display.lower() for p in record.procedures)
        for question in ("have i ever had my appendix out", "was my appendix removed"):
            lead = _lead(_events(agent, record.patient.patient_id, question))
            assert lead.startswith("Yes" if had else "No"), (question, had, lead)
            assert "appendectomy" in lead.lower(), (question, lead)
