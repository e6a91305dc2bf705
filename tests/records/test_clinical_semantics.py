"""Clinical semantics of the query layer and the tools that render it (DESIGN invariant 6)."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from records.database import patient_transaction
from records.queries import conditions, medications, observations
from records.queries.vocabulary import normalise_drug_name, resolve_lab_query
from tests.builder import RecordBuilder
from tests.tools.conftest import NOW, make_ctx

CANARY = "ZZCANARY-ENTERED-IN-ERROR"


def active_med_names(db, pid="p-a"):
    with patient_transaction(db.app, pid) as conn:
        page = medications.list_medications(conn, patient_id=pid, status="active", now=NOW)
    return {m.display for m in page.items}


def test_active_medications_are_status_active_and_not_ended(clean_db):
    rec = RecordBuilder("p-a")
    rec.medication("still taking 10 MG", status="active")
    rec.medication("ends next month", status="active", ended="2025-07-01")
    rec.medication("ended last year", status="active", ended="2024-01-01")
    rec.medication("stopped drug", status="stopped")
    rec.medication("completed course", status="completed")
    rec.medication("on hold drug", status="on-hold")
    rec.medication("mistake drug", status="entered-in-error")
    # the patient died on an unknown date: ingestion ends the request without a date
    rec.medication("ended by death, no date", status="active", ended_reason="patient-deceased")
    rec.write(clean_db)
    assert active_med_names(clean_db) == {"still taking 10 MG", "ends next month"}
    with patient_transaction(clean_db.app, "p-a") as conn:
        everything = medications.list_medications(conn, patient_id="p-a", status="all", now=NOW)
    assert "mistake drug" not in {m.display for m in everything.items}
    assert everything.total == 7


def test_cancelled_visits_and_procedures_not_done_are_not_history(clean_db, call):
    rec = RecordBuilder("p-a")
    rec.encounter("Checkup that happened")
    rec.encounter("Cancelled checkup", status="cancelled")
    rec.procedure("Colonoscopy done")
    rec.procedure("Colonoscopy not done", status="not-done")
    rec.write(clean_db)
    visits = call("p-a", "get_encounters", limit=50)
    procedures = call("p-a", "get_procedures", limit=50)
    assert visits.total == 1 and "Cancelled" not in visits.text
    assert procedures.total == 1 and "not done" not in procedures.text


def test_tall_man_names_match_either_way(clean_db, call):
    rec = RecordBuilder("p-a")
    rec.medication("hydrOXYzine HCl 25 MG Oral Tablet")
    rec.medication("predniSONE 5 MG Oral Tablet")
    rec.write(clean_db)
    assert normalise_drug_name("hydrOXYzine  HCl") == "hydroxyzine hcl"
    for query in ("hydroxyzine", "HYDROXYZINE", "hydrOXYzine", "HydroXyzine 25 mg"):
        result = call("p-a", "get_medications", query=query)
        assert result.total == 1 and "hydrOXYzine" in result.text, query
    assert call("p-a", "get_medications", query="prednisone").total == 1


def test_brand_and_abbreviation_find_the_generic(clean_db, call):
    rec = RecordBuilder("p-a")
    rec.medication("hydroCHLOROthiazide 25 MG Oral Tablet")
    rec.medication("atorvastatin 20 MG Oral Tablet")
    rec.write(clean_db)
    assert call("p-a", "get_medications", query="HCTZ").total == 1
    assert call("p-a", "get_medications", query="Lipitor").total == 1
    assert call("p-a", "get_medications", query="warfarin").total == 0


def test_latest_lab_is_newest_by_effective_time_not_insertion(clean_db, call):
    rec = RecordBuilder("p-a")
    # inserted newest first, and the oldest result was *issued* (written) last
    rec.observation(
        "Hemoglobin A1c/Hemoglobin.total in Blood", code="4548-4", value=6.1, unit="%", at="2024-05-01"
    )
    rec.observation(
        "Hemoglobin A1c/Hemoglobin.total in Blood", code="4548-4", value=7.9, unit="%", at="2023-01-01"
    )
    rec.observation(
        "Hemoglobin A1c/Hemoglobin.total in Blood",
        code="4548-4",
        value=8.8,
        unit="%",
        at="2021-01-01",
        issued=dt.datetime(2025, 1, 1, tzinfo=dt.UTC),
    )
    rec.observation("Glucose [Mass/volume] in Blood", code="2339-0", value=101, unit="mg/dL", at="2022-02-02")
    rec.write(clean_db)
    with patient_transaction(clean_db.app, "p-a") as conn:
        latest = observations.list_observations(conn, patient_id="p-a", latest_only=True)
    by_code = {o.row.code: o.row.value_num for o in latest.items}
    assert by_code == {"4548-4": 6.1, "2339-0": 101}
    result = call("p-a", "get_labs", query="A1C", latest_only=True)
    assert result.total == 1 and "6.1 %" in result.text and "2024-05-01" in result.text
    assert "6.1" in result.citations[0].facts and "2024-05-01" in result.citations[0].facts


@pytest.mark.parametrize("reverse", [False, True])
def test_blood_pressure_components_by_code_not_position(clean_db, call, reverse):
    rec = RecordBuilder("p-a")
    rec.blood_pressure(systolic=141, diastolic=87, reverse=reverse)
    rec.write(clean_db)
    result = call("p-a", "get_labs", query="blood pressure")
    assert "141/87" in result.text
    row = result.rows[0]
    assert (row["systolic"], row["diastolic"]) == (141, 87)


def test_blood_pressure_with_a_missing_part_says_so(clean_db, call):
    rec = RecordBuilder("p-a")
    rec.observation(
        "Blood pressure panel",
        code="85354-9",
        category="vital-signs",
        components=[{"code": "8480-6", "display": "Systolic", "value_num": 150, "value_unit": "mm[Hg]"}],
    )
    rec.write(clean_db)
    text = call("p-a", "get_labs", query="BP").text
    assert "150/?" in text and "missing" in text


def test_systolic_query_finds_the_panel_through_its_component(clean_db, call):
    rec = RecordBuilder("p-a")
    rec.blood_pressure(120, 80)
    rec.observation("Heart rate", code="8867-4", value=70, category="vital-signs")
    rec.write(clean_db)
    assert call("p-a", "get_labs", query="systolic").total == 1
    assert call("p-a", "get_labs", query="8462-4").total == 1


@pytest.mark.parametrize(
    ("query", "code"),
    [
        ("A1C", "4548-4"),
        ("HbA1c", "4548-4"),
        ("hemoglobin a1c", "4548-4"),
        ("eGFR", "33914-3"),
        ("LDL", "18262-6"),
        ("HDL", "2085-9"),
        ("glucose", "2339-0"),
        ("blood sugar", "2339-0"),
        ("cholesterol", "2093-3"),
        ("triglycerides", "2571-8"),
        ("creatinine", "2160-0"),
        ("BMI", "39156-5"),
        ("4548-4", "4548-4"),
    ],
)
def test_lab_aliases_resolve_to_codes(query, code):
    assert code in resolve_lab_query(query).codes


def test_lab_query_matches_names_codes_and_abbreviations(clean_db, call):
    rec = RecordBuilder("p-a")
    rec.observation("Hemoglobin A1c/Hemoglobin.total in Blood", code="4548-4", value=6.8, unit="%")
    rec.observation("Hemoglobin [Mass/volume] in Blood", code="718-7", value=13.5, unit="g/dL")
    rec.observation("Glomerular filtration rate/1.73 sq M.predicted", code="33914-3", value=88, unit="mL/min")
    rec.observation("Vitamin D 25-Hydroxy", code="1989-3", value=30, unit="ng/mL")
    rec.write(clean_db)
    assert {r["code"] for r in call("p-a", "get_labs", query="HbA1c").rows} == {"4548-4"}
    assert {r["code"] for r in call("p-a", "get_labs", query="hemoglobin").rows} == {"718-7"}
    assert {r["code"] for r in call("p-a", "get_labs", query="eGFR").rows} == {"33914-3"}
    assert {r["code"] for r in call("p-a", "get_labs", query="vitamin d").rows} == {"1989-3"}
    assert call("p-a", "get_labs", query="troponin").text.startswith("No results matching 'troponin'")


def test_lab_category_and_date_window(clean_db, call):
    rec = RecordBuilder("p-a")
    rec.observation(
        "Body Weight", code="29463-7", value=80, unit="kg", category="vital-signs", at="2024-01-01"
    )
    rec.observation(
        "Body Weight", code="29463-7", value=82, unit="kg", category="vital-signs", at="2024-06-30"
    )
    rec.observation(
        "Body Weight", code="29463-7", value=84, unit="kg", category="vital-signs", at="2024-07-01"
    )
    rec.observation("Glucose", code="2339-0", value=99, at="2024-03-03")
    rec.write(clean_db)
    assert call("p-a", "get_labs", category="vital").total == 3
    assert call("p-a", "get_labs", category="lab").total == 1
    window = call("p-a", "get_labs", query="weight", since="2024-01-01", until="2024-06-30")
    assert [r["value"] for r in window.rows] == [82, 80]  # both ends inclusive, newest first


def test_limit_bounds_the_result_and_reports_the_total(clean_db, call):
    rec = RecordBuilder("p-a")
    for day in range(1, 29):
        rec.observation(
            "Heart rate", code="8867-4", value=60 + day, category="vital-signs", at=f"2024-02-{day:02d}"
        )
    rec.write(clean_db)
    result = call("p-a", "get_labs", query="heart rate", limit=5)
    assert result.total == 28 and result.truncated and len(result.rows) == 5
    assert "5 of 28" in result.text and "23 more not shown" in result.text
    assert result.rows[0]["effective"].startswith("2024-02-28")


def test_conditions_active_resolved_and_abated(clean_db):
    rec = RecordBuilder("p-a")
    rec.condition("Hypertension", status="active")
    rec.condition("Asthma", status="recurrence")
    rec.condition("Sinusitis", status="resolved", abatement="2020-02-01")
    rec.condition("Fracture of ankle", status="active", abatement="2021-01-01")  # abated: not active
    rec.condition("Ruled out diabetes", status="active", verification="refuted")
    rec.condition("Typo condition", status="active", verification="entered-in-error")
    rec.write(clean_db)
    with patient_transaction(clean_db.app, "p-a") as conn:
        names = {
            status: {
                c.display
                for c in conditions.list_conditions(conn, patient_id="p-a", status=status, now=NOW).items
            }
            for status in ("active", "resolved", "all")
        }
    assert names["active"] == {"Hypertension", "Asthma"}
    assert names["resolved"] == {"Sinusitis", "Fracture of ankle"}
    assert "Typo condition" not in names["all"] and "Ruled out diabetes" in names["all"]


def test_condition_abbreviations(clean_db, call):
    rec = RecordBuilder("p-a")
    rec.condition("Essential hypertension (disorder)")
    rec.condition("Chronic kidney disease stage 2 (disorder)")
    rec.write(clean_db)
    assert call("p-a", "get_conditions", query="HTN").total == 1
    assert call("p-a", "get_conditions", query="high blood pressure").total == 1
    assert call("p-a", "get_conditions", query="CKD").total == 1


def test_not_done_immunizations_are_never_reported_as_given(clean_db, call):
    rec = RecordBuilder("p-a")
    rec.immunization("Influenza, seasonal", at="2023-10-01")
    rec.immunization("Zoster vaccine", status="not-done", status_reason="patient objection", at="2023-11-01")
    rec.immunization("Hepatitis B", status="entered-in-error", at="2023-12-01")
    rec.write(clean_db)
    result = call("p-a", "get_immunizations")
    given = [r for r in result.rows if r["given"]]
    assert [r["vaccine"] for r in given] == ["Influenza, seasonal"]
    zoster = next(r for r in result.rows if r["vaccine"] == "Zoster vaccine")
    assert zoster["given"] is False
    zoster_line = next(line for line in result.text.splitlines() if "Zoster" in line)
    assert "NOT GIVEN" in zoster_line and "given 2023" not in zoster_line
    assert "Hepatitis B" not in result.text
    assert "1 given, 1 recorded as not given" in result.text


def test_encounters_most_recent_first_and_by_class_word(clean_db, call):
    rec = RecordBuilder("p-a")
    rec.encounter("Encounter for check up", at="2020-01-01")
    rec.encounter("Emergency room admission", class_code="EMER", at="2024-01-01")
    rec.encounter("Follow-up visit", at="2022-01-01")
    rec.write(clean_db)
    result = call("p-a", "get_encounters")
    assert [r["start"][:4] for r in result.rows] == ["2024", "2022", "2020"]
    assert call("p-a", "get_encounters", query="emergency").total == 1
    assert call("p-a", "get_encounters", since="2021-01-01", until="2023-01-01").total == 1


def test_profile_of_a_deceased_patient_and_the_medications_note(clean_db, call):
    rec = RecordBuilder(
        "p-a",
        name="Denny Example",
        birth_date=dt.date(1940, 6, 1),
        deceased=True,
        deceased_at=dt.datetime(2013, 3, 1, tzinfo=dt.UTC),
    )
    rec.medication("lisinopril 10 MG")
    rec.write(clean_db)
    profile = call("p-a", "get_patient_profile")
    assert "deceased (2013-03-01)" in profile.text and "died aged 72" in profile.text
    meds = call("p-a", "get_medications")
    assert "recorded as deceased" in meds.text


def test_entered_in_error_rows_appear_in_no_tool(clean_db, registry):
    rec = RecordBuilder("p-a")
    rec.condition(f"{CANARY} condition", verification="entered-in-error")
    rec.medication(f"{CANARY} med", status="entered-in-error")
    rec.observation(f"{CANARY} lab", code="4548-4", value=99, status="entered-in-error")
    rec.allergy(f"{CANARY} allergy", verification="entered-in-error")
    rec.encounter(f"{CANARY} visit", status="entered-in-error")
    rec.immunization(f"{CANARY} vaccine", status="entered-in-error")
    rec.procedure(f"{CANARY} procedure", status="entered-in-error")
    rec.care_plan(f"{CANARY} plan", status="entered-in-error")
    rec.condition("Real condition")
    rec.write(clean_db)
    wide_args = {
        "get_conditions": {"status": "all"},
        "get_medications": {"status": "all"},
        "get_labs": {"limit": 100},
        "get_encounters": {"limit": 100},
        "get_procedures": {"limit": 100},
        "get_care_plans": {"status": "all"},
        "search_notes": {"query": "condition medication lab allergy visit vaccine procedure plan"},
        "summarize_labs": {"query": "4548-4"},  # the canary lab's code: its summary must skip it
        "compare_lab": {"query": "4548-4"},  # (and its comparison)
    }
    for name in registry.names():
        tool = registry.get(name)
        if tool.section in ("appointments", "leaflets"):  # not this patient's record
            continue
        result = registry.execute(make_ctx(clean_db, "p-a"), name, wide_args.get(name, {}))
        assert result.ok, (name, result.text)
        assert CANARY not in result.model_dump_json(), name
    assert (
        "1 active of 1 conditions"
        in registry.execute(make_ctx(clean_db, "p-a"), "get_patient_profile", {}).text
    )


def test_empty_sections_say_so_explicitly(clean_db, registry):
    RecordBuilder("p-a").write(clean_db)
    for name in registry.names():
        if registry.get(name).section in ("appointments", "profile", "leaflets"):
            continue
        # the tools that need a query get one (a lab summary is always of a named test)
        args = {"query": "blood pressure"} if name in ("search_notes", "summarize_labs", "compare_lab") else {}
        result = registry.execute(make_ctx(clean_db, "p-a"), name, args)
        assert result.ok and result.total == 0 and not result.rows, name
        assert result.text.startswith("No "), (name, result.text)


@st.composite
def lab_histories(draw):
    """Results of a few tests, each with an effective time and an unrelated write order."""
    codes = draw(
        st.lists(
            st.sampled_from(["4548-4", "2339-0", "2093-3", "39156-5"]), min_size=1, max_size=3, unique=True
        )
    )
    results = []
    for code in codes:
        days = draw(st.lists(st.integers(0, 3650), min_size=1, max_size=5, unique=True))
        for day in days:
            results.append((code, day, draw(st.floats(1, 300, allow_nan=False)), draw(st.integers(0, 3650))))
    return draw(st.permutations(results))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(history=lab_histories())
def test_latest_per_code_is_the_newest_effective_whatever_the_write_order(db, history):
    pid = f"prop-{uuid.uuid4().hex[:10]}"
    rec = RecordBuilder(pid)
    base = dt.datetime(2015, 1, 1, 8, tzinfo=dt.UTC)
    for code, day, value, issued_day in history:  # written in a random order, issued at random
        rec.observation(
            f"Test {code}",
            code=code,
            value=round(value, 2),
            at=base + dt.timedelta(days=day),
            issued=base + dt.timedelta(days=issued_day),
        )
    rec.write(db)
    with patient_transaction(db.app, pid) as conn:
        latest = observations.list_observations(conn, patient_id=pid, latest_only=True, limit=100)
    expected = {}
    for code, day, value, _ in history:
        if code not in expected or day > expected[code][0]:
            expected[code] = (day, round(value, 2))
    assert {o.row.code: o.row.value_num for o in latest.items} == {c: v for c, (_, v) in expected.items()}
    effective = [o.row.effective for o in latest.items]
    assert effective == sorted(effective, reverse=True)
