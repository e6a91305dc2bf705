"""The one settings object: environment variables and `.env`, validated once at start.

Well-known names (`DATABASE_URL`, `ANTHROPIC_API_KEY`) are read as themselves; everything
else is `CHARTSIDE_<FIELD>`. A bad value stops the program at start with the field named,
instead of failing later in the middle of a request.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="CHARTSIDE_", env_file=".env", env_file_encoding="utf-8", extra="ignore"
    )

    # --- database -------------------------------------------------------------------------
    database_url: str | None = Field(
        default=None,
        validation_alias=AliasChoices("DATABASE_URL", "CHARTSIDE_DATABASE_URL"),
        description="Owner/migration connection to an external PostgreSQL with pgvector. "
        "Unset: the embedded server under data_dir.",
    )
    app_database_url: str | None = Field(
        default=None,
        description="Connection for the non-owner application role. Unset: derived from "
        "database_url with app_db_role/app_db_password.",
    )
    app_db_role: str = "chartside_app"
    app_db_password: SecretStr = SecretStr("chartside-app-dev")
    database_name: str = Field(default="chartside", description="Database created on the embedded server.")
    db_pool_size: int = Field(default=5, ge=1, le=100)
    db_pool_timeout_s: float = Field(default=10.0, gt=0)
    data_dir: Path = Field(default=Path(".chartside"), description="Embedded database, model files, secrets.")

    ingest_max_bundle_mb: int = Field(
        default=256,
        ge=1,
        description="Bundles larger than this are refused before they are read: ingestion holds one "
        "bundle in memory at a time, about 8× its size.",
    )

    # --- knowledge ------------------------------------------------------------------------
    embedding_model: str = "sentence-transformers/all-MiniLM-L6-v2"
    embedding_model_dir: Path | None = Field(
        default=None, description="Folder with model.onnx + tokenizer files. Unset: assembled under data_dir."
    )
    embedding_dim: int = Field(default=384, gt=0)
    leaflets_dir: Path | None = Field(default=None, description="Unset: the leaflets shipped in knowledge/.")
    leaflet_similarity_floor: float = Field(
        default=0.40,
        ge=-1.0,
        le=1.0,
        description="Cosine similarity a leaflet passage needs (or an exact match) to be shown; "
        "placed by `chartside eval retrieval`.",
    )
    note_similarity_floor: float = Field(
        default=0.30, ge=-1.0, le=1.0, description="The same gate for the patient's clinical notes."
    )
    embedding_batch_size: int = Field(default=16, ge=1, le=512)
    leaflet_keyword_backend: Literal["bm25", "fts"] = Field(
        default="bm25",
        description="Keyword leg of leaflet search: BM25 (better ranking, measured) or PostgreSQL full text "
        "(cheaper past ~10k passages).",
    )

    # --- model ----------------------------------------------------------------------------
    anthropic_api_key: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("ANTHROPIC_API_KEY", "CHARTSIDE_ANTHROPIC_API_KEY")
    )
    anthropic_base_url: str | None = Field(
        default=None, validation_alias=AliasChoices("ANTHROPIC_BASE_URL", "CHARTSIDE_ANTHROPIC_BASE_URL")
    )
    answer_model: str = "claude-sonnet-5-5"
    aux_model: str = "claude-haiku-5-5"
    model_timeout_s: float = Field(default=60.0, gt=0)
    model_max_retries: int = Field(default=2, ge=0, le=10)
    model_overloaded_retries: int = Field(
        default=1, ge=0, le=10, description="Retries of a 529 overloaded reply (within model_max_retries)."
    )
    model_max_retry_wait_s: float = Field(
        default=20.0,
        ge=0,
        description="A 429 asking to wait longer than this fails at once with 'try again in N s'.",
    )
    max_agent_iterations: int = Field(default=8, ge=1, le=50)
    max_answer_tokens: int = Field(
        default=2048,
        ge=64,
        description="Tokens for the answer itself; thinking, when on, gets its room on top in max_tokens.",
    )
    model_provider: Literal["anthropic", "bedrock", "vertex"] = Field(
        default="anthropic",
        description="Where Claude runs: the Claude API (needs ANTHROPIC_API_KEY), Amazon Bedrock (AWS "
        "credential chain, SigV4) or Google Vertex AI (application default credentials), so patient data "
        "can stay inside the hospital's own cloud account.",
    )
    thinking: Literal["auto", "off", "adaptive", "budget"] = Field(
        default="auto",
        description="Claude's thinking, sent explicitly: auto = off where the model allows it, adaptive where "
        "it cannot be turned off; budget = manual extended thinking (older models).",
    )
    thinking_budget_tokens: int = Field(
        default=2048,
        ge=1024,
        description="budget_tokens when thinking=budget (max_tokens adds the answer's share).",
    )
    bedrock_region: str | None = Field(
        default=None, description="AWS region of the Bedrock runtime endpoint."
    )
    bedrock_model_id: str | None = Field(
        default=None,
        description="Bedrock model id or inference-profile ARN for the answer model. Unset: the model table's "
        "mapping (anthropic.<model id>).",
    )
    vertex_project_id: str | None = Field(default=None, description="Google Cloud project for Vertex AI.")
    vertex_region: str | None = Field(
        default=None, description="Vertex AI region (e.g. europe-west1, global)."
    )

    # --- server ---------------------------------------------------------------------------
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=1, le=65535)
    secret_key: SecretStr | None = Field(
        default=None, description="Unset: generated into data_dir/secret_key."
    )
    secure_cookies: bool = Field(default=False, description="Mark the session cookie Secure (behind TLS).")
    session_max_age_s: int = Field(default=8 * 3600, ge=60, description="Idle-independent session lifetime.")
    max_body_bytes: int = Field(default=16 * 1024, ge=1024, description="Larger request bodies get 413.")
    max_question_chars: int = Field(default=2000, ge=10, description="Longer questions get 400.")
    ask_rate_per_minute: int = Field(default=12, ge=1, description="Questions per account per minute.")
    api_rate_per_minute: int = Field(default=300, ge=1, description="API requests per account per minute.")
    login_rate_per_minute: int = Field(
        default=10,
        ge=1,
        description="Failed logins per (username, client address) per minute; then that pair waits.",
    )
    login_spray_per_minute: int = Field(
        default=30, ge=1, description="Failed logins per client address per minute, across all usernames."
    )
    max_streams_per_account: int = Field(default=3, ge=1, description="Open answer streams per account.")
    stream_grace_s: float = Field(
        default=15.0, ge=0, description="How long a run waits for a reconnect after its last client left."
    )
    stream_ping_s: float = Field(default=15.0, gt=0, description="SSE keep-alive comment interval.")
    run_timeout_s: float = Field(default=300.0, gt=0, description="A run still going after this is stopped.")

    # --- MCP endpoint -------------------------------------------------------------------------
    mcp_session_idle_timeout_s: float = Field(
        default=1800.0, gt=0, description="An idle MCP session (and its conversation) ends after this."
    )
    mcp_max_sessions: int = Field(default=1000, ge=1, description="Open MCP sessions at most (HTTP).")
    mcp_max_sessions_per_account: int = Field(
        default=8,
        ge=1,
        description="Open MCP sessions per account (HTTP), so one account cannot fill the pool.",
    )

    # --- demo -----------------------------------------------------------------------------
    demo_patients: int = Field(default=40, ge=1)
    demo_seed: int = 7

    @field_validator("database_url", "app_database_url")
    @classmethod
    def _postgres_only(cls, value: str | None) -> str | None:
        if value and not value.startswith(("postgresql://", "postgresql+psycopg://", "postgres://")):
            raise ValueError("must be a postgresql:// URL")
        return value

    @property
    def offline(self) -> bool:
        """No way to reach Claude (Claude API without a key): the offline planner answers.
        Bedrock and Vertex authenticate with the cloud's own credentials, not a key."""
        if self.model_provider != "anthropic":
            return False
        return self.anthropic_api_key is None or not self.anthropic_api_key.get_secret_value()

    def resolved_data_dir(self) -> Path:
        return self.data_dir.expanduser().resolve()


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """Process-wide settings, read once."""
    return Settings()
