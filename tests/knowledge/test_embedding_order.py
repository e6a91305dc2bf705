"""Passages go through the model shortest first (less padding) and come back in the caller's
order: a vector landing on the wrong passage would make search cite the wrong note, silently."""

from __future__ import annotations

import itertools
import threading

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from knowledge.embeddings import Embedder, length_order


@given(st.lists(st.text(max_size=40), max_size=60))
def test_length_order_is_a_stable_shortest_first_permutation(texts):
    order = length_order(texts)
    assert sorted(order) == list(range(len(texts)))
    lengths = [len(texts[i]) for i in order]
    assert lengths == sorted(lengths)
    for a, b in itertools.pairwise(order):  # equal lengths keep the caller's order
        if len(texts[a]) == len(texts[b]):
            assert a < b


class _RecordingModel:
    """A stand-in model: a passage's 'vector' encodes the passage, and batches are recorded."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def passage_embed(self, batch, batch_size):
        self.batches.append(list(batch))
        for text in batch:
            yield np.array([len(text), hash(text) % 1000], dtype=np.float32)


def _embedder(model: _RecordingModel, batch_size: int) -> Embedder:
    embedder = Embedder.__new__(Embedder)  # no ONNX model: the batching is what is under test
    embedder._model, embedder._lock, embedder.batch_size = model, threading.Lock(), batch_size
    return embedder


@given(st.lists(st.text(max_size=30), max_size=50), st.integers(min_value=1, max_value=8))
def test_each_vector_comes_back_on_its_own_passage(texts, batch_size):
    model = _RecordingModel()
    seen: list[tuple[int, int]] = []
    vectors = _embedder(model, batch_size).embed_passage_arrays(
        texts, progress=lambda d, t: seen.append((d, t))
    )
    expected = [[len(t), hash(t) % 1000] for t in texts]
    assert [list(v) for v in vectors] == expected
    assert all(len(b) <= batch_size for b in model.batches)
    flat = [t for b in model.batches for t in b]
    assert [len(t) for t in flat] == sorted(len(t) for t in texts)
    if texts:
        assert seen[-1] == (len(texts), len(texts))


def test_the_real_model_gives_the_same_vectors_in_any_order(embedder):
    texts = [
        "short",
        "a much longer passage about metformin and the HbA1c trend " * 3,
        "mid-length text here",
    ]
    alone = [embedder.embed_passage_arrays([t])[0] for t in texts]
    together = embedder.embed_passage_arrays(texts)
    for a, b in zip(alone, together, strict=True):
        assert np.allclose(a, b, atol=1e-5)
