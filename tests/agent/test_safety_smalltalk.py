"""Greetings and small talk never reach the semantic side; one content word makes text ordinary."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent.safety.gate import OPERATING, Evidence, decide
from agent.safety.semantic import SemanticScores
from agent.safety.smalltalk import SMALL_TALK_WORDS, is_small_talk
from agent.safety.text import normalise

GREETING_WORDS = sorted(SMALL_TALK_WORDS)
# words that carry an emergency or a request: none may be small-talk vocabulary
CONTENT = [
    "help",
    "ayuda",
    "pain",
    "duele",
    "pills",
    "pastillas",
    "breathe",
    "respira",
    "die",
    "morir",
    "bleeding",
    "sangre",
    "dose",
    "dosis",
    "stop",
    "everyone",
    "one",
    "care",
    "it",
    "forever",
]


@pytest.mark.parametrize(
    "text",
    [
        "buenos días",
        "Tengo una pregunta",
        "hi there!",
        "thanks, bye",
        "¿hay alguien?",
        "testing 123",
        "ok gracias",
    ],
)
def test_greetings_in_both_languages_are_small_talk(text):
    assert is_small_talk(normalise(text))


@given(
    st.lists(st.sampled_from(GREETING_WORDS), max_size=5),
    st.sampled_from(CONTENT),
    st.lists(st.sampled_from(GREETING_WORDS), max_size=5),
)
def test_one_content_word_makes_text_ordinary(before, word, after):
    assert not is_small_talk(" ".join([*before, word, *after]))


def test_farewells_to_everyone_are_not_small_talk():
    for text in ("goodbye everyone", "i have no one", "bye all", "this is it"):
        assert not is_small_talk(normalise(text)), text


def _evidence(**kw) -> Evidence:
    base = dict(
        lexical_emergency=None,
        suppressed=False,
        lexical_advice=None,
        record_framed=False,
        advice_framed=False,
        record_question=False,
        semantic=SemanticScores(
            {"emergency": (0.5, "suicide"), "advice": (0.6, "dosing"), "allow": (0.5, "x")}
        ),
        emergency_logit=-10.0,
        advice_logit=-10.0,
    )
    return Evidence(**{**base, **kw})


def test_an_emergency_beats_an_advice_request_and_framing_silences_the_classifiers():
    on = replace(OPERATING, advice_threshold=0.0)
    assert decide(_evidence(emergency_logit=5.0, advice_logit=5.0)).kind == "emergency"
    assert decide(_evidence(advice_logit=5.0), on).kind == "clinical_advice"
    assert decide(_evidence(advice_logit=5.0, advice_framed=True), on) is None
    assert decide(_evidence(advice_logit=5.0, record_question=True), on) is None
    # below the similarity floor the advice classifier stays silent
    low = SemanticScores({"emergency": (0.2, "suicide"), "advice": (0.2, "dosing"), "allow": (0.5, "x")})
    assert decide(_evidence(advice_logit=5.0, semantic=low), on) is None
    assert decide(_evidence(advice_logit=5.0)).kind == "clinical_advice"  # shipped: on (round four)
    # a hard negative clearly nearer than any exemplar of the label silences its classifier
    # ("can you help me" sits on a small-talk line, faintly near a suicide one)
    near_allow = SemanticScores(
        {"emergency": (0.40, "suicide"), "advice": (0.45, "dosing"), "allow": (0.95, "small_talk")}
    )
    assert decide(_evidence(emergency_logit=5.0, advice_logit=5.0, semantic=near_allow)) is None
    close = SemanticScores({"emergency": (0.60, "suicide"), "advice": (0.45, "dosing"), "allow": (0.65, "x")})
    assert decide(_evidence(emergency_logit=5.0, semantic=close)).kind == "emergency"
    assert decide(_evidence(emergency_logit=5.0, record_framed=True)) is None
    assert decide(_evidence(emergency_logit=5.0, suppressed=True)) is None
    # the lexical emergency rules win over everything, framing included (they handle it themselves)
    assert decide(_evidence(lexical_emergency="overdose", lexical_advice="dosing")).kind == "emergency"
    # no semantic evidence (small talk, a clinician, no model): classifiers cannot fire
    assert decide(_evidence(semantic=None, emergency_logit=5.0, advice_logit=5.0)) is None
