"""Silent failures of round thirteen, each fixed as a class and checked here across the generated
cohort against the evaluator's own reading of the record (`evals.truth`).

From the paraphrase part frozen8 (measured once by the lead on main b1f5573, then moved into
tuning as `tune_frozen8`):

- "Do I currently have X, going by the latest notes?" → the last visit and a notes search, not the
  condition's yes or no ("the latest notes" said for the record as it stands).
- "What's the top weight number they've ever got on file for me?" → the latest weight: taking the
  measure's name out of the question left "the top number", the systolic idiom, so the highest
  was lost (a measure named in the question wins).
- "Am I on X, and if so, what dose?" → the dose with no yes or no before it.
"""

from __future__ import annotations

import datetime as dt
import re

from dateutil.relativedelta import relativedelta

from agent.offline import OfflineAgent
from agent.offline.request import read_request
from evals.paraphrase.suite import ABSENT_CONDITIONS, ABSENT_DRUGS
from evals.truth import EIE
from evals.vocab import condition_name, drug_name
from tests.agent.conftest import COHORT_NOW
from tests.agent.test_lead_hunt_r8 import _events, _lead
from tools.catalog import build_registry
from tools.lexicon import load_lexicon

WEIGHT, BMI = "29463-7", "39156-5"


def _agent(cohort):
    db, records = cohort
    return OfflineAgent(build_registry(), db), records


def _yes(lead: str) -> bool:
    return lead.lower().startswith("yes")


def _no(lead: str) -> bool:
    return lead.lower().startswith("no")


def _current_conditions(record) -> list[str]:
    return sorted(
        {
            condition_name(c.display).lower()
            for c in record.conditions
            if "(disorder)" in c.display
            and c.verification_status not in (EIE, "refuted")
            and c.clinical_status in ("active", "recurrence", "relapse")
            and (c.abatement is None or c.abatement > COHORT_NOW)
        }
    )


def _absent_conditions(record) -> list[str]:
    every = " ".join(c.display.lower() for c in record.conditions)
    return [c for c in ABSENT_CONDITIONS if c not in every]


def test_currently_having_a_condition_going_by_the_latest_notes_is_the_conditions_verdict(cohort):
    agent, records = _agent(cohort)
    asked = {True: 0, False: 0}
    wordings = (
        ("patient", "do i currently have {x}, going by the latest notes?"),
        ("clinician", "according to her most recent notes, does she have {x}?"),
        ("patient", "going by my latest records, have i got {x}?"),
    )
    for record in records:
        pid = record.patient.patient_id
        cases = [(x, True) for x in _current_conditions(record)[:2]] + [
            (x, False) for x in _absent_conditions(record)[:1]
        ]
        for x, truth in cases:
            for role, wording in wordings:
                lead = _lead(_events(agent, pid, wording.format(x=x), role=role))
                assert _yes(lead) if truth else _no(lead), (pid, x, truth, wording, lead)
                asked[truth] += 1
    assert asked[True] >= 6 and asked[False] >= 6, asked


def _series(record, code: str):
    return [
        m
        for m in record.measurements
        if m.code == code and m.status not in (EIE, "cancelled") and m.effective <= COHORT_NOW
    ]


def test_the_top_number_of_a_named_measure_is_its_highest(cohort):
    agent, records = _agent(cohort)
    checked = 0
    for record in records:
        pid = record.patient.patient_id
        for code, name in ((WEIGHT, "weight"), (BMI, "bmi")):
            series = _series(record, code)
            if (
                len(series) < 2
                or max(m.value for m in series) == max(series, key=lambda m: m.effective).value
            ):
                continue  # the highest must differ from the latest, or the test tells nothing
            top = max(m.value for m in series)
            for question in (
                f"What's the top {name} number they've ever got on file for me?",
                f"top {name} reading on record?",
                f"whats the top {name} number i've had",
            ):
                lead = _lead(_events(agent, pid, question))
                assert re.search(rf"\b{top:g}\b", lead) and "highest" in lead.lower(), (question, top, lead)
                checked += 1
    assert checked >= 6, checked


