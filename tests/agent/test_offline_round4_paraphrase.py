"""Round four of the offline planner (paraphrase side): lay words for extremes and allergies,
relative-time windows named without a date, typos of plural record names, and "how much is
my weight?" asked of the record, not the leaflets."""

from __future__ import annotations

import datetime as dt

from hypothesis import given
from hypothesis import strategies as st

from agent.offline.link import Vocabulary, link
from agent.offline.parse import keyword_scores
from agent.offline.plan import STOP, Planner
from agent.offline.request import read_request
from agent.offline.windows import SEASONS, read_window
from agent.text import normalise
from tests.agent.test_offline import ALL_TOOLS

TODAY = dt.date(2026, 11, 29)
VOCAB = Vocabulary(
    {
        "labs": ["Leukocytes [#/volume] in Blood by Automated count", "Body Weight", "Platelets"],
        "medications": ["Aspirin 81 MG Oral Tablet"],
        "allergies": ["Aspirin"],
    }
)


def plan(question: str):
    return Planner(ALL_TOOLS).plan(question, [], TODAY, VOCAB)


def test_lay_words_for_the_highest_and_lowest_value():
    for q in (
        "What's the biggest weight number I have had?",
        "How high has my weight gone?",
        "What's the top weight reading in my record?",
        "Largest weight on file?",
        "All-time high weight?",
    ):
        assert read_request(q, TODAY).operation == "max", q
    for q in ("What's my smallest weight?", "How low has her weight gone?", "record low weight"):
        assert read_request(q, TODAY).operation == "min", q


def test_most_recently_is_the_latest_value_not_a_window():
    r = read_request("My platelet count most recently?", TODAY)
    assert (r.operation, r.window) == ("latest", None)
    # "recently" alone still narrows a yes/no question to recent years (softly)
    r = read_request("Any ED visits recently?", TODAY)
    assert r.operation == "exists" and r.window is not None and r.window.soft


def test_a_soft_window_does_not_narrow_a_latest_question():
    assert read_request("What is my latest weight, recently?", TODAY).window is None


def test_allergies_asked_in_lay_words_go_to_the_allergy_rows():
    for q in (
        "Is he sensitive to aspirin?",
        "Does aspirin disagree with him?",
        "Do I react badly to aspirin?",
        "Can she not tolerate aspirin?",
        "Any bad reaction to aspirin?",
        "Does aspirin make him react?",
    ):
        assert "allergies" in keyword_scores(q), q
        p = plan(q)
        assert "get_allergies" in [c.name for c in p.calls], q
        assert "get_medications" not in [c.name for c in p.calls], q


def test_a_typo_of_a_plural_record_name_still_links():
    found = link(normalise("Latest leuokcyte count?"), VOCAB, STOP)
    assert [c.section for c in found.concepts] == ["labs"] and not found.unlinked


def test_how_much_is_a_measured_value_asked_of_the_record():
    for q in ("How much is my weight now?", "How high has my weight gone?", "Where is her weight at now?"):
        p = plan(q)
        assert not p.leaflet_probe, q
        assert {c.name for c in p.calls} & {"get_labs", "summarize_labs"}, q
    assert plan("How much is the parking at the hospital?").leaflet_probe
    assert plan("Where is the blood test centre?").leaflet_probe


WINDOWS = {
    "since the spring": (dt.date(2026, 3, 1), None),
    "since spring": (dt.date(2026, 3, 1), None),
    "last summer": (dt.date(2026, 6, 1), dt.date(2026, 8, 31)),
    "last winter": (dt.date(2025, 12, 1), dt.date(2026, 2, 28)),
    "this autumn": (dt.date(2026, 9, 1), dt.date(2026, 11, 29)),
    "a fortnight ago": (dt.date(2026, 11, 15), TODAY),
    "in the past fortnight": (dt.date(2026, 11, 15), TODAY),
    "over the past couple of years": (dt.date(2024, 11, 29), TODAY),
    "a couple of months ago": (dt.date(2026, 9, 29), TODAY),
    "three weeks back": (dt.date(2026, 11, 8), TODAY),
    "over the last decade": (dt.date(2016, 11, 29), TODAY),
    "this month": (dt.date(2026, 11, 1), TODAY),
    "this year": (dt.date(2026, 1, 1), TODAY),
    "since last year": (dt.date(2025, 1, 1), None),
    "since last month": (dt.date(2026, 10, 1), None),
    "since March": (dt.date(2026, 3, 1), None),
    "in December": (dt.date(2025, 12, 1), dt.date(2025, 12, 31)),
    "in May 2023": (dt.date(2023, 5, 1), dt.date(2023, 5, 31)),
    "since Christmas": (dt.date(2025, 12, 25), None),
    "yesterday": (dt.date(2026, 11, 28), TODAY),
    "last year": (dt.date(2025, 1, 1), dt.date(2025, 12, 31)),
}


def test_relative_windows_named_without_a_date():
    for said, (since, until) in WINDOWS.items():
        w = read_window(f"Any visits {said}?", TODAY)
        assert w is not None and (w.since, w.until) == (since, until), said


PHRASES = sorted(
    [p for p in WINDOWS if not any(ch.isdigit() for ch in p)]
    + [f"{w} {s}" for w in ("since the", "last", "in the", "during") for s in SEASONS]
    + [f"in {m}" for m in ("january", "june", "november", "december")]
)


@given(st.dates(min_value=dt.date(2000, 1, 1), max_value=dt.date(2040, 12, 31)), st.sampled_from(PHRASES))
def test_a_named_period_lies_in_the_past_and_is_ordered(today, said):
    w = read_window(f"results {said}", today)
    assert w is not None, said
    assert w.since is None or w.since <= today
    assert w.until is None or (w.until <= today and (w.since is None or w.since <= w.until))


def test_clinician_shorthand_and_abbreviations_reach_their_section():
    cases = {
        "last obs date": "labs",
        "which of my numbers are off": "labs",
        "latest abnormals?": "labs",
        "most recent contact with this pt?": "encounters",
        "Td (adult) imm done?": "immunizations",
        "2019 imms": "immunizations",
        "NKDA?": "allergies",
        "whens my next appt": "appointments",
        "do i have an appt soon": "appointments",
        "checking id: Sarah196 Abernathy989 1975-06-23": "profile",
    }
    for q, section in cases.items():
        assert section in keyword_scores(q), q


def test_operations_in_lay_words_and_shorthand():
    cases = {
        "# of total cholesterol results": "count",
        "whats my height been doing": "trend",
        "which of my numbers are off": "range",
        "LDL cholesterol trending up since last?": "change",
        "baseline hemoglobin A1c": "earliest",
        # the window's own words are not the operation (part A): "since last year" asks for the
        # values in that window, not "the last" one
        "What is my weight since last year?": "list",
    }
    for q, operation in cases.items():
        assert read_request(q, TODAY).operation == operation, q


def test_number_sign_shorthand_only_before_of():
    assert normalise("# of visits") == "number of visits"
    assert "number" not in normalise("Leukocytes [#/volume] in Blood")


def test_what_is_taken_for_a_condition_in_the_record_is_not_a_how_to_question():
    vocab = Vocabulary({"conditions": ["Acute bacterial sinusitis (disorder)"]})
    p = Planner(ALL_TOOLS).plan("what do i take for my acute bacterial sinusitis", [], TODAY, vocab)
    assert not p.leaflet_probe and [c.name for c in p.calls] == ["get_medications"]
    assert Planner(ALL_TOOLS).plan("What should I bring for my MRI?", [], TODAY, vocab).leaflet_probe
