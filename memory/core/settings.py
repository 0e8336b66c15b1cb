"""Runtime configuration: one pydantic-settings class over the sections of
`memory.core.settings_sections`, read from the environment and `.env`.

Every field here is documented in `.env.example`. `load_settings()` is strict, as README
promises: a bad value, a misspelt variable in `.env` (`GEMINI_APIKEY`) or an unknown provider
name (`LLM_FALLBACK=ollama`) stops start-up with one line naming it and the closest valid name,
worded for the admin rather than by pydantic. It also chooses where data, logs and `.env` live
(see `memory.core.paths`).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from dotenv import dotenv_values
from pydantic import (
    PrivateAttr,
    ValidationError,
    model_validator,
)
from pydantic_settings import BaseSettings, SettingsConfigDict
from pydantic_settings import SettingsError as SourceError

from memory.core.paths import Locations, find_locations
from memory.core.secret_files import check_secret_files
from memory.core.settings_errors import (
    SettingsError,
    check_env_lines,
    check_known_names,
    describe_error,
    describe_source_error,
)
from memory.core.settings_sections import PROVIDERS as PROVIDERS
from memory.core.settings_sections import (
    DatabaseSection,
    DiscordSection,
    IngestSection,
    JobsSection,
    LLMSection,
    MemorySection,
    OperationsSection,
    RepliesSection,
)
from memory.core.settings_sections import ProviderName as ProviderName
from memory.core.settings_sections import check_provider as check_provider
from memory.core.settings_sections import purpose_pairs as purpose_pairs
from memory.core.shards import ShardPlan, shard_plan

_log = logging.getLogger(__name__)


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


class Settings(
    DiscordSection,
    DatabaseSection,
    LLMSection,
    MemorySection,
    RepliesSection,
    IngestSection,
    JobsSection,
    OperationsSection,
    BaseSettings,
):
    """All knobs of memorybot, section by section (`memory.core.settings_sections`). Secrets
    are SecretStr so they never land in logs or reprs."""

    model_config = SettingsConfigDict(
        env_file=None,
        env_file_encoding="utf-8",
        env_ignore_empty=True,
        extra="ignore",
        case_sensitive=False,
    )

    _locations: Locations | None = PrivateAttr(default=None)

    @property
    def locations(self) -> Locations | None:
        """Where `load_settings` found `.env` and put data and logs (None when built directly)."""
        return self._locations

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
