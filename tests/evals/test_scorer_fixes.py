"""Each way the old scorer could be fooled (issue 15), as a case the scorer now refuses.

Every test here failed against the scorer on `main` before the fix: the answer's value
anywhere, yes/no from anywhere, phrases in the background block, empty answers, invented
set items, the ±0.05 floor, and a value buried in hundreds of cited rows.
"""

from __future__ import annotations

import datetime as dt

from hypothesis import given
from hypothesis import strategies as st

from evals.model import (
    AbstainAnswer,
    BooleanAnswer,
    DateAnswer,
    GoldRecord,
    Item,
    NumberAnswer,
    Question,
    SetAnswer,
)
from evals.questions.facts import number_tolerance
from evals.scoring import Answer, grade

NOW = dt.datetime(2025, 6, 1, 12, tzinfo=dt.UTC)


def q(expected, category="latest_first", template="t", about=(), gold=()) -> Question:
    return Question(
        id="q1",
        pair_id="p1",
        patient_id="pat",
        role="patient",
        category=category,
        template=template,
        turns=("question?",),
        expected=expected,
        gold=gold,
        now=NOW,
        explanation="test",
        about=about,
    )


def number(value: float, tolerance: float = 0.05) -> NumberAnswer:
    return NumberAnswer(value=value, unit="mg/dL", tolerance=tolerance)


# -- the value comes from the sentence that answers ------------------------------------------


def test_another_rows_value_is_not_the_answer():
    result = grade(q(number(77)), Answer("Your latest is 138.6; the previous was 77."))
    assert result.verdict == "wrong" and result.utility == -1


def test_a_reference_range_is_not_the_value():
    answer = Answer("Your latest glucose is 104 mg/dL (reference 70–99).")
    assert grade(q(number(99)), answer).verdict == "wrong"
    assert grade(q(number(104)), answer).verdict == "correct"


def test_the_sentence_naming_what_was_asked_answers():
    answer = Answer("Your HDL was 52 mg/dL. Your LDL cholesterol was 131 mg/dL.")
    assert grade(q(number(131), about=("LDL cholesterol",)), answer).verdict == "correct"
    assert grade(q(number(52), about=("LDL cholesterol",)), answer).verdict == "wrong"


def test_a_header_count_is_not_a_measurement_but_answers_a_count():
    answer = Answer("Results matching 'A1C', newest first (4):\n- Hemoglobin A1c 6.1 % (2025-03-01) [L1]")
    assert grade(q(number(4, 0.0436)), answer).verdict == "wrong"  # 6.1 is what it states
    count = NumberAnswer(value=4, tolerance=0, count=True)
    assert grade(q(count, "aggregate"), answer).verdict == "correct"


def test_a_hedge_between_values_is_not_an_answer():
    assert grade(q(number(7.2, 0.07)), Answer("It was 7.2 or maybe 7.9.")).verdict == "unclear"


def test_the_diastolic_part_of_a_pressure():
    answer = Answer("Your blood pressure was 110/79 mm[Hg] on 2025-07-15.")
    assert grade(q(number(79, 0.79), about=("diastolic blood pressure",)), answer).verdict == "correct"
    assert grade(q(number(110, 1.1), about=("diastolic blood pressure",)), answer).verdict == "wrong"


def test_the_first_date_of_the_answering_sentence():
    expected = DateAnswer(value=dt.date(2021, 3, 4))
    assert (
        grade(
            q(expected, "lookup"), Answer("Your last visit was on 2024-05-01; before that 2021-03-04.")
        ).verdict
        == "wrong"
    )
    assert grade(q(expected, "lookup"), Answer("It was 4 March 2021.")).verdict == "correct"


# -- only the answer part: no banner, no background --------------------------------------------


BACKGROUND = "Offline mode (answered from the record without the AI model):\n\nResults (0).\n\nBackground (not the answer):\n"


def test_a_value_in_the_background_only_is_no_answer():
    answer = Answer(BACKGROUND + "- Glucose 104 mg/dL (2025-01-01) [L1]")
    assert grade(q(number(104)), answer).verdict != "correct"


