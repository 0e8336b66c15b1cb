"""The sections of memorybot's settings, one class each, so a reader finds a knob by its
subject and a service can be handed the section it needs. `memory.core.settings.Settings` is
all of them over the environment and `.env`; every field is an environment variable of the same
name (upper case), documented in `.env.example` and the README."""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, Field, SecretStr, field_validator

from memory.core.prices import Prices
from memory.core.purposes import PURPOSES
from memory.core.settings_errors import check_database_url

ProviderName = Literal["gemini", "openai", "offline"]
PROVIDERS: tuple[ProviderName, ...] = ("gemini", "openai", "offline")
# Servers people name when they mean "the OpenAI-compatible provider".
_OPENAI_COMPATIBLE = ("ollama", "llama.cpp", "llamacpp", "vllm", "lmstudio", "lm-studio")


class DiscordSection(BaseModel):
    """Discord: the token, shards, the bot's name and persona."""

    discord_token: SecretStr | None = None
    # Development: slash commands also synced to this guild at once (global ones take a while).
    dev_guild_id: int | None = None
    # Sharding: a number or "auto" (Discord's recommendation); SHARD_IDS "0,1" or "0-3" (all).
    shard_count: str = "1"
    shard_ids: str | None = None
    # Discord's REST and gateway URLs, for a proxy in front of several shards (or a test double).
    discord_api_url: str | None = None
    discord_gateway_url: str | None = None
    bot_name: str = "Bot"
    ingest_bot_messages: bool = False
    persona: str = (
        "You are a friendly, concise member of this Discord server who remembers people. "
        "Answer in the language of the message. Never invent facts about members."
    )


