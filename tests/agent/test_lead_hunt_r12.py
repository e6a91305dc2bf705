"""Silent failures found by the lead in round twelve, from 220 fresh questions an outside writer
wrote without seeing the product (run offline on two demo patients), each checked across the
generated cohort against the evaluator's own reading of the record (`evals.truth`):

- "did i get any antibiotics this year" → "Yes, in the past: Amoxicillin … 2024-01-19" (the
  window was dropped, and the newer Penicillin V of 2025 went unnamed); "any antibiotics in
  2025" → "No, not now: Amoxicillin … 2024" while Penicillin V was prescribed in 2025.
- "list all the pain killers ive ever had" → the latest pain score; acetaminophen was in no class.
- "what was the top number at my last visit" → the highest systolic ever (124, not the latest 108).
- "last lipid panel" → "the blood pressure panel … 108/76".
- "was my blood sugar ever over 200" → the latest glucose; "how many glucose values over 180" →
  the count of every glucose; "when did my bmi first go over 30" → the first BMI (19.7).
- "have i been gaining weight", "is her renal function declining" → the latest value alone;
  "whats my latest a1c and is it better than last time" → the latest, no comparison.
"""

from __future__ import annotations

import datetime as dt
import re

from agent.offline import OfflineAgent
from agent.offline.request import read_request
from tests.agent.conftest import COHORT_NOW
from tests.agent.test_lead_hunt_r8 import _events, _lead
from tools.catalog import build_registry

ANTIBIOTICS = ("amoxicillin", "penicillin", "doxycycline", "cephalexin", "azithromycin", "clavulanate")
PAIN_MEDICINES = ("acetaminophen", "ibuprofen", "naproxen", "aspirin", "oxycodone", "tramadol", "hydrocodone")
GLUCOSE, BMI, WEIGHT, SYSTOLIC, DIASTOLIC = "2339-0", "39156-5", "29463-7", "8480-6", "8462-4"


def _agent(cohort):
    db, records = cohort
    return OfflineAgent(build_registry(), db), records


def _members(record, names: tuple[str, ...]):
    return [
        m
        for m in record.medications
        if m.status != "entered-in-error"
        and m.authored_on is not None
        and m.authored_on <= COHORT_NOW
        and any(n in m.display.lower() for n in names)
    ]


def _prescribed_in(m, first: dt.date, last: dt.date) -> bool:
    """Prescribed in the year, or still running in it (active, or stopped after it began)."""
    start = m.authored_on.date()
    if first <= start <= last:
        return True
    running = m.status == "active" or (m.ended_at is not None and m.ended_at.date() >= first)
    return start <= last and running


def _yes(lead: str) -> bool:
    return lead.lower().startswith("yes")


def _no(lead: str) -> bool:
    return lead.lower().startswith("no")


def _series(record, code: str):
    return sorted(
        (
            m
            for m in record.measurements
            if m.code == code and m.status not in ("entered-in-error", "cancelled") and m.effective <= COHORT_NOW
        ),
        key=lambda m: m.effective,
    )


def _patients_with(cohort, codes: tuple[str, ...], at_least: int, least_patients: int = 1):
    """(agent, patient id, series) for every cohort patient with at least `at_least` values of
    the first of `codes` they have; fails when fewer than `least_patients` qualify."""
    agent, records = _agent(cohort)
    cases = []
    for record in records:
        series = next((found for code in codes if (found := _series(record, code))), [])
        if len(series) >= at_least:
            cases.append((agent, record.patient.patient_id, series))
    assert len(cases) >= least_patients, (codes, len(cases))
    return cases


def _antibiotic_takers(cohort, least_patients: int):
    """(agent, patient id, that patient's antibiotic prescriptions) for every cohort patient with one."""
    agent, records = _agent(cohort)
    cases = [(agent, r.patient.patient_id, mine) for r in records if (mine := _members(r, ANTIBIOTICS))]
    assert len(cases) >= least_patients, len(cases)
    return cases


