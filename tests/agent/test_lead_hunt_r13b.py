"""Wrong answers left by round thirteen's lead hunt (/work/holdouts/lead_hunt_r13_judged.tsv),
each fixed as a class and checked here with fresh wordings across the generated cohort against
the evaluator's own reading of the record (`evals.truth`).
"""

from __future__ import annotations

import datetime as dt
import re

from dateutil.relativedelta import relativedelta

from agent.offline import OfflineAgent
from evals.paraphrase.suite import ABSENT_DRUGS
from evals.truth import EIE
from evals.vocab import drug_name
from tests.agent.conftest import COHORT_NOW
from tests.agent.test_lead_hunt_r8 import _events, _lead
from tools.catalog import build_registry

WEIGHT = "29463-7"


def _agent(cohort):
    db, records = cohort
    return OfflineAgent(build_registry(), db), records


def _verdict(lead: str) -> str | None:
    m = re.match(r"(Yes|No)\b", lead)
    return m.group(1) if m else None


def _series_since(record, code: str, day: dt.date):
    return sorted(
        (
            m
            for m in record.measurements
            if m.code == code
            and m.status not in (EIE, "cancelled")
            and day <= m.effective.date()
            and m.effective <= COHORT_NOW
        ),
        key=lambda m: m.effective,
    )


def _check_change_since(lead: str, series, asked_down: bool, question: str) -> None:
    if len(series) < 2:
        assert _verdict(lead) is None or "only one" in lead or "no " in lead.lower(), (question, lead)
        return
    first, last = series[0], series[-1]
    assert first.effective.date().isoformat() in lead and last.effective.date().isoformat() in lead, (
        question,
        first.effective,
        last.effective,
        lead,
    )
    went_down, went_up = last.value < first.value, last.value > first.value
    assert _verdict(lead) == ("Yes" if (went_down if asked_down else went_up) else "No"), (question, lead)


# --- 1. a change "since starting <medicine>" is measured from the first prescription --------------


def test_a_change_since_starting_a_medicine_is_measured_from_its_first_prescription(cohort):
    """ "has my a1c gone down since starting metformin" → "Yes: went down" for a patient with no
    metformin, and the last two values (not the change since the start) for one with it."""
    agent, records = _agent(cohort)
    asked = {"present": 0, "absent": 0}
    for record in records:
        pid = record.patient.patient_id
        meds = [m for m in record.medications if m.status != EIE and m.authored_on and m.authored_on <= COHORT_NOW]
        every = " ".join(m.display.lower() for m in record.medications)
        absent = [d for d in ABSENT_DRUGS if d not in every][:1]
        present = sorted({drug_name(m.display) for m in meds})[:2]
        for x, kind in [(x, "present") for x in present] + [(x, "absent") for x in absent]:
            for question, role, down in (
                (f"has my weight gone down since starting {x}", "patient", True),
                (f"did her weight go up after she was started on {x}?", "clinician", False),
                (f"how much has my weight changed since i began taking {x}", "patient", False),
            ):
                lead = _lead(_events(agent, pid, question, role=role))
                if kind == "absent":
                    assert _verdict(lead) is None and "no prescription of" in lead, (pid, question, lead)
                    assert "kg" not in lead, lead
                else:
                    mine = [m for m in meds if x in m.display.lower() or drug_name(m.display) == x]
                    start = min(m.authored_on for m in mine).date()
                    assert start.isoformat() in lead, (pid, question, start, lead)
                    series = _series_since(record, WEIGHT, start)
                    if "changed" in question:
                        if len(series) >= 2:
                            assert series[0].effective.date().isoformat() in lead, (question, lead)
                    else:
                        _check_change_since(lead, series, down, question)
                asked[kind] += 1
    assert asked["present"] >= 6 and asked["absent"] >= 6, asked


# --- 2. a change "since my Nth birthday" is measured from the birth date plus N years -------------


