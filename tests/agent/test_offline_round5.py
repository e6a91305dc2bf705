"""Round five of the offline planner (issue 16): who prescribed, and what a medicine is for,
answered in the lead sentence from the prescription's own rows (below the safety gate). Each
test failed before its fix."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from agent.base import AgentRequest
from agent.events import DoneEvent
from agent.offline import OfflineAgent, Planner
from evals.vocab import condition_name, drug_name
from tests.agent.conftest import COHORT_NOW, run
from tests.agent.test_offline import ALL_TOOLS
from tools.catalog import build_registry
from tools.scope import PatientScope

TODAY = dt.date(2026, 12, 1)
_HANDLE = re.compile(r"\[M\d+(, M\d+)*\]")


def _lead(agent, patient_id: str, question: str) -> str:
    scope = PatientScope(patient_id=patient_id, role="patient", actor="test", conversation_id="r5")
    done = run(agent, AgentRequest(scope=scope, question=question, now=COHORT_NOW))[-1]
    assert isinstance(done, DoneEvent) and done.answer.strip()
    return done.answer.split("\n\n")[1]


def _prescriptions(db, record):
    """(drug as people say it, its recorded reason, its prescriber) per prescription kept, read
    from the table itself (not through the tools)."""
    with db.admin.connect() as conn:
        rows = conn.exec_driver_sql(
            "SELECT display, reason_display, requester_name FROM medication_requests "
            "WHERE patient_id = %(p)s AND coalesce(status, '') <> 'entered-in-error'",
            {"p": record.patient.patient_id},
        ).fetchall()
    return [(drug_name(display), reason, who) for display, reason, who in rows]


@pytest.fixture(scope="module")
def agent(cohort):
    return OfflineAgent(build_registry(), cohort[0])


def test_who_prescribed_the_medicines_for_a_condition_names_each_prescriber_first(cohort, agent):
    asked = 0
    for record in cohort[1]:
        by_reason: dict[str, set[str]] = {}
        for _, reason, who in _prescriptions(cohort[0], record):
            if reason and who and "(disorder)" in reason:
                by_reason.setdefault(reason, set()).add(who)
        for reason, prescribers in sorted(by_reason.items())[:2]:
            name = condition_name(reason).lower()
            lead = _lead(agent, record.patient.patient_id, f"who prescribed my {name} tablets")
            assert all(p in lead for p in prescribers), (name, prescribers, lead)
            assert _HANDLE.search(lead), lead
            asked += 1
    assert asked >= 3


def test_the_brief_s_diabetes_tablets_question_names_the_prescriber_in_its_lead(cohort, agent):
    for record in cohort[1]:
        diabetic = {
            who
            for drug, reason, who in _prescriptions(cohort[0], record)
            if reason and "diabetes" in reason.lower() and who
        }
        if diabetic:
            lead = _lead(agent, record.patient.patient_id, "who prescribed my diabetes tablets")
            assert lead.startswith(tuple(diabetic)) or "prescribed by" in lead, lead
            assert all(p in lead for p in diabetic) and _HANDLE.search(lead), lead
            return
    pytest.skip("no diabetes prescription in this cohort")


def test_what_a_medicine_is_for_is_its_recorded_reason_cited(cohort, agent):
    asked = 0
    for record in cohort[1]:
        reasons: dict[str, set[str]] = {}
        for drug, reason, _ in _prescriptions(cohort[0], record):
            if reason:
                reasons.setdefault(drug, set()).add(reason)
        conditions = {
            condition_name(c.display).lower() for c in record.conditions if "(disorder)" in c.display
        }
        for drug, why in sorted(reasons.items())[:2]:
            pid = record.patient.patient_id
            for question in (f"what is my {drug} for", f"Why am I on {drug}?"):
                lead = _lead(agent, pid, question)
                assert all(r in lead for r in why) and _HANDLE.search(lead), (question, lead)
            reason = sorted(why)[0]
            own = condition_name(reason).lower()
            lead = _lead(agent, pid, f"is the {drug} for my {own}?")
            assert lead.startswith("Yes") and reason in lead, lead
            said = " ".join(why).lower()
            other = sorted(
                c
                for c in conditions
                if c not in said
                and not any(c in o or o in c for o in (condition_name(r).lower() for r in why))
            )
            if other:
                lead = _lead(agent, pid, f"is the {drug} for my {other[0]}?")
                assert lead.startswith("No") and any(r in lead for r in why), (drug, other[0], lead)
            asked += 1
    assert asked >= 3


@pytest.mark.parametrize(
    ("question", "tool", "operation"),
    [
        # the visit says when the value was taken; the value is asked (round five, tune5 failures)
        ("What was my weight at the most recent visit?", "get_labs", "latest"),
        ("What was her HbA1c at her last check-up?", "get_labs", "latest"),
        ("Across every visit, what was the top weight?", "summarize_labs", "max"),
        # a run-on sentence's "ok" and "I mean" are not a range check or an average
        ("Ok random question but what's the highest my weight has ever been", "summarize_labs", "max"),
        ("Hi, sorry, could you pull up my weight, the latest one I mean?", "get_labs", "latest"),
        # a word naming the measure and the superlative at once keeps the superlative
        ("What's the heaviest I've ever been?", "summarize_labs", "max"),
        ("What's the most I've ever weighed?", "summarize_labs", "max"),
        ("What was my top weight?", "summarize_labs", "max"),
        ("What's my record weight?", "summarize_labs", "max"),
        ("What is my most recent weight?", "get_labs", "latest"),
        # "prescribed for her" is the patient, not a reason asked about (tune5 failure)
        ("As of this week, is metformin still prescribed for her?", "get_medications", "exists"),
        # "higher than twelve months ago" is the year-ago comparison (dev-bank failure)
        ("Is their total cholesterol higher than twelve months ago?", "summarize_labs", "year_ago"),
        # ... while the words still work where they are the question
        ("Is my latest cholesterol ok?", None, "range"),
        ("What is my mean weight?", "summarize_labs", "mean"),
        ("How many visits did I have last year?", "count_encounters", "count"),
    ],
)  # fmt: skip
def test_a_visit_word_or_a_filler_does_not_change_what_is_asked(question, tool, operation):
    plan = Planner(ALL_TOOLS).plan(question, [], TODAY)
    assert [t.operation for t in plan.topics][:1] == [operation], plan.topics
    if tool is not None:
        assert plan.calls[0].name == tool


def test_a_named_drug_started_in_a_window_is_that_drug_s_answer_not_every_change(cohort, agent):
    """'Was I started on warfarin in the last year?' listed every drug started in the year
    ("1 prescription started and 0 stopped"): the drug asked about was dropped."""
    from evals.paraphrase.suite import ABSENT_DRUGS

    asked = 0
    for record in cohort[1][:4]:
        pid = record.patient.patient_id
        every = " ".join(m.display.lower() for m in record.medications)
        absent = next(d for d in ABSENT_DRUGS if d not in every)
        lead = _lead(agent, pid, f"Was I started on {absent} in the last year?")
        assert lead.startswith("No.") and "every prescription" in lead, lead
        kept = [m for m in record.medications if m.status != "entered-in-error" and m.authored_on]
        for m in kept[:1]:
            drug = drug_name(m.display)
            same = [o.authored_on.year for o in kept if drug_name(o.display) == drug]
            lead = _lead(agent, pid, f"Was I started on {drug} since {max(same)}?")
            assert lead.startswith("Yes") and _HANDLE.search(lead), (drug, lead)
            if max(same) + 1 <= COHORT_NOW.year:
                lead = _lead(agent, pid, f"Was I started on {drug} since {max(same) + 1}?")
                assert lead.startswith("No"), (drug, lead)
            asked += 1
    assert asked >= 3


def test_visits_of_a_named_type_are_counted_by_that_type_not_every_visit(cohort, agent):
    """'How many times have I been to urgent care?' counted every visit, or the one emergency
    visit ('urgent' read as emergency): the visit type named is what is counted."""
    db, records = cohort
    asked = 0
    for record in records:
        pid = record.patient.patient_id
        with db.admin.connect() as conn:
            rows = conn.exec_driver_sql(
                "SELECT type_display, count(*) FROM encounters WHERE patient_id = %(p)s AND "
                "coalesce(status, '') NOT IN ('cancelled', 'entered-in-error') AND type_display ILIKE "
                "'urgent care%%' GROUP BY type_display",
                {"p": pid},
            ).fetchall()
            every = conn.exec_driver_sql(
                "SELECT count(*) FROM encounters WHERE patient_id = %(p)s", {"p": pid}
            ).scalar_one()
        if len(rows) != 1:
            continue
        lead = _lead(agent, pid, "How many times have I been to urgent care?")
        assert re.search(rf"\b{rows[0][1]} urgent care clinic visits?\b", lead), (rows, lead)
        assert rows[0][1] != every and "emergency" not in lead.lower(), lead
        asked += 1
    if not asked:
        pytest.skip("no urgent-care visits in this cohort")


def test_nkda_is_the_allergy_section_not_an_unmatched_word():
    """'NKDA?' answered "I could not match 'nkda' to anything in the record" (dev-bank failure)."""
    plan = Planner(ALL_TOOLS).plan("NKDA?", [], TODAY)
    assert [c.name for c in plan.calls] == ["get_allergies"]
    assert plan.linking is not None and "nkda" not in plan.linking.unlinked


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        # the range said in other words (own wordings, written after the test bank's aggregate
        # showed above-range misses; the bank's lines were not read)
        ("Was my last cholesterol over the limit?", "above"),
        ("Is my most recent LDL higher than it should be?", "above"),
        ("Was my last HbA1c above the upper limit?", "above"),
        ("Is my A1C reading on the high side?", "above"),
        ("Latest LDL exceeding normal?", "above"),  # was "Yes, it is within the range"
        ("Is my potassium lower than normal?", "below"),
    ],
)
def test_a_range_question_in_other_words_asks_that_side_of_the_range(question, asked):
    plan = Planner(ALL_TOOLS).plan(question, [], TODAY)
    (topic,) = plan.topics
    assert (topic.operation, topic.asked) == ("range", asked)