def test_a_class_asked_about_in_a_year_answers_for_that_year(cohort):
    checked = {True: 0, False: 0}
    for agent, pid, mine in _antibiotic_takers(cohort, 2):
        years = sorted({m.authored_on.year for m in mine})
        quiet = [y for y in range(2012, COHORT_NOW.year + 1) if y not in years][:2]
        for year in years[-3:] + quiet:
            first, last = dt.date(year, 1, 1), dt.date(year, 12, 31)
            truth = any(_prescribed_in(m, first, last) for m in mine)
            lead = _lead(_events(agent, pid, f"did i get any antibiotics in {year}"))
            assert (_yes(lead) if truth else _no(lead)), (pid, year, truth, lead)
            if truth:  # the yes names a prescription of that year
                named = [m for m in mine if _prescribed_in(m, first, last)]
                assert any(m.display.split()[0].lower() in lead.lower() for m in named), (year, lead)
            checked[truth] += 1
    assert checked[True] >= 3 and checked[False] >= 3, checked


def test_this_year_is_this_year(cohort):
    year = COHORT_NOW.year
    for agent, pid, mine in _antibiotic_takers(cohort, 2):
        truth = any(_prescribed_in(m, dt.date(year, 1, 1), COHORT_NOW.date()) for m in mine)
        lead = _lead(_events(agent, pid, "did i get any antibiotics this year"))
        assert (_yes(lead) if truth else _no(lead)), (truth, lead)
        if not truth:  # the no still names the newest one, dated
            newest = max(mine, key=lambda m: m.authored_on)
            assert newest.authored_on.date().isoformat() in lead, (newest.display, lead)


def test_ever_on_a_class_names_the_newest_member_first(cohort):
    seen = 0
    for agent, pid, mine in _antibiotic_takers(cohort, 1):
        if len({m.display for m in mine}) < 2 or any(m.status == "active" for m in mine):
            continue
        lead = _lead(_events(agent, pid, "have i ever had antibiotics"))
        newest = max(mine, key=lambda m: m.authored_on)
        assert _yes(lead) and newest.authored_on.date().isoformat() in lead, (newest.display, lead)
        # every different drug of the class is named, not only the first one found
        for name in {m.display.split()[0].lower() for m in mine}:
            assert name in lead.lower(), (name, lead)
        seen += 1
    assert seen >= 1


def test_painkillers_are_medicines_not_the_pain_score(cohort):
    agent, records = _agent(cohort)
    with_one = 0
    for record in records:
        pid = record.patient.patient_id
        mine = _members(record, PAIN_MEDICINES)
        for question in ("list all the pain killers ive ever had", "have i ever been prescribed painkillers", "any pain meds on my record"):
            events = _events(agent, pid, question)
            lead = _lead(events)
            assert "pain severity" not in lead.lower() and "pain score" not in lead.lower(), (question, lead)
            if mine:
                assert any(m.display.split()[0].lower() in lead.lower() for m in mine), (question, lead)
        with_one += bool(mine)
    assert with_one >= 2


def test_the_top_number_at_the_last_visit_is_the_latest_systolic(cohort):
    _db, records = cohort
    for agent, pid, systolic in _patients_with(cohort, (SYSTOLIC,), 1, least_patients=3):
        record = next(r for r in records if r.patient.patient_id == pid)
        diastolic = _series(record, DIASTOLIC)
        lead = _lead(_events(agent, pid, "what was the top number at my last visit"))
        assert re.search(rf"\b{systolic[-1].value:g} mm", lead) and "highest" not in lead.lower(), (systolic[-1].value, lead)
        assert "/" not in lead.split("[")[0], lead  # the top number alone, not the pair
        lead = _lead(_events(agent, pid, "and the bottom number last time?"))
        assert re.search(rf"\b{diastolic[-1].value:g} mm", lead) and "lowest" not in lead.lower(), (diastolic[-1].value, lead)


def test_a_lipid_panel_is_cholesterol_not_blood_pressure(cohort):
    for agent, pid, _cholesterol in _patients_with(cohort, ("2093-3",), 1, least_patients=2):
        for question in ("last lipid panel", "results of my lipid profile"):
            lead = _lead(_events(agent, pid, question, role="clinician")).lower()
            assert "blood pressure" not in lead and "cholesterol" in lead, (question, lead)