class DatabaseSection(BaseModel):
    """PostgreSQL: where, and how many connections."""

    database_url: SecretStr | None = None
    data_dir: Path = Path(".data")
    db_pool_min: int = Field(default=1, ge=1)
    db_pool_max: int = Field(default=10, ge=1)

    @field_validator("database_url")
    @classmethod
    def _postgres_url(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None:
            check_database_url(value.get_secret_value())
        return value


class LLMSection(BaseModel):
    """LLM providers, their limits, prices and budget, and embeddings."""

    llm_provider: ProviderName | None = None
    llm_fallback: str = "offline"
    llm_requests_per_minute: float = Field(default=15.0, gt=0)
    llm_max_concurrency: int = Field(default=4, ge=1)
    llm_timeout_seconds: float = Field(default=30.0, gt=0)
    llm_max_retries: int = Field(default=3, ge=0)
    gemini_api_key: SecretStr | None = None
    gemini_model: str = "gemini-2.5-flash-lite"
    gemini_model_daily: str = "gemini-2.5-flash"
    gemini_base_url: str | None = None
    gemini_prompt_token_limit: int = Field(default=1_000_000, ge=1000)
    openai_base_url: str = "http://localhost:11434/v1"
    openai_api_key: SecretStr | None = None
    openai_model: str = "llama3.1"
    # Per-purpose overrides, "purpose=value" pairs separated by ";" (see .env.example).
    llm_purpose_chains: str = ""
    gemini_purpose_models: str = ""
    openai_purpose_models: str = ""
    openai_model_daily: str | None = None
    openai_prompt_token_limit: int = Field(default=8_192, ge=1000)
    openai_requests_per_minute: float | None = Field(default=None, gt=0)
    llm_daily_requests_per_minute: float = Field(default=10.0, gt=0)
    llm_queue_timeout_seconds: float = Field(default=120.0, gt=0)
    llm_daily_timeout_seconds: float = Field(default=120.0, gt=0)
    llm_interactive_timeout_seconds: float = Field(default=10.0, gt=0)
    # The same for an OpenAI-compatible server on this machine or a private network: a local
    # model on a CPU needs 10-60 s for a reply, and the typing indicator stays on meanwhile.
    llm_local_interactive_timeout_seconds: float = Field(default=90.0, gt=0)
    llm_backoff_base_seconds: float = Field(default=1.0, ge=0)
    llm_backoff_max_seconds: float = Field(default=30.0, ge=0)
    llm_bad_output_retries: int = Field(default=1, ge=0)
    # Circuit breaker per (provider, model): first skip after a refused connection, and cap.
    llm_breaker_backoff_seconds: float = Field(default=5.0, gt=0)
    llm_breaker_max_backoff_seconds: float = Field(default=300.0, gt=0)
    # Usage and costs: per-model prices (`model=in/out; ...`, dollars per million tokens) over
    # the Gemini defaults, and a daily token budget for background work (unset: none).
    llm_prices: str = ""
    llm_daily_token_budget: int | None = Field(default=None, ge=1)
    # Semantic recall (pgvector): a cloud or OpenAI-compatible embedder; unset, the local one
    # (WordLlama's static embeddings, shipped in the wheel) unless LOCAL_EMBEDDINGS=false, and
    # then full-text search only.
    embedding_provider: Literal["gemini", "openai"] | None = None
    local_embeddings: bool = True
    gemini_embedding_model: str = "gemini-embedding-001"
    openai_embedding_model: str = "nomic-embed-text"
    embedding_requests_per_minute: float = Field(default=60.0, gt=0)

    @field_validator("llm_provider", mode="before")
    @classmethod
    def _known_provider(cls, value: object) -> object:
        if isinstance(value, str):
            return check_provider(value)
        return value

    @field_validator("llm_fallback")
    @classmethod
    def _known_fallbacks(cls, value: str) -> str:
        for name in value.split(","):
            if name.strip():
                check_provider(name)
        return value

    @field_validator("llm_prices")
    @classmethod
    def _readable_prices(cls, value: str) -> str:
        Prices.parse(value)  # ValueError names the malformed entry
        return value

    @field_validator("llm_purpose_chains", "gemini_purpose_models", "openai_purpose_models")
    @classmethod
    def _known_purposes(cls, value: str) -> str:
        for purpose, setting in purpose_pairs(value).items():
            if purpose not in PURPOSES:
                raise ValueError(f"unknown purpose {purpose!r} (known: {', '.join(PURPOSES)})")
            if not setting:
                raise ValueError(f"empty value for purpose {purpose!r}")
        return value

    @field_validator("llm_purpose_chains")
    @classmethod
    def _known_chain_providers(cls, value: str) -> str:
        for setting in purpose_pairs(value).values():
            for name in setting.split(","):
                if name.strip():
                    check_provider(name)
        return value


class MemorySection(BaseModel):
    """Members' memory: sizes, caches, the time a reply waits for it, commands."""

    default_timezone: str = "UTC"
    reply_memory_budget_seconds: float = Field(default=1.0, gt=0)
    facts_max_chars: int = Field(default=1500, ge=100)
    fact_statement_max_chars: int = Field(default=500, ge=10)
    daily_summary_chars: int = Field(default=300, ge=50)
    historical_summary_chars: int = Field(default=500, ge=50)
    context_max_chars: int = Field(default=1200, ge=100)
    # Deprecated cap in characters; prompts are sized by each provider's token limit now.
    daily_prompt_max_chars: int | None = Field(default=None, ge=2000)
    cache_today_size: int = Field(default=256, ge=1)
    cache_history_size: int = Field(default=4096, ge=1)
    cache_context_size: int = Field(default=4096, ge=1)
    commands_per_minute: int = Field(default=6, ge=1)
    forget_others_requires_manage_guild: bool = True

    @field_validator("default_timezone")
    @classmethod
    def _known_timezone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError(f"unknown timezone {value!r}") from exc
        return value


class RepliesSection(BaseModel):
    """Replies: the conversation window, the prompt's token budget, reply limits."""

    window_token_budget: int = Field(default=2000, ge=100)
    reply_prompt_token_budget: int = Field(default=4000, ge=500)
    reply_max_members: int = Field(default=6, ge=1)
    # Memory tools a tool-capable reply model may call per reply (0: never offer tools).
    reply_tool_calls: int = Field(default=3, ge=0, le=3)
    window_soft_decay_minutes: float = Field(default=10.0, gt=0)
    window_hard_decay_minutes: float = Field(default=30.0, gt=0)
    reply_cooldown_seconds: float = Field(default=2.0, ge=0)
    replies_per_minute: int = Field(default=6, ge=1)
    channel_replies_per_minute: int = Field(default=20, ge=1)
    # Hits a reply's first search brings (the first four with their exchanges, the rest as
    # their found lines), and besides them up to this many of a named member's most
    # informative statements (the member lane). On LoCoMo-dev twenty carried more evidence than
    # 12 or 16, and 30 no more (24 was tried only before the later hits shared one element).
    reply_recall_hits: int = Field(default=20, ge=1, le=30)
    reply_statement_hits: int = Field(default=3, ge=0, le=10)
    # How long a reply's search waits for the nearest in meaning (from when it began; at least
    # a little past its full-text lanes), then goes on with the words' hits: a slow vector
    # index costs a reply its semantic hits, never its time. Benches wait them out.
    reply_semantic_wait_seconds: float = Field(default=0.6, gt=0)
    # A burst: past this many replies composing at once, each waits at most
    # REPLY_BUSY_BUDGET_SECONDS for memory and answers with what is ready.
    reply_busy_replies: int = Field(default=10, ge=1)
    reply_busy_budget_seconds: float = Field(default=0.25, gt=0)
    # Recall searches at once; in a burst the others wait for a slot within their budget.
    reply_parallel_recalls: int = Field(default=4, ge=1)


class IngestSection(BaseModel):
    """Ingestion: the batched writer."""

    ingest_batch_size: int = Field(default=500, ge=1)
    ingest_flush_seconds: float = Field(default=0.5, gt=0)
    ingest_queue_max: int = Field(default=100_000, ge=10)
    max_message_chars: int = Field(default=8000, ge=100)


class JobsSection(BaseModel):
    """Background jobs on the PostgreSQL queue, episodes and digests."""

    run_worker: bool = True
    job_concurrency: int = Field(default=2, ge=1)
    job_max_attempts: int = Field(default=5, ge=1)
    job_sweep_seconds: float = Field(default=300.0, gt=0)
    job_heartbeat_timeout_seconds: float = Field(default=60.0, ge=2)
    # Episodes: silence (minutes) after which a channel's next message opens a new episode,
    # unless the guild sets its own (`memorybot settings --episode-silence`).
    episode_silence_minutes: int = Field(default=180, ge=10, le=1440)
    # Who writes closed episodes' titles and summaries: `digest` (default) the extractive
    # summariser (no call), and the model only for the episodes a daily digest shows (its one
    # batched call); `always` the model for every episode (about 1.2x the raw chat's tokens
    # more, docs/performance.md); `never` always extractive.
    episode_llm_summaries: Literal["digest", "always", "never"] = "digest"
    # How often a bot process looks for composed daily digests to post.
    digest_poll_seconds: float = Field(default=60.0, gt=0)


class OperationsSection(BaseModel):
    """Operations: retention, logs, telemetry, the dashboard."""

    retention_days: int = Field(default=30, ge=1)
    retention_batch_size: int = Field(default=5000, ge=100)
    retention_interval_hours: float = Field(default=24.0, gt=0)
    log_dir: Path = Path("logs")
    log_level: str = "INFO"
    telemetry_stdout: bool = True
    telemetry_file_max_bytes: int = Field(default=10_000_000, ge=10_000)
    telemetry_file_backups: int = Field(default=5, ge=0)
    # `memorybot dashboard`: the port it listens on (127.0.0.1 unless --host says otherwise).
    dashboard_port: int = Field(default=8765, ge=1, le=65535)

    @field_validator("log_level")
    @classmethod
    def _known_level(cls, value: str) -> str:
        level = value.upper()
        if level not in {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}:
            raise ValueError(f"unknown log level {value!r}")
        return level


def purpose_pairs(text: str) -> dict[str, str]:
    """Parse "route=offline; reply=gemini,offline" into {purpose: value}."""
    pairs: dict[str, str] = {}
    for item in text.split(";"):
        if not item.strip():
            continue
        key, _, value = item.partition("=")
        pairs[key.strip().lower()] = value.strip()
    return pairs


def check_provider(name: str) -> ProviderName:
    """A provider name, or a ValueError naming the closest valid one."""
    clean = name.strip().lower()
    if clean in PROVIDERS:
        return clean
    if difflib.get_close_matches(clean, _OPENAI_COMPATIBLE, n=1, cutoff=0.7):
        hint = "did you mean openai? it serves Ollama and other OpenAI-compatible servers at"
        hint += " OPENAI_BASE_URL"
    else:
        close = difflib.get_close_matches(clean, PROVIDERS, n=1, cutoff=0.5)
        hint = f"did you mean {close[0]}?" if close else f"valid: {', '.join(PROVIDERS)}"
    raise ValueError(f"unknown provider {name.strip()!r} ({hint})")
