"""Round fourteen (issue 16): questions real users asked that the offline planner answered
wrongly, written down as labelled wordings BEFORE the planner was changed, and checked across
the generated cohort against what each record holds (patients found by their rows, no ids).

1. more medicines now than at a past date → both counts, the conclusion first;
2. a lab now against a year (or N years) ago → both values, the direction and, as data with its
   source, which way is usually the aim for that test (never a judgement);
3. "who is my main doctor" → the registered general practitioner and the clinician seen most;
4. "when was my last asthma review" → the newest visit whose reason or type names the condition;
5. "how many times was I in hospital overnight" → the inpatient visit count;
6. booking "with the same doctor as last time" → that doctor's own slots are searched.

Each need has TUNING wordings (looked at while changing the planner) and HELD_OUT wordings (3
per need, not looked at while tuning; measured once at the end, `test_held_out_*`).
"""

from __future__ import annotations

import datetime as dt
import re

from dateutil.relativedelta import relativedelta
from hypothesis import given
from hypothesis import strategies as st

from agent.offline import OfflineAgent
from evals.truth import EIE
from tests.agent.conftest import COHORT_NOW
from tests.agent.test_lead_hunt_r8 import _events, _lead
from tools.catalog import build_registry

TODAY = COHORT_NOW.date()


def _agent(cohort):
    db, records = cohort
    return OfflineAgent(build_registry(), db), records


def _answer(events) -> str:
    return events[-1].answer


def _ago(years: int = 0, months: int = 0) -> dt.date:
    return TODAY - relativedelta(years=years, months=months)


def _in_year(year: int) -> dt.date:
    return TODAY.replace(year=year)


# --- 1. more medicines now than then -------------------------------------------------------------
# (wording, role, the past day it names, what is asked: "more" | "fewer" | None)
MED_COUNT_TUNING = [
    ("am i on more meds now than 2 years ago", "patient", _ago(2), "more"),
    ("do i take more medications than i did last year", "patient", _ago(1), "more"),
    ("is she on more medicines now than 3 years ago?", "clinician", _ago(3), "more"),
    ("am i taking fewer pills than a year ago", "patient", _ago(1), "fewer"),
    ("more meds than in 2022?", "patient", _in_year(2022), "more"),
    ("is the patient on fewer medications now compared with 2 years ago", "clinician", _ago(2), "fewer"),
    ("am i on mroe meds now than 2 years ago", "patient", _ago(2), "more"),
    ("does he take more drugs than he did 18 months ago", "clinician", _ago(months=18), "more"),
    ("how many meds am i on now vs 2 years ago", "patient", _ago(2), None),
    ("was he on more meds 2 years ago than now", "clinician", _ago(2), "fewer"),  # more then = fewer now
]
MED_COUNT_HELD_OUT = [
    ("am i on less medication than i was 4 years ago", "patient", _ago(4), "fewer"),
    ("is he taking more tablets these days than last year", "clinician", _ago(1), "more"),
    ("count of my active meds now compared to 2021", "patient", _in_year(2021), None),
]


def _active_on(m, day: dt.date) -> bool | None:
    """The rule the answer must follow: prescribed by that day and not ended by it; True/False
    when the record says, None when a prescription ended on a date the record does not give."""
    if m.status in (EIE, "cancelled", "draft") or m.authored_on is None or m.authored_on.date() > day:
        return False
    if m.ended_at is not None:
        return m.ended_at.date() > day
    if m.status == "active" and m.ended_reason is None:
        return True
    return None  # completed / stopped with no end date: not known to be running then


