"""A second `make run` asks cheaply whether each step has work, and still redoes what changed.

`chartside up` must not pay for the loader, alembic or the document parsers when nothing
changed (`prepare`), but a changed or new bundle must still be ingested and a note without
chunks still indexed: honesty first, speed second.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from chartside.bytecode import compile_in_background, module_sources
from chartside.up import already_ingested, prepare
from fhir_ingest.loader import ingest_paths
from knowledge.note_index import candidate_patients, patients_with_pending_notes
from synthea_data.generator import generate_cohort
from tools.embedder import DeferredEmbedder

HEAVY = ("fhir_ingest.loader", "alembic", "pypdf", "docx", "fastembed", "synthea_data.generator")


def test_importing_up_and_the_leaflet_store_imports_nothing_heavy():
    code = textwrap.dedent(
        f"""
        import sys
        import chartside.up, knowledge.leaflet_store, knowledge.note_index, records.accounts
        print(",".join(m for m in {HEAVY!r} if m in sys.modules))
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ""


@pytest.fixture()
def cohort(clean_db, tmp_path) -> Path:
    folder = tmp_path / "cohort"
    generate_cohort(folder, patients=2, seed=11)
    assert ingest_paths(clean_db, [folder]).ok
    return folder


def test_an_ingested_cohort_is_recognised_and_a_changed_or_new_file_is_not(clean_db, cohort):
    assert already_ingested(clean_db, cohort)
    bundle = next(p for p in sorted(cohort.glob("*.json")) if "Information" not in p.name)
    original = bundle.read_bytes()
    bundle.write_bytes(original.replace(b'"resourceType"', b' "resourceType"', 1))  # same JSON, new bytes
    assert not already_ingested(clean_db, cohort)
    bundle.write_bytes(original)
    assert already_ingested(clean_db, cohort)
    (cohort / "another.json").write_bytes(original.replace(b"{", b"{ ", 1))
    assert not already_ingested(clean_db, cohort)


def test_an_empty_or_missing_folder_is_never_called_ingested(clean_db, tmp_path):
    assert not already_ingested(clean_db, tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    assert not already_ingested(clean_db, tmp_path / "empty")


def test_pending_notes_are_found_per_patient_in_one_transaction(clean_db, cohort):
    patients = candidate_patients(clean_db)
    model = clean_db.settings.embedding_model
    assert sorted(patients_with_pending_notes(clean_db, patients, model)) == sorted(patients)
    assert patients_with_pending_notes(clean_db, patients, "another-model") == sorted(patients)
    assert patients_with_pending_notes(clean_db, [], model) == []


def test_prepare_on_an_unchanged_database_does_nothing_and_says_so(clean_db, cohort, capsys):
    from knowledge.leaflet_store import ensure_leaflets
    from knowledge.note_index import index_notes
    from tools.embedder import load_embedder

    embedder = load_embedder(clean_db.settings)
    ensure_leaflets(clean_db, embedder)
    index_notes(clean_db, embedder)
    prepare(clean_db)  # schema, leaflets, notes: every check finds its work done
    out = capsys.readouterr().out
    assert "schema:" in out and "(upgraded)" not in out
    assert "(re)indexed" not in out and "notes: indexed" not in out


def test_the_deferred_embedder_names_its_model_without_loading_and_loads_on_use(settings):
    deferred = DeferredEmbedder(settings)
    assert deferred.model_name == settings.embedding_model
    vector = deferred.embed_query("blood pressure")
    assert len(vector) == settings.embedding_dim == deferred.dimension


def test_the_deferred_embedder_reports_a_model_that_cannot_load(tmp_path):
    from tests.conftest import test_settings

    broken = test_settings(embedding_model_dir=tmp_path / "no-model-here")
    failures: list[Exception] = []
    DeferredEmbedder(broken).start(on_failure=failures.append).join(60)
    assert len(failures) == 1 and "model" in str(failures[0]).lower()


def test_bytecode_is_written_in_the_background_even_when_python_would_not(tmp_path):
    module = tmp_path / "somemodule.py"
    module.write_text("VALUE = 41 + 1\n")
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    code = (
        "import sys, somemodule; from chartside.bytecode import compile_imported; compile_imported().wait(60)"
    )
    subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env={**env, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])},
        check=True,
        timeout=120,
    )
    cached = list((tmp_path / "__pycache__").glob("somemodule.*.pyc"))
    assert len(cached) == 1


def test_module_sources_lists_source_modules_only():
    import json

    import chartside.bytecode as this

    sources = module_sources([this, json, sys])
    assert Path(this.__file__) in sources and Path(json.__file__) in sources
    assert all(p.suffix == ".py" for p in sources)
    assert compile_in_background([]) is None


class CountingEmbedder:
    """A stand-in model (random unit vectors, its own name so no cache is shared with the
    real one) that counts what it embeds and takes the progress callback as the real one does."""

    model_name = "test-counting-embedder"
    dimension = 384

    def __init__(self, settings) -> None:
        self.settings = settings
        self.passages = 0
        self.rng = np.random.default_rng(7)

    def embed_passages(self, texts, *, progress=None):
        self.passages += len(texts)
        if progress is not None:
            progress(len(texts), len(texts))
        return self.rng.normal(size=(len(texts), self.dimension)).astype(np.float32)

    def embed_query(self, text):
        return self.rng.normal(size=self.dimension).astype(np.float32).tolist()


def test_up_warms_the_safety_gate_once_with_progress_and_a_question_then_embeds_no_exemplar(tmp_path, capsys):
    from agent.safety.gate import SafetyGate
    from agent.safety.semantic import read_exemplars
    from chartside.up import warm_gate
    from tests.conftest import test_settings

    embedder = CountingEmbedder(test_settings(data_dir=tmp_path))
    warm_gate(embedder)
    exemplars = len(read_exemplars())
    assert embedder.passages == exemplars
    assert list((tmp_path / "safety").glob("exemplars-*.npy"))  # the next start reads them
    assert "Preparing the safety check" in capsys.readouterr().err  # the bar showed the wait
    SafetyGate(embedder, embedder.settings).check("what was my last blood pressure", "patient")
    assert embedder.passages == exemplars  # the question found the gate built


def test_the_deferred_embedder_runs_its_follow_up_only_after_a_load_that_worked(settings, tmp_path):
    from tests.conftest import test_settings

    ran: list[str] = []
    DeferredEmbedder(settings).start(then=lambda: ran.append("warm")).join(60)
    broken = test_settings(embedding_model_dir=tmp_path / "no-model-here")
    DeferredEmbedder(broken).start(
        on_failure=lambda _exc: ran.append("failed"), then=lambda: ran.append("x")
    ).join(60)
    assert ran == ["warm", "failed"]
