"""Linking words to concepts, time windows and operations: the typed request's parts."""

from __future__ import annotations

import datetime as dt

from hypothesis import given
from hypothesis import strategies as st

from agent.offline.link import Vocabulary, link
from agent.offline.plan import STOP
from agent.offline.request import read_request
from agent.offline.windows import read_window
from agent.text import normalise

VOCAB = Vocabulary(
    {
        "medications": [
            "24 HR Metformin hydrochloride 500 MG Extended Release Oral Tablet",
            "120 ACTUAT Fluticasone propionate 0.044 MG/ACTUAT Metered Dose Inhaler",
            "atorvastatin 40 MG Oral Tablet",
        ],
        "conditions": ["Essential hypertension (disorder)", "Streptococcal sore throat (disorder)"],
        "labs": ["Hemoglobin A1c/Hemoglobin.total in Blood", "Body Weight"],
        "allergies": ["Peanut (substance)"],
    }
)
TODAY = dt.date(2026, 11, 29)


def concepts(question: str) -> list[tuple[str, str, tuple[str, ...], bool]]:
    found = link(normalise(question), VOCAB, STOP)
    return [(c.section, c.name, c.queries, c.in_record) for c in found.concepts]


def test_pronouns_and_fillers_are_never_concepts():
    assert concepts("Is she taking metformin right now?") == [
        ("medications", "metformin", ("metformin",), True)
    ]
    assert link(normalise("So um is he still on it at the moment?"), VOCAB, STOP).concepts == []


def test_classes_brands_lay_words_and_typos_link_to_the_records_own_names():
    assert concepts("What inhalers is she on?")[0][2] == ("fluticasone",)
    assert concepts("Is she on a statin?")[0][2] == ("atorvastatin",)
    assert concepts("Is she taking Glucophage?")[0][1:] == ("metformin", ("metformin",), True)
    assert concepts("Am I taking metfromin?")[0][1:] == ("metformin", ("metformin",), True)
    assert concepts("Do I have high blood pressure?")[0][:2] == ("conditions", "hypertension")
    assert concepts("what's my sugar test")[0][:2] == ("labs", "HbA1c")


def test_the_records_own_multiword_name_wins_over_a_broader_lexicon_word():
    assert concepts("Do I still have streptococcal sore throat?")[0][:2] == (
        "conditions",
        "streptococcal sore throat",
    )


def test_an_unknown_word_is_unlinked_not_a_filter():
    found = link(normalise("What medications am I taking for my zorblax?"), VOCAB, STOP)
    assert found.concepts == [] and "zorblax" in found.unlinked


def test_a_drug_absent_from_the_record_is_still_a_recognised_concept():
    (section, name, _queries, in_record), *_ = concepts("Is he taking simvastatin?")
    assert (section, name, in_record) == ("medications", "simvastatin", False)


def test_windows_from_the_issue():
    assert read_window("HbA1c trend since 2020", TODAY) == read_window("since 2020", TODAY)
    assert read_window("since 2020", TODAY).since == dt.date(2020, 1, 1)
    w = read_window("labs in the past 24 hours", TODAY)
    assert (w.since, w.until) == (dt.date(2026, 11, 28), TODAY)
    w = read_window("what happened between 3 and 9 December", TODAY)
    assert (w.since, w.until) == (dt.date(2025, 12, 3), dt.date(2025, 12, 9))  # the past December
    w = read_window("visits in the last 6 months", TODAY)
    assert (w.since, w.until) == (dt.date(2026, 5, 29), TODAY)
    assert read_window("what is my weight", TODAY) is None


@given(st.integers(min_value=1, max_value=60), st.sampled_from(["days", "weeks", "months", "years"]))
def test_last_n_units_always_ends_today_and_starts_before_it(n, unit):
    w = read_window(f"results in the last {n} {unit}", TODAY)
    assert w is not None and w.until == TODAY and w.since < TODAY


def test_operations():
    cases = {
        "What was my highest weight ever?": "max",
        "Show me the HbA1c trend since 2020": "trend",
        "How many times has my BMI been measured?": "count",
        "Is my latest creatinine above the normal range?": "range",
        "Summarise the last encounter": "summary",
        "What was my average glucose in 2023?": "mean",
        "Any drug-allergy contraindications?": "conflict",
        "What medications am I taking right now?": "latest",
    }
    for question, operation in cases.items():
        assert read_request(question, TODAY).operation == operation, question
