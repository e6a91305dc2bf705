"""The Claude client — the only module that imports `anthropic`.

Retries live in ONE layer, the SDK's own loop (`max_retries`, backoff, `retry-after`). We
never wrap it in a second loop (that multiplies attempts and hides latency); instead a small
middleware, which the SDK runs once per attempt inside that loop, shapes its decision:

* a spend-limit refusal (429 with `error_code: enforced_spend_limit_reached`, or the 400 "You
  have reached your specified API usage limits") is final — retrying cannot succeed until the
  limit resets, so we fail at once with a message that says so;
* a 429 whose `retry-after` is longer than `max_retry_wait_s` is not waited out in front of a
  user; the error tells them when to try again;
* 529 overloaded is retried at most `overloaded_retries` times (default 1), then a clear
  "the model service is overloaded" error.

Errors reach the rest of the agent only as `ModelFailure` (kind + a message safe to show),
so no other module needs to know the SDK's exception classes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import anthropic
from anthropic import AsyncAnthropic, Middleware

from agent.events import Usage
from records.settings import Settings

SPEND_LIMIT_CODES = frozenset({"enforced_spend_limit_reached"})
SPEND_LIMIT_PHRASES = ("api usage limits", "spend limit", "credit balance is too low")

# USD per million tokens (input, output), by model family. Cache writes cost 1.25× input,
# cache reads 0.1× input (Anthropic's published multipliers for 5-minute caching).
PRICES_PER_MTOK: dict[str, tuple[float, float]] = {
    "opus": (5.0, 25.0),
    "sonnet": (3.0, 15.0),
    "haiku": (1.0, 5.0),
}
CACHE_WRITE_MULTIPLIER = 1.25
CACHE_READ_MULTIPLIER = 0.10


def price_for(model: str) -> tuple[float, float] | None:
    lowered = model.lower()
    for family, prices in PRICES_PER_MTOK.items():
        if family in lowered:
            return prices
    return None


def estimate_cost(model: str, usage: Usage) -> float | None:
    """Estimated USD for `usage` on `model`; None for a model family we have no price for."""
    prices = price_for(model)
    if prices is None:
        return None
    per_in, per_out = prices[0] / 1e6, prices[1] / 1e6
    return (
        usage.input_tokens * per_in
        + usage.cache_creation_input_tokens * per_in * CACHE_WRITE_MULTIPLIER
        + usage.cache_read_input_tokens * per_in * CACHE_READ_MULTIPLIER
        + usage.output_tokens * per_out
    )


def usage_from(raw: Any) -> Usage:
    """The SDK's usage object (cache fields may be None) as our Usage."""
    if raw is None:
        return Usage()
    return Usage(
        input_tokens=getattr(raw, "input_tokens", 0) or 0,
        output_tokens=getattr(raw, "output_tokens", 0) or 0,
        cache_creation_input_tokens=getattr(raw, "cache_creation_input_tokens", 0) or 0,
        cache_read_input_tokens=getattr(raw, "cache_read_input_tokens", 0) or 0,
    )


# --------------------------------------------------------------------------------------------
# Retry policy (inside the SDK's loop)
# --------------------------------------------------------------------------------------------


def _error_of(body: Any) -> dict:
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return body["error"]
    return {}


def is_spend_limit(status: int, body: Any) -> bool:
    error = _error_of(body)
    details = error.get("details") if isinstance(error.get("details"), dict) else {}
    if details.get("error_code") in SPEND_LIMIT_CODES or error.get("type") == "billing_error":
        return True
    text = str(error.get("message") or "").lower()
    return status in (400, 402, 429) and any(phrase in text for phrase in SPEND_LIMIT_PHRASES)


def retry_after_seconds(headers: Any) -> float | None:
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            return float(value) / scale
        except ValueError:
            continue
    return None


class RetryPolicy(Middleware):
    """Vetoes retries the SDK would otherwise make (via `x-should-retry: false`)."""

    def __init__(self, *, overloaded_retries: int, max_retry_wait_s: float) -> None:
        self.overloaded_retries = overloaded_retries
        self.max_retry_wait_s = max_retry_wait_s

    def should_retry(self, status: int, headers: Any, body: Any, retries_taken: int) -> bool | None:
        """False = veto; None = leave it to the SDK's status-code policy."""
        if is_spend_limit(status, body):
            return False
        if status == 429:
            wait = retry_after_seconds(headers)
            if wait is not None and wait > self.max_retry_wait_s:
                return False
        if status == 529 and retries_taken >= self.overloaded_retries:
            return False
        return None

    async def handle_async(self, request: Any, call_next: Any) -> Any:
        response = await call_next(request)
        http = response.http_response
        if http.status_code < 400:
            return response
        await http.aread()
        try:
            body = json.loads(http.content or b"null")
        except ValueError:
            body = None
        if self.should_retry(http.status_code, http.headers, body, request.retries_taken) is False:
            http.headers["x-should-retry"] = "false"
        return response