def test_yes_or_no_in_the_background_is_not_read():
    answer = Answer(BACKGROUND + "No allergies or intolerances are recorded.")
    assert grade(q(BooleanAnswer(value=False), "negation"), answer).verdict != "correct"


def test_an_abstention_in_the_background_is_not_an_abstention():
    answer = Answer(
        "Your HbA1c was 6.1 %.\n\nBackground (not the answer):\nThere is no record of a flu vaccine."
    )
    result = grade(q(AbstainAnswer(missing="an HbA1c result"), "negation"), answer)
    assert result.verdict == "wrong"


# -- yes/no from the opening verdict, and the rest must not contradict it ------------------------


def test_yes_then_a_fall_is_not_a_rise():
    result = grade(
        q(BooleanAnswer(value=True), "trend", "rose_since_previous"), Answer("Yes. It went from 95 to 60.")
    )
    assert result.verdict == "unclear"
    assert (
        grade(
            q(BooleanAnswer(value=True), "trend", "rose_since_previous"),
            Answer("Yes. It went from 60 to 95."),
        ).verdict
        == "correct"
    )


AIM = "For glucose a lower value is usually the aim (70–99 mg/dL fasting; source: ADA 2024)."


def test_the_aim_of_a_test_is_not_the_change_it_made():
    """Round fifteen: "a lower value is usually the aim" read as a fall turned a right "Yes."
    (the change stated: up 29.3) into "unclear"; a yes with a fall stated is still unclear, and
    a no is still wrong."""
    rose = q(BooleanAnswer(value=True), "trend", "rose_since_last_year")
    up = "Glucose: 100.9 mg/dL on 2026-08-09 [L1] against 71.6 mg/dL on 2025-08-04 [L2]: up 29.3 mg/dL. "
    down = "Glucose: 71.6 mg/dL on 2026-08-09 [L1] against 100.9 mg/dL on 2025-08-04 [L2]: down 29.3 mg/dL. "
    assert grade(rose, Answer("Yes. " + up + AIM)).verdict == "correct"
    assert grade(rose, Answer("Yes. " + down + AIM)).verdict == "unclear"
    assert grade(rose, Answer("No. " + down + AIM)).verdict == "wrong"
    assert grade(rose, Answer("Yes. It went down by 2 mg/dL. " + AIM)).verdict == "unclear"


def test_yes_then_no_is_a_hedge():
    answer = Answer("Yes, you are on warfarin. No, actually it was stopped in 2020.")
    assert grade(q(BooleanAnswer(value=True), "negation"), answer).verdict == "unclear"


# -- abstention: the marker, and the product's own wordings -------------------------------------


ABSENT = AbstainAnswer(missing="HPV vaccination", section="immunizations")


def test_the_products_abstentions_are_correct_abstentions():
    for text in (
        "No immunizations matching 'HPV' in the record.",
        "Your record has no HPV vaccination.",
        "You have never had the HPV vaccine.",
    ):
        assert grade(q(ABSENT, "negation", about=("HPV",)), Answer(text)).verdict == "correct", text


def test_the_marker_needs_a_search_of_the_right_section():
    asked = q(ABSENT, "negation", about=("HPV",))
    looked = Answer("Nothing found.", abstained=True, searched=("get_immunizations",))
    assert grade(asked, looked).verdict == "correct"
    blind = Answer("I can't tell from the record.", abstained=True)
    assert grade(asked, blind).verdict == "abstained"
    elsewhere = Answer("Nothing found.", abstained=True, searched=("get_labs",))
    assert grade(asked, elsewhere).verdict == "abstained"


def test_a_generic_not_found_does_not_name_what_is_missing():
    assert (
        grade(q(ABSENT, "negation", about=("HPV",)), Answer("There is no record of that.")).verdict
        == "abstained"
    )


def test_the_marker_overrides_the_words():
    # the agent says it answered: words that sound like "not found" are not an abstention
    answer = Answer("No results matching 'A1C' before 2020; your latest is 7.9 %.", abstained=False)
    assert grade(q(number(6.1, 0.06)), answer).verdict == "wrong"


