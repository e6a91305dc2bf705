"""The question inside its wrapping (`agent.discourse.core`): pure, no database, no model."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from agent.discourse import CLOSERS, OPENERS, RECORD_TAIL, core, same_word
from agent.text import bare

QUESTIONS = [
    "do i still take sertraline",
    "did i have strep throat at some point",
    "latest potassium",
    "hx of gout",
    "my chest hurts and i cant breathe",
    "can i double my metformin",
    "what was my last a1c",
]
words = st.lists(
    st.sampled_from(["the", "pain", "a1c", "my", "is", "hi", "thanks", "please", "so", "x"]),
    min_size=1,
    max_size=8,
)


@given(q=st.sampled_from(QUESTIONS), opener=st.sampled_from(OPENERS), closer=st.sampled_from(CLOSERS))
def test_a_wrapped_question_has_the_same_core_as_the_bare_one(q, opener, closer):
    assert core(" ".join(opener) + " " + q + " " + " ".join(closer)) == core(q) == q


@given(words=words)
def test_the_core_is_never_empty_and_peeling_twice_changes_nothing(words):
    text = " ".join(words)
    once = core(text)
    assert once.split() and core(once) == once


def test_a_source_tail_becomes_one_plain_form_whatever_its_spelling():
    for tail in ("going by my chrt", "according to my recrds", "on file", "in her notes", "as per the chart"):
        assert core(bare(f"Um, pt on prednisone {tail}?")) == f"pt on prednisone {RECORD_TAIL}"


def test_mistyped_fillers_are_peeled_too():
    assert core(bare("Srory to bother you but hx of hypothyroidism thhanks?")) == "hx of hypothyroidism"
    assert core(bare("Quick question - h/o metformin use tahnks?")) == "h/o metformin use"


def test_a_word_that_only_looks_like_a_filler_stays():
    # "sorry" alone, a lone "thanks" and a real closing word are the whole text: never peeled
    assert core("thanks") == "thanks" and core("hi") == "hi"
    assert core("my chest hurts so") == "my chest hurts so"  # "so" closes nothing
    assert core("is that what the doctor thinks") == "is that what the doctor thinks"
    assert (
        not same_word("thinks", "thanks") and same_word("thnaks", "thanks") and same_word("thankss", "thanks")
    )


def _brute_force_core(text: str) -> str:
    """`core` as first written: every phrase tried in turn, longest first (the reference)."""
    from agent.discourse import SOURCE_TAILS

    def starts(words, phrase):
        return len(words) > len(phrase) and all(same_word(w, p) for w, p in zip(words, phrase, strict=False))

    def ends(words, phrase):
        return len(words) > len(phrase) and all(
            same_word(w, p) for w, p in zip(words[-len(phrase) :], phrase, strict=True)
        )

    words = text.split()
    changed = True
    while changed:
        changed = False
        for phrase in OPENERS:
            if starts(words, phrase):
                words, changed = words[len(phrase) :], True
                break
    sourced = False
    changed = True
    while changed:
        changed = False
        for phrase in CLOSERS:
            if ends(words, phrase):
                words, changed = words[: -len(phrase)], True
                break
        if changed:
            continue
        for phrase in SOURCE_TAILS:
            if ends(words, phrase):
                words, changed, sourced = words[: -len(phrase)], True, True
                break
    return " ".join(words + RECORD_TAIL.split()) if sourced else " ".join(words)


def _wrapping_words() -> list[str]:
    from agent.discourse import SOURCE_TAILS

    return sorted({w for phrases in (OPENERS, CLOSERS, SOURCE_TAILS) for p in phrases for w in p})


@st.composite
def _slipped(draw):
    """A wrapping word, sometimes with one slip (two letters swapped, one dropped or doubled)."""
    word = draw(st.sampled_from([*_wrapping_words(), "pain", "a1c", "chest", "metformin", "thinks", "recrods"]))
    slip = draw(st.sampled_from(["none", "none", "swap", "drop", "double"]))
    i = draw(st.integers(0, max(0, len(word) - 2)))
    if slip == "swap" and len(word) > 1:
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    if slip == "drop":
        return word[:i] + word[i + 1 :]
    if slip == "double":
        return word[:i] + word[i] + word[i:]
    return word


@given(words=st.lists(_slipped(), max_size=10))
def test_the_core_peels_exactly_what_trying_every_phrase_peels(words):
    text = " ".join(words)
    assert core(text) == _brute_force_core(text)