def _check_med_count(agent, records, wordings) -> int:
    checked = 0
    for record in records:
        pid = record.patient.patient_id
        now = sum(
            1
            for m in record.medications
            if m.status == "active" and m.ended_reason is None and (m.ended_at is None or m.ended_at > COHORT_NOW)
            and (m.authored_on is None or m.authored_on <= COHORT_NOW)
        )
        for question, role, day, asked in wordings:
            then = sum(1 for m in record.medications if _active_on(m, day) is True)
            lead = _lead(_events(agent, pid, question, role=role))
            assert day.isoformat() in lead, (pid, question, day, lead)
            assert re.search(rf"\b{now} active\b", lead) and re.search(rf"\b{then} (active )?on {day}", lead), (
                pid, question, now, then, lead,
            )  # fmt: skip
            if asked == "more":
                assert lead.startswith("Yes" if now > then else "No"), (question, now, then, lead)
            elif asked == "fewer":
                assert lead.startswith("Yes" if now < then else "No"), (question, now, then, lead)
            else:
                assert lead.startswith(("More", "Fewer", "The same")), (question, lead)
            checked += 1
    return checked


def test_medicines_now_against_a_past_day_are_both_counted(cohort):
    agent, records = _agent(cohort)
    assert _check_med_count(agent, records, MED_COUNT_TUNING) >= 40


# --- 2. a lab now against a year ago ----------------------------------------------------------------
LDL, A1C, WEIGHT, HDL, EGFR, BMI, CHOL, GLUCOSE = (
    "18262-6", "4548-4", "29463-7", "2085-9", "33914-3", "39156-5", "2093-3", "2339-0",
)  # fmt: skip
LOWER_AIM = {LDL, A1C, WEIGHT, BMI, CHOL, GLUCOSE}
# (wording, role, code, the past day it names)
LAB_TUNING = [
    ("is my ldl better than last year", "patient", LDL, _ago(1)),
    ("is my a1c better or worse than a year ago", "patient", A1C, _ago(1)),
    ("is her ldl lower than last year?", "clinician", LDL, _ago(1)),
    ("is my weight better than 2 years ago", "patient", WEIGHT, _ago(2)),
    ("is my hdl better than last yr", "patient", HDL, _ago(1)),
    ("is my egfr worse than a year ago", "patient", EGFR, _ago(1)),
    ("is my bmi better than it was 2 years ago", "patient", BMI, _ago(2)),
    ("is the patient's hba1c higher than last year", "clinician", A1C, _ago(1)),
    ("is my cholestrol better than last year", "patient", CHOL, _ago(1)),
    ("is his glucose better compared to a year ago", "clinician", GLUCOSE, _ago(1)),
]
LAB_HELD_OUT = [
    ("is my blood sugar worse than last year", "patient", GLUCOSE, _ago(1)),
    ("is her ldl better or worse than 2 years ago", "clinician", LDL, _ago(2)),
    ("has my weight improved compared with a year ago", "patient", WEIGHT, _ago(1)),
]


def _series(record, code: str):
    return sorted(
        (m for m in record.measurements if m.code == code and m.status not in (EIE, "cancelled") and m.effective <= COHORT_NOW),
        key=lambda m: m.effective,
    )


def _nearest_before(series, latest, day: dt.date):
    older = [m for m in series if m.effective < latest.effective]
    if not older:
        return None
    return min(older, key=lambda m: (abs((m.effective.date() - day).days), -m.effective.timestamp()))


def _check_lab(agent, records, wordings) -> int:
    checked = 0
    for record in records:
        pid = record.patient.patient_id
        for question, role, code, day in wordings:
            series = _series(record, code)
            if not series:
                continue
            latest = series[-1]
            answer = _answer(_events(agent, pid, question, role=role))
            lead = _lead(_events(agent, pid, question, role=role))
            assert "better for you" not in lead.lower()  # no judgement of the patient's health
            earlier = _nearest_before(series, latest, day)
            assert latest.effective.date().isoformat() in lead, (pid, question, latest.effective, lead)
            if earlier is None:
                assert "only one" in lead or "no earlier" in lead, (pid, question, lead)
                continue
            assert earlier.effective.date().isoformat() in lead, (pid, question, earlier.effective, lead)
            change = round(latest.value, 2) - round(earlier.value, 2)
            word = "down" if change < -1e-9 else "up" if change > 1e-9 else "unchanged"
            assert re.search(rf"\b{word}\b", lead), (pid, question, latest.value, earlier.value, lead)
            aim = "lower" if code in LOWER_AIM else "higher"
            assert f"{aim} value" in answer and "source" in answer.lower(), (question, answer)
            checked += 1
    return checked


