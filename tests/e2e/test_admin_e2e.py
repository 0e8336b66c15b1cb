"""Admin commands through the real bot, discord.py and the fake Discord: who may use them, what
they show, and that a purge from Discord leaves nothing about the member."""

from __future__ import annotations

import asyncio
from typing import Any

import asyncpg

from bot.client import MemoryBot
from memory.core.telemetry import Telemetry
from tests.e2e.cogs import MEMORY_COGS
from tests.e2e.conftest import StartBot, directory_ready, until_stored, wired
from tests.e2e.fake_discord import ALICE_ID, BOB_ID, GUILD_ID, MANAGE_GUILD, FakeDiscord
from tests.support import eventually

EXTENSIONS = MEMORY_COGS
EPHEMERAL = 64


async def started(start_bot: StartBot, fake: FakeDiscord, **settings: Any) -> MemoryBot:
    bot = await start_bot(extensions=EXTENSIONS, **settings)
    assert bot.memory.writer is not None
    await fake.send_message("I got a new bass guitar today", author="bob")
    await fake.send_message("nice! what colour?", author="alice")
    await directory_ready(bot)
    await until_stored(bot, lambda: wired(bot).pool.fetchval("SELECT count(*) FROM messages"))
    await wired(bot).pool.execute(
        "INSERT INTO user_facts (guild_id, user_id, blob, version) VALUES ($1, $2, $3, 1)",
        GUILD_ID,
        BOB_ID,
        "Bobby plays bass in a band.",
    )
    return bot


async def slash(
    fake: FakeDiscord, name: str, options: dict[str, Any] | None = None, **kwargs: Any
) -> tuple[str, bool]:
    """Invoke `/name`; returns everything the bot said and whether all of it was ephemeral."""
    interaction = await fake.invoke_slash(name, options, **kwargs)
    key = int(interaction["id"])
    response = await fake.wait_for_interaction_response(key, timeout=10)
    if response.get("type") == 5:  # deferred: the answer comes as a follow-up
        for _ in range(1000):
            if fake.followups.get(key):
                break
            await asyncio.sleep(0.02)
        payloads = [response.get("data") or {}, *fake.followups[key]]
    else:
        payloads = [response.get("data") or {}]
    ephemeral = all((payload.get("flags") or 0) & EPHEMERAL for payload in payloads)
    for payload in payloads[1:] or payloads:
        assert (payload.get("allowed_mentions") or {}).get("parse", []) == []
    return fake.interaction_text(key), ephemeral


