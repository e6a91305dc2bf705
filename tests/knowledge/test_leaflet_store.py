"""Leaflet ingestion: idempotent by checksum, a changed document replaced whole, failures isolated."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from sqlalchemy import text

from knowledge.embeddings import EmbeddingSetupError, check_dimensions
from knowledge.leaflet_store import SHIPPED_LEAFLETS, ingest_leaflets


def _copy(tmp_path: Path, *names: str) -> Path:
    folder = tmp_path / "leaflets"
    folder.mkdir(exist_ok=True)
    for name in names:
        shutil.copy(SHIPPED_LEAFLETS / name, folder / name)
    return folder


def _chunks(db, slug: str) -> list[tuple]:
    with db.admin.connect() as conn:
        return conn.execute(
            text(
                "SELECT c.seq, c.text FROM leaflet_chunks c JOIN leaflets l ON l.id = c.leaflet_id "
                "WHERE l.slug = :s ORDER BY c.seq"
            ),
            {"s": slug},
        ).all()


def test_ingest_is_idempotent_and_replaces_a_changed_document(clean_db, embedder, tmp_path):
    folder = _copy(tmp_path, "statins.md", "metformin.md")
    first = ingest_leaflets(clean_db, embedder, folder)
    assert sorted(o.status for o in first) == ["added", "added"]
    before = _chunks(clean_db, "statins")

    again = ingest_leaflets(clean_db, embedder, folder)
    assert [o.status for o in again] == ["unchanged", "unchanged"]
    assert _chunks(clean_db, "statins") == before

    path = folder / "statins.md"
    path.write_text(
        path.read_text().replace(
            "## Pregnancy", "## Pregnancy and breastfeeding\n\nA brand new paragraph.\n\n"
        )
    )
    changed = {o.slug: o.status for o in ingest_leaflets(clean_db, embedder, folder)}
    assert changed == {"statins": "replaced", "metformin": "unchanged"}
    after = _chunks(clean_db, "statins")
    assert any("A brand new paragraph." in t for _, t in after)
    assert [seq for seq, _ in after] == list(range(len(after)))  # the old chunks are gone, not mixed in
    with clean_db.admin.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM leaflets")).scalar_one() == 2


def test_a_bad_file_is_reported_and_leaves_the_stored_version(clean_db, embedder, tmp_path):
    folder = _copy(tmp_path, "statins.md", "asthma.md")
    ingest_leaflets(clean_db, embedder, folder)
    before = _chunks(clean_db, "asthma")
    (folder / "asthma.md").write_text("---\ntitle: Asthma\nreviewed: someday\n---\n\nBroken now.\n")
    outcomes = {o.slug: o for o in ingest_leaflets(clean_db, embedder, folder)}
    assert outcomes["asthma"].status == "failed" and "reviewed" in outcomes["asthma"].error
    assert outcomes["statins"].status == "unchanged"
    assert _chunks(clean_db, "asthma") == before


def test_two_files_with_the_same_name_are_refused(clean_db, embedder, tmp_path):
    folder = _copy(tmp_path, "statins.md")
    (folder / "sub").mkdir()
    shutil.copy(SHIPPED_LEAFLETS / "statins.md", folder / "sub" / "Statins.md")
    statuses = sorted(o.status for o in ingest_leaflets(clean_db, embedder, folder))
    assert statuses == ["added", "failed"]


def test_prune_removes_leaflets_no_longer_in_the_folder(clean_db, embedder, tmp_path):
    folder = _copy(tmp_path, "statins.md", "asthma.md")
    ingest_leaflets(clean_db, embedder, folder)
    (folder / "asthma.md").unlink()
    outcomes = ingest_leaflets(clean_db, embedder, folder, prune=True)
    assert {o.slug: o.status for o in outcomes} == {"statins": "unchanged", "asthma": "removed"}
    assert _chunks(clean_db, "asthma") == []


def test_missing_folder_is_a_clear_error(db, embedder, tmp_path):
    with pytest.raises(FileNotFoundError, match="not a folder"):
        ingest_leaflets(db, embedder, tmp_path / "nope")


def test_width_mismatch_names_the_columns(db, embedder):
    check_dimensions(db.admin, embedder.dimension, embedder.model_name)  # the real model fits
    with pytest.raises(
        EmbeddingSetupError, match=r"768-d vectors but leaflet_chunks\.embedding is vector\(384\)"
    ):
        check_dimensions(db.admin, 768, "some/other-model")


def test_model_folder_is_assembled_from_installed_packages(settings, tmp_path):
    from knowledge.embeddings import assemble_default_model

    folder = assemble_default_model(tmp_path / "model")
    assert {p.name for p in folder.iterdir()} == {
        "model.onnx",
        "config.json",
        "special_tokens_map.json",
        "tokenizer.json",
        "tokenizer_config.json",
    }
    assert not (tmp_path / "model.partial").exists()


def test_query_and_passage_vectors_are_unit_length_and_comparable(embedder):
    import math

    query = embedder.embed_query("can I eat before my colonoscopy")
    near, far = embedder.embed_passages(
        ["Colonoscopy preparation: clear liquids only the day before", "Parking costs $12 for a day"]
    )
    assert len(query) == embedder.dimension == 384
    assert math.isclose(sum(x * x for x in query), 1.0, rel_tol=1e-3)
    dot = lambda a, b: sum(x * y for x, y in zip(a, b, strict=True))  # noqa: E731
    assert dot(query, near) > dot(query, far) + 0.2


class _BrokenEmbedder:
    """Embeds like the real one, but the vectors have the wrong width: the INSERT fails mid-write."""

    def __init__(self, real):
        self.model_name = real.model_name
        self._real = real

    def embed_passages(self, texts, **kwargs):
        return [v[:-1] for v in self._real.embed_passages(texts)]


def test_a_failed_write_leaves_the_previous_version_whole(clean_db, embedder, tmp_path):
    folder = _copy(tmp_path, "statins.md")
    ingest_leaflets(clean_db, embedder, folder)
    before = _chunks(clean_db, "statins")
    path = folder / "statins.md"
    path.write_text(path.read_text().replace("Grapefruit", "Pomelo"))
    with pytest.raises(Exception, match="dimensions"):
        ingest_leaflets(clean_db, _BrokenEmbedder(embedder), folder)
    assert _chunks(clean_db, "statins") == before  # the delete of the old chunks was rolled back too
    with clean_db.admin.connect() as conn:
        sha = conn.execute(text("SELECT sha256 FROM leaflets WHERE slug = 'statins'")).scalar_one()
    assert sha != hashlib.sha256(path.read_bytes()).hexdigest()  # still the old checksum