def test_a_lab_now_against_a_past_day_gives_both_values_and_the_direction(cohort):
    agent, records = _agent(cohort)
    assert _check_lab(agent, records, LAB_TUNING) >= 20


def test_a_lab_comparison_through_the_safety_gate_carries_both_values(cohort):
    """The gate runs before the planner. For a patient it may refuse "is my a1c better than last
    year" as advice (the gate is not changed here); its refusal then shows the comparison itself
    (`compare_lab`: both values, their dates, the direction), not only the latest value."""
    from agent.base import AgentRequest
    from agent.runner import GuardedAgent
    from tests.agent.conftest import run
    from tools.scope import PatientScope

    db, records = cohort
    agent = GuardedAgent(OfflineAgent(build_registry(), db))
    asked = {"answered": 0, "refused": 0}
    for record in records:
        pid = record.patient.patient_id
        for question, role, code, day in [*LAB_TUNING, ("is my a1c better than last year", "patient", A1C, _ago(1))]:
            series = _series(record, code)
            if role != "patient" or len(series) < 2:
                continue
            latest = series[-1]
            earlier = _nearest_before(series, latest, day)
            scope = PatientScope(patient_id=pid, role="patient", actor="test", conversation_id="r14-gate")
            answer = run(agent, AgentRequest(scope=scope, question=question, now=COHORT_NOW))[-1].answer
            assert latest.effective.date().isoformat() in answer and earlier.effective.date().isoformat() in answer, (
                pid, question, answer,
            )  # fmt: skip
            asked["refused" if "can't give medical advice" in answer else "answered"] += 1
    assert asked["answered"] + asked["refused"] >= 20, asked


# --- 3. the main doctor ------------------------------------------------------------------------------
MAIN_DOCTOR_TUNING = [
    ("whos my main doctor", "patient"),
    ("who is my GP", "patient"),
    ("which doctor do i usually see", "patient"),
    ("who is her primary care physician?", "clinician"),
    ("whats the name of my family doctor", "patient"),
    ("who's my regular doc", "patient"),
    ("who is the patient's registered gp", "clinician"),
    ("my gp's name?", "patient"),
    ("which clinician does he see most often", "clinician"),
    ("who is my doctor", "patient"),  # (it had answered with the date of birth)
]
MAIN_DOCTOR_HELD_OUT = [
    ("who is my usual doctor", "patient"),
    ("name of her general practitioner?", "clinician"),
    ("who's my pcp", "patient"),
]


def _doctors(db, pid: str) -> tuple[str | None, str | None, int]:
    """(registered GP's name, the clinician of the most visits, that many visits)."""
    with db.admin.connect() as conn:
        gp = conn.exec_driver_sql(
            "SELECT pr.full_name FROM patients p LEFT JOIN practitioners pr ON pr.id = p.general_practitioner_id "
            "WHERE p.patient_id = %(p)s",
            {"p": pid},
        ).scalar()
        most = conn.exec_driver_sql(
            "SELECT practitioner_name, count(*) AS n, max(start) FROM encounters WHERE patient_id = %(p)s "
            "AND practitioner_name IS NOT NULL AND coalesce(status, '') NOT IN ('cancelled', 'entered-in-error') "
            "AND start <= %(now)s GROUP BY practitioner_name ORDER BY n DESC, max(start) DESC LIMIT 1",
            {"p": pid, "now": COHORT_NOW},
        ).first()
    return gp, (most[0] if most else None), (most[1] if most else 0)


