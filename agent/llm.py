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
import typing
from dataclasses import dataclass, field
from typing import Any

import anthropic
from anthropic import AsyncAnthropic, AsyncAnthropicBedrock, AsyncAnthropicVertex, Middleware
from anthropic.types import ModelParam

from agent.events import Usage
from agent.models import MODELS, UnknownModel, bedrock_model_id, model_info, thinking_request
from records.settings import Settings

SPEND_LIMIT_CODES = frozenset({"enforced_spend_limit_reached"})
SPEND_LIMIT_PHRASES = ("api usage limits", "spend limit", "credit balance is too low")


def sdk_model_ids() -> tuple[str, ...]:
    """The model ids the installed SDK's `Model` type lists (the contract fake accepts these)."""
    return tuple(typing.get_args(typing.get_args(ModelParam)[0]))


def estimate_cost(model: str, usage: Usage) -> float | None:
    """Estimated USD for `usage` on `model` from the model table; None for a model not in it."""
    try:
        info = model_info(model)
    except UnknownModel:
        return None
    per = 1e-6
    return (
        usage.input_tokens * info.input_per_mtok * per
        + usage.cache_creation_input_tokens * info.cache_write_per_mtok * per
        + usage.cache_read_input_tokens * info.cache_read_per_mtok * per
        + usage.output_tokens * info.output_per_mtok * per
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
    api_key: str | None
    base_url: str | None
    answer_model: str
    aux_model: str
    timeout_s: float
    max_retries: int
    overloaded_retries: int
    max_retry_wait_s: float
    max_tokens: int  # the answer's own tokens; thinking gets room on top (agent.models.thinking_request)
    provider: str = "anthropic"  # anthropic | bedrock | vertex
    thinking: str = "auto"  # auto | off | adaptive | budget
    thinking_budget_tokens: int = 2048
    bedrock_region: str | None = None
    bedrock_model_id: str | None = None
    aws_access_key: str | None = None  # tests only; real deployments use the AWS credential chain
    aws_secret_key: str | None = None
    vertex_project_id: str | None = None
    vertex_region: str | None = None
    vertex_access_token: str | None = None  # tests only; real deployments use google-auth ADC

    @classmethod
    def from_settings(cls, settings: Settings) -> ModelConfig:
        """Validated against the model table: an unknown model or an impossible thinking mode stops
        the program at start, naming the setting."""
        if settings.offline:
            raise ValueError("ANTHROPIC_API_KEY is not set: use the offline planner")
        for name, value in (
            ("CHARTSIDE_ANSWER_MODEL", settings.answer_model),
            ("CHARTSIDE_AUX_MODEL", settings.aux_model),
        ):
            try:
                model_info(value)
            except UnknownModel as exc:
                raise ValueError(f"{name}: {exc}") from None
        try:
            thinking_request(
                settings.answer_model,
                settings.thinking,
                settings.max_answer_tokens,
                settings.thinking_budget_tokens,
            )
        except ValueError as exc:
            raise ValueError(f"CHARTSIDE_THINKING: {exc}") from None
        key = settings.anthropic_api_key.get_secret_value() if settings.anthropic_api_key else None
        return cls(
            api_key=key,
            base_url=settings.anthropic_base_url,
            answer_model=settings.answer_model,
            aux_model=settings.aux_model,
            timeout_s=settings.model_timeout_s,
            max_retries=settings.model_max_retries,
            overloaded_retries=min(settings.model_overloaded_retries, settings.model_max_retries),
            max_retry_wait_s=settings.model_max_retry_wait_s,
            max_tokens=settings.max_answer_tokens,
            provider=settings.model_provider,
            thinking=settings.thinking,
            thinking_budget_tokens=settings.thinking_budget_tokens,
            bedrock_region=settings.bedrock_region,
            bedrock_model_id=settings.bedrock_model_id,
            vertex_project_id=settings.vertex_project_id,
            vertex_region=settings.vertex_region,
        )

    @classmethod
    def local(cls, base_url: str, *, max_tokens: int = 1024, **over: Any) -> ModelConfig:
        """A config for the local fake API (tests, benchmarks): a test key, no retries."""
        values: dict[str, Any] = dict(
            api_key="sk-ant-test-fake",
            base_url=base_url,
            answer_model="claude-sonnet-5-5",
            aux_model="claude-haiku-5-5",
            timeout_s=30,
            max_retries=0,
            overloaded_retries=0,
            max_retry_wait_s=0,
            max_tokens=max_tokens,
        )
        values.update(over)
        return cls(**values)

    def wire_model(self, model: str) -> str:
        """The id the chosen provider routes on (Bedrock has its own ids)."""
        if self.provider == "bedrock":
            return bedrock_model_id(model, self.bedrock_model_id if model == self.answer_model else None)
        return model


@dataclass
class Exchange:
    """One model call as sent and as answered (for `--save-transcript`)."""

    request: dict[str, Any]
    response: dict[str, Any] | None = None


@dataclass
class TranscriptRecorder:
    exchanges: list[Exchange] = field(default_factory=list)


class _RecordingStream:
    """Wraps the SDK's stream manager: records the request kwargs and the final message."""

    def __init__(self, manager: Any, exchange: Exchange) -> None:
        self._manager = manager
        self._exchange = exchange
        self._stream: Any = None

    async def __aenter__(self) -> Any:
        self._stream = await self._manager.__aenter__()
        original = self._stream.get_final_message
        exchange = self._exchange

        async def get_final_message() -> Any:
            final = await original()
            exchange.response = final.model_dump(mode="json", exclude_none=True)
            return final

        self._stream.get_final_message = get_final_message
        return self._stream

    async def __aexit__(self, *exc: Any) -> Any:
        return await self._manager.__aexit__(*exc)


class ModelClient:
    """One async client per process (connection pool), with our retry policy.

    The provider setting picks the SDK's client: `AsyncAnthropic` (Claude API),
    `AsyncAnthropicBedrock` (SigV4-signed, `/model/<id>/invoke-with-response-stream`) or
    `AsyncAnthropicVertex` (`…/publishers/anthropic/models/<id>:streamRawPredict`), so a
    hospital can keep patient data inside its own cloud account. Everything above this class
    is the same for the three.
    """

    def __init__(self, config: ModelConfig, *, http_client: Any = None) -> None:
        self.config = config
        self.recorder: TranscriptRecorder | None = None
        kwargs: dict[str, Any] = {
            "timeout": config.timeout_s,
            "max_retries": config.max_retries,
            "middleware": [
                RetryPolicy(
                    overloaded_retries=config.overloaded_retries, max_retry_wait_s=config.max_retry_wait_s
                )
            ],
        }
        if http_client is not None:
            kwargs["http_client"] = http_client
        if config.provider == "bedrock":
            self._client: Any = AsyncAnthropicBedrock(
                aws_region=config.bedrock_region,
                aws_access_key=config.aws_access_key,
                aws_secret_key=config.aws_secret_key,
                base_url=config.base_url,
                **kwargs,
            )
        elif config.provider == "vertex":
            self._client = AsyncAnthropicVertex(
                region=config.vertex_region or "global",
                project_id=config.vertex_project_id,
                access_token=config.vertex_access_token,
                base_url=config.base_url,
                **kwargs,
            )
        else:
            self._client = AsyncAnthropic(api_key=config.api_key, base_url=config.base_url, **kwargs)

    @classmethod
    def from_settings(cls, settings: Settings) -> ModelClient:
        return cls(ModelConfig.from_settings(settings))

    @property
    def model(self) -> str:
        return self.config.answer_model

    def request_params(
        self,
        *,
        system: list[dict[str, Any]],
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        model: str | None = None,
        max_tokens: int | None = None,
    ) -> dict[str, Any]:
        """The exact Messages API parameters of one call (thinking explicit, max_tokens sized for it)."""
        chosen = model or self.config.answer_model
        plan = thinking_request(
            chosen,
            self.config.thinking,
            max_tokens or self.config.max_tokens,
            self.config.thinking_budget_tokens,
        )
        kwargs: dict[str, Any] = {
            "model": self.config.wire_model(chosen),
            "max_tokens": plan.max_tokens,
            "system": system,
            "messages": messages,
        }
        if plan.thinking is not None:
            kwargs["thinking"] = plan.thinking
        if tools:
            kwargs["tools"] = tools
        return kwargs

    async def count_tokens(self, params: dict[str, Any]) -> int:
        """`messages.count_tokens` for the parameters of one call (as `request_params` built
        them): the same content fields, without what only generation takes."""
        counted = {
            k: v for k, v in params.items() if k in ("model", "system", "messages", "tools", "thinking")
        }
        result = await self._client.messages.count_tokens(**counted)
        return int(result.input_tokens)

    def stream(self, **params: Any) -> Any:
        """An async context manager yielding the SDK's MessageStream (iterate; get_final_message)."""
        kwargs = self.request_params(**params)
        manager = self._client.messages.stream(**kwargs)
        if self.recorder is None:
            return manager
        exchange = Exchange(request=json.loads(json.dumps(kwargs, default=str)))
        self.recorder.exchanges.append(exchange)
        return _RecordingStream(manager, exchange)

    async def close(self) -> None:
        await self._client.close()


__all__ = [
    "MODELS",
    "Exchange",
    "ModelClient",
    "ModelConfig",
    "ModelFailure",
    "RetryPolicy",
    "TranscriptRecorder",
    "classify_error",
    "estimate_cost",
    "sdk_model_ids",
    "usage_from",
]
