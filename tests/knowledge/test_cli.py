"""The knowledge commands as a user runs them (against the test database)."""

from __future__ import annotations

import shutil

import pytest
from typer.testing import CliRunner

from chartside import cli
from knowledge.leaflet_store import SHIPPED_LEAFLETS


@pytest.fixture(scope="module")
def built():
    return cli.build()  # registers every package's commands once


@pytest.fixture()
def app(built, monkeypatch, settings):
    monkeypatch.setattr("knowledge.cli.get_settings", lambda: settings)
    return built


def test_ingest_reports_a_bad_file_by_name_and_fails(app, clean_db, tmp_path):
    shutil.copy(SHIPPED_LEAFLETS / "statins.md", tmp_path / "statins.md")
    (tmp_path / "scan.pdf").write_bytes(b"%PDF-1.4\n%%EOF\n")
    result = CliRunner().invoke(app, ["leaflets", "ingest", str(tmp_path)])
    assert result.exit_code == 1
    assert "scan.pdf" in result.output and "1 added, 1 failed" in result.output
    again = CliRunner().invoke(app, ["leaflets", "ingest", str(tmp_path)])
    assert "1 unchanged" in again.output


def test_eval_retrieval_prints_metrics_and_the_floor(app, leaflets):
    result = CliRunner().invoke(app, ["eval", "retrieval", "--notes", "0", "--no-show-misses"])
    assert result.exit_code == 0, result.output
    assert "hit@1" in result.output and "MRR" in result.output
    assert "unanswerable (best passage)" in result.output
    assert "Note retrieval" not in result.output  # --notes 0: none asked for


def test_leaflet_search_command_shows_no_passage_for_out_of_scope(app, leaflets):
    result = CliRunner().invoke(app, ["leaflets", "search", "What is the capital of Australia?"])
    assert result.exit_code == 0 and "no leaflet passage clears the gate" in result.output


def test_reindex_moves_everything_to_the_current_model(built, monkeypatch, clean_db, embedder, tmp_path):
    from sqlalchemy import text

    from knowledge.leaflet_store import ingest_leaflets
    from tests.conftest import test_settings

    shutil.copy(SHIPPED_LEAFLETS / "statins.md", tmp_path / "statins.md")
    monkeypatch.setattr("knowledge.cli.get_settings", lambda: test_settings(leaflets_dir=tmp_path))
    ingest_leaflets(clean_db, embedder, tmp_path)
    with clean_db.admin.begin() as conn:  # as if indexed by a previous model
        conn.execute(text("UPDATE leaflet_chunks SET embedding_model = 'old/model'"))
    result = CliRunner().invoke(built, ["knowledge", "reindex"])
    assert result.exit_code == 0, result.output
    with clean_db.admin.connect() as conn:
        models = conn.execute(text("SELECT DISTINCT embedding_model FROM leaflet_chunks")).scalars().all()
    assert models == [embedder.model_name]
