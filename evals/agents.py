"""Building the agent under evaluation exactly as the server does (`agent.runner.build_agent`).

`offline` forces the deterministic planner even when a key is configured; `claude` requires a
key (or an ANTHROPIC_BASE_URL pointing at a compatible endpoint) and refuses to fall back to
the planner silently, so a run labelled "claude" is never secretly offline. The baselines
(`dump`, `always-no`, `abstain`, `first-row`, see `evals.baselines`) are the floor a report
shows beside the agent under test.
"""

from __future__ import annotations

from typing import Any, Literal

from records.database import Database
from records.settings import Settings

AgentKind = Literal["offline", "claude", "dump", "always-no", "abstain", "first-row"]
AGENT_KINDS: tuple[str, ...] = ("offline", "claude", "dump", "always-no", "abstain", "first-row")


class AgentUnavailable(RuntimeError):
    """The requested agent cannot be built here; the message says why and what to do."""


def load_embedder(settings: Settings) -> Any:
    """The search tools' embedding model, through the one loader
    (`knowledge.embeddings.load_embedder`); None only when the knowledge package is absent."""
    try:
        from knowledge.embeddings import load_embedder as load
    except ImportError:
        return None
    try:
        return load(settings)
    except (
        Exception
    ) as exc:  # EmbeddingSetupError: the run stops, a missing file must not look like a bad answer
        raise AgentUnavailable(f"the embedding model could not be loaded: {exc}") from exc


def build_eval_agent(
    kind: AgentKind, settings: Settings, db: Database, *, embedder: Any = None, model_client: Any = None
) -> Any:
    try:
        from agent.runner import build_agent, default_registry
    except ImportError as exc:
        raise AgentUnavailable(f"the agent package is not installed on this branch ({exc})") from exc
    if kind not in ("offline", "claude"):
        from evals.baselines import build_baseline

        return build_baseline(kind, default_registry(), db, embedder=embedder)
    if kind == "claude" and model_client is None and settings.offline:
        raise AgentUnavailable("--agent claude needs ANTHROPIC_API_KEY (set it in the environment or .env)")
    return build_agent(
        settings, db, embedder=embedder, model_client=model_client, force_offline=kind == "offline"
    )


def note_indexer(embedder: Any):
    """Index a planted note the way ingestion's note pass does, so note search can find it."""
    if embedder is None:
        return None
    try:
        from knowledge.note_index import NoteIndexReport, index_patient
    except ImportError:
        return None

    def index(conn: Any, patient_id: str) -> None:
        index_patient(conn, embedder, patient_id, NoteIndexReport())

    return index


def judge_client(settings: Settings) -> Any:
    """The project's Anthropic client (agent.llm), for `--judge claude`."""
    if settings.offline:
        raise AgentUnavailable("--judge claude needs ANTHROPIC_API_KEY (set it in the environment or .env)")
    try:
        from agent.llm import ModelClient
    except ImportError as exc:
        raise AgentUnavailable(f"the agent package is not installed on this branch ({exc})") from exc
    return ModelClient.from_settings(settings)
