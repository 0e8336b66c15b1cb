"""Per-guild settings an admin changes with `/memory settings`.

Stored in `guilds.timezone`, `guilds.search_config` (text search configuration of recall) and
the `guilds.settings` jsonb (keys `ignored_channel_ids`, `forget_others`, `storage`,
`memory_sources`, the last read by db/visibility.py's SHARED_SOURCE predicate too). Readers
(ingestion for ignored channels, fact commands for who may forget about others, the hierarchy
for day boundaries) call `load_guild_settings`; a guild with nothing stored gets the
process-wide defaults.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

import asyncpg

from db.guilds import get_settings, get_timezone, lock_settings, replace_settings
from db.search_config import (
    get_search_config,
    reindex_guild,
    set_search_config,
    text_search_configs,
)
from db.types import Connection
from db.visibility import (
    drop_shared_memory,
    forget_learned_from,
    restricted_channels,
    restricted_days,
)
from memory.core.channels import MEMORY_SOURCES
from memory.core.config_fields import FromSettings, setting

_log = logging.getLogger(__name__)

ForgetOthers = Literal["managers", "anyone"]
FORGET_OTHERS: tuple[ForgetOthers, ...] = ("managers", "anyone")
IGNORED_CHANNELS_KEY = "ignored_channel_ids"
FORGET_OTHERS_KEY = "forget_others"
STORAGE_KEY = "storage"  # read by db/consent.py's STORABLE predicate too
STORAGE_MODES = ("everyone", "opted-in")
MEMORY_SOURCES_KEY = "memory_sources"  # read in SQL by db/visibility.py
DEFAULT_SEARCH_CONFIG = "simple"
EPISODE_SILENCE_KEY = "episode_silence_minutes"
DIGEST_CHANNEL_KEY = "digest_channel_id"  # read by db/episode_reads.py too
DIGEST_TIME_KEY = "digest_time"


@dataclass(frozen=True, slots=True)
class GuildDefaults:
    """What a guild that never changed its settings gets (DEFAULT_TIMEZONE and
    FORGET_OTHERS_REQUIRES_MANAGE_GUILD)."""

    default_timezone: str = setting("default_timezone")
    forget_others_requires_manage_guild: bool = setting("forget_others_requires_manage_guild")

    from_settings = FromSettings()


class InvalidSetting(ValueError):
    """A value an admin typed that cannot be stored; the message says what would work."""


@dataclass(frozen=True)
class GuildSettings:
    guild_id: int
    timezone: str
    ignored_channel_ids: frozenset[int] = field(default_factory=frozenset)
    forget_others: ForgetOthers = "managers"
    # "everyone" (the default) or "opted-in": only members who opted in are stored.
    storage: str = "everyone"
    # PostgreSQL text search configuration of recall: 'simple' (any language, no stemming).
    search_config: str = DEFAULT_SEARCH_CONFIG
    # Shared memory (notes, summaries, learned facts, contexts) from "public" channels only,
    # or from "all" stored channels (servers where every member sees everything).
    memory_sources: str = "public"
    # Episodes: silence that starts a new one (None: EPISODE_SILENCE_MINUTES); the daily
    # digest's channel and local HH:MM (both None: off).
    episode_silence_minutes: int | None = None
    digest_channel_id: int | None = None
    digest_time: str | None = None

    @property
    def forget_others_requires_manage_guild(self) -> bool:
        return self.forget_others == "managers"

    def ignores(self, channel_id: int) -> bool:
        return channel_id in self.ignored_channel_ids


def validate_timezone(name: str) -> str:
    """The canonical IANA name for `name` (case-insensitive), or InvalidSetting."""
    text = name.strip()
    if text and ".." not in text and not text.startswith("/"):
        try:
            ZoneInfo(text)
            return text
        except (ZoneInfoNotFoundError, ValueError):
            pass
        matches = [zone for zone in available_timezones() if zone.lower() == text.lower()]
        if len(matches) == 1:
            return matches[0]
    raise InvalidSetting(
        f"{name!r} is not a time zone I know; use an IANA name such as Europe/Berlin,"
        " America/New_York or UTC"
    )


async def validate_search_config(db: asyncpg.Pool | Connection, name: str) -> str:
    """The configuration named `name` (case-insensitive) if the server has it, else
    InvalidSetting listing the ones it has, so the admin can pick one."""
    known = await text_search_configs(db)
    wanted = name.strip().lower()
    if wanted in known:
        return wanted
    raise InvalidSetting(
        f"{name!r} is not a text search configuration of this database; use one of "
        + ", ".join(known)
    )


def _forget_others(value: Any, default: ForgetOthers) -> ForgetOthers:
    return value if value in FORGET_OTHERS else default


def _channel_ids(value: Any) -> frozenset[int]:
    if not isinstance(value, list):
        return frozenset()
    ids = set()
    for item in value:
        try:
            ids.add(int(item))
        except (TypeError, ValueError):
            _log.warning("ignoring malformed channel id %r in guild settings", item)
    return frozenset(ids)


def _from_stored(
    guild_id: int,
    timezone: str,
    stored: dict[str, Any],
    defaults: GuildDefaults,
    search_config: str = DEFAULT_SEARCH_CONFIG,
) -> GuildSettings:
    default_forget: ForgetOthers = (
        "managers" if defaults.forget_others_requires_manage_guild else "anyone"
    )
    try:
        timezone = validate_timezone(timezone)
    except InvalidSetting:
        _log.warning("guild %s has unknown timezone %r; using the default", guild_id, timezone)
        timezone = defaults.default_timezone
    return GuildSettings(
        guild_id=guild_id,
        timezone=timezone,
        ignored_channel_ids=_channel_ids(stored.get(IGNORED_CHANNELS_KEY)),
        forget_others=_forget_others(stored.get(FORGET_OTHERS_KEY), default_forget),
        storage=str(stored[STORAGE_KEY])
        if stored.get(STORAGE_KEY) in STORAGE_MODES
        else "everyone",
        search_config=search_config,
        memory_sources=("all" if stored.get(MEMORY_SOURCES_KEY) == "all" else "public"),
        episode_silence_minutes=_int_or_none(stored.get(EPISODE_SILENCE_KEY)),
        digest_channel_id=_int_or_none(stored.get(DIGEST_CHANNEL_KEY)),
        digest_time=stored.get(DIGEST_TIME_KEY) if stored.get(DIGEST_CHANNEL_KEY) else None,
    )


def _int_or_none(value: Any) -> int | None:
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


async def load_guild_settings(
    db: asyncpg.Pool | Connection, guild_id: int, defaults: GuildDefaults
) -> GuildSettings:
    """The guild's settings, with the process-wide defaults for whatever it never set."""
    timezone = await get_timezone(db, guild_id, defaults.default_timezone)
    stored = await get_settings(db, guild_id)
    search_config = await get_search_config(db, guild_id)
    return _from_stored(guild_id, timezone, stored, defaults, search_config)


