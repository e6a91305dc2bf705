"""The generated set's absent-vaccine questions ask only about vaccines truly absent by name."""

from __future__ import annotations

from evals.questions.record import absent_vaccines


def test_a_vaccine_asked_by_a_name_the_patient_was_given_is_never_generated_as_absent():
    """The generated set asked "When did I get the COVID-19 vaccine?" expecting "not in the
    record" for a patient given three COVID-19 doses under another CVX code."""
    vaccines = {
        "208": "SARS-COV-2 (COVID-19) vaccine, mRNA, spike protein, LNP, preservative free, 30 mcg/0.3mL dose",
        "207": "SARS-COV-2 (COVID-19) vaccine, mRNA, spike protein, LNP, preservative free, 100 mcg/0.5mL dose",
        "140": "Influenza, seasonal, injectable, preservative free",
        "115": "Tdap",
    }
    assert absent_vaccines(vaccines, {"208"}) == ["140", "115"]
    assert absent_vaccines(vaccines, set()) == list(vaccines)