def test_on_a_medicine_and_if_so_what_dose_leads_with_the_verdict(cohort):
    agent, records = _agent(cohort)
    asked = {"active": 0, "past": 0, "absent": 0}
    for record in records:
        pid = record.patient.patient_id
        meds = [
            m for m in record.medications if m.status != EIE and m.authored_on and m.authored_on <= COHORT_NOW
        ]
        live = [
            m
            for m in meds
            if m.status == "active"
            and (m.ended_at is None or m.ended_at > COHORT_NOW)
            and m.ended_reason is None
        ]
        active = {drug_name(m.display) for m in live}
        past = {drug_name(m.display) for m in meds} - active
        every = " ".join(m.display.lower() for m in record.medications)
        absent = [d for d in ABSENT_DRUGS if d not in every][:1]
        for kind, names in (("active", sorted(active)[:2]), ("past", sorted(past)[:1]), ("absent", absent)):
            for x in names:
                for question in (
                    f"Am I on {x}, and if so, what dose?",
                    f"am i taking {x} and whats the dosage",
                    f"is she on {x}? if so how much",
                ):
                    role = "clinician" if question.startswith("is she") else "patient"
                    lead = _lead(_events(agent, pid, question, role=role))
                    if kind == "active":
                        assert _yes(lead) and "dosage" in lead, (pid, x, question, lead)
                    else:
                        assert _no(lead), (pid, x, kind, question, lead)
                    assert "\n" not in lead
                    asked[kind] += 1
    assert asked["active"] >= 6 and asked["past"] >= 3 and asked["absent"] >= 3, asked


# --- round thirteen's lead hunt: 260 questions an outside writer wrote without seeing the product,
# asked on three demo patients (/work/holdouts/lead_hunt_r13.txt, judged in the round's notes) ----


def _procedures_named(record, word: str):
    return [
        p
        for p in record.procedures
        if p.status not in (EIE, "not-done") and word in p.display.lower() and p.performed_start <= COHORT_NOW
    ]


def test_a_hyphenated_term_finds_the_rows_the_record_spells_the_same_way(cohort):
    """ "why did i have that x-ray" → "No. Your record has no x-ray" over a Plain chest X-ray: the
    lexicon's query ("radiograph") missed it and the record's own spelling was never tried."""
    agent, records = _agent(cohort)
    asked = 0
    for record in records:
        pid = record.patient.patient_id
        xrays = _procedures_named(record, "x-ray")
        for question in ("have i ever had an x-ray", "why did i have that x-ray", "any xrays on file?"):
            lead = _lead(_events(agent, pid, question))
            if xrays:
                newest = max(xrays, key=lambda p: p.performed_start)
                assert _yes(lead) and newest.performed_start.date().isoformat() in lead, (pid, question, lead)
                asked += 1
            else:
                assert _no(lead), (pid, question, lead)
    assert asked >= 3, asked


SYSTOLIC, HEART_RATE = "8480-6", "8867-4"


def test_the_last_n_readings_are_the_newest_n_values(cohort):
    """ "mean SBP over last 5 readings" → the mean of every reading; "BP readings at last 3 visits"
    → the latest one only."""
    agent, records = _agent(cohort)
    checked = 0
    for record in records:
        pid = record.patient.patient_id
        for code, said in ((SYSTOLIC, "SBP"), (HEART_RATE, "HR")):
            series = sorted(_series(record, code), key=lambda m: m.effective)
            if len(series) < 7:
                continue
            for n in (3, 5):
                newest = series[-n:]
                mean = sum(m.value for m in newest) / n
                lead = _lead(_events(agent, pid, f"mean {said} over the last {n} readings", role="clinician"))
                said_mean = float(re.search(r"was ([\d.]+)", lead).group(1))
                assert f"over {n} results" in lead and abs(said_mean - mean) < 0.01, (n, mean, lead)
                checked += 1
        bp = sorted(_series(record, SYSTOLIC), key=lambda m: m.effective)
        if len(bp) >= 3:
            lead = _lead(_events(agent, pid, "BP readings at last 3 visits", role="clinician"))
            for m in bp[-3:]:
                assert m.effective.date().isoformat() in lead, (m.effective, lead)
            assert bp[-4].effective.date().isoformat() not in lead if len(bp) > 3 else True
    assert checked >= 6, checked


def test_a_span_said_as_over_n_months_or_in_clinicians_shorthand_is_a_window():
    """ "wt change over 12 months" read as "is it older than a year?"; "last 6/12" and "last 12/12"
    (six and twelve months) were not read at all."""
    today = dt.date(2026, 12, 6)
    for text, months in (
        ("wt change over 12 months", 12),
        ("all abnormal labs last 12/12", 12),
        ("any abx in last 6/12", 6),
        ("bp trend over 2 years", 24),
    ):
        request = read_request(text, today)
        assert request.window is not None and request.window.since == today - relativedelta(months=months), (
            text
        )
        assert request.operation != "older_than_year", text
    for text in (
        "is my a1c over 12 months old",
        "was my last flu jab more than 12 months ago",
        "bp > 12 months old",
    ):
        assert read_request(text, today).operation == "older_than_year", text
    assert read_request("my bp was 140/90", today).window is None


