"""Runtime configuration: one pydantic-settings class, read from the environment and `.env`.

Every field here is documented in `.env.example`; `load_settings()` turns a bad value into one
clear line naming the variable instead of a traceback.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from memory.core.purposes import PURPOSES

_log = logging.getLogger(__name__)

ProviderName = Literal["gemini", "openai", "offline"]


class SettingsError(Exception):
    """A setting is missing or malformed; the message names it in one line."""


class Settings(BaseSettings):
    """All knobs of memorybot. Secrets are SecretStr so they never land in logs or reprs."""

    model_config = SettingsConfigDict(
        env_file=".env",
        env_file_encoding="utf-8",
        env_ignore_empty=True,
        extra="ignore",
        case_sensitive=False,
    )

    # Discord
    discord_token: SecretStr | None = None
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
    openai_base_url: str = "http://localhost:11434/v1"
    openai_api_key: SecretStr | None = None
    openai_model: str = "llama3.1"
    # Per-purpose overrides, "purpose=value" pairs separated by ";" (see .env.example).
    llm_purpose_chains: str = ""
    gemini_purpose_models: str = ""
    openai_purpose_models: str = ""
    openai_model_daily: str | None = None
    openai_requests_per_minute: float | None = Field(default=None, gt=0)
    llm_daily_requests_per_minute: float = Field(default=10.0, gt=0)
    llm_queue_timeout_seconds: float = Field(default=120.0, gt=0)
    llm_daily_timeout_seconds: float = Field(default=120.0, gt=0)
    llm_backoff_base_seconds: float = Field(default=1.0, ge=0)
    llm_backoff_max_seconds: float = Field(default=30.0, ge=0)
    llm_bad_output_retries: int = Field(default=1, ge=0)

    # Memory
    default_timezone: str = "UTC"
    reply_memory_budget_seconds: float = Field(default=1.0, gt=0)
    facts_max_chars: int = Field(default=1500, ge=100)
    fact_statement_max_chars: int = Field(default=500, ge=10)
    daily_summary_chars: int = Field(default=300, ge=50)
    historical_summary_chars: int = Field(default=500, ge=50)
    context_max_chars: int = Field(default=1200, ge=100)
    daily_prompt_max_chars: int = Field(default=60000, ge=2000)
    cache_today_size: int = Field(default=256, ge=1)
    cache_history_size: int = Field(default=4096, ge=1)
    cache_context_size: int = Field(default=4096, ge=1)
    commands_per_minute: int = Field(default=6, ge=1)
    forget_others_requires_manage_guild: bool = True

    # Conversation window
    window_token_budget: int = Field(default=2000, ge=100)
    reply_prompt_token_budget: int = Field(default=4000, ge=500)
    reply_max_members: int = Field(default=6, ge=1)
    window_soft_decay_minutes: float = Field(default=10.0, gt=0)
    window_hard_decay_minutes: float = Field(default=30.0, gt=0)
    reply_cooldown_seconds: float = Field(default=2.0, ge=0)

    # Ingestion
    ingest_batch_size: int = Field(default=500, ge=1)
    ingest_flush_seconds: float = Field(default=0.5, gt=0)
    ingest_queue_max: int = Field(default=100_000, ge=10)
    max_message_chars: int = Field(default=8000, ge=100)

    # Operations
    retention_days: int = Field(default=30, ge=1)
    retention_batch_size: int = Field(default=5000, ge=100)
    retention_interval_hours: float = Field(default=24.0, gt=0)
    log_dir: Path = Path("logs")
    log_level: str = "INFO"
    telemetry_stdout: bool = True
    telemetry_file_max_bytes: int = Field(default=10_000_000, ge=10_000)
    telemetry_file_backups: int = Field(default=5, ge=0)

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

    @model_validator(mode="after")
    def _provider_has_key(self) -> Settings:
        if self.llm_provider == "gemini" and self.gemini_api_key is None:
            raise ValueError("LLM_PROVIDER=gemini needs GEMINI_API_KEY")
        if self.window_hard_decay_minutes < self.window_soft_decay_minutes:
            raise ValueError("WINDOW_HARD_DECAY_MINUTES must be >= WINDOW_SOFT_DECAY_MINUTES")
        return self

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
            if name and name in ("gemini", "openai", "offline") and name not in chain:
                chain.append(name)  # type: ignore[arg-type]
        return chain

    def chain_for(self, purpose: str) -> list[ProviderName]:
        """The fallback chain for one purpose: LLM_PURPOSE_CHAINS override, else the default."""
        override = purpose_pairs(self.llm_purpose_chains).get(purpose)
        if override is None:
            return self.fallback_chain
        chain: list[ProviderName] = []
        for name in override.split(","):
            name = name.strip().lower()
            if name in ("gemini", "openai", "offline") and name not in chain:
                chain.append(name)  # type: ignore[arg-type]
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


def _describe(error: ValidationError) -> str:
    first = error.errors()[0]
    location = "_".join(str(part) for part in first.get("loc", ())).upper()
    message = first.get("msg", "invalid value")
    if location:
        return f"setting {location}: {message}"
    return f"settings: {message}"


def load_settings(**overrides: object) -> Settings:
    """Build settings, turning validation failures into a one-line SettingsError."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        raise SettingsError(_describe(exc)) from None