def test_a_change_since_a_birthday_is_measured_from_that_birthday(cohort):
    agent, records = _agent(cohort)
    checked = {"past": 0, "future": 0}
    for record in records:
        pid = record.patient.patient_id
        born = record.patient.birth_date
        if born is None:
            continue
        age = relativedelta(COHORT_NOW.date(), born).years
        for n in sorted({max(1, age - 8), max(1, age - 3)}):
            day = born + relativedelta(years=n)
            series = _series_since(record, WEIGHT, day)
            for question, down in (
                (f"has my weight gone up since my {n}th birthday", False),
                (f"have i lost weight since i turned {n}?", True),
            ):
                lead = _lead(_events(agent, pid, question))
                assert born.isoformat() in lead, (pid, question, lead)
                if "lost weight" in question:
                    continue  # "lost weight" is a trend question: its window is checked by the date above
                _check_change_since(lead, series, down, question)
                checked["past"] += 1
        lead = _lead(_events(agent, pid, f"has my weight gone up since my {age + 5}th birthday"))
        assert _verdict(lead) is None and "not come yet" in lead, (pid, lead)
        checked["future"] += 1
    assert checked["past"] >= 6 and checked["future"] >= 4, checked


# --- 3. a medicine's start is its first prescription; its stop is its end date ---------------------


def _prescriptions_of(record, x: str):
    return [
        m
        for m in record.medications
        if m.status != EIE and m.authored_on and m.authored_on <= COHORT_NOW and drug_name(m.display) == x
    ]


def _live(m) -> bool:
    return m.status == "active" and (m.ended_at is None or m.ended_at > COHORT_NOW) and m.ended_reason is None


def test_when_a_medicine_was_started_or_stopped_is_its_first_start_or_its_end(cohort):
    """ "when did i start metformin" → the latest prescription; "when did they stop my blood
    pressure tablet" → a prescribing date."""
    agent, records = _agent(cohort)
    asked = {"start": 0, "stop_active": 0, "stop_ended": 0}
    for record in records:
        pid = record.patient.patient_id
        names = sorted({drug_name(m.display) for m in record.medications if m.status != EIE})
        for x in names[:3]:
            mine = _prescriptions_of(record, x)
            if not mine:
                continue
            first = min(m.authored_on for m in mine).date().isoformat()
            for question, role in (
                (f"when did i start {x}", "patient"),
                (f"what date was she first put on {x}?", "clinician"),
                (f"when did i begin taking {x}", "patient"),
            ):
                lead = _lead(_events(agent, pid, question, role=role))
                assert first in lead and "first" in lead, (pid, question, first, lead)
                if not any(_live(m) for m in mine):  # the start of a medicine no longer taken says so
                    assert "not an active prescription now" in lead, (pid, question, lead)
                asked["start"] += 1
            live = [m for m in mine if _live(m)]
            ends = [m.ended_at for m in mine if m.ended_at and m.ended_at <= COHORT_NOW]
            for question, role in (
                (f"when did they stop my {x}", "patient"),
                (f"when was her {x} discontinued?", "clinician"),
                (f"what date did i come off {x}", "patient"),
            ):
                lead = _lead(_events(agent, pid, question, role=role))
                if live:
                    assert "still active" in lead, (pid, question, lead)
                    asked["stop_active"] += 1
                elif ends:
                    assert max(ends).date().isoformat() in lead and "ended" in lead, (pid, question, lead)
                    asked["stop_ended"] += 1
                else:
                    assert "no stop date" in lead, (pid, question, lead)
    assert asked["start"] >= 9 and asked["stop_active"] >= 3 and asked["stop_ended"] >= 3, asked


# --- 4. prescriptions counted in a window are those written in it -------------------------------


def test_prescriptions_counted_in_a_window_are_those_written_in_it(cohort):
    """ "how many prescriptions did i get in the past 18 months" → the prescriptions "written or
    running" then (an inhaler of 2019 counted as got in the last 18 months)."""
    agent, records = _agent(cohort)
    today = COHORT_NOW.date()
    checked = differs = 0
    for record in records:
        pid = record.patient.patient_id
        meds = [m for m in record.medications if m.status != EIE and m.authored_on]
        for question, role, since, until in (
            ("how many prescriptions did i get in the past 18 months", "patient", today - relativedelta(months=18), today),
            ("number of meds she was prescribed in the last 2 years?", "clinician", today - relativedelta(years=2), today),
            ("how many prescriptions were written for me in 2025", "patient", dt.date(2025, 1, 1), dt.date(2025, 12, 31)),
        ):
            written = [m for m in meds if since <= m.authored_on.date() <= until]
            running = [m for m in meds if m.authored_on.date() < since and _live(m)]
            lead = _lead(_events(agent, pid, question, role=role))
            assert re.match(rf"{len(written)} prescriptions? (was|were) written", lead), (pid, question, len(written), lead)
            checked += 1
            differs += bool(running)
    assert checked >= 12 and differs >= 3, (checked, differs)


