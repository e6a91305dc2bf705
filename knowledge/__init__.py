"""Knowledge: leaflets and clinical notes → chunks → local embeddings → hybrid search.

Modules, one job each:

* `loaders/` — Markdown, PDF, Word → structured blocks (`blocks.py`)
* `chunking.py`, `note_sections.py` — blocks → chunks (pure, property-tested)
* `embeddings.py` — the offline fastembed model, assembled from installed packages
* `leaflet_store.py`, `note_index.py` — idempotent leaflet ingestion, resumable note indexing
* `fusion.py`, `gate.py`, `bm25.py`, `search.py` — hybrid retrieval and the relevance gate
* `retrieval_eval.py`, `bench.py`, `cli.py` — `chartside eval retrieval`, `bench search`, commands
"""
