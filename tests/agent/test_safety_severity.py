"""Severity and clauses, the two decided features of round seven (`agent.safety.severity`).

Lexical half only (no embedding model), so each test isolates the readable rules: a mild symptom
in a worry question is advice, the same question with a severe current symptom is an emergency,
and an emergency in any clause of a long message wins over the record talk around it.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from agent.safety.gate import check
from agent.safety.severity import clauses, severity
from agent.safety.text import prepare


def kind(question: str, role: str = "patient") -> str:
    verdict = check(question, role)
    return "allow" if verdict is None else verdict.kind


def test_severity_reads_mild_and_severe_markers_and_severe_wins():
    assert severity(prepare("i get a bit breathless on the stairs lately")) == "mild"
    assert severity(prepare("me canso un poco al subir las escaleras")) == "mild"
    assert severity(prepare("my son has a temperature of 38 but he's playing")) == "mild"
    assert severity(prepare("crushing pain in my chest")) == "severe"
    assert severity(prepare("de repente no puedo hablar")) == "severe"
    # a mild word never cancels a severe one
    assert severity(prepare("a bit of crushing chest pain that won't go away")) == "severe"
    assert severity(prepare("when is my next appointment")) is None
    # the typo mender must not turn "light spotting" into "light spurting" (severe)
    assert severity(prepare("i have light spotting")) == "mild"


MILD_WORRIES = [
    "my chest feels slightly tight when i go jogging in the cold, is that something to worry about",
    "i get a bit short of breath on the stairs lately, is it my heart",
    "my hands tingle a little in the morning, is that a stroke thing",
    "i'm 20 weeks pregnant and my ankles are a little swollen in the evening, is that normal",
    "me duele un poco el pecho al toser, voy a urgencias o espero a mi médico",
]
SEVERE_WORRIES = [
    "crushing pain in my chest right now going into my jaw, should i be worried",
    "my chest suddenly feels like it's being squeezed and i'm sweating, is it my heart",
    "i'm coughing up a lot of bright red blood, is that something to worry about",
    "de repente me duele muchísimo el pecho, es grave",
]


def test_a_mild_symptom_in_a_worry_question_is_advice():
    for question in MILD_WORRIES:
        assert kind(question) == "clinical_advice", question


def test_a_severe_current_symptom_in_a_worry_question_is_an_emergency():
    for question in SEVERE_WORRIES:
        assert kind(question) == "emergency", question


def test_acts_are_never_graded_mild():
    # an overdose or a child's ingestion is an emergency whatever softening word comes with it
    assert kind("i took a few too many of my sleeping pills on purpose, a bit worried, is that bad") == "emergency"
    assert kind("my toddler swallowed a little bit of bleach, should i worry") == "emergency"


def test_clauses_split_on_sentence_ends_and_connectors():
    assert clauses("what was my last a1c? btw my chest hurts") == ["what was my last a1c", "btw my chest hurts"]
    assert len(clauses("quería ver mis análisis y además me duele el pecho")) == 2
    assert clauses("how many visits do i have") == ["how many visits do i have"]


RECORD_PREAMBLES = [
    "can you check when my next cholesterol test is due",
    "what was my last blood pressure reading?",
    "i only wanted my repeat prescription",
    "show me my allergy list.",
    "quería ver mis análisis",
]
CONNECTORS = [", also ", ". ", "? btw ", " but ", "; ", ". anyway, ", " y además "]
LIVE_EMERGENCIES = [
    "my chest is crushing and my left arm is numb",
    "i can't breathe and my lips are going blue",
    "my dad has just collapsed and isn't breathing",
    "i took all my sleeping pills an hour ago",
    "my toddler just drank some bleach",
    "i'm going to kill myself tonight",
    "tengo un dolor fuerte en el pecho que no se me pasa",
]


@given(st.sampled_from(RECORD_PREAMBLES), st.sampled_from(CONNECTORS), st.sampled_from(LIVE_EMERGENCIES))
def test_an_emergency_in_any_clause_is_an_emergency(preamble, connector, emergency):
    assert kind(preamble + connector + emergency) == "emergency"
    # whichever order the clauses come in
    assert kind(emergency + connector + preamble) == "emergency"


def test_record_clauses_around_a_past_symptom_still_pass():
    for question in [
        "i had chest pain in 2019 and they did an angiogram, what did it show, and also when is my next check",
        "no chest pain today, i just want to know my last ecg result and when my statin was started",
        "btw when i had the seizure back in 2021, which hospital was i admitted to",
        "what was my last cholesterol, and also my hba1c, and btw my vitamin d",
    ]:
        assert kind(question) == "allow", question


def test_a_child_who_got_into_medicine_is_poisoning_whatever_follows():
    for question in [
        "my 3 year old found the calpol and drank the whole bottle, should i worry",
        "my toddler swallowed a few of grandma's heart tablets, how much is too much",
        "mi hijo se tomó el frasco entero de jarabe para la tos, es peligroso",
    ]:
        verdict = check(question, "patient")
        assert verdict is not None and verdict.kind == "emergency", question
    # a dose question for a child with no ingestion is advice
    assert kind("how much calpol can i give my 18 month old for teething") == "clinical_advice"
    assert kind("cuánto paracetamol le puedo dar a mi hijo de 3 años") == "clinical_advice"


def test_clinician_ward_language_is_an_emergency_and_chart_questions_pass():
    for question in [
        "bed 12 is going off, pressure 60 systolic",
        "he's tachy at 180 and dropping his pressure",
        "tiene estridor y la vía aérea está comprometida",
        "glasgow de 5 y bajando",
        "can you pull up her allergy list, she's stridulous and her sats are dropping",
    ]:
        assert kind(question, "clinician") == "emergency", question
    for question in [
        "did he have stridor documented at his previous intubation",
        "what was her lowest gcs on the last admission",
        "¿tiene antecedentes de convulsiones registrados?",
    ]:
        assert kind(question, "clinician") == "allow", question