# --- 11. which number of a group of tests is out of range: each test against its own range ---------

LIPIDS = {"2093-3": "total", "2571-8": "triglycerides", "18262-6": "ldl", "2085-9": "hdl"}


def test_which_cholesterol_number_is_out_of_range_judges_each_test(cohort):
    """ "which cholesterol number is out of range" → "No, within range" from the total alone while
    the triglycerides were above theirs."""
    agent, records = _agent(cohort)
    asked = {True: 0, False: 0}
    for record in records:
        pid = record.patient.patient_id
        latest = {}
        for m in record.measurements:
            live = m.code in LIPIDS and m.status not in (EIE, "cancelled") and m.effective <= COHORT_NOW
            if live and (m.code not in latest or m.effective > latest[m.code].effective):
                latest[m.code] = m
        if len(latest) < 2 or any(m.ref_low is None and m.ref_high is None for m in latest.values()):
            continue
        outside = [
            m
            for m in latest.values()
            if (m.ref_low is not None and m.value < m.ref_low) or (m.ref_high is not None and m.value > m.ref_high)
        ]
        for question, role in (
            ("which cholesterol number is out of range", "patient"),
            ("are any of my cholesterol numbers abnormal?", "patient"),
            ("which of her lipid panel results are outside the normal range", "clinician"),
        ):
            lead = _lead(_events(agent, pid, question, role=role))
            assert _verdict(lead) == ("Yes" if outside else "No"), (pid, question, [(m.code, m.value) for m in outside], lead)
            for m in outside:
                assert f"{m.value:g}" in lead, (m.code, m.value, lead)
            asked[bool(outside)] += 1
    assert asked[True] >= 3, asked


# --- 7 and 8. a kind of visit named ("checkups", "wellness visits", "urgent care") ----------------

CHECKUP_TYPES = ("general examination", "check up", "well child")


def _visits(record, *types: str):
    return sorted(
        (
            e
            for e in record.encounters
            if e.status not in ("cancelled", EIE)
            and e.start
            and e.start <= COHORT_NOW
            and any(t in (e.type_display or "").lower() for t in types)
        ),
        key=lambda e: e.start,
    )


def test_checkups_and_wellness_visits_are_counted_by_their_visit_type(cohort):
    """ "how many checkups have i had in the past 3 years", "wellness visits since 2020" → every
    visit of any kind counted."""
    agent, records = _agent(cohort)
    today = COHORT_NOW.date()
    checked = differs = 0
    for record in records:
        pid = record.patient.patient_id
        checkups = _visits(record, *CHECKUP_TYPES)
        every = [e for e in record.encounters if e.status not in ("cancelled", EIE) and e.start <= COHORT_NOW]
        for question, role, since in (
            ("how many checkups have i had in the past 3 years", "patient", today - relativedelta(years=3)),
            ("number of wellness visits since 2020?", "patient", dt.date(2020, 1, 1)),
            ("how many annual physicals has she had", "clinician", None),
        ):
            n = len([e for e in checkups if since is None or e.start.date() >= since])
            lead = _lead(_events(agent, pid, question, role=role))
            if n:
                assert re.search(rf"\b{n} checkup visits?\b", lead), (pid, question, n, lead)
            else:
                assert _verdict(lead) == "No" or lead.startswith("None"), (pid, question, lead)
            checked += 1
            differs += n != len([e for e in every if since is None or e.start.date() >= since])
    assert checked >= 12 and differs >= 6, (checked, differs)


