"""Round fifteen, after the generated set's run: "How has my LDL cholesterol changed over time?"
was answered "Yes: your LDL cholesterol went down by 2.3 mg/dL" — the change since the previous
result — while over its whole series (82.7 → 96.8 mg/dL) it went UP. A confident wrong direction.
"Changed over time / over the years" asks for the whole series; a how-question is not a yes/no
one. Wordings written before the fix, checked across the generated cohort against the record."""

from __future__ import annotations

from tests.agent.test_lead_hunt_r8 import _events, _lead
from tests.agent.test_offline_r15 import A1C, CHOL, HDL, LDL, WEIGHT, _agent, _series

OVER_TIME = [
    ("How has my LDL cholesterol changed over time?", "patient", LDL),  # plain (the set's wording)
    ("how has her a1c changed over the years", "clinician", A1C),  # pronoun
    ("how has my wieght chnaged over time", "patient", WEIGHT),  # typos
    ("how have my cholesterol numbers changed through the years", "patient", CHOL),  # lay
    ("hdl changes over time?", "clinician", HDL),  # shorthand
]


def test_changed_over_time_is_the_whole_series_with_its_direction(cohort):
    agent, records = _agent(cohort)
    checked = 0
    for record in records:
        pid = record.patient.patient_id
        for question, role, code in OVER_TIME:
            series = _series(record, code)
            if len(series) < 3 or len({m.effective.date() for m in series}) < len(series):
                continue
            first, last = series[0], series[-1]
            if round(first.value, 1) == round(last.value, 1):
                continue
            lead = _lead(_events(agent, pid, question, role=role))
            assert not lead.startswith(("Yes", "No")), (question, lead)
            assert first.effective.date().isoformat() in lead, (pid, question, first, lead)
            assert last.effective.date().isoformat() in lead, (pid, question, last, lead)
            said = "went up" if last.value > first.value else "went down"
            small = abs(last.value - first.value) <= 0.05 * abs(first.value)  # may be "about the same"
            assert said in lead or (small and "about the same" in lead), (
                pid,
                question,
                first.value,
                last.value,
                lead,
            )
            assert ("went down" if said == "went up" else "went up") not in lead, (question, lead)
            checked += 1
    assert checked >= 15


def test_a_how_question_about_the_last_change_has_no_yes_in_front(cohort):
    agent, records = _agent(cohort)
    checked = 0
    for record in records:
        series = _series(record, LDL)
        if len(series) < 2 or series[-1].value == series[-2].value:
            continue
        lead = _lead(_events(agent, record.patient.patient_id, "how has my ldl changed since the last one"))
        assert not lead.startswith(("Yes", "No")), lead
        assert series[-2].effective.date().isoformat() in lead, lead
        checked += 1
    assert checked >= 3
