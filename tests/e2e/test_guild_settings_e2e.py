"""A guild's own settings take effect at once: ignored channels are neither stored nor answered,
and the guild's forget policy decides who may forget facts about someone else."""

from __future__ import annotations

import asyncpg

from bot.client import MemoryBot
from memory.guilds import GuildDefaults, update_guild_settings
from tests.e2e.conftest import StartBot, directory_ready, wired
from tests.e2e.fake_discord import ALICE_ID, GUILD_ID, RANDOM_ID, FakeDiscord

EXTENSIONS = ["bot.cogs.ingest", "bot.cogs.facts", "bot.cogs.replies"]


async def _started(start_bot: StartBot) -> MemoryBot:
    bot = await start_bot(extensions=EXTENSIONS, commands_per_minute=100, reply_cooldown_seconds=0)
    await directory_ready(bot)
    return bot


async def test_ignored_channel_is_neither_stored_nor_answered(
    fake_discord: FakeDiscord, start_bot: StartBot, db_pool: asyncpg.Pool
) -> None:
    bot = await _started(start_bot)
    memory = wired(bot)
    memory.guild_settings.store(
        await update_guild_settings(
            db_pool,
            GUILD_ID,
            GuildDefaults.from_settings(memory.settings),
            ignore_channel=RANDOM_ID,
        )
    )
    start = len(fake_discord.sent_messages)
    hidden = await fake_discord.send_message("Bot, hello there", author="alice", channel="random")
    shown = await fake_discord.send_message("Bot, hello there", author="alice")
    await fake_discord.wait_for_sent(
        lambda m: (m.get("message_reference") or {}).get("message_id") == shown["id"],
        start=start,
        timeout=10,
    )
    await memory.writer.flush()
    stored = {
        row["message_id"]
        for row in await db_pool.fetch(
            "SELECT message_id FROM messages WHERE guild_id = $1", GUILD_ID
        )
    }
    assert int(shown["id"]) in stored
    assert int(hidden["id"]) not in stored
    assert all(int(m["channel_id"]) != RANDOM_ID for m in fake_discord.sent_messages[start:])


async def test_guild_forget_policy_lets_anyone_forget_when_set(
    fake_discord: FakeDiscord, start_bot: StartBot, db_pool: asyncpg.Pool
) -> None:
    bot = await _started(start_bot)
    memory = wired(bot)

    async def ask(text: str) -> str:
        start = len(fake_discord.sent_messages)
        sent = await fake_discord.send_message(text, author="bob")
        reply = await fake_discord.wait_for_sent(
            lambda m: (m.get("message_reference") or {}).get("message_id") == sent["id"],
            start=start,
            timeout=10,
        )
        content: str = reply["content"]
        return content

    await ask("Bot remember that alice likes pizza")
    refused = await ask("Bot forget that alice likes pizza")
    assert refused.startswith("Sorry"), "by default only alice or a manager may forget"
    assert "pizza" in await memory.facts.blob(GUILD_ID, ALICE_ID)

    memory.guild_settings.store(
        await update_guild_settings(
            db_pool, GUILD_ID, GuildDefaults.from_settings(memory.settings), forget_others="anyone"
        )
    )
    done = await ask("Bot forget that alice likes pizza")
    assert "forgotten" in done
    assert "pizza" not in await memory.facts.blob(GUILD_ID, ALICE_ID)
