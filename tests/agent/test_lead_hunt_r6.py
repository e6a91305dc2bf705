"""Silent failures found by the lead's round-six questions (written before any round-six change,
asked on the demo cohort with `chartside ask --offline`), each checked across a generated
cohort against the evaluator's own reading of the record.

- "is my sugar getting better or worse" → "Yes. Diabetes mellitus type 2 … is recorded": the
  question asks for the direction of the sugar tests, not whether the diagnosis exists.
- "what is the lisinopril for" → an ACE-inhibitor leaflet, while the record holds the reason
  the medicine was prescribed for.
- In the browser walk-through, "puedo cambiar mi cita del jueves?" (a frozen5 line, tuning by then)
  → "No. Your record has no heart attack": Spanish "mi" (my) read as MI.
- "is my kidney function ok" → the advice refusal, then "I found nothing in your record about
  this to show you", for a patient whose record holds creatinine and eGFR results.
"""

from __future__ import annotations

import re

from agent.base import AgentRequest
from agent.events import DoneEvent
from agent.offline import OfflineAgent
from agent.runner import GuardedAgent
from agent.safety.refusal import NOTHING_FOUND
from knowledge.embeddings import get_embedder
from tests.agent.conftest import COHORT_NOW, run
from tests.knowledge.helpers import ensure_test_leaflets
from tools.catalog import build_registry
from tools.scope import PatientScope

A1C = "4548-4"
GLUCOSE = "2339-0"
KIDNEY_LABS = ("creatinine", "glomerular filtration", "urea nitrogen")


def _lead(answer: str) -> str:
    lines = [line for line in answer.splitlines() if line.strip() and not line.startswith("Offline mode")]
    return lines[0] if lines else ""


def _ask(agent, pid: str, question: str) -> str:
    scope = PatientScope(patient_id=pid, role="patient", actor="test", conversation_id="hunt-r6")
    done = run(agent, AgentRequest(scope=scope, question=question, now=COHORT_NOW))[-1]
    assert isinstance(done, DoneEvent)
    return done.answer


def test_is_my_sugar_getting_better_or_worse_answers_with_the_direction_of_the_sugar_tests(cohort):
    db, records = cohort
    agent = OfflineAgent(build_registry(), db)
    wrong, asked = [], 0
    for record in records:
        series = [m for m in record.measurements if m.code == A1C and m.effective <= COHORT_NOW]
        if len(series) < 2:
            continue
        asked += 1
        for question in ("is my sugar getting better or worse", "has my a1c improved"):
            lead = _lead(_ask(agent, record.patient.patient_id, question))
            if not re.search(r"\[L\d+\]", lead) or not re.search(r"\b(up|down|rose|fell|went|same|steady)\b", lead):
                wrong.append((record.patient.patient_id[:8], question, lead))
    assert asked and wrong == []


def test_what_is_the_medicine_for_answers_from_the_recorded_reason(cohort, settings):
    """With the leaflets indexed, as served: a leaflet about the drug class is not the answer."""
    db, records = cohort
    embedder = get_embedder(settings)
    ensure_test_leaflets(db, embedder)
    agent = OfflineAgent(build_registry(), db, embedder=embedder)
    wrong, asked = [], 0
    for record in records:
        conditions = {c.id: c.display for c in record.conditions}
        for med in record.active_medications()[:2]:
            reason = conditions.get(med.reason_condition_id or "")
            if not reason:
                continue
            # the drug's name as people say it: "metformin" of "24 HR Metformin hydrochloride …"
            word = next(w for w in med.display.lower().split() if w.isalpha() and len(w) >= 4 and w != "actuat")
            asked += 1
            answer = _ask(agent, record.patient.patient_id, f"what is the {word} for")
            lead = _lead(answer)
            if reason.split(" (")[0].lower() not in lead.lower() or not re.search(r"\[M\d+[],]", lead):
                wrong.append((record.patient.patient_id[:8], word, reason, lead))
    assert asked and wrong == []


def test_the_advice_refusal_about_kidney_function_shows_the_kidney_results(cohort, settings):
    db, records = cohort
    embedder = get_embedder(settings)
    agent = GuardedAgent(OfflineAgent(build_registry(), db, embedder=embedder))
    wrong, asked = [], 0
    for record in records:
        kidney = [m for m in record.measurements if any(k in m.display.lower() for k in KIDNEY_LABS)]
        if not kidney:
            continue
        asked += 1
        answer = _ask(agent, record.patient.patient_id, "is my kidney function ok")
        if NOTHING_FOUND in answer or not any(k in answer.lower() for k in KIDNEY_LABS):
            wrong.append((record.patient.patient_id[:8], _lead(answer), answer[-300:]))
    assert asked and wrong == []


def test_spanish_mi_is_my_not_a_heart_attack():
    """"puedo cambiar mi cita del jueves?" was answered "No. Your record has no heart attack"."""
    from agent.offline.link import Vocabulary, link

    def linked(text: str) -> set[str]:
        return {q for c in link(text, Vocabulary()).concepts for q in c.queries}

    for spanish in ("puedo cambiar mi cita del jueves", "quiero cancelar mi cita", "cual es mi presion"):
        assert "myocardial infarction" not in linked(spanish), spanish
    for english in ("any hx of mi", "has she had an mi", "mi in 2019"):
        assert "myocardial infarction" in linked(english), english


def test_on_file_is_a_record_question_unless_something_is_happening_now(settings):
    """"any problems with my kidneys on file?" got the advice refusal and "I found nothing";
    and "on file" must not hide a symptom described as it is now."""
    from evals.safety_eval import gate_predictor

    predict, _gate = gate_predictor(settings)
    for question in ("any problems with my kidneys on file?", "any issues with my liver on record"):
        assert predict(question, "patient")[0] == "allow", question
    assert predict("my chest is crushing, is it on file", "patient")[0] == "emergency"