def _check_main_doctor(cohort, wordings) -> int:
    agent, records = _agent(cohort)
    db = cohort[0]
    checked = 0
    for record in records:
        pid = record.patient.patient_id
        gp, most, n = _doctors(db, pid)
        for question, role in wordings:
            answer = _answer(_events(agent, pid, question, role=role))
            lead = _lead(_events(agent, pid, question, role=role))
            assert "can't answer" not in answer, (question, answer)
            if gp:
                assert gp in lead and "general practitioner" in lead, (pid, question, gp, lead)
            else:
                assert "no general practitioner" in lead, (pid, question, lead)
            if most:
                assert most in lead and f"{n} " in lead, (pid, question, most, n, lead)
            checked += 1
    return checked


def test_the_main_doctor_is_the_registered_gp_and_the_clinician_seen_most(cohort):
    assert _check_main_doctor(cohort, MAIN_DOCTOR_TUNING) >= 40


def test_a_registered_gp_is_named_first_and_told_apart_from_the_clinician_seen_most():
    """The generated cohort writes no Patient.generalPractitioner (real Synthea output may): the
    lead with one, from the tool's rows."""
    from agent.execution import ToolCall, ToolOutcome
    from agent.offline.direct import care_team_lead
    from agent.offline.leads import Voice
    from agent.offline.plan import Topic
    from tools.results import ToolResult

    rows = [
        {"kind": "patient", "handle": "P1", "role": "registered_gp", "general_practitioner": "Dr. Ann1 Lee2", "organization": "Hill Clinic"},
        {"kind": "encounter", "handle": "E1", "role": "most_seen", "practitioner": "Dr. Bo3 Kim4", "visits": 7, "start": "2026-05-01T09:00:00"},
    ]  # fmt: skip
    outcome = ToolOutcome(ToolCall("offline_1", "get_care_team", {}), ToolResult(text="team", rows=rows), 1.0)
    lead, abstained = care_team_lead(Topic("profile", "care_team"), [outcome], Voice("patient"))
    assert lead.startswith("Your registered general practitioner is Dr. Ann1 Lee2 (Hill Clinic) [P1].")
    assert "seen most often is Dr. Bo3 Kim4: 7 visits, the newest on 2026-05-01 [E1]" in lead and not abstained
    rows[1] = {**rows[1], "practitioner": "Dr. Ann1 Lee2"}
    outcome = ToolOutcome(ToolCall("offline_1", "get_care_team", {}), ToolResult(text="team", rows=rows), 1.0)
    lead, _ = care_team_lead(Topic("profile", "care_team"), [outcome], Voice("clinician"))
    assert lead.startswith("The patient's registered general practitioner") and "(the same clinician)" in lead


# --- 4. the last review of a condition --------------------------------------------------------------
# (wording with {c} for the condition's word, role)
REVIEW_TUNING = [
    ("when was her last {c} review", "clinician"),
    ("when did I last have my {c} check", "patient"),
    ("when was my last {c} follow up", "patient"),
    ("last {c} appointment?", "patient"),
    ("when did i last see someone about my {c}", "patient"),
    ("when was the patient last reviewed for {c}", "clinician"),
    ("date of my most recent {c} checkup", "patient"),
    ("when was my last {c} reveiw", "patient"),
    ("when did he last come in for his {c}", "clinician"),
]
REVIEW_HELD_OUT = [
    ("when was my last {c} clinic visit", "patient"),
    ("when did she last get seen for her {c}?", "clinician"),
    ("most recent {c} review date", "patient"),
]
CONDITION_WORDS = ("asthma", "diabetes", "hypertension")


def _visits_for(db, pid: str, word: str) -> list[tuple[dt.datetime, str]]:
    with db.admin.connect() as conn:
        rows = conn.exec_driver_sql(
            "SELECT start, coalesce(type_display, '') || ' ' || coalesce(reason_display, '') FROM encounters "
            "WHERE patient_id = %(p)s AND coalesce(status, '') NOT IN ('cancelled', 'entered-in-error') "
            "AND start <= %(now)s AND (type_display ILIKE %(w)s OR reason_display ILIKE %(w)s) ORDER BY start DESC",
            {"p": pid, "now": COHORT_NOW, "w": f"%{word}%"},
        ).all()
    return [(r[0], r[1]) for r in rows]


