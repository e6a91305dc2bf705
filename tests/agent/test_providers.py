"""Claude through Amazon Bedrock and Google Vertex AI: the SDK's own clients, chosen by settings,
against the contract-checking fake (no network, fake credentials).

Checked on the wire: the provider's path (`/model/<bedrock id>/invoke-with-response-stream`,
`…/publishers/anthropic/models/<id>:streamRawPredict`), the model-id mapping from the model
table, the body's provider `anthropic_version`, and on Bedrock a SigV4 signature that the fake
re-derives from the known test secret (a wrong secret is refused like AWS refuses it).
"""

from __future__ import annotations

import pytest

from agent.events import DoneEvent, ErrorEvent
from agent.fake_api import AWSCredentials, FakeMessagesAPI, text_message, tool_use_message
from agent.llm import ModelClient, ModelConfig
from agent.loop import ClaudeAgent
from agent.runner import GuardedAgent
from tests.agent.conftest import ask, run
from tests.conftest import test_settings as settings_for

AWS = AWSCredentials(
    access_key="AKIAFAKEFAKEFAKE0001", secret_key="fake-secret-for-tests", region="eu-central-1"
)


def provider_client(api: FakeMessagesAPI, provider: str, **over) -> ModelClient:
    values = dict(
        api_key=None,
        timeout_s=10,
        provider=provider,
        bedrock_region=AWS.region,
        aws_access_key=AWS.access_key,
        aws_secret_key=AWS.secret_key,
        vertex_project_id="hospital-project",
        vertex_region="europe-west1",
        vertex_access_token="ya29.fake-token",
    )
    values.update(over)
    base_url = api.base_url + ("/v1" if provider == "vertex" else "")
    return ModelClient(ModelConfig.local(base_url, **values))


def question(api, client, registry, db):
    api.enqueue(
        tool_use_message([("get_labs", {"query": "A1C"}), ("get_medications", {})]),
        text_message("Your HbA1c was 7.2 % on 2024-03-05 [L1]."),
    )
    agent = GuardedAgent(ClaudeAgent(client, registry, db, max_iterations=4))
    return run(agent, ask("What is my A1C and what do I take?"))


def test_a_question_through_bedrock_is_signed_and_routed_by_bedrock_model_id(registry, db):
    with FakeMessagesAPI(aws=AWS) as api:
        events = question(api, provider_client(api, "bedrock"), registry, db)
        assert not api.violations, api.violations
        requests = api.message_requests + [r for r in api.requests if r.path.startswith("/model/")]
    done = events[-1]
    assert isinstance(done, DoneEvent) and "[L1]" in done.answer
    paths = {r.path for r in requests}
    assert paths == {"/model/anthropic.claude-sonnet-5-5/invoke-with-response-stream"}
    for r in requests:
        assert (
            r.headers["authorization"].startswith(f"AWS4-HMAC-SHA256 Credential={AWS.access_key}/")
            and "/eu-central-1/bedrock/aws4_request" in r.headers["authorization"]
        )
        assert r.body["anthropic_version"]  # in the body, not a header, on Bedrock
        assert "model" not in r.body and "stream" not in r.body
    # the second request answered both parallel tool calls in one user turn
    assert [b["type"] for b in requests[1].body["messages"][-1]["content"]][:2] == [
        "tool_result",
        "tool_result",
    ]


def test_a_bedrock_request_with_a_wrong_secret_is_refused_like_aws(registry, db):
    with FakeMessagesAPI(aws=AWS) as api:
        client = provider_client(api, "bedrock", aws_secret_key="not-the-secret")
        events = question(api, client, registry, db)
        assert [v.rule for _, v in api.violations] == ["sigv4"]
    assert isinstance(events[-1], ErrorEvent) and events[-1].kind == "auth"


def test_bedrock_model_id_override_is_the_path(registry, db):
    profile = "anthropic.claude-sonnet-5-5"
    with FakeMessagesAPI(aws=AWS, bedrock_models=[profile, "eu.anthropic.claude-sonnet-5-5"]) as api:
        client = provider_client(api, "bedrock", bedrock_model_id="eu.anthropic.claude-sonnet-5-5")
        question(api, client, registry, db)
        assert {r.path for r in api.requests} == {
            "/model/eu.anthropic.claude-sonnet-5-5/invoke-with-response-stream"
        }


def test_a_question_through_vertex_uses_the_publisher_path_and_a_bearer_token(registry, db):
    with FakeMessagesAPI() as api:
        events = question(api, provider_client(api, "vertex"), registry, db)
        assert not api.violations, api.violations
        requests = list(api.requests)
    assert isinstance(events[-1], DoneEvent)
    assert {r.path for r in requests} == {
        "/v1/projects/hospital-project/locations/europe-west1/publishers/anthropic/models/claude-sonnet-5-5:streamRawPredict"
    }
    assert all(r.headers["authorization"] == "Bearer ya29.fake-token" for r in requests)
    assert all(r.body["anthropic_version"] and "model" not in r.body for r in requests)


def test_provider_settings_choose_the_client_and_are_validated():
    bedrock = ModelConfig.from_settings(settings_for(model_provider="bedrock", bedrock_region="eu-central-1"))
    assert (
        bedrock.provider == "bedrock"
        and bedrock.wire_model("claude-sonnet-5-5") == "anthropic.claude-sonnet-5-5"
    )
    assert not settings_for(model_provider="vertex").offline  # no API key needed off the Claude API
    assert settings_for().offline
    with pytest.raises(ValueError, match="CHARTSIDE_ANSWER_MODEL: unknown model 'claude-sonnet-9'"):
        ModelConfig.from_settings(settings_for(model_provider="bedrock", answer_model="claude-sonnet-9"))
    with pytest.raises(ValueError, match="CHARTSIDE_THINKING"):
        ModelConfig.from_settings(
            settings_for(model_provider="bedrock", answer_model="claude-opus-5-5", thinking="off")
        )