def test_the_last_visit_of_a_named_kind_is_the_newest_of_that_kind(cohort):
    """ "why did i go to urgent care last time" → the last visit of any kind; "what was the plan in
    the notes from my last checkup" → a death-certification visit."""
    agent, records = _agent(cohort)
    checked = 0
    for record in records:
        pid = record.patient.patient_id
        for types, questions in (
            (("urgent care",), ("why did i go to urgent care last time", "when was her most recent urgent care visit?")),
            (CHECKUP_TYPES, ("when was my last checkup", "what did the doctor write at my last wellness visit")),
        ):
            visits = _visits(record, *types)
            for question in questions:
                role = "clinician" if " her " in question else "patient"
                lead = _lead(_events(agent, pid, question, role=role))
                if not visits:
                    assert _verdict(lead) == "No", (pid, question, lead)
                    continue
                newest = visits[-1].start.date().isoformat()
                assert newest in lead and "last" in lead, (pid, question, newest, lead)
                checked += 1
    assert checked >= 8, checked


# --- 9. "from last spring" is that season, not since it ---------------------------------------------


def test_readings_from_last_season_are_that_seasons():
    """ "bp readings from last spring" → since 2026-03-01: June's and August's readings given as spring's."""
    from agent.offline.request import read_request

    today = dt.date(2026, 12, 6)
    for text, since, until in (
        ("bp readings from last spring", dt.date(2026, 3, 1), dt.date(2026, 5, 31)),
        ("my weight from last summer?", dt.date(2026, 6, 1), dt.date(2026, 8, 31)),
        ("labs from the spring", dt.date(2026, 3, 1), dt.date(2026, 5, 31)),
        ("what was my a1c last spring", dt.date(2026, 3, 1), dt.date(2026, 5, 31)),
    ):
        w = read_request(text, today).window
        assert w is not None and (w.since, w.until) == (since, until), (text, w)
    asked_in_april = read_request("bp readings from last spring", dt.date(2026, 4, 10)).window
    assert asked_in_april is not None and asked_in_april.since == dt.date(2025, 3, 1)
    assert asked_in_april.until == dt.date(2025, 5, 31)
    for text in ("bp since last spring", "weight from last spring onwards"):
        w = read_request(text, today).window
        assert w is not None and w.since == dt.date(2026, 3, 1) and w.until is None, (text, w)


def test_readings_from_last_spring_cite_only_that_seasons_readings(cohort):
    agent, records = _agent(cohort)
    since, until = dt.date(2026, 3, 1), dt.date(2026, 5, 31)
    checked = 0
    for record in records:
        pid = record.patient.patient_id
        lead = _lead(_events(agent, pid, "weight readings from last spring"))
        inside = [m for m in record.measurements if m.code == WEIGHT and since <= m.effective.date() <= until]
        days = re.findall(r"\d{4}-\d\d-\d\d", lead)
        if inside:
            assert days and all(since.isoformat() <= d <= until.isoformat() for d in days), (pid, lead)
            checked += 1
        else:
            assert lead.startswith("No"), (pid, lead)
    assert checked >= 1, checked


# --- 5. a condition asked "still listed / ongoing / active" is the condition's status ---------------


def test_a_condition_asked_still_listed_as_ongoing_is_its_status(cohort):
    """ "is my back pain still listed as ongoing" → the latest 0-10 pain score."""
    from tests.agent.test_lead_hunt_r13 import _current_conditions

    agent, records = _agent(cohort)
    asked = {True: 0, False: 0}
    wordings = (
        ("patient", "is my {x} still listed as ongoing"),
        ("clinician", "is her {x} still marked as active?"),
        ("patient", "does my record still show {x} as an ongoing problem"),
    )
    for record in records:
        pid = record.patient.patient_id
        every = " ".join(c.display.lower() for c in record.conditions)
        cases = [(x, True) for x in _current_conditions(record)[:1]]
        cases += [(x, False) for x in ("back pain", "neck pain") if x not in every]
        for x, truth in cases:
            for role, wording in wordings:
                lead = _lead(_events(agent, pid, wording.format(x=x), role=role))
                assert "pain severity" not in lead.lower() and "score" not in lead.lower(), (pid, x, lead)
                assert _verdict(lead) == ("Yes" if truth else "No"), (pid, x, wording, lead)
                asked[truth] += 1
    assert asked[True] >= 6 and asked[False] >= 6, asked