def _check_review(cohort, wordings) -> dict[str, int]:
    agent, records = _agent(cohort)
    db = cohort[0]
    seen = {"visit": 0, "none": 0}
    for record in records:
        pid = record.patient.patient_id
        for word in CONDITION_WORDS:
            has = any(word in c.display.lower() for c in record.conditions)
            visits = _visits_for(db, pid, word)
            if not has and not visits:
                continue
            for template, role in wordings:
                question = template.format(c=word)
                lead = _lead(_events(agent, pid, question, role=role))
                if visits:
                    day = visits[0][0].date().isoformat()
                    assert day in lead and "visit" in lead, (pid, question, day, lead)
                    seen["visit"] += 1
                else:
                    assert "no visit" in lead.lower(), (pid, question, lead)
                    seen["none"] += 1
    return seen


def test_the_last_review_of_a_condition_is_its_newest_visit(cohort):
    seen = _check_review(cohort, REVIEW_TUNING)
    assert seen["visit"] >= 18, seen


# --- 5. inpatient stays counted ----------------------------------------------------------------------
INPATIENT_TUNING = [
    ("how many times was i in hospital overnight", "patient"),
    ("how many times have I been admitted", "patient"),
    ("how many hospital admissions has she had", "clinician"),
    ("number of inpatient stays", "patient"),
    ("how many times did i stay overnight in the hospital", "patient"),
    ("how often has the patient been hospitalised", "clinician"),
    ("how many times was i kept in hospital", "patient"),
    ("how many admisions do i have", "patient"),
    ("times i was in hospital as an inpatient", "patient"),
]
INPATIENT_HELD_OUT = [
    ("how many times has he been admitted to hospital", "clinician"),
    ("how many overnight hospital stays have i had", "patient"),
    ("count my hospital admissions", "patient"),
]
INPATIENT_CLASSES = ("imp", "inpatient", "acute")


def _check_inpatient(cohort, wordings) -> dict[str, int]:
    agent, records = _agent(cohort)
    seen = {"some": 0, "none": 0}
    for record in records:
        pid = record.patient.patient_id
        n = sum(1 for e in record.valid_encounters() if (e.class_code or "").lower() in INPATIENT_CLASSES)
        for question, role in wordings:
            answer = _answer(_events(agent, pid, question, role=role))
            lead = _lead(_events(agent, pid, question, role=role))
            assert "leaflet" not in answer.lower() and "visiting" not in answer.lower(), (question, answer)
            if n:
                assert re.search(rf"\b{n} (hospital admissions?|inpatient)", lead), (pid, question, n, lead)
            else:  # zero, said as a zero or as "No inpatient stay" (with the emergency visits beside it)
                assert re.match(r"(No\b|0 hospital admissions)", lead), (pid, question, lead)
            seen["some" if n else "none"] += 1
    return seen


def test_inpatient_stays_are_counted(cohort):
    seen = _check_inpatient(cohort, INPATIENT_TUNING)
    assert seen["some"] + seen["none"] >= 40, seen


# --- 6. the same doctor as last time: their slots are searched ---------------------------------------


def test_a_follow_up_with_the_same_doctor_searches_that_doctors_slots():
    """ "book a follow up with the same doctor I saw last time" read the 20 earliest General
    Practice slots and looked for the doctor among them; now phase one finds who that was and
    phase two asks find_slots for that clinician's slots."""
    from agent.execution import ToolOutcome
    from agent.offline.plan import Planner
    from tools.results import ToolResult

    planner = Planner(["get_encounters", "find_slots", "book_appointment"])
    plan = planner.plan("i want to book a follow up with the same doctor i saw last time", [], dt.date(2026, 12, 7))
    assert [c.name for c in plan.calls] == ["get_encounters"], plan.calls
    visits = ToolResult(
        text="visits",
        rows=[
            {"kind": "encounter", "start": "2026-08-07T10:00:00", "practitioner": "Dr. Ann1 Lee2", "handle": "E1"},
            {"kind": "encounter", "start": "2025-01-07T10:00:00", "practitioner": "Dr. Bo3 Kim4", "handle": "E2"},
        ],
    )
    then = planner.then_calls(plan, [ToolOutcome(plan.calls[0], visits, 1.0)])
    slots = [c for c in then if c.name == "find_slots"]
    assert slots and slots[0].input.get("clinician") == "Dr. Ann1 Lee2", then


