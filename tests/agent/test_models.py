"""The model table: ids the installed SDK knows, prices with a source and date, cost estimates."""

from __future__ import annotations

import datetime as dt

import pytest

from agent.events import Usage
from agent.llm import estimate_cost, sdk_model_ids
from agent.models import DEFAULT_ANSWER_MODEL, MODELS, PRICE_SOURCE, PRICES_CHECKED, UnknownModel, model_info
from records.settings import Settings


def test_every_table_model_is_known_to_the_installed_sdk():
    known = set(sdk_model_ids())
    assert set(MODELS) <= known, f"not in the SDK's Model type: {sorted(set(MODELS) - known)}"


def test_the_default_settings_models_are_in_the_table():
    fields = Settings.model_fields
    assert fields["answer_model"].default == DEFAULT_ANSWER_MODEL
    model_info(fields["answer_model"].default)
    model_info(fields["aux_model"].default)


def test_prices_carry_a_source_and_a_date():
    assert "platform.claude.com" in PRICE_SOURCE
    assert dt.date.fromisoformat(PRICES_CHECKED) <= dt.date.today()


def test_cost_on_the_default_model_uses_its_published_prices():
    # Sonnet 5.5: $2 in, $10 out, $2.50 5-minute cache write, $0.20 cache read per MTok
    usage = Usage(
        input_tokens=1_000_000,
        output_tokens=100_000,
        cache_creation_input_tokens=200_000,
        cache_read_input_tokens=1_000_000,
    )
    assert estimate_cost("claude-sonnet-5-5", usage) == pytest.approx(2.0 + 1.0 + 0.5 + 0.2)


def test_bedrock_ids_resolve_to_the_same_row_and_unknown_ids_have_no_price():
    assert model_info("anthropic.claude-sonnet-5-5").id == "claude-sonnet-5-5"
    assert estimate_cost("claude-unknown-1", Usage(input_tokens=10)) is None
    with pytest.raises(UnknownModel, match=r"agent/models\.py"):
        model_info("gpt-4")
