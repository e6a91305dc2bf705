"""`chartside up`'s start-up helpers: the model is loaded only when a step embeds something."""

from __future__ import annotations

import pytest

from chartside.up import EmbedderOnDemand, StepClock
from knowledge.embeddings import EmbeddingSetupError
from records.database import Database
from tests.conftest import test_settings as settings_with


def test_nothing_to_embed_never_loads_the_model(db):
    lazy = EmbedderOnDemand(db)
    assert lazy.model_name == db.settings.embedding_model  # what a loaded embedder reports
    assert lazy.embed_passages([]) == []
    assert lazy._embedder is None


def test_something_to_embed_loads_the_real_model(db):
    lazy = EmbedderOnDemand(db)
    vectors = lazy.embed_passages(["Take one tablet by mouth daily."])
    assert lazy._embedder is not None and len(vectors) == 1 and len(vectors[0]) == db.settings.embedding_dim


def test_a_vector_width_the_database_disagrees_with_fails_before_any_step(db):
    wrong = Database(
        settings=settings_with(embedding_dim=db.settings.embedding_dim + 1),
        admin_url=db.admin_url,
        app_url=db.app_url,
    )
    try:
        with pytest.raises(EmbeddingSetupError, match="vector"):
            EmbedderOnDemand(wrong)
    finally:
        wrong.dispose()


def test_the_summary_names_every_step_in_order():
    clock = StepClock()
    for name in ("database", "schema", "app"):
        clock.lap(name)
    summary = clock.summary()
    assert summary.startswith("ready in ")
    assert summary.index("database") < summary.index("schema") < summary.index("app")
