"""The one embedder loader and its one failure policy, as every caller sees it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from knowledge.embeddings import EmbeddingSetupError, load_embedder, model_dir
from tests.conftest import test_settings as make_settings


def _broken_model_settings(tmp_path: Path, settings):
    """A model folder whose tokenizer files are real but whose model.onnx is garbage."""
    folder = tmp_path / "broken-model"
    shutil.copytree(model_dir(settings), folder)
    (folder / "model.onnx").write_bytes(b"this is not an ONNX graph")
    return make_settings(embedding_model_dir=folder)


def test_a_model_onnxruntime_refuses_is_a_setup_error_naming_the_fix(tmp_path, settings):
    with pytest.raises(EmbeddingSetupError, match=r"CHARTSIDE_EMBEDDING_MODEL_DIR|make venv"):
        load_embedder(_broken_model_settings(tmp_path, settings))


def test_a_width_the_settings_disagree_with_is_a_setup_error(settings):
    with pytest.raises(EmbeddingSetupError, match=r"384-d vectors but CHARTSIDE_EMBEDDING_DIM is 768"):
        load_embedder(make_settings(embedding_dim=768))


def test_a_folder_without_model_is_a_setup_error(tmp_path):
    with pytest.raises(EmbeddingSetupError, match=r"has no model.onnx"):
        load_embedder(make_settings(embedding_model_dir=tmp_path))


def test_the_loaded_model_is_shared_by_the_process(settings):
    assert load_embedder(settings) is load_embedder(make_settings())


def test_the_database_width_is_checked_when_an_engine_is_given(db, settings):
    embedder = load_embedder(settings, engine=db.admin)
    assert embedder.dimension == 384


@pytest.mark.parametrize(
    "loader",
    ["tools.embedder:load_embedder", "knowledge.embeddings:load_embedder"],
)
def test_no_caller_switches_search_off_silently(tmp_path, settings, loader):
    """Every module goes through the one loader: a broken model stops it with the fix named,
    rather than coming back as None (search off, and the gate's semantic half with it)."""
    module, name = loader.split(":")
    load = getattr(__import__(module, fromlist=[name]), name)
    with pytest.raises(EmbeddingSetupError):
        load(_broken_model_settings(tmp_path, settings))


def test_evaluations_stop_with_the_loaders_message(tmp_path, settings):
    from evals.agents import AgentUnavailable
    from evals.agents import load_embedder as eval_loader

    with pytest.raises(AgentUnavailable, match="could not be loaded"):
        eval_loader(_broken_model_settings(tmp_path, settings))
