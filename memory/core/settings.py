"""Runtime configuration: one pydantic-settings class, read from the environment and `.env`.

Every field here is documented in `.env.example`. `load_settings()` is strict, as README
promises: a bad value, a misspelt variable in `.env` (`GEMINI_APIKEY`) or an unknown provider
name (`LLM_FALLBACK=ollama`) stops start-up with one line naming it and the closest valid name,
worded for the admin rather than by pydantic. It also chooses where data, logs and `.env` live
(see `memory.core.paths`).
"""

from __future__ import annotations

import difflib
import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, cast
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from dotenv import dotenv_values
from pydantic import (
    Field,
    PrivateAttr,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, SettingsConfigDict
from pydantic_settings import SettingsError as SourceError

from memory.core.paths import Locations, find_locations
from memory.core.prices import Prices
from memory.core.purposes import PURPOSES
from memory.core.secret_files import check_secret_files
from memory.core.settings_errors import (
    SettingsError,
    check_database_url,
    check_env_lines,
    check_known_names,
    describe_error,
    describe_source_error,
)
from memory.core.shards import ShardPlan, shard_plan

_log = logging.getLogger(__name__)

ProviderName = Literal["gemini", "openai", "offline"]
PROVIDERS: tuple[ProviderName, ...] = ("gemini", "openai", "offline")
# Servers people name when they mean "the OpenAI-compatible provider".
_OPENAI_COMPATIBLE = ("ollama", "llama.cpp", "llamacpp", "vllm", "lmstudio", "lm-studio")

# Variables read outside Settings that may sit in `.env` or the environment.
EXTRA_NAMES = frozenset(
    {
        "MEMORYBOT_NOW",
        "MEMORYBOT_IN_CONTAINER",
        "MEMORYBOT_SECRETS_DIR",
        # Compose's own `.env` (compose.env.example) lives where the CLI reads `.env` too.
        "SECRETS_GID",
        "POSTGRES_IMAGE",
        "OLLAMA_IMAGE",
    }
)
# Docker/Compose secrets: a file per setting (`discord_token`, `database_url`, ...) read when
# the variable is not set; the directory is MEMORYBOT_SECRETS_DIR, else /run/secrets.
SECRETS_DIR = Path("/run/secrets")


class Settings(BaseSettings):
    """All knobs of memorybot. Secrets are SecretStr so they never land in logs or reprs."""

    model_config = SettingsConfigDict(
        env_file=None,
        env_file_encoding="utf-8",
        env_ignore_empty=True,
        extra="ignore",
        case_sensitive=False,
    )

    # Discord
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

    # Database
    database_url: SecretStr | None = None
    data_dir: Path = Path(".data")
    db_pool_min: int = Field(default=1, ge=1)
    db_pool_max: int = Field(default=10, ge=1)

    # LLM providers
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
    # Semantic recall (pgvector): unset means full-text search only.
    embedding_provider: Literal["gemini", "openai"] | None = None
    gemini_embedding_model: str = "gemini-embedding-001"
    openai_embedding_model: str = "nomic-embed-text"
    embedding_requests_per_minute: float = Field(default=60.0, gt=0)

    # Memory
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

    # Conversation window
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

    # Ingestion
    ingest_batch_size: int = Field(default=500, ge=1)
    ingest_flush_seconds: float = Field(default=0.5, gt=0)
    ingest_queue_max: int = Field(default=100_000, ge=10)
    max_message_chars: int = Field(default=8000, ge=100)

    # Background jobs (the PostgreSQL job queue)
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

    # Operations
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

    _locations: Locations | None = PrivateAttr(default=None)

    @property
    def locations(self) -> Locations | None:
        """Where `load_settings` found `.env` and put data and logs (None when built directly)."""
        return self._locations

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

    @field_validator("database_url")
    @classmethod
    def _postgres_url(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None:
            check_database_url(value.get_secret_value())
        return value

    @field_validator("llm_prices")
    @classmethod
    def _readable_prices(cls, value: str) -> str:
        Prices.parse(value)  # ValueError names the malformed entry
        return value

    @field_validator("default_timezone")
    @classmethod
    def _known_timezone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError(f"unknown timezone {value!r}") from exc
        return value

    @field_validator("log_level")
    @classmethod
    def _known_level(cls, value: str) -> str:
        level = value.upper()
        if level not in {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}:
            raise ValueError(f"unknown log level {value!r}")
        return level

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

    @model_validator(mode="after")
    def _provider_has_key(self) -> Settings:
        shard_plan(self.shard_count, self.shard_ids)  # raises naming the bad setting
        if self.llm_provider == "gemini" and self.gemini_api_key is None:
            raise ValueError("LLM_PROVIDER: gemini needs GEMINI_API_KEY (set it, or choose openai)")
        if self.embedding_provider == "gemini" and self.gemini_api_key is None:
            raise ValueError("EMBEDDING_PROVIDER: gemini needs GEMINI_API_KEY")
        if self.window_hard_decay_minutes < self.window_soft_decay_minutes:
            raise ValueError("WINDOW_HARD_DECAY_MINUTES: must be >= WINDOW_SOFT_DECAY_MINUTES")
        return self

    @property
    def shards(self) -> ShardPlan:
        return shard_plan(self.shard_count, self.shard_ids)

    @property
    def provider(self) -> ProviderName:
        """The provider in force: explicit setting, else gemini with a key, else offline."""
        if self.llm_provider is not None:
            return self.llm_provider
        return "gemini" if self.gemini_api_key is not None else "offline"

    @property
    def fallback_chain(self) -> list[ProviderName]:
        """Primary provider followed by the configured fallbacks, without repeats."""
        chain: list[ProviderName] = [self.provider]
        for name in self.llm_fallback.split(","):
            name = name.strip().lower()
            if name and name in PROVIDERS and name not in chain:
                chain.append(name)
        return chain

    def chain_for(self, purpose: str) -> list[ProviderName]:
        """The fallback chain for one purpose: LLM_PURPOSE_CHAINS override, else the default."""
        override = purpose_pairs(self.llm_purpose_chains).get(purpose)
        if override is None:
            return self.fallback_chain
        chain: list[ProviderName] = []
        for name in override.split(","):
            name = name.strip().lower()
            if name in PROVIDERS and name not in chain:
                chain.append(name)
        return chain


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


def check_names(env_keys: list[str], environ: Mapping[str, str], env_file: Path | None) -> None:
    """Every `.env` key must be a setting; typos of ours in the environment are errors too."""
    known = {name.upper() for name in Settings.model_fields} | EXTRA_NAMES
    check_known_names(env_keys, environ, env_file, known=known)


def load_settings(
    *,
    locations: Locations | None = None,
    environ: Mapping[str, str] | None = None,
    **overrides: object,
) -> Settings:
    """Build settings strictly, reading the `.env` of the chosen place; data and log
    directories are resolved there (see `memory.core.paths`). Failures are one-line
    SettingsErrors."""
    environ = os.environ if environ is None else environ
    locations = locations or find_locations(environ=environ)
    env_file = locations.env_file if locations.env_file.is_file() else None
    if env_file is not None:
        check_env_lines(env_file)
    env_keys = list(dotenv_values(env_file)) if env_file is not None else []
    check_names(env_keys, environ, env_file)
    secrets = Path(environ.get("MEMORYBOT_SECRETS_DIR") or SECRETS_DIR)
    if secrets.is_dir():
        check_secret_files(secrets, Settings.model_fields)
        overrides.setdefault("_secrets_dir", secrets)
    try:
        settings = Settings(_env_file=env_file, **cast(dict[str, Any], overrides))
    except ValidationError as exc:
        raise SettingsError(describe_error(exc)) from None
    except SourceError as exc:  # e.g. a secret file this process may not read
        raise SettingsError(describe_source_error(exc)) from None
    fields = settings.model_fields_set
    resolved = settings.model_copy(
        update={
            "data_dir": locations.resolve(settings.data_dir)
            if "data_dir" in fields
            else locations.data_dir,
            "log_dir": locations.resolve(settings.log_dir)
            if "log_dir" in fields
            else locations.log_dir,
        }
    )
    resolved._locations = locations
    return resolved