# --- 6. care plans are their own section -----------------------------------------------------------


def _care_plans(db, pid: str):
    with db.admin.connect() as conn:
        return conn.exec_driver_sql(
            "SELECT p.category_display, p.status, p.period_start, "
            "coalesce(array_agg(c.display) FILTER (WHERE c.display IS NOT NULL), '{}') "
            "FROM care_plans p LEFT JOIN conditions c ON c.patient_id = p.patient_id "
            "AND c.id = ANY(p.addresses_condition_ids) WHERE p.patient_id = %(p)s "
            "GROUP BY p.id, p.category_display, p.status, p.period_start",
            {"p": pid},
        ).fetchall()


def test_care_plans_asked_for_are_the_care_plans(cohort):
    """ "what care plans am i on" → the medications; "do i have a diabetes care plan", "date
    diabetic care plan initiated" → the diabetes condition, no plan cited."""
    db, _ = cohort
    agent, records = _agent(cohort)
    asked = {"list": 0, "yes": 0, "no": 0, "date": 0}
    for record in records:
        pid = record.patient.patient_id
        plans = _care_plans(db, pid)
        active = [p for p in plans if p[1] == "active"]
        for question, role in (("what care plans am i on", "patient"), ("list her care plans", "clinician")):
            lead = _lead(_events(agent, pid, question, role=role))
            assert "medication" not in lead.lower() and "prescri" not in lead.lower(), (pid, question, lead)
            if active:
                assert re.search(rf"\b{len(active)} care plans? marked active\b", lead), (pid, question, lead)
                asked["list"] += 1
        for x in ("diabetes", "asthma", "hypertension"):
            mine = [p for p in plans if any(re.search(rf"\b{x}", str(a).lower()) for a in p[3])]
            for question, role in (
                (f"do i have a {x} care plan", "patient"),
                (f"is there a care plan for her {x}?", "clinician"),
            ):
                lead = _lead(_events(agent, pid, question, role=role))
                if mine:
                    live = [p for p in mine if p[1] == "active"]
                    assert _verdict(lead) == ("Yes" if live else None) or lead.startswith("Not now"), (pid, question, lead)
                    assert "care plan" in lead, lead
                    asked["yes"] += 1
                elif not any(x in str(p[0]).lower() for p in plans):
                    assert _verdict(lead) == "No" and "care plan" in lead, (pid, question, lead)
                    asked["no"] += 1
            if mine:
                first = min(p[2] for p in mine).date().isoformat()
                lead = _lead(_events(agent, pid, f"date {x} care plan initiated", role="clinician"))
                assert first in lead and "care plan" in lead, (pid, first, lead)
                asked["date"] += 1
        if plans:
            closed = [p for p in plans if p[1] != "active"]
            lead = _lead(_events(agent, pid, "how many of my care plans are closed"))
            assert lead.startswith(f"{len(closed)} care plan") or (not closed and "None" in lead), (pid, lead)
            first = min(p[2] for p in plans if p[2]).date().isoformat()
            lead = _lead(_events(agent, pid, "what was the first care plan i was ever given"))
            assert first in lead and "first" in lead, (pid, first, lead)
    assert asked["list"] >= 4 and asked["yes"] >= 2 and asked["no"] >= 4 and asked["date"] >= 1, asked


# --- 10. "everything i'm taking" is the whole active list, whatever kinds it names ------------------


def test_everything_currently_taken_is_the_whole_active_list(cohort):
    """ "a list of everything im currently taking including inhalers and creams, with the doses" →
    one inhaler (or "No … inhalers" and no metformin)."""
    agent, records = _agent(cohort)
    checked = 0
    for record in records:
        pid = record.patient.patient_id
        live = [m for m in record.medications if m.status != EIE and m.authored_on and m.authored_on <= COHORT_NOW and _live(m)]
        for question, role in (
            ("my pharmacist wants everything im currently taking including inhalers and creams, with the doses", "patient"),
            ("can you list all my current meds, including any inhalers or patches?", "patient"),
            ("everything she is currently taking incl. inhalers, with doses", "clinician"),
        ):
            events = _events(agent, pid, question, role=role)
            lead = _lead(events)
            answer = events[-1].answer
            if live:
                assert re.match(rf"(You have|The patient has) {len(live)} active medications?", lead), (pid, question, lead)
                for m in live:
                    assert m.display.split(" [")[0][:30] in answer, (pid, question, m.display)
                checked += 1
            else:
                assert "no active medications" in lead, (pid, question, lead)
    assert checked >= 6, checked


