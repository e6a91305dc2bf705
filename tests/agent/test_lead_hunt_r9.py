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


def test_do_my_notes_say_i_ever_had_x_gets_the_notes_verdict(cohort):
    """Was: note passages ranked by similarity for 'i ever had a sinus infection', no verdict."""
    db, records = cohort
    agent = OfflineAgent(build_registry(), db)
    for record in records[:4]:
        pid = record.patient.patient_id
        sinusitis = any("sinusitis" in c.display.lower() for c in record.conditions)
        lead = _lead(_events(agent, pid, "do my notes say i ever had a sinus infection"))
        assert lead.startswith(("No note mentions sinus infection", "Yes: your notes mention")), lead
        # the chart named: the conditions' verdict leads, the notes' follows
        lead = _lead(_events(agent, pid, "does my chart mention that i was diagnosed with a sinus infection"))
        assert lead.startswith("Yes" if sinusitis else "No"), (sinusitis, lead)
        assert "No passage" not in lead, lead


def test_how_many_er_trips_leads_with_the_number_not_yes_or_no(cohort):
    """Was: "No: your record has 0 emergency visits" to a how-many question."""
    db, records = cohort
    agent = OfflineAgent(build_registry(), db)
    for record in records:
        n = sum(1 for e in record.encounters if (e.class_code or "").lower() == "emer")
        lead = _lead(_events(agent, record.patient.patient_id, "how many ER trips have i had"))
        assert not lead.startswith(("Yes", "No:")), lead
        assert (str(n) in lead) if n else ("no emergency visit" in lead.lower() or " 0 " in lead), (n, lead)
        # asked whether, not how many: the verdict stays
        lead = _lead(_events(agent, record.patient.patient_id, "have i ever been to the ER"))
        assert lead.startswith("Yes" if n else "No"), (n, lead)


def test_breaking_a_bone_is_the_fracture_question(cohort):
    """Was: "No: no condition matching 'breaking a bone' is recorded" (a word search that cannot
    find 'Fracture of forearm')."""
    db, records = cohort
    agent = OfflineAgent(build_registry(), db)
    for record in records:
        fractured = any("fracture" in c.display.lower() for c in record.conditions)
        lead = _lead(_events(agent, record.patient.patient_id, "any record of me breaking a bone"))
        assert lead.startswith("Yes" if fractured else "No"), (fractured, lead)
        assert "breaking a bone" not in lead, lead
