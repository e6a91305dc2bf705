"""The emergency classifier: a deterministic fit, cached on disk, that generalises past its exemplars."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent.safety import classifier as clf_module
from agent.safety.classifier import Hyper, emergency_classifier, fit_logistic
from agent.safety.semantic import Exemplar, ExemplarIndex


def _index(seed: int, n: int = 60, dim: int = 16) -> ExemplarIndex:
    """Exemplars in two clusters: emergencies around +d, the rest around -d."""
    rng = np.random.default_rng(seed)
    direction = rng.normal(size=dim)
    labels = ["emergency" if i % 3 == 0 else ("advice" if i % 3 == 1 else "allow") for i in range(n)]
    vectors = np.array(
        [(1 if lab == "emergency" else -1) * direction + rng.normal(size=dim) for lab in labels]
    )
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return ExemplarIndex(
        [Exemplar(f"line {i}", lab, "c", "patient") for i, lab in enumerate(labels)], vectors
    )


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10_000))
def test_the_fit_is_deterministic_and_separates_its_training_lines(seed):
    index = _index(seed)
    y = (index.labels == "emergency").astype(float)
    w1, b1 = fit_logistic(index.vectors, y, Hyper(iterations=300))
    w2, b2 = fit_logistic(index.vectors, y, Hyper(iterations=300))
    assert np.array_equal(w1, w2) and b1 == b2
    predicted = index.vectors @ w1 + b1 > 0
    assert (predicted == (y == 1)).mean() >= 0.9


def test_a_malformed_training_set_is_named():
    with pytest.raises(ValueError, match="fit_logistic: x is"):
        fit_logistic(np.zeros((3, 4)), np.zeros(2))


def test_the_weights_are_fitted_once_then_loaded_from_the_cache(tmp_path, monkeypatch):
    index = _index(7)
    first = emergency_classifier(index, "test-model-cache", tmp_path, Hyper(iterations=200))
    [cached] = tmp_path.glob("classifier-*.npz")
    # a new process: the in-memory model is gone, and fitting again would fail the test
    monkeypatch.setattr(clf_module, "_models", {})
    monkeypatch.setattr(clf_module, "fit_logistic", lambda *a, **k: pytest.fail("refitted despite the cache"))
    second = emergency_classifier(index, "test-model-cache", tmp_path, Hyper(iterations=200))
    assert np.array_equal(first.weights, second.weights) and first.bias == second.bias
    assert cached.is_file() and not list(tmp_path.glob("*.partial*"))


def test_another_model_or_hyperparameters_get_their_own_weights(tmp_path):
    index = _index(8)
    emergency_classifier(index, "model-a", tmp_path, Hyper(iterations=100))
    emergency_classifier(index, "model-b", tmp_path, Hyper(iterations=100))
    emergency_classifier(index, "model-a", tmp_path, Hyper(iterations=101))
    assert len(list(tmp_path.glob("classifier-*.npz"))) == 3


def test_the_classifier_scores_a_vector_of_any_length_the_same():
    index = _index(9)
    model = emergency_classifier(index, "test-model-scale", None, Hyper(iterations=200))
    v = index.vectors[0]
    assert model.score(v) == pytest.approx(model.score(5 * v))


def test_the_advice_classifier_learns_advice_from_patient_advice_and_allow_lines_only(tmp_path):
    index = _index(11)
    mask, y = clf_module.advice_rows(index)
    assert set(index.labels[mask]) <= {"advice", "allow"} and set(index.roles[mask]) == {"patient"}
    assert y.sum() == (index.labels == "advice").sum()
    clf_module.emergency_classifier(index, "model-adv", tmp_path, Hyper(iterations=100))
    advice = clf_module.advice_classifier(index, "model-adv", tmp_path, Hyper(iterations=100))
    assert len(list(tmp_path.glob("classifier-*.npz"))) == 1
    assert len(list(tmp_path.glob("advice-classifier-*.npz"))) == 1
    assert advice.threshold == clf_module.ADVICE_THRESHOLD