# --- (also left wrong) the last blood test is the newest measured draw ------------------------------


def test_the_last_blood_test_is_a_measured_draw_not_a_certificate_entry(cohort):
    """ "who ordered my last blood test" → a cause-of-death certificate entry as the last blood
    test, and the orderer not said."""
    from tests.agent.test_offline_round7 import SURVEY, VITAL_CODES

    agent, records = _agent(cohort)
    checked = 0
    for record in records:
        pid = record.patient.patient_id
        labs = [
            m
            for m in record.measurements
            if m.code not in VITAL_CODES and m.effective <= COHORT_NOW and not SURVEY.search(m.display)
        ]
        if not labs:
            continue
        newest = max(m.effective for m in labs).date().isoformat()
        for question in ("who ordered my last blood test", "when were my last bloods taken"):
            lead = _lead(_events(agent, pid, question))
            day = re.match(r"Your last blood test was on (\d{4}-\d{2}-\d{2})", lead)
            assert day and day.group(1) == newest, (pid, question, newest, lead)
            if question.startswith("who"):
                assert "who ordered" in lead, lead
            checked += 1
    assert checked >= 6, checked


# --- booking wordings ---------------------------------------------------------------------------------


def test_a_blood_pressure_appointment_is_general_practice_and_f_u_3_12_is_in_three_months():
    """ "can i get an appointment next week about my blood pressure" → phlebotomy (blood test)
    slots; "book f/u 3/12 diabetes review" → slots for the next two weeks."""
    from agent.offline.parse import specialty_in
    from agent.offline.windows import slot_window
    from records.queries.appointments import resolve_specialties

    specialties = ["General Practice", "Phlebotomy (Blood Tests)", "Endocrinology and Diabetes", "Cardiology"]
    for question in (
        "can i get an appointment next week about my blood pressure",
        "book me in for a bp check",
        "i need to see someone about my high blood pressure",
    ):
        targets, _ = resolve_specialties(specialty_in(question), specialties)
        assert targets == {"General Practice"}, (question, targets)
    assert resolve_specialties("blood test", specialties)[0] == {"Phlebotomy (Blood Tests)"}
    today = dt.date(2026, 12, 7)
    for question, start in (
        ("book f/u 3/12 diabetes review", dt.date(2027, 3, 7)),
        ("review in 6/52 please", dt.date(2027, 1, 18)),
        ("book me a check up in 2 months", dt.date(2027, 2, 7)),
    ):
        since, until = slot_window(question, today)
        assert since == start and until == start + dt.timedelta(days=13), (question, since, until)
    assert slot_window("book a gp appointment next week", today) == (dt.date(2026, 12, 14), dt.date(2026, 12, 20))