def _check_choice(name: str, value: str | None, choices: Sequence[str]) -> None:
    """InvalidSetting naming the choices when `value` is given and not one of them."""
    if value is not None and value not in choices:
        raise InvalidSetting(f"{name} must be one of {', '.join(choices)}")


async def update_guild_settings(
    pool: asyncpg.Pool,
    guild_id: int,
    defaults: GuildDefaults,
    *,
    timezone: str | None = None,
    ignore_channel: int | None = None,
    unignore_channel: int | None = None,
    forget_others: str | None = None,
    storage: str | None = None,
    search_config: str | None = None,
    memory_sources: str | None = None,
    episode_silence_minutes: int | None = None,
    digest: tuple[int, str] | None = None,
    digest_off: bool = False,
) -> GuildSettings:
    """Apply the given changes atomically (row lock), leaving the other settings alone.
    `search_config` is stored first (writers wait for it, then use it), then the guild's
    stored messages and summaries are re-indexed in short batches before this returns
    (about a minute per million messages; meanwhile some stemmed matches are missed)."""
    _check_choice("storage", storage, STORAGE_MODES)
    _check_choice("memory_sources", memory_sources, MEMORY_SOURCES)
    _check_choice("forget_others", forget_others, FORGET_OTHERS)
    if timezone is not None:
        timezone = validate_timezone(timezone)
    if search_config is not None:
        search_config = await validate_search_config(pool, search_config)
    async with pool.acquire() as connection, connection.transaction():
        current_zone, stored = await lock_settings(
            connection, guild_id, default_timezone=defaults.default_timezone
        )
        channels = set(_channel_ids(stored.get(IGNORED_CHANNELS_KEY)))
        if ignore_channel is not None:
            channels.add(ignore_channel)
        if unignore_channel is not None:
            channels.discard(unignore_channel)
        stored[IGNORED_CHANNELS_KEY] = sorted(channels)
        if forget_others is not None:
            stored[FORGET_OTHERS_KEY] = forget_others
        if storage is not None:
            stored[STORAGE_KEY] = storage
        sources_changed = memory_sources is not None and memory_sources != stored.get(
            MEMORY_SOURCES_KEY, "public"
        )
        if memory_sources is not None:
            stored[MEMORY_SOURCES_KEY] = memory_sources
        _apply_episode_settings(stored, episode_silence_minutes, digest, digest_off)
        new_zone = timezone or current_zone
        await replace_settings(connection, guild_id, timezone=new_zone, settings=stored)
        config = await get_search_config(connection, guild_id)
        if search_config is not None and search_config != config:
            await set_search_config(connection, guild_id, search_config)
            config = search_config
        if sources_changed:  # days holding restricted channels are read again, with or without
            await _sources_changed(connection, guild_id, memory_sources == "public", new_zone)
    if search_config is not None:  # also when unchanged: finishes an interrupted re-index
        count = await reindex_guild(pool, guild_id)
        _log.info("guild %s searched with %r: %d rows re-indexed", guild_id, config, count)
    return _from_stored(guild_id, new_zone, stored, defaults, config)