def test_medicine_classes_said_in_shorthand_are_classes(cohort):
    """ "on any ACEi or ARB?", "who started her on the SSRI", "any abx", "pt on anticoagulation?",
    "used to be on a heart medicine": "I can't answer that", a leaflet or the whole list."""
    agent, records = _agent(cohort)
    lexicon = load_lexicon()
    cases = (
        ("on any ACEi?", "ace inhibitors"),
        ("is she on an ARB", "angiotensin receptor blockers"),
        ("any SSRI on file?", "ssri antidepressants"),
        ("any abx ever?", "antibiotics"),
        ("pt on anticoagulation?", "blood thinners"),
        ("was i ever on a heart medicine", "heart medicines"),
    )
    seen_yes = 0
    for record in records:
        pid = record.patient.patient_id
        for question, name in cases:
            members = lexicon.classes[name].members
            mine = [
                m
                for m in record.medications
                if m.status != EIE and any(x in m.display.lower() for x in members)
            ]
            lead = _lead(_events(agent, pid, question, role="clinician"))
            assert "can't answer" not in lead and "leaflet" not in lead, (question, lead)
            if mine:
                assert _yes(lead) or lead.startswith("No, not now"), (pid, question, lead)
                assert any(drug_name(m.display).split()[0].lower() in lead.lower() for m in mine), (
                    question,
                    lead,
                )
                seen_yes += 1
            else:
                assert _no(lead) and "searched every prescription" in lead, (pid, question, lead)
    assert seen_yes >= 3, seen_yes


def test_a_class_asked_what_for_names_each_medicine_with_its_own_reason(cohort):
    agent, records = _agent(cohort)
    checked = 0
    for record in records:
        pid = record.patient.patient_id
        lead = _lead(
            _events(
                agent,
                pid,
                "the nurse mentioned i used to be on a heart medicine, which one was it and what was it for",
            )
        )
        members = load_lexicon().classes["heart medicines"].members
        mine = {
            drug_name(m.display)
            for m in record.medications
            if m.reason_code and any(x in m.display.lower() for x in members)
        }
        if len(mine) > 1:
            for name in mine:
                assert name.split()[0].lower() in lead.lower(), (name, lead)
            checked += 1
    assert checked >= 1


def test_a_period_named_by_an_event_or_a_season_is_a_window():
    """ "what was i taking before covid" → "No. Your record has no covid-19"; "influenza vax this
    season?" → "Yes" for a dose of a season long gone."""
    today = dt.date(2026, 12, 6)
    for text in (
        "what was i taking before covid",
        "which vaccines did i get pre-pandemic",
        "meds prior to the covid pandemic",
    ):
        w = read_request(text, today).window
        assert w is not None and w.since is None and w.until == dt.date(2020, 3, 10), text
    w = read_request("influenza vax this season?", today).window
    assert w is not None and w.since == dt.date(2026, 8, 1) and w.until == today
    w = read_request("flu jab this season", dt.date(2026, 3, 1)).window
    assert w is not None and w.since == dt.date(2025, 8, 1)
    assert read_request("what did i have in the spring", today).window.since == dt.date(2026, 3, 1)


def test_before_covid_asks_the_record_of_that_time_not_about_covid(cohort):
    agent, records = _agent(cohort)
    cutoff = dt.datetime(2020, 3, 11, tzinfo=dt.UTC)
    checked = 0
    for record in records:
        pid = record.patient.patient_id
        given = [
            i
            for i in record.immunizations
            if i.status == "completed" and i.occurrence and i.occurrence < cutoff
        ]
        lead = _lead(_events(agent, pid, "which vaccines did i get before covid"))
        assert "covid" not in lead.lower().split(":")[0], lead
        if given:
            assert str(len(given)) in lead and not _no(lead), (len(given), lead)
            checked += 1
    assert checked >= 2


def test_a_flu_dose_this_season_is_one_given_since_the_season_began(cohort):
    agent, records = _agent(cohort)
    start = dt.datetime(2026, 8, 1, tzinfo=dt.UTC)
    asked = {True: 0, False: 0}
    for record in records:
        pid = record.patient.patient_id
        flu = [
            i for i in record.immunizations if i.status == "completed" and "influenza" in i.display.lower()
        ]
        if not flu:
            continue
        this = [i for i in flu if start <= i.occurrence <= COHORT_NOW]
        lead = _lead(_events(agent, pid, "influenza vax this season?", role="clinician"))
        assert _yes(lead) if this else _no(lead), (pid, [i.occurrence for i in flu], lead)
        asked[bool(this)] += 1
    assert asked[False] >= 2, asked