def test_a_follow_up_with_the_same_doctor_names_that_doctor_and_their_slots_first():
    """ "i want to book a follow up with the same doctor i saw last time" → other doctors' slots
    offered, the doctor not named."""
    from agent.execution import ToolCall, ToolOutcome
    from agent.offline.compose import compose
    from agent.offline.plan import Planner
    from tools.results import ToolResult

    planner = Planner(["get_encounters", "find_slots", "book_appointment"])
    today = dt.date(2026, 12, 7)
    for question in (
        "i want to book a follow up with the same doctor i saw last time",
        "book me in with my usual gp next week",
        "can i get an appointment with the doctor i saw last time",
    ):
        plan = planner.plan(question, [], today)
        # (round fourteen: phase one reads who it was; phase two asks for that clinician's slots)
        assert plan.kind == "offer_slots" and [c.name for c in plan.calls] == ["get_encounters"], question
    plan = planner.plan("i want to book a follow up with the same doctor i saw last time", [], today)
    visits = ToolResult(
        text="visits",
        rows=[
            {"kind": "encounter", "start": "2026-08-07T10:00:00", "practitioner": "Dr. Ann1 Lee2", "handle": "E1"},
            {"kind": "encounter", "start": "2025-01-07T10:00:00", "practitioner": "Dr. Bo3 Kim4", "handle": "E2"},
        ],
    )

    def slot(handle: str, who: str, at: str) -> dict:
        return {"kind": "slot", "handle": handle, "practitioner": who, "starts_at": at, "slot_id": f"s-{handle}"}

    for rows, theirs in (
        ([slot("S1", "Dr. Bo3 Kim4", "2026-12-08T09:00"), slot("S2", "Dr. Ann1 Lee2", "2026-12-08T10:00")], "S2"),
        ([slot("S1", "Dr. Bo3 Kim4", "2026-12-08T09:00")], None),
    ):
        outcomes = [
            ToolOutcome(plan.calls[0], visits, 1.0),
            ToolOutcome(ToolCall("offline_2", "find_slots", dict(plan.then_args)), ToolResult(text="slots", rows=rows), 1.0),
        ]
        answer, _ = compose(plan, outcomes, "patient")
        lead = answer.splitlines()[2]
        assert "Dr. Ann1 Lee2" in lead and "[E1]" in lead, lead
        if theirs:
            assert f"[{theirs}]" in lead and "Dr. Bo3" not in lead, lead
        else:
            assert "None of the free slots found is with Dr. Ann1 Lee2" in lead, lead
    assert isinstance(plan.calls[0], ToolCall)


def test_no_inpatient_stay_names_the_emergency_visits_beside_the_zero(cohort):
    """Round thirteen's closing run: "have i ever been admitted to hospital" said "0 hospital
    admissions" with an "Emergency hospital admission for asthma" visit listed right under it. With
    no inpatient stay, the emergency visits are named beside the zero; with one, it is counted."""
    agent, records = _agent(cohort)
    seen = {"inpatient": 0, "emergency only": 0, "neither": 0}
    for record in records:
        pid = record.patient.patient_id
        visits = record.valid_encounters()
        inpatient = [e for e in visits if (e.class_code or "").lower() == "imp"]
        emergency = [e for e in visits if (e.class_code or "").lower() == "emer"]
        for question in ("have i ever been admitted to hospital", "how many hospital stays have i had"):
            lead = _lead(_events(agent, pid, question))
            assert "leaflet" not in lead.lower(), (question, lead)
            if inpatient:
                seen["inpatient"] += 1
                assert "No inpatient stay" not in lead and not lead.startswith("No"), (question, lead)
            elif emergency:
                seen["emergency only"] += 1
                assert lead.startswith("No inpatient stay"), (question, lead)
                newest = max(e.start for e in emergency).date().isoformat()
                assert any(e.start.date().isoformat() in lead for e in emergency), (question, newest, lead)
            else:
                seen["neither"] += 1
                assert re.match(r"(No|Your record has 0)", lead), (question, lead)
    assert seen["emergency only"] and seen["neither"], seen


def test_a_substance_asked_of_the_allergy_list_is_looked_up_in_it(cohort):
    """Round thirteen's closing run, a confident false negative: "is there anything about penicillin
    in my allergies" led "No: no condition matching 'penicillin in my allergies' is recorded" for a
    patient with an active Penicillin V allergy (the record-mention search read conditions and
    notes). The allergy list named is where the substance is looked up."""
    agent, records = _agent(cohort)
    checked = 0
    for record in records:
        pid = record.patient.patient_id
        for allergy in record.current_allergies():
            word = re.sub(r"\s*\(.*\)$", "", allergy.display).split()[0].lower()
            for question in (
                f"is there anything about {word} in my allergies",
                f"does my allergy list say anything about {word}?",
                f"what does her record say about a {word} allergy",
            ):
                lead = _lead(_events(agent, pid, question))
                assert lead.startswith("Yes"), (question, allergy.display, lead)
                checked += 1
    assert checked, "the cohort has allergies to ask about"