async def _sources_changed(
    connection: Connection, guild_id: int, public_only: bool, timezone: str
) -> None:
    """Days holding restricted channels' messages are summarised again; back to public only,
    what shared memory drew from those channels goes at once (no fallback serves it)."""
    days = await restricted_days(connection, guild_id, timezone)
    dropped = 0
    if public_only:
        restricted = sorted(await restricted_channels(connection, guild_id))
        dropped = await drop_shared_memory(connection, guild_id, restricted, timezone)
        dropped += await forget_learned_from(connection, guild_id, restricted)
    _log.info(
        "guild %s memory from %s channels: %d day(s) stale, %d row(s) dropped",
        guild_id,
        "public" if public_only else "all",
        days,
        dropped,
    )


def _apply_episode_settings(
    stored: dict[str, Any],
    silence: int | None,
    digest: tuple[int, str] | None,
    digest_off: bool,
) -> None:
    """Episode silence (minutes, 10 to 1440) and the digest's channel and HH:MM time."""
    if silence is not None:
        if not 10 <= silence <= 1440:
            raise InvalidSetting("episode silence must be between 10 and 1440 minutes")
        stored[EPISODE_SILENCE_KEY] = silence
    if digest_off:
        stored.pop(DIGEST_CHANNEL_KEY, None)
        stored.pop(DIGEST_TIME_KEY, None)
    if digest is not None:
        stored[DIGEST_CHANNEL_KEY] = int(digest[0])
        stored[DIGEST_TIME_KEY] = digest[1]


def describe_settings(settings: GuildSettings, channel_name: Any = None) -> str:
    """Human-readable lines; `channel_name(id)` may turn ids into names (else `<#id>`)."""
    name = channel_name or (lambda channel_id: f"<#{channel_id}>")
    ignored = ", ".join(name(cid) for cid in sorted(settings.ignored_channel_ids)) or "none"
    forget = (
        "only members with Manage Server"
        if settings.forget_others_requires_manage_guild
        else "anyone"
    )
    return "\n".join(
        [
            f"Time zone (day boundaries of summaries): {settings.timezone}",
            f"Ignored channels (messages not stored): {ignored}",
            f"Who may forget facts about someone else: {forget}",
            f"Recall search configuration: {settings.search_config}"
            + (" (any language, no stemming)" if settings.search_config == "simple" else ""),
            "Shared memory (notes, summaries, learned facts) built from: "
            + (
                "every stored channel"
                if settings.memory_sources == "all"
                else "public channels only (those everyone can read)"
            ),
            "Who is stored: "
            + (
                "only members who ran /memory optin"
                if settings.storage == "opted-in"
                else "everyone who has not opted out"
            ),
            "Daily digest: "
            + (
                f"{name(settings.digest_channel_id)} at {settings.digest_time}"
                if settings.digest_channel_id is not None
                else "off"
            ),
        ]
    )
