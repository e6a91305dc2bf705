"""The one model table: ids, context window, thinking behaviour and prices, with sources.

Everything that depends on which Claude model answers reads this table: the cost estimate
(`agent.llm.estimate_cost`), settings validation (`ModelConfig.from_settings` refuses an id
that is not here, naming the setting), the thinking configuration and `max_tokens` sizing
(`thinking_request`), the Bedrock model-id mapping, and the contract-checking fake.

Prices are USD per million tokens, read from the model pages of the Claude platform docs
(see `PRICE_SOURCE`) on `PRICES_CHECKED`. They change: update the table, its date, and the
test that pins the default model's price. Cache reads and 5-minute cache writes are priced
per model on those pages (they are not one fixed multiplier for every model: Opus 5.5 reads
at 0.05× input), so each row carries its own.

Bedrock ids follow the documented `anthropic.<first-party id>` pattern (e.g.
`anthropic.claude-sonnet-4-6` in the AWS Bedrock user guide); the exact Bedrock ids of the
5.5 models could not be confirmed from a stored AWS page, so `CHARTSIDE_BEDROCK_MODEL_ID`
overrides the mapping (an inference profile ARN or a regional prefix such as `us.` goes
there). Vertex AI uses the first-party ids in its paths.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

PRICE_SOURCE = (
    "https://platform.claude.com/docs/en/models/sonnet-5-5/overview, "
    ".../models/opus-5-5/overview, .../models/haiku-4-5/overview, "
    ".../about-claude/models/whats-new-opus-5 (model comparison table)"
)
PRICES_CHECKED = "2026-12-01"

# adaptive: thinks by default, can be turned off; adaptive_always: cannot be turned off;
# budget: manual extended thinking only (budget_tokens ≥ 1,024 and < max_tokens)
ThinkingSupport = Literal["adaptive", "adaptive_always", "budget"]


@dataclass(frozen=True)
class ModelInfo:
    id: str
    family: str
    context_window: int
    max_output: int
    thinking: ThinkingSupport
    input_per_mtok: float
    output_per_mtok: float
    cache_write_per_mtok: float  # 5-minute cache write
    cache_read_per_mtok: float
    bedrock_id: str
    note: str = ""


MODELS: dict[str, ModelInfo] = {
    m.id: m
    for m in (
        ModelInfo(
            "claude-sonnet-5-5",
            "sonnet",
            1_000_000,
            128_000,
            "adaptive",
            2.0,
            10.0,
            2.50,
            0.20,
            "anthropic.claude-sonnet-5-5",
            note="default answer model; adaptive thinking on by default (effort high)",
        ),
        ModelInfo(
            "claude-haiku-5-5",
            "haiku",
            1_000_000,
            128_000,
            "adaptive",
            0.10,
            0.50,
            0.125,
            0.01,
            "anthropic.claude-haiku-5-5",
            note="price band for prompts ≤ 100k tokens (our requests are far below it)",
        ),
        ModelInfo(
            "claude-opus-5-5",
            "opus",
            1_000_000,
            128_000,
            "adaptive_always",
            4.0,
            20.0,
            5.0,
            0.20,
            "anthropic.claude-opus-5-5",
            note="thinking cannot be disabled",
        ),
        ModelInfo(
            "claude-sonnet-5",
            "sonnet",
            1_000_000,
            128_000,
            "adaptive",
            2.0,
            10.0,
            2.50,
            0.20,
            "anthropic.claude-sonnet-5",
            note="legacy",
        ),
        ModelInfo(
            "claude-opus-5",
            "opus",
            1_000_000,
            128_000,
            "adaptive",
            5.0,
            25.0,
            6.25,
            0.50,
            "anthropic.claude-opus-5",
            note="legacy",
        ),
        ModelInfo(
            "claude-sonnet-4-6",
            "sonnet",
            1_000_000,
            64_000,
            "adaptive",
            3.0,
            15.0,
            3.75,
            0.30,
            "anthropic.claude-sonnet-4-6",
            note="legacy; Bedrock id from the AWS user guide",
        ),
        ModelInfo(
            "claude-haiku-4-5",
            "haiku",
            200_000,
            64_000,
            "budget",
            1.0,
            5.0,
            1.25,
            0.10,
            "anthropic.claude-haiku-4-5-20251001-v1:0",
            note="legacy; extended thinking only",
        ),
    )
}

DEFAULT_ANSWER_MODEL = "claude-sonnet-5-5"


class UnknownModel(ValueError):
    pass


def model_info(model_id: str) -> ModelInfo:
    """The table row for `model_id` (a Bedrock id resolves to its first-party row)."""
    found = MODELS.get(model_id) or next((m for m in MODELS.values() if m.bedrock_id == model_id), None)
    if found is None:
        raise UnknownModel(
            f"unknown model {model_id!r}; known: {', '.join(MODELS)} (add a row to agent/models.py "
            "with its price, source and date to use another)"
        )
    return found


def bedrock_model_id(model_id: str, override: str | None = None) -> str:
    """The id Bedrock routes on (`/model/<id>/invoke…`): the override, else the table's mapping."""
    return override or model_info(model_id).bedrock_id


# --------------------------------------------------------------------------------------------
# Thinking
# --------------------------------------------------------------------------------------------

ThinkingMode = Literal["auto", "off", "adaptive", "budget"]
ADAPTIVE_ALLOWANCE_TOKENS = 4096  # room for adaptive thinking on top of the answer's own tokens
MIN_BUDGET_TOKENS = 1024  # the API's floor for budget_tokens (SDK: "Must be ≥1024")


@dataclass(frozen=True)
class ThinkingPlan:
    thinking: dict | None  # the request's `thinking` param (None = leave it out)
    max_tokens: int
    mode: str


def thinking_request(
    model_id: str, mode: ThinkingMode, answer_tokens: int, budget_tokens: int
) -> ThinkingPlan:
    """The explicit `thinking` param and a `max_tokens` that leaves `answer_tokens` for the answer.

    `auto` = off where the model allows it (a records reader answers from tool results; thinking
    adds latency and cost), adaptive where it cannot be turned off. Thinking tokens count
    against `max_tokens`, so the answer's share is always added on top of the thinking share.
    """
    info = model_info(model_id)
    if mode == "auto":
        mode = "adaptive" if info.thinking == "adaptive_always" else "off"
    if mode == "off":
        if info.thinking == "adaptive_always":
            raise ValueError(f"{model_id} cannot run with thinking off (CHARTSIDE_THINKING=off)")
        # a model that thinks by default needs it disabled explicitly
        return ThinkingPlan({"type": "disabled"}, answer_tokens, "off")
    if mode == "adaptive":
        if info.thinking == "budget":
            raise ValueError(f"{model_id} supports only budgeted thinking (CHARTSIDE_THINKING=budget)")
        return ThinkingPlan({"type": "adaptive"}, answer_tokens + ADAPTIVE_ALLOWANCE_TOKENS, "adaptive")
    if info.thinking != "budget":
        raise ValueError(
            f"{model_id} rejects budgeted thinking (thinking.type=enabled); use CHARTSIDE_THINKING=adaptive"
        )
    budget = max(budget_tokens, MIN_BUDGET_TOKENS)
    return ThinkingPlan({"type": "enabled", "budget_tokens": budget}, budget + answer_tokens, "budget")