# -- an empty answer is no answer --------------------------------------------------------------


def test_an_empty_answer_is_no_answer_not_wrong():
    for expected in (number(5), DateAnswer(value=dt.date(2020, 1, 1)), ABSENT, BooleanAnswer(value=True)):
        result = grade(q(expected), Answer("   "))
        assert result.verdict == "no_answer" and result.utility == 0


# -- sets: an invented item costs --------------------------------------------------------------


MEDS = SetAnswer(
    items=(
        Item(label="Metformin 500 MG", aliases=("metformin",)),
        Item(label="Lisinopril 10 MG", aliases=("lisinopril",)),
    )
)


def test_an_invented_item_costs():
    exact = grade(q(MEDS, "list"), Answer("- metformin\n- lisinopril"))
    padded = grade(q(MEDS, "list"), Answer("- metformin\n- lisinopril\n- warfarin\n- digoxin"))
    assert exact.verdict == "correct" and exact.credit == 1
    assert padded.verdict == "partial" and padded.credit < 1 and padded.utility <= 0


@given(st.integers(min_value=0, max_value=40))
def test_more_invented_items_never_score_better(extra):
    lines = ["metformin", "lisinopril", *[f"drug number {i}" for i in range(extra)]]
    more = grade(q(MEDS, "list"), Answer("\n".join(f"- {line}" for line in [*lines, "made up item"])))
    fewer = grade(q(MEDS, "list"), Answer("\n".join(f"- {line}" for line in lines)))
    assert more.credit <= fewer.credit and more.utility <= fewer.utility


def test_an_invented_item_in_prose_costs():
    result = grade(q(MEDS, "list"), Answer("You take metformin, lisinopril and warfarin."))
    assert result.verdict == "partial"


# -- tolerance is relative and follows the analyte's printed precision --------------------------


def test_creatinine_tolerance_is_not_eight_percent():
    tol = number_tolerance(0.62, printed=[0.62, 0.71])
    assert tol < 0.01
    assert grade(q(number(0.62, tol)), Answer("Your creatinine is 0.67 mg/dL.")).verdict == "wrong"
    assert grade(q(number(0.62, tol)), Answer("Your creatinine is 0.62 mg/dL.")).verdict == "correct"


@given(st.floats(min_value=0.01, max_value=1000, allow_nan=False))
def test_tolerance_is_relative(value):
    tol = number_tolerance(value, printed=[value])
    assert abs(value) * 0.01 - 1e-6 <= tol <= abs(value) * 0.05 + 1e-6


# -- citing every row is not answering ----------------------------------------------------------


def test_a_value_among_hundreds_of_cited_rows_is_not_correct():
    gold = (GoldRecord(kind="observation", id="o1"),)
    handles = {f"observation:o{i}": (f"L{i}",) for i in range(1, 300)}
    text = "\n".join(f"- Glucose {100 + i} mg/dL [L{i}]" for i in range(1, 300))
    answer = Answer(text, cited=frozenset(handles), handles=handles)
    result = grade(q(number(101), gold=gold), answer)
    assert result.verdict == "unclear" and result.credit == 0 and result.utility == 0
    few = {k: v for k, v in handles.items() if int(k.split(":o")[1]) <= 10}
    ten = Answer(
        "\n".join(f"- Glucose {100 + i} mg/dL [L{i}]" for i in range(1, 11)),
        cited=frozenset(few),
        handles=few,
    )
    assert grade(q(number(101), gold=gold), ten).verdict == "partial"
    one = Answer(
        "- Glucose 101 mg/dL [L1]", cited=frozenset({"observation:o1"}), handles={"observation:o1": ("L1",)}
    )
    assert grade(q(number(101), gold=gold), one).verdict == "correct"


def test_i_dont_know_is_not_a_no():
    for abstained in (True, None):
        answer = Answer("I don't know.", abstained=abstained)
        assert grade(q(BooleanAnswer(value=False), "negation"), answer).verdict == "abstained"
