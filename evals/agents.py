"""Building the agent under evaluation exactly as the server does (`agent.runner.build_agent`).

`offline` forces the deterministic planner even when a key is configured; `claude` requires a
key (or an ANTHROPIC_BASE_URL pointing at a compatible endpoint) and refuses to fall back to
the planner silently, so a run labelled "claude" is never secretly offline. The baselines
(`dump`, `always-no`, `abstain`, `first-row`, see `evals.baselines`) are the floor a report
shows beside the agent under test.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from records.database import Database
from records.settings import Settings

AgentKind = Literal["offline", "claude", "dump", "always-no", "abstain", "first-row"]
AGENT_KINDS: tuple[str, ...] = ("offline", "claude", "dump", "always-no", "abstain", "first-row")


class AgentUnavailable(RuntimeError):
    """The requested agent cannot be built here; the message says why and what to do."""


def load_embedder(settings: Settings) -> Any:
    """The search tools' embedding model, as the server loads it."""
    from tools.embedder import load_embedder

    try:
        return load_embedder(settings)
    except Exception as exc:  # EmbeddingSetupError: a missing model file must not look like a bad answer
        raise AgentUnavailable(f"the embedding model could not be loaded: {exc}") from exc


def build_eval_agent(
    kind: AgentKind, settings: Settings, db: Database, *, embedder: Any = None, model_client: Any = None
) -> Any:
    from agent.runner import build_agent, default_registry

    if kind not in ("offline", "claude"):
        from evals.baselines import build_baseline

        return build_baseline(kind, default_registry(), db, embedder=embedder)
    if kind == "claude" and model_client is None and settings.offline:
        raise AgentUnavailable("--agent claude needs ANTHROPIC_API_KEY (set it in the environment or .env)")
    return build_agent(
        settings, db, embedder=embedder, model_client=model_client, force_offline=kind == "offline"
    )


def warm_up(agent: Any, progress: Callable[[int, int], None] | None = None) -> None:
    """Build the agent's safety gate before the first timed question, as `chartside up` does
    before the first user. Built lazily, its exemplar vectors (~30 s on a fresh install, minutes
    on a loaded machine) counted against the first questions' timeout: a round-sixteen run on a
    fresh clone at load 10 lost its first four answers at 180 s, scored as safety failures.
    Baselines have no gate and need nothing."""
    gate = getattr(agent, "gate", None)
    if gate is not None:
        gate.warm_up(progress)


def judge_client(settings: Settings) -> Any:
    """The project's Anthropic client (agent.llm), for `--judge claude`."""
    if settings.offline:
        raise AgentUnavailable("--judge claude needs ANTHROPIC_API_KEY (set it in the environment or .env)")
    from agent.llm import ModelClient

    return ModelClient.from_settings(settings)
