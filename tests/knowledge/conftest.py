from __future__ import annotations

import pytest

from knowledge.embeddings import Embedder, get_embedder
from tests.knowledge.helpers import ensure_test_leaflets


@pytest.fixture(scope="session")
def embedder(settings) -> Embedder:
    return get_embedder(settings)


@pytest.fixture()
def leaflets(db, embedder):
    """The shipped corpus, indexed (a no-op when already there and unchanged)."""
    ensure_test_leaflets(db, embedder)
    return db