async def test_memory_group_holds_admin_and_member_commands(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    await started(start_bot, fake_discord)
    [group] = [c for c in fake_discord.synced_commands[None] if c["name"] == "memory"]
    assert {"undo", "stats", "context", "purge", "settings"} <= {
        o["name"] for o in group["options"]
    }


async def test_admin_commands_refuse_non_admins(
    fake_discord: FakeDiscord, start_bot: StartBot, db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await started(start_bot, fake_discord)
    for name, options in [
        ("memory stats", {}),
        ("memory context", {"user": "bob"}),
        ("memory settings", {"timezone": "Europe/Berlin"}),
    ]:
        said, ephemeral = await slash(fake_discord, name, options, user="alice")
        command = name.split()[1]
        assert said == (
            "Sorry, only members with the **Manage Server** permission can use"
            f" `/memory {command}`."
        )
        assert ephemeral
    said, ephemeral = await slash(fake_discord, "memory purge", {"user": "bob", "confirm": True})
    assert said.startswith("Sorry, you can only purge what I hold about yourself") and ephemeral

    refused = [e for e in telemetry.recent("admin") if e["outcome"] == "refused"]
    assert [e["command"] for e in refused] == ["stats", "context", "settings", "purge"]
    assert all(e["actor_id"] == ALICE_ID for e in refused)
    # nothing changed
    assert await db_pool.fetchval("SELECT timezone FROM guilds WHERE guild_id = $1", GUILD_ID) in (
        None,
        "UTC",
    )
    assert await db_pool.fetchval("SELECT count(*) FROM members WHERE user_id = $1", BOB_ID) == 1


async def test_stats_context_and_settings_for_admins(
    fake_discord: FakeDiscord, start_bot: StartBot, db_pool: asyncpg.Pool
) -> None:
    bot = await started(start_bot, fake_discord)
    admin: dict[str, Any] = {"user": "alice", "member_permissions": MANAGE_GUILD}

    context, ephemeral = await slash(fake_discord, "memory context", {"user": "bob"}, **admin)
    assert ephemeral
    assert context.startswith(f"**Memory of Bobby** (id {BOB_ID}), as of ")
    assert "plays bass" in context
    assert "Sources:" in context and "facts" in context and "user_facts" in context
    assert "/1200 chars" in context and "Budget: 60.0s" in context
    assert "LLM calls:" in context

    stats, ephemeral = await slash(fake_discord, "memory stats", **admin)
    assert ephemeral and stats.startswith("**Memory stats**")
    assert "LLM calls today" in stats and "Cache hit rates today:" in stats
    assert "Ingest queue depth: 0" in stats
    assert "Memory fallbacks in the last hour: 0" in stats

    shown, _ = await slash(fake_discord, "memory settings", **admin)
    assert "Time zone (day boundaries of summaries): UTC" in shown
    changed, ephemeral = await slash(
        fake_discord,
        "memory settings",
        {"timezone": "europe/berlin", "forget_others": "anyone"},
        **admin,
    )
    assert ephemeral and changed.startswith("**Settings updated**")
    assert (
        "Europe/Berlin" in changed and "Who may forget facts about someone else: anyone" in changed
    )
    row = await db_pool.fetchrow(
        "SELECT timezone, settings FROM guilds WHERE guild_id = $1", GUILD_ID
    )
    assert row is not None
    assert row["timezone"] == "Europe/Berlin" and row["settings"]["forget_others"] == "anyone"

    bad, _ = await slash(fake_discord, "memory settings", {"timezone": "Mars/Base"}, **admin)
    assert bad.startswith("Nothing changed: 'Mars/Base' is not a time zone I know")
    assert (
        await db_pool.fetchval("SELECT timezone FROM guilds WHERE guild_id = $1", GUILD_ID)
        == "Europe/Berlin"
    )

    assert "Recall search configuration: simple (any language, no stemming)" in shown
    stemmed, _ = await slash(fake_discord, "memory settings", {"search_config": "english"}, **admin)
    assert "Recall search configuration: english" in stemmed
    hits = await bot.memory.recall.search(GUILD_ID, "guitars")  # stemmed: finds "guitar"
    assert [hit.text for hit in hits] == ["I got a new bass guitar today"]
    unknown, _ = await slash(fake_discord, "memory settings", {"search_config": "elvish"}, **admin)
    assert unknown.startswith("Nothing changed: 'elvish' is not a text search configuration")
    assert "english" in unknown and "simple" in unknown


async def _rows_about(db: asyncpg.Pool, user_id: int) -> dict[str, int]:
    tables = await db.fetch(
        "SELECT table_name FROM information_schema.columns"
        " WHERE table_schema = current_schema() AND column_name = 'guild_id'"
    )
    found = {}
    for row in tables:
        n = await db.fetchval(
            f'SELECT count(*) FROM "{row["table_name"]}" t WHERE t::text LIKE $1', f"%{user_id}%"
        )
        if n:
            found[row["table_name"]] = n
    return found


async def test_purge_from_discord(
    fake_discord: FakeDiscord, start_bot: StartBot, db_pool: asyncpg.Pool
) -> None:
    bot = await started(start_bot, fake_discord)
    await slash(
        fake_discord, "memory context", {"user": "bob"}, user="bob", member_permissions=MANAGE_GUILD
    )
    assert "user_facts" in await _rows_about(db_pool, BOB_ID)

    # a member may purge themself; without confirm they only see what would go
    preview, ephemeral = await slash(fake_discord, "memory purge", {"user": "bob"}, user="bob")
    assert ephemeral and preview.startswith("This would delete everything I hold about Bobby:")
    assert "messages: 1" in preview and "facts: 1" in preview
    assert await _rows_about(db_pool, BOB_ID)

    done, ephemeral = await slash(
        fake_discord, "memory purge", {"user": "bob", "confirm": True}, user="bob"
    )
    assert ephemeral and done.startswith("Done: I no longer hold anything about Bobby")

    async def purged() -> bool:  # shared days are re-summarised in the background
        return await _rows_about(db_pool, BOB_ID) == {}

    await eventually(purged)
    assert (
        await db_pool.fetchval("SELECT count(*) FROM messages WHERE author_id = $1", ALICE_ID) == 1
    )

    again, _ = await slash(fake_discord, "memory purge", {"user": "bob"}, user="bob")
    assert again == "I hold nothing about Bobby."
    # the cached context is gone too: a rebuild knows nothing
    manager = bot.memory.manager
    report = await manager.wait_for_context(GUILD_ID, BOB_ID)
    assert report.text is None or "bass" not in report.text
