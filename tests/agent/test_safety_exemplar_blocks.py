"""The nearest-exemplar scores from the per-role label blocks equal a product over every exemplar
(`ExemplarIndex.brute_force_scores`): the same similarity, bit for bit, and the same category,
ties included (the first exemplar of a label in file order wins). Pure: no database, no model."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from agent.safety.semantic import LABELS, Exemplar, ExemplarIndex


@st.composite
def index_and_question(draw):
    n = draw(st.integers(1, 40))
    dim = draw(st.sampled_from([3, 16, 384]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    vectors = rng.standard_normal((n, dim))
    # exact duplicates (a line written twice, or under two labels): equal similarities, a tie
    for _ in range(draw(st.integers(0, n // 2))):
        vectors[draw(st.integers(0, n - 1))] = vectors[draw(st.integers(0, n - 1))]
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    exemplars = [
        Exemplar(
            f"line {i}",
            draw(st.sampled_from(LABELS)),
            draw(st.sampled_from(["a", "b", "c"])),
            draw(st.sampled_from(["patient", "clinician"])),
        )
        for i in range(n)
    ]
    question = draw(st.sampled_from(["random", "an exemplar", "zero"]))
    if question == "an exemplar":
        q = vectors[draw(st.integers(0, n - 1))] * draw(st.floats(0.5, 2.0))
    elif question == "zero":
        q = np.zeros(dim)
    else:
        q = rng.standard_normal(dim)
    return ExemplarIndex(exemplars, vectors), q.tolist()


@settings(max_examples=300, deadline=None)
@given(case=index_and_question(), role=st.sampled_from(["patient", "clinician"]))
def test_the_label_blocks_give_what_a_product_over_every_exemplar_gives(case, role):
    index, q = case
    assert index.scores(q, role) == index.brute_force_scores(q, role)


def test_excluded_exemplars_are_left_out():
    vectors = np.eye(4)
    exemplars = [Exemplar(f"line {i}", "emergency", f"c{i}", "patient") for i in range(4)]
    index = ExemplarIndex(exemplars, vectors)
    exclude = np.array([True, False, False, False])
    assert index.scores([1.0, 0.5, 0, 0], "patient").best["emergency"][1] == "c0"
    assert index.scores([1.0, 0.5, 0, 0], "patient", exclude).best["emergency"][1] == "c1"


def test_the_real_exemplars_give_the_same_scores_both_ways():
    """The shipped exemplars (their cached vectors), questions near and far from them: exemplar
    vectors themselves, blends of two, and their negations."""
    from agent.safety.gate import SafetyGate
    from tests.conftest import test_settings

    _embedder, index = SafetyGate(None, test_settings())._ready()
    assert index is not None
    rng = np.random.default_rng(14)
    rows = index.vectors[rng.choice(len(index.vectors), 300, replace=False)]
    questions = [*rows[:100], *(rows[100:200] + rows[200:300]), *(-rows[:50])]
    for q in questions:
        for role in ("patient", "clinician"):
            assert index.scores(q, role) == index.brute_force_scores(q, role)