def test_find_slots_for_a_clinician_returns_only_their_slots(cohort):
    from records.scheduling import generate_slots
    from tests.tools.conftest import make_ctx

    db, records = cohort
    generate_slots(db, days=30, start=TODAY)
    registry = build_registry()
    with db.admin.connect() as conn:
        who = conn.exec_driver_sql(
            "SELECT pr.full_name FROM appointment_slots s JOIN practitioners pr ON pr.id = s.practitioner_id "
            "JOIN departments d ON d.id = s.department_id WHERE d.specialty ILIKE 'general practice' "
            "AND s.booked_appointment_id IS NULL AND s.starts_at > %(now)s GROUP BY pr.full_name "
            "ORDER BY count(*) ASC, pr.full_name LIMIT 1",
            {"now": COHORT_NOW},
        ).scalar()
    assert who is not None
    ctx = make_ctx(db, records[0].patient.patient_id, now=COHORT_NOW)
    result = registry.execute(
        ctx, "find_slots", {"specialty_or_department": "general practice", "clinician": who, "limit": 20}
    )
    assert result.ok, result.text
    assert result.rows and all(r["practitioner"] == who for r in result.rows), result.text
    nobody = registry.execute(
        ctx, "find_slots", {"specialty_or_department": "general practice", "clinician": "Dr. Nobody0 Here0"}
    )
    assert not nobody.rows and "Dr. Nobody0 Here0" in nobody.text, nobody.text


# --- pure functions: the past day a question names ---------------------------------------------------


@given(
    st.dates(min_value=dt.date(2000, 1, 1), max_value=dt.date(2040, 12, 31)),
    st.integers(min_value=1, max_value=30),
    st.sampled_from(["years", "yrs", "months", "weeks"]),
)
def test_a_relative_past_day_is_that_long_before_today(today, n, unit):
    from agent.offline.windows import past_day

    day, said = past_day(f"am i on more meds now than {n} {unit} ago", today)
    delta = {"years": relativedelta(years=n), "yrs": relativedelta(years=n), "months": relativedelta(months=n), "weeks": relativedelta(weeks=n)}[unit]
    assert day == today - delta and str(n) in said


@given(st.dates(min_value=dt.date(2000, 3, 1), max_value=dt.date(2040, 12, 31)))
def test_last_year_and_a_named_year_are_days_in_the_past(today):
    from agent.offline.windows import past_day

    assert past_day("is my ldl better than last year", today)[0] == today - relativedelta(years=1)
    assert past_day("is my ldl better than a year ago", today)[0] == today - relativedelta(years=1)
    year = today.year - 3
    assert past_day(f"more meds than in {year}?", today)[0] == today - relativedelta(years=3)
    assert past_day("is my ldl better than it was", today) is None


@given(
    st.lists(st.tuples(st.integers(0, 4000), st.floats(1, 500, allow_nan=False)), min_size=1, max_size=12, unique_by=lambda t: t[0]),
    st.integers(0, 4000),
)
def test_the_earlier_value_is_the_one_nearest_the_day_before_the_latest(points, target):
    from tools.compare_tools import earlier_point

    base = dt.date(2010, 1, 1)
    dated = sorted((base + dt.timedelta(days=d), v) for d, v in points)
    latest = dated[-1]
    got = earlier_point([d for d, _ in dated], base + dt.timedelta(days=target))
    older = [d for d, _ in dated if d < latest[0]]
    if not older:
        assert got is None
    else:
        best = min(abs((d - (base + dt.timedelta(days=target))).days) for d in older)
        assert got is not None and got < latest[0] and abs((got - (base + dt.timedelta(days=target))).days) == best


