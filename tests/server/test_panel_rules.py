"""The record panel and the tools say the same thing: one rule each, at the caller's clock.

Issue 18 item 11: a deceased patient's death-ended medication showed active in the panel but
not in the tool; a condition with a future abatement date disagreed; the panel used the
database clock instead of the pinned one. Each case is checked against the tool's answer.
"""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.record_view import at_a_glance
from tests.builder import RecordBuilder
from tests.tools.conftest import make_ctx
from tools.catalog import build_registry

PID = "p-panel"
NOW = dt.datetime(2025, 6, 1, 12, 0, tzinfo=dt.UTC)
REGISTRY = build_registry()


def tool_rows(db, tool: str, now: dt.datetime, **args) -> set[str]:
    result = REGISTRY.execute(make_ctx(db, PID, now=now), tool, args)
    assert result.ok, result
    return {c.label for c in result.citations}


def panel(db, now: dt.datetime):
    return at_a_glance(db, PID, now=now)


def test_a_death_ended_medication_is_not_active_in_the_panel_nor_in_the_tool(clean_db):
    rec = RecordBuilder(PID, deceased=True, deceased_at=None)
    rec.medication("Metformin 500 MG Oral Tablet")
    rec.medication("Lisinopril 10 MG Oral Tablet", ended_reason="patient-deceased")  # no date
    rec.write(clean_db)
    shown = {m["display"] for m in panel(clean_db, NOW).medications}
    assert shown == {"Metformin 500 MG Oral Tablet"}
    assert tool_rows(clean_db, "get_medications", NOW) == shown


def test_a_future_abatement_has_not_ended_the_condition_yet(clean_db):
    rec = RecordBuilder(PID)
    rec.condition("Acute bronchitis (disorder)", abatement="2025-06-20")  # ends in three weeks
    rec.condition("Fracture of ankle (disorder)", abatement="2025-01-10")  # ended
    rec.write(clean_db)
    before = {c["display"] for c in panel(clean_db, NOW).conditions}
    assert before == {"Acute bronchitis (disorder)"}
    assert tool_rows(clean_db, "get_conditions", NOW) == before
    later = NOW + dt.timedelta(days=30)
    assert panel(clean_db, later).conditions == []
    assert tool_rows(clean_db, "get_conditions", later) == set()


def test_the_panel_reads_at_the_callers_clock_not_the_databases(clean_db):
    rec = RecordBuilder(PID)
    rec.medication("Amoxicillin 500 MG Oral Capsule", authored="2019-02-20", ended="2019-03-10")  # long past
    rec.write(clean_db)
    pinned = dt.datetime(2019, 3, 1, tzinfo=dt.UTC)  # an evaluation pinned before the course ended
    assert [m["display"] for m in panel(clean_db, pinned).medications] == ["Amoxicillin 500 MG Oral Capsule"]
    assert panel(clean_db, dt.datetime.now(dt.UTC)).medications == []


def test_only_current_allergies_are_on_the_panel(clean_db):
    rec = RecordBuilder(PID)
    rec.allergy("Penicillin V")
    rec.allergy("Peanut", status=None)  # status not stated: current
    rec.allergy("Latex", status="resolved")
    rec.allergy("Shellfish", verification="refuted")
    rec.allergy("Mistake", verification="entered-in-error")
    rec.write(clean_db)
    assert [a["display"] for a in panel(clean_db, NOW).allergies] == ["Peanut", "Penicillin V"]


STATUSES = st.sampled_from(["active", "stopped", "completed", "on-hold", "cancelled", "entered-in-error"])
ENDS = st.one_of(st.none(), st.integers(min_value=-400, max_value=400))
REASONS = st.sampled_from([None, "patient-deceased"])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(meds=st.lists(st.tuples(STATUSES, ENDS, REASONS), min_size=1, max_size=6))
def test_panel_and_tool_agree_on_any_medication_list(clean_db, meds):
    from tests.conftest import wipe

    wipe(clean_db)
    rec = RecordBuilder(PID)
    for i, (status, days, reason) in enumerate(meds):
        ended = None if days is None else (NOW + dt.timedelta(days=days)).isoformat()
        rec.medication(f"Drug {i} 10 MG Oral Tablet", status=status, ended=ended, ended_reason=reason)
    rec.write(clean_db)
    shown = {m["display"] for m in panel(clean_db, NOW).medications}
    assert tool_rows(clean_db, "get_medications", NOW) == shown


@pytest.mark.parametrize("when", [NOW, NOW + dt.timedelta(days=365)])
def test_key_labs_show_the_newest_result_by_effective_time(clean_db, when):
    rec = RecordBuilder(PID)
    rec.observation("Hemoglobin A1c", code="4548-4", value=7.9, unit="%", at="2024-05-01")
    rec.observation("Hemoglobin A1c", code="4548-4", value=6.8, unit="%", at="2025-02-01")  # newest
    rec.observation("Hemoglobin A1c", code="4548-4", value=6.1, unit="%", at="2023-01-01")  # written last
    rec.write(clean_db)
    (a1c,) = [s for s in panel(clean_db, when).labs if s.code == "4548-4"]
    assert a1c.latest_value == 6.8
