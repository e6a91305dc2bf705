"""Hunting confident false negatives on a generated cohort: for every patient, every thing the
record holds (each medication ingredient, each condition, each allergy) is asked about in
several wordings, and the answer's opening must never deny it.

The truth is the evaluation's own reading of the database (`evals.truth`), not the planner's.
"""

from __future__ import annotations

import re

from agent.base import AgentRequest
from agent.events import DoneEvent
from agent.offline import OfflineAgent
from evals.paraphrase.grade import grade, lead_of
from evals.paraphrase.suite import Fact, typo
from evals.truth import EIE
from evals.vocab import condition_name, drug_name
from tests.agent.conftest import COHORT_NOW, run
from tools.catalog import build_registry
from tools.scope import PatientScope

DENIAL = re.compile(r"\b(has no|records no|could not find|not in (the|your) record)\b", re.I)
NOW = COHORT_NOW  # the moment the cohort fixture read each record at
WORDINGS = {
    "medication": (
        "Is the patient taking {x}?",
        "pt on {x}?",
        "{X} - current med?",
        "Is the patient on {t}?",
    ),
    "condition": ("Does the patient have {x}?", "hx of {x}?", "Does the patient have {t}?"),
    "allergy": ("Is the patient allergic to {x}?", "{X} allergy?"),
}


def _held(record) -> dict[tuple[str, str], bool]:
    """(kind, name) of everything this record holds, in the words people use → active now?"""
    out: dict[tuple[str, str], bool] = {}
    now = record.now
    for m in record.medications:
        if m.status != EIE:
            active = (
                m.status == "active" and m.ended_reason is None and (m.ended_at is None or m.ended_at > now)
            )
            key = ("medication", drug_name(m.display))
            out[key] = out.get(key, False) or active
    for c in record.conditions:
        if c.verification_status not in (EIE, "refuted") and "(disorder)" in c.display:
            active = c.clinical_status in ("active", "recurrence", "relapse") and (
                c.abatement is None or c.abatement > now
            )
            key = ("condition", condition_name(c.display).lower())
            out[key] = out.get(key, False) or active
    for a in record.allergies:
        if a.verification_status not in (EIE, "refuted"):
            out[("allergy", condition_name(a.display).lower())] = True
    return out


def test_nothing_the_record_holds_is_ever_denied(cohort):
    db, records = cohort
    agent = OfflineAgent(build_registry(), db)
    asked = 0
    denials = []
    for record in records:
        scope = PatientScope(
            patient_id=record.patient.patient_id, role="clinician", actor="test", conversation_id="cfn"
        )
        for (kind, name), active in sorted(_held(record).items()):
            fact = Fact("f", record.patient.patient_id, "clinician", kind, name, True)
            for wording in WORDINGS[kind]:
                question = wording.format(x=name, X=name.capitalize(), t=typo(name))
                done = run(agent, AgentRequest(scope=scope, question=question, now=NOW))[-1]
                assert isinstance(done, DoneEvent) and done.answer.strip(), question
                asked += 1
                lead = lead_of(done.answer)
                if active and grade(fact, done.answer).false_negative:
                    denials.append((question, lead))  # "no" to something active now
                elif not active and (DENIAL.search(lead) or name.split()[0] not in lead.lower()):
                    denials.append((question, lead))  # a past one must be named, never denied
    assert asked >= 100
    assert denials == []