def test_the_aim_of_each_lab_is_data_with_a_source():
    from tools.compare_tools import lab_aims

    aims = lab_aims()
    for code in (LDL, A1C, WEIGHT, BMI, GLUCOSE, CHOL):
        assert aims[code].aim == "lower" and aims[code].source, code
    for code in (HDL, EGFR):
        assert aims[code].aim == "higher" and aims[code].source, code


# --- held out: measured once at the end, never tuned on ----------------------------------------------


def test_held_out_medicine_counts(cohort):
    agent, records = _agent(cohort)
    assert _check_med_count(agent, records, MED_COUNT_HELD_OUT) >= 10


def test_held_out_lab_comparisons(cohort):
    agent, records = _agent(cohort)
    assert _check_lab(agent, records, LAB_HELD_OUT) >= 4


def test_held_out_main_doctor(cohort):
    assert _check_main_doctor(cohort, MAIN_DOCTOR_HELD_OUT) >= 10


def test_held_out_last_review(cohort):
    assert _check_review(cohort, REVIEW_HELD_OUT)["visit"] >= 4


def test_held_out_inpatient_counts(cohort):
    assert sum(_check_inpatient(cohort, INPATIENT_HELD_OUT).values()) >= 10


def test_the_readers_leave_other_questions_alone():
    """What the new readers must not take: how-to and leaflet questions, the next visit, what a
    doctor wrote, a change "since" a date (a window the general planner reads)."""
    from agent.offline.direct import (
        asks_inpatient_count,
        asks_last_review,
        asks_main_doctor,
        lab_compare_day,
        medicine_count_day,
    )
    from agent.text import normalise

    for q in (
        "how do i register with a gp", "what do i need to register with a gp", "what did my gp write",
        "what is my gp's phone number", "who was my doctor at the last visit", "who is my dentist",
        "book me in with my gp next week",
    ):  # fmt: skip
        assert not asks_main_doctor(normalise(q)), q
    for q in ("when is the diabetes clinic open", "when is my next asthma review", "any asthma visits?"):
        assert not asks_last_review(normalise(q)), q
    for q in ("how many visitors can i have in hospital", "how many beds does the hospital have", "how many visits have i had"):
        assert not asks_inpatient_count(normalise(q)), q
    for q in ("has my weight gone down since last year", "what was my ldl last year", "is my ldl better than it was"):
        assert lab_compare_day(normalise(q), TODAY) is None, q
    for q in ("what meds was i on 2 years ago", "how many meds am i on", "am i on more meds now"):
        assert medicine_count_day(normalise(q), TODAY) is None, q


DIRECTION_WORDINGS = [
    ("is my glucose higher than a year ago?", "patient", GLUCOSE, "up"),
    ("did her cholesterol climb relative to twelve months back", "clinician", CHOL, "up"),
    ("is my weight lower than last year", "patient", WEIGHT, "down"),
]


def test_a_comparison_asked_as_a_direction_leads_yes_or_no(cohort):
    """The generated set's "is it higher than a year back?" (42 answers graded unclear on the
    merged round-fourteen main): the comparison now says yes or no before the two values."""
    agent, records = _agent(cohort)
    checked = 0
    for record in records:
        pid = record.patient.patient_id
        for question, role, code, asked in DIRECTION_WORDINGS:
            series = _series(record, code)
            if len(series) < 2:
                continue
            earlier = _nearest_before(series, series[-1], _ago(1))
            if earlier is None:
                continue
            lead = _lead(_events(agent, pid, question, role=role))
            change = round(series[-1].value, 2) - round(earlier.value, 2)
            went = change > 1e-9 if asked == "up" else change < -1e-9
            assert lead.startswith("Yes." if went else "No."), (pid, question, series[-1].value, earlier.value, lead)
            checked += 1
    assert checked >= 10