def _episodes_of(record, word: str):
    return [
        c
        for c in record.conditions
        if word in c.display.lower()
        and c.verification_status not in (EIE, "refuted")
        and c.onset <= COHORT_NOW
    ]


def test_a_condition_counted_or_asked_when_it_cleared_reads_its_episodes(cohort):
    """ "how many episodes of acute bronchitis" → "Not now: … resolved" with no count; "how many
    times have i had strep throat" → a viral pharyngitis; "when did my sinus infection clear up"
    → the first onset."""
    agent, records = _agent(cohort)
    checked = 0
    for record in records:
        pid = record.patient.patient_id
        for word, said in (
            ("bronchitis", "acute bronchitis"),
            ("sinusitis", "sinusitis"),
            ("streptococcal", "strep throat"),
        ):
            episodes = sorted(_episodes_of(record, word), key=lambda c: c.onset)
            lead = _lead(_events(agent, pid, f"how many times have i had {said}"))
            if not episodes:
                assert _no(lead), (said, lead)
                continue
            assert re.match(rf"{len(episodes)} episodes? of", lead), (said, len(episodes), lead)
            if word == "streptococcal":
                assert "viral" not in lead.lower(), lead
            newest = episodes[-1]
            lead = _lead(_events(agent, pid, f"when did my {said} clear up"))
            if newest.abatement is not None and newest.abatement <= COHORT_NOW:
                assert newest.abatement.date().isoformat() in lead and "resolved" in lead, (
                    said,
                    newest.abatement,
                    lead,
                )
            checked += 1
    assert checked >= 4, checked


A1C = "4548-4"


def test_basic_spanish_record_questions_are_read(cohort):
    """ "cual ha sido mi a1c mas alta" → the latest A1C; "cuantas veces he ido a urgencias", "que
    procedimientos me han hecho", "me pusieron la vacuna de la gripe este año?" → "I can't answer
    that"; "quiero hacer una cita con mi doctor" → the booking leaflet, no slots."""
    agent, records = _agent(cohort)
    checked = 0
    for record in records:
        pid = record.patient.patient_id
        for question in (
            "que procedimientos me han hecho",
            "me puedes dar un resumen de mi historial medico",
        ):
            lead = _lead(_events(agent, pid, question))
            assert "can't answer" not in lead and "leaflet" not in lead, (question, lead)
        er = [e for e in record.encounters if (e.class_code or "").lower() == "emer" and e.status != EIE]
        lead = _lead(_events(agent, pid, "cuantas veces he ido a urgencias"))
        assert re.search(rf"\b{len(er)} emergency visits?\b", lead), (len(er), lead)
        a1c = _series(record, A1C)
        if a1c:
            lead = _lead(_events(agent, pid, "cual ha sido mi a1c mas alta"))
            assert f"{max(m.value for m in a1c):g}" in lead and "highest" in lead, lead
            checked += 1
        flu = [
            i
            for i in record.immunizations
            if i.status == "completed"
            and "influenza" in i.display.lower()
            and i.occurrence.year == COHORT_NOW.year
        ]
        lead = _lead(_events(agent, pid, "me pusieron la vacuna de la gripe este año?"))
        assert _yes(lead) if flu else _no(lead), (pid, lead)
    assert checked >= 2


def test_the_newest_or_first_diagnosis_is_a_disorder_picked_by_date(cohort):
    """ "whats the newest thing ive been diagnosed with", "newest dx" → the active conditions, no
    pick; "what was my first ever diagnosis" → "Part-time employment (finding)"."""
    agent, records = _agent(cohort)
    for record in records:
        pid = record.patient.patient_id
        disorders = [
            c
            for c in record.conditions
            if "(disorder)" in c.display
            and c.verification_status not in (EIE, "refuted")
            and c.onset <= COHORT_NOW
        ]
        if not disorders:
            continue
        newest = max(c.onset for c in disorders).date().isoformat()
        first = min(c.onset for c in disorders).date().isoformat()
        for question, role, day in (
            ("whats the newest thing ive been diagnosed with", "patient", newest),
            ("newest dx", "clinician", newest),
            ("what was my first ever diagnosis on here", "patient", first),
            ("first dx?", "clinician", first),
        ):
            lead = _lead(_events(agent, pid, question, role=role))
            assert day in lead and "diagnosis is" in lead and "(finding)" not in lead.split("[")[0], (
                question,
                day,
                lead,
            )