def test_ever_over_a_number_is_counted_against_the_series(cohort):
    for agent, pid, glucose in _patients_with(cohort, (GLUCOSE,), 2, least_patients=2):
        values = sorted(m.value for m in glucose)
        # a threshold inside the patient's own values, so the answer is a real count, and one above all
        inside = round((values[0] + values[-1]) / 2)
        above = [m for m in glucose if m.value > inside]
        counted = rf"\b{len(above)} of (your |the patient.s )?{len(glucose)}\b"
        lead = _lead(_events(agent, pid, f"was my blood sugar ever over {inside}"))
        assert _yes(lead) == bool(above) and re.search(counted, lead), (inside, lead)
        lead = _lead(_events(agent, pid, f"how many glucose values over {inside}", role="clinician"))
        assert re.search(counted, lead), (inside, len(above), lead)
        ceiling = int(values[-1]) + 50
        lead = _lead(_events(agent, pid, f"was my blood sugar ever over {ceiling}"))
        assert _no(lead) and f"{values[-1]:g}" in lead, (ceiling, lead)  # no, and the highest said


def test_first_time_over_a_number_is_the_first_crossing(cohort):
    for agent, pid, bmi in _patients_with(cohort, (BMI,), 3, least_patients=2):
        values = sorted(m.value for m in bmi)
        line = round(values[len(values) // 2], 1)
        crossed = [m for m in bmi if m.value > line]
        lead = _lead(_events(agent, pid, f"when did my bmi first go over {line:g}"))
        if crossed:
            assert crossed[0].effective.date().isoformat() in lead, (line, crossed[0].effective, lead)
        else:
            assert _no(lead), lead


def test_threshold_words_are_not_read_as_time_or_counts():
    today = dt.date(2026, 12, 1)
    for text in ("weight over the past 5 years", "bp over 2 years", "more than 3 times", "since i turned 40"):
        assert read_request(text, today).threshold is None, text
    for text, expected in (
        ("was my glucose ever over 200", (">", 200.0)),
        ("how many a1c above 6.5", (">", 6.5)),
        ("any potassium under 3.5?", ("<", 3.5)),
        ("weights greater than 100 kg", (">", 100.0)),
        ("systolic > 140", (">", 140.0)),
    ):
        assert read_request(text, today).threshold == expected, text


def test_gaining_and_declining_read_as_a_trend(cohort):
    for agent, pid, _weights in _patients_with(cohort, (WEIGHT,), 3, least_patients=2):
        for question, role in (
            ("have i been gaining weight", "patient"),
            ("am i losing weight", "patient"),
            ("is her renal function declining", "clinician"),
        ):
            lead = _lead(_events(agent, pid, question, role=role)).lower()
            assert re.search(r"went (up|down)|stayed about the same|single result|no egfr", lead), (question, lead)


def test_latest_and_better_than_last_time_compares(cohort):
    for agent, pid, a1c in _patients_with(cohort, ("4548-4",), 2):
        lead = _lead(_events(agent, pid, "whats my latest a1c and is it better than last time"))
        assert f"{a1c[-1].value:g}" in lead and f"{a1c[-2].value:g}" in lead, (a1c[-2].value, a1c[-1].value, lead)


def test_better_or_worse_is_said_by_direction_not_judged(cohort):
    """A lower eGFR or HDL is not "better": the record does not judge, so neither does the lead."""
    judged = 0
    for agent, pid, _egfr in _patients_with(cohort, ("33914-3", "69405-9"), 2):
        for question in ("is my kidney function better than last time", "is my egfr worse than before"):
            lead = _lead(_events(agent, pid, question))
            if lead.startswith("I can read your record with you"):
                continue  # the gate's advice refusal: a judgement asked of a patient
            assert not re.match(r"(yes|no)\b", lead.lower()), (question, lead)
            assert re.search(r"went (up|down)|is the same", lead), (question, lead)
            judged += 1
    assert judged >= 1


def _calls(events) -> list[tuple[str, dict]]:
    from agent.events import ToolCallEvent

    return [(e.name, e.input) for e in events if isinstance(e, ToolCallEvent) and not e.background]


CANNOT = "can't answer that from the record"


def test_sick_with_in_a_year_reads_that_years_diagnoses(cohort):
    agent, records = _agent(cohort)
    record = max(records, key=lambda r: len(r.conditions))
    onsets = sorted({c.onset.year for c in record.conditions if c.onset is not None})
    year = onsets[len(onsets) // 2]
    for question in (f"what was i sick with in {year}", f"what illnesses did i have in {year}", f"what was wrong with me in {year}"):
        events = _events(agent, record.patient.patient_id, question)
        calls = _calls(events)
        assert ("get_conditions", {"status": "all", "since": f"{year}-01-01", "until": f"{year}-12-31"}) in calls, (question, calls)
        assert CANNOT not in events[-1].answer, question


def test_checkups_are_visits_counted(cohort):
    agent, records = _agent(cohort)
    pid = records[0].patient.patient_id
    for question in ("how many checkups have i had since 2018", "number of physicals since 2018", "how many wellness visits since 2018"):
        events = _events(agent, pid, question)
        calls = _calls(events)
        assert any(name == "count_encounters" and args.get("since") == "2018-01-01" for name, args in calls), (question, calls)
        assert CANNOT not in events[-1].answer, question


def test_surgical_history_and_named_procedures_read_the_procedures(cohort):
    agent, records = _agent(cohort)
    for record in records[:3]:
        pid = record.patient.patient_id
        for question in ("surgical history", "has he had an echo", "any echocardiogram on file?"):
            events = _events(agent, pid, question, role="clinician")
            assert any(name == "get_procedures" for name, _ in _calls(events)), question
            assert CANNOT not in events[-1].answer, question
        lead = _lead(_events(agent, pid, "has he had an echo", role="clinician"))
        done = [p for p in record.procedures if "echocardiograph" in p.display.lower()]
        assert _yes(lead) if done else _no(lead), (done, lead)


def test_a_whole_record_summary_reads_problems_medicines_and_allergies(cohort):
    agent, records = _agent(cohort)
    pid = records[0].patient.patient_id
    for question, role in (
        ("give me a one paragraph hpi style overview", "clinician"),
        ("brief summary of this patient before i go in", "clinician"),
        ("give me a summary of my health", "patient"),
        ("can you give me a quick rundown of my record", "patient"),
    ):
        events = _events(agent, pid, question, role=role)
        tools = {name for name, _ in _calls(events)}
        assert {"get_conditions", "get_medications", "get_allergies"} <= tools, (question, tools)
        assert CANNOT not in events[-1].answer, question
        # problems first, then medicines, then allergies ("no allergies" is not the answer's verdict)
        assert not _lead(events).lower().startswith(("no allerg", "1 allerg")), (question, _lead(events))


def _dated(rows, stamp, *, drop=("entered-in-error",), status=lambda r: getattr(r, "status", None)):
    return [r for r in rows if stamp(r) is not None and stamp(r) <= COHORT_NOW and status(r) not in drop]


def test_the_first_and_newest_row_of_a_section_is_picked_by_date(cohort):
    """ "What was the very first medicine they ever put me on" listed every prescription;
    "whats the most recent procedure on my file" listed 20 of 50: the row asked for leads."""
    agent, records = _agent(cohort)
    seen = 0
    for record in records:
        pid = record.patient.patient_id
        conditions = _dated(record.conditions, lambda c: c.onset, status=lambda c: c.verification_status)
        # a diagnosis asked for is a disorder when the record has one (round thirteen: "my first ever
        # diagnosis" answered "Part-time employment (finding)")
        conditions = [c for c in conditions if "(disorder)" in c.display] or conditions
        sections = (
            (_dated(record.medications, lambda m: m.authored_on), lambda m: m.authored_on,
             "what was the very first medicine they ever put me on", "whats the newest prescription i got"),
            (conditions, lambda c: c.onset,
             "whats the earliest diagnosis in my file", "what was the most recent thing they diagnosed me with"),
            (_dated(record.procedures, lambda p: p.performed_start, drop=("entered-in-error", "not-done")), lambda p: p.performed_start,
             "what was my first procedure", "whats the most recent procedure on my file"),
            (_dated(record.immunizations, lambda i: i.occurrence, drop=("entered-in-error", "not-done")), lambda i: i.occurrence,
             "what was my first vaccine", "whats the most recent vaccine i got"),
        )  # fmt: skip
        for rows, stamp, first_q, newest_q in sections:
            if not rows:
                continue
            for question, pick in ((first_q, min), (newest_q, max)):
                day = pick(stamp(r) for r in rows).date().isoformat()
                lead = _lead(_events(agent, pid, question))
                assert day in lead.split("(")[0] or day in lead[:160], (question, day, lead)
                seen += 1
    assert seen >= 16


def test_the_last_note_and_the_last_few_notes_go_by_date(cohort):
    """ "summarize the last progress note" searched the notes for 'summarize progress' (no passage
    matched); "notes from the last 3 visits" gave one note."""
    agent, records = _agent(cohort)
    record = max(records, key=lambda r: len(r.notes))
    dates = sorted({n.date.date().isoformat() for n in record.notes if n.date and n.date <= COHORT_NOW}, reverse=True)
    assert len(dates) >= 3
    pid = record.patient.patient_id
    for question in ("summarize the last progress note", "what does my most recent note say"):
        events = _events(agent, pid, question, role="clinician")
        assert any(name == "get_notes_by_date" for name, _ in _calls(events)), question
        assert dates[0] in _lead(events), (question, dates[0], _lead(events))
    events = _events(agent, pid, "notes from the last 3 visits", role="clinician")
    assert ("get_notes_by_date", {"limit": 3}) in _calls(events), _calls(events)
    lead = _lead(events)
    assert all(d in lead for d in dates[:3]), (dates[:3], lead)


def test_resolved_conditions_are_the_resolved_ones(cohort):
    agent, records = _agent(cohort)
    record = max(records, key=lambda r: len(r.conditions))
    for question, role in (("which of my conditions are resolved now", "patient"), ("resolved conditions", "clinician")):
        events = _events(agent, record.patient.patient_id, question, role=role)
        assert ("get_conditions", {"status": "resolved"}) in _calls(events), _calls(events)
        lead = _lead(events)
        assert "could not match" not in lead and "resolved" in lead, lead


def test_a_record_question_about_a_reaction_or_an_er_visit_is_not_a_notes_search(cohort):
    """The paraphrase suite's tuning parts, re-run this round: "is there anything on file about me
    reacting to peanut?" led "No: no condition matching 'reacting to peanut' … no note mentions it"
    for a patient with an active peanut allergy, and "is there any record of her going to the
    emergency room?" led "No" over an emergency visit: the words were searched, not the sections."""
    agent, records = _agent(cohort)
    reactions = 0
    for record in records:
        pid = record.patient.patient_id
        for allergy in record.current_allergies():
            word = allergy.display.split()[0].lower()
            lead = _lead(_events(agent, pid, f"is there anything on file about me reacting to {word}?"))
            assert _yes(lead), (allergy.display, lead)
            reactions += 1
        visited = any(e.class_code == "EMER" and e.status not in ("cancelled", "entered-in-error") for e in record.encounters)
        lead = _lead(_events(agent, pid, "just wondering, is there any record of her going to the emergency room?", role="clinician"))
        assert (_yes(lead) if visited else _no(lead)), (visited, lead)
    assert reactions >= 2


def test_what_i_was_taking_in_a_year_is_what_ran_that_year(cohort):
    """ "what pills was i taking back in 2018" listed every prescription ever, active and past."""
    agent, records = _agent(cohort)
    checked = {True: 0, False: 0}
    for record in records:
        mine = _members(record, ("",))  # every prescription
        if not mine:
            continue
        years = sorted({m.authored_on.year for m in mine})
        for year in (years[len(years) // 2], years[0] - 3):
            first, last = dt.date(year, 1, 1), dt.date(year, 12, 31)
            running = [m for m in mine if _prescribed_in(m, first, last)]
            lead = _lead(_events(agent, record.patient.patient_id, f"what pills was i taking back in {year}"))
            if running:
                assert re.match(rf"{len(running)} prescriptions? (was|were) written or running", lead), (year, len(running), lead)
            else:
                assert lead.startswith("No prescription"), (year, lead)
            checked[bool(running)] += 1
    assert checked[True] >= 2 and checked[False] >= 2, checked


def test_a_prescription_said_active_is_active(cohort):
    """A prescription still marked active after its end (a patient who died) was listed as
    "(prescribed 2017-12-30, active)" under "none of 2 prescriptions of inhalers is active"."""
    agent, records = _agent(cohort)
    said = 0
    for record in records:
        pid = record.patient.patient_id
        for question in ("have i ever had antibiotics", "what inhalers am i on", "list all the pain killers ive ever had"):
            lead = _lead(_events(agent, pid, question))
            for name, state in re.findall(r"([^;:]+?) \(prescribed \d{4}-\d\d-\d\d, ([^)]+)\)", lead):
                rows = [m for m in record.medications if m.display.strip() == name.strip()]
                if not rows:
                    continue
                running = any(m.status == "active" and (m.ended_at is None or m.ended_at > COHORT_NOW) for m in rows)
                assert (state == "active") == running, (name, state, lead)
                said += 1
    assert said >= 3  # enough named prescriptions to mean something


def test_a_visit_that_says_when_a_value_was_taken_keeps_the_value(cohort):
    """ "what's my weight as of the last appointment" led with the last visit; "what was my blood
    pressure at my first visit on record" listed the visits."""
    _db, records = cohort
    for agent, pid, weights in _patients_with(cohort, (WEIGHT,), 2, least_patients=2):
        lead = _lead(_events(agent, pid, "what's my weight as of the last appointment"))
        assert f"{weights[-1].value:g}" in lead and "weight" in lead, (weights[-1].value, lead)
        record = next(r for r in records if r.patient.patient_id == pid)
        systolic = _series(record, SYSTOLIC)
        if systolic:
            lead = _lead(_events(agent, pid, "what was my blood pressure at my first visit on record"))
            assert f"{systolic[0].value:g}" in lead and "systolic" in lead, (systolic[0].value, lead)


def test_screened_for_depression_is_a_procedure_not_the_diagnosis(cohort):
    """ "was i ever screened for depression" led "No. Your record has no depression" (the condition)
    for a patient with twenty depression screenings on file."""
    agent, records = _agent(cohort)
    screened_patients = 0
    for record in records:
        screened = [p for p in record.procedures if "depression screening" in p.display.lower() and p.status != "not-done"]
        lead = _lead(_events(agent, record.patient.patient_id, "was i ever screened for depression"))
        assert (_yes(lead) if screened else _no(lead)) and "screening" in lead.lower(), (len(screened), lead)
        screened_patients += bool(screened)
    assert screened_patients >= 2


def test_a_medicine_then_a_clause_about_the_patient_reads_the_prescriptions(cohort):
    """Written after the round, never tuned on: "anything in my chart about metformin i still
    take?" led "No: no condition matching 'metformin i still take' … no note mentions it" for a
    patient on metformin (the medicine followed by a clause about the patient read as words to search)."""
    agent, records = _agent(cohort)
    seen = 0
    for record in records:
        active = [m for m in _members(record, ("",)) if m.status == "active" and (m.ended_at is None or m.ended_at > COHORT_NOW)]
        for m in active[:2]:
            word = m.display.split()[0].lower()
            if not word.isalpha() or len(word) < 5:
                continue
            lead = _lead(_events(agent, record.patient.patient_id, f"anything in my chart about {word} i still take?"))
            assert _yes(lead), (m.display, lead)
            seen += 1
    assert seen >= 2
