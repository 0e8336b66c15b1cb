"""Per-guild settings: validated time zone, ignored channels, who may forget about others."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from memory.core.settings import load_settings
from memory.guilds._cache import GuildSettingsCache
from memory.guilds._settings import (
    GuildDefaults,
    GuildSettings,
    InvalidSetting,
    describe_settings,
    load_guild_settings,
    update_guild_settings,
    validate_timezone,
)

G = 77


def test_timezone_validation() -> None:
    assert validate_timezone("Europe/Berlin") == "Europe/Berlin"
    assert validate_timezone(" europe/berlin ") == "Europe/Berlin"  # forgiving about case
    assert validate_timezone("UTC") == "UTC"
    for bad in ("Mars/Olympus", "", "../../etc/passwd", "/etc/localtime", "GMT+25"):
        with pytest.raises(InvalidSetting, match="IANA name"):
            validate_timezone(bad)


async def test_defaults_until_changed_then_stored(db_pool: asyncpg.Pool) -> None:
    defaults = GuildDefaults.from_settings(
        load_settings(default_timezone="Asia/Tokyo", forget_others_requires_manage_guild=False)
    )
    assert await load_guild_settings(db_pool, G, defaults) == GuildSettings(
        G, "Asia/Tokyo", frozenset(), "anyone"
    )

    updated = await update_guild_settings(db_pool, G, defaults, ignore_channel=5)
    assert updated.timezone == "Asia/Tokyo"  # a new row takes the default zone, not UTC
    updated = await update_guild_settings(
        db_pool, G, defaults, timezone="america/new_york", forget_others="managers"
    )
    assert updated == GuildSettings(G, "America/New_York", frozenset({5}), "managers")
    assert await load_guild_settings(db_pool, G, defaults) == updated
    row = await db_pool.fetchrow("SELECT timezone, settings FROM guilds WHERE guild_id = $1", G)
    assert row is not None
    assert row["timezone"] == "America/New_York"
    assert row["settings"] == {"ignored_channel_ids": [5], "forget_others": "managers"}

    updated = await update_guild_settings(db_pool, G, defaults, unignore_channel=5)
    assert updated.ignored_channel_ids == frozenset() and updated.forget_others == "managers"


async def test_bad_values_change_nothing(db_pool: asyncpg.Pool) -> None:
    defaults = GuildDefaults.from_settings(load_settings())
    with pytest.raises(InvalidSetting):
        await update_guild_settings(db_pool, G, defaults, timezone="Nowhere/City", ignore_channel=1)
    with pytest.raises(InvalidSetting, match="managers, anyone"):
        await update_guild_settings(db_pool, G, defaults, forget_others="admins")
    assert await db_pool.fetchval("SELECT count(*) FROM guilds") == 0


async def test_concurrent_changes_keep_each_other(db_pool: asyncpg.Pool) -> None:
    defaults = GuildDefaults.from_settings(load_settings())
    await asyncio.gather(
        *(update_guild_settings(db_pool, G, defaults, ignore_channel=c) for c in range(1, 11))
    )
    settings = await load_guild_settings(db_pool, G, defaults)
    assert settings.ignored_channel_ids == frozenset(range(1, 11))
    assert settings.ignores(3) and not settings.ignores(11)


def test_describe() -> None:
    text = describe_settings(GuildSettings(G, "UTC", frozenset({9, 8}), "managers"))
    assert "Time zone (day boundaries of summaries): UTC" in text
    assert "<#8>, <#9>" in text and "only members with Manage Server" in text


async def test_a_process_serving_many_guilds_never_forgets_one_guilds_choices(
    db_pool: asyncpg.Pool,
) -> None:
    """The cache answers without waiting: a guild pushed out by others would read as the
    defaults, and its ignored channel be stored (issue 46: one shard serves ~10,000 guilds)."""
    cache = GuildSettingsCache(db_pool, GuildDefaults())
    await update_guild_settings(db_pool, G, GuildDefaults(), ignore_channel=5)
    await cache.refresh(G)
    for other in range(1_000, 1_000 + 12_000):
        cache.store(GuildSettings(other, "UTC", frozenset(), "anyone"))
    assert cache.peek(G).ignores(5)
    await cache.aclose()


async def test_a_refresh_that_read_before_an_admins_change_does_not_put_the_old_back(
    database_dsn: str,
) -> None:
    """A refresh scheduled by `peek` may be waiting for a connection while an admin's change is
    written and stored; when it reads and ends after that, the change stays."""
    pool = await asyncpg.create_pool(database_dsn, min_size=1, max_size=1)
    try:
        cache = GuildSettingsCache(pool, GuildDefaults())
        held = await pool.acquire()
        refresh = asyncio.ensure_future(cache.refresh(G))
        await asyncio.sleep(0)  # the refresh is now waiting for the only connection
        # What `update` stores once its write committed (the write is on another process's
        # connection here; the held connection keeps this refresh from reading first).
        cache.store(GuildSettings(G, "UTC", frozenset({5}), "anyone"))
        await pool.release(held)
        await refresh
        assert cache.peek(G).ignores(5)
        await cache.aclose()
    finally:
        await pool.close()