# --------------------------------------------------------------------------------------------
# Error classification
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ModelFailure:
    kind: str  # overloaded | rate_limited | spend_limit | auth | timeout | connection | bad_request | model_error
    message: str  # safe to show to a user


def classify_error(exc: BaseException) -> ModelFailure | None:
    """A model-call failure as (kind, user-safe message); None if `exc` is not the SDK's."""
    if isinstance(exc, anthropic.APITimeoutError):
        return ModelFailure("timeout", "The model service did not answer in time. Please try again.")
    if isinstance(exc, anthropic.APIConnectionError):
        return ModelFailure("connection", "The model service could not be reached. Please try again shortly.")
    if not isinstance(exc, anthropic.APIStatusError):
        return None
    status = exc.status_code
    body = exc.body
    kind = exc.type or _error_of(body).get("type") or ""
    if is_spend_limit(status, body):
        return ModelFailure(
            "spend_limit",
            "The assistant's model usage limit has been reached, so it cannot answer right now. "
            "An administrator can raise the limit; the offline mode still answers from the record.",
        )
    if kind == "overloaded_error" or status == 529:
        return ModelFailure(
            "overloaded", "The model service is overloaded right now. Please try again in a minute."
        )
    if kind == "rate_limit_error" or status == 429:
        wait = retry_after_seconds(exc.response.headers) if status == 429 else None
        when = f" in about {round(wait)} seconds" if wait else " shortly"
        return ModelFailure(
            "rate_limited", f"Too many questions are being asked right now. Please try again{when}."
        )
    if kind == "authentication_error" or status == 401 or kind == "permission_error" or status == 403:
        return ModelFailure("auth", "The model service refused this server's API key. Tell an administrator.")
    if kind in ("invalid_request_error", "request_too_large", "not_found_error") or status in (400, 404, 413):
        return ModelFailure(
            "bad_request", "The question could not be sent to the model service (request refused)."
        )
    if kind == "timeout_error" or status in (408, 504):
        return ModelFailure("timeout", "The model service did not answer in time. Please try again.")
    return ModelFailure("model_error", "The model service failed to answer. Please try again.")


# --------------------------------------------------------------------------------------------
# The client
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ModelConfig:
    api_key: str
    base_url: str | None
    answer_model: str
    aux_model: str
    timeout_s: float
    max_retries: int
    overloaded_retries: int
    max_retry_wait_s: float
    max_tokens: int

    @classmethod
    def from_settings(cls, settings: Settings) -> ModelConfig:
        if settings.offline:
            raise ValueError("ANTHROPIC_API_KEY is not set: use the offline planner")
        return cls(
            api_key=settings.anthropic_api_key.get_secret_value(),  # type: ignore[union-attr]
            base_url=settings.anthropic_base_url,
            answer_model=settings.answer_model,
            aux_model=settings.aux_model,
            timeout_s=settings.model_timeout_s,
            max_retries=settings.model_max_retries,
            overloaded_retries=min(settings.model_overloaded_retries, settings.model_max_retries),
            max_retry_wait_s=settings.model_max_retry_wait_s,
            max_tokens=settings.max_answer_tokens,
        )


class ModelClient:
    """One AsyncAnthropic client per process (connection pool), with our retry policy."""

    def __init__(self, config: ModelConfig, *, http_client: Any = None) -> None:
        self.config = config
        kwargs: dict[str, Any] = {}
        if http_client is not None:
            kwargs["http_client"] = http_client
        self._client = AsyncAnthropic(
            api_key=config.api_key,
            base_url=config.base_url,
            timeout=config.timeout_s,
            max_retries=config.max_retries,
            middleware=[
                RetryPolicy(
                    overloaded_retries=config.overloaded_retries, max_retry_wait_s=config.max_retry_wait_s
                )
            ],
            **kwargs,
        )

    @classmethod
    def from_settings(cls, settings: Settings) -> ModelClient:
        return cls(ModelConfig.from_settings(settings))

    @property
    def model(self) -> str:
        return self.config.answer_model

    def stream(
        self,
        *,
        system: list[dict[str, Any]],
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        model: str | None = None,
        max_tokens: int | None = None,
    ) -> Any:
        """An async context manager yielding the SDK's MessageStream (iterate; get_final_message)."""
        kwargs: dict[str, Any] = {
            "model": model or self.config.answer_model,
            "max_tokens": max_tokens or self.config.max_tokens,
            "system": system,
            "messages": messages,
        }
        if tools:
            kwargs["tools"] = tools
        return self._client.messages.stream(**kwargs)

    async def close(self) -> None:
        await self._client.close()
