"""Words for people through the real bot: an opted-out member who addresses the bot is told,
in one short line, that they are not remembered and how to opt in (not silence, not a reply
built from memory); channels are known by name."""

from __future__ import annotations

import asyncpg

from tests.e2e.conftest import StartBot, directory_ready
from tests.e2e.fake_discord import ALICE_ID, GENERAL_ID, GUILD_ID, RANDOM_ID, FakeDiscord
from tests.support import eventually

EXTENSIONS = ["bot.cogs.ingest", "bot.cogs.facts", "bot.cogs.replies", "bot.cogs.memory_group"]


async def test_an_opted_out_member_who_addresses_the_bot_hears_how_to_opt_in(
    fake_discord: FakeDiscord, start_bot: StartBot, db_pool: asyncpg.Pool
) -> None:
    bot = await start_bot(extensions=EXTENSIONS, commands_per_minute=100)
    await fake_discord.send_message("hello, I'm alice", author="alice")
    await directory_ready(bot, "alice")
    subject = await bot.memory.privacy.subject_or_id(GUILD_ID, str(ALICE_ID))
    await bot.memory.privacy.opt_out(subject, actor_id=ALICE_ID, by_admin=False)

    start = len(fake_discord.sent_messages)
    await fake_discord.send_message("Bot, how are you today?", author="alice")
    reply = await fake_discord.wait_for_sent(lambda m: True, start=start, timeout=10)
    text = reply["content"]
    assert "don't remember you" in text and "/memory optin" in text, text
    assert "\n" not in text and len(text) < 200  # one short line
    held = await db_pool.fetchval("SELECT count(*) FROM messages WHERE author_id = $1", ALICE_ID)
    assert held == 0


async def test_channel_names_from_discord_are_kept_for_output(
    fake_discord: FakeDiscord, start_bot: StartBot, db_pool: asyncpg.Pool
) -> None:
    """`recall` and the like print #general: the names come from Discord as from imports."""
    bot = await start_bot(extensions=["bot.cogs.ingest"])

    async def names() -> dict[int, str]:
        await bot.memory.writer.flush()
        return await bot.memory.guild_settings.channel_names(GUILD_ID, [GENERAL_ID, RANDOM_ID])

    assert await eventually(names) == {GENERAL_ID: "general", RANDOM_ID: "random"}


async def test_help_lists_every_slash_command_to_the_asker_only(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    from tests.e2e.test_admin_e2e import slash

    extensions = [*EXTENSIONS, "bot.cogs.recall", "bot.cogs.help"]
    await start_bot(extensions=extensions)
    said, ephemeral = await slash(fake_discord, "help", user="alice")
    assert ephemeral
    assert said.startswith("**Bot** remembers the people of this server")
    synced = fake_discord.synced_commands[None]
    names = []
    for command in synced:
        subs = [o for o in command.get("options") or [] if o.get("type") == 1]
        names += [f"/{command['name']} {sub['name']}" for sub in subs] or [f"/{command['name']}"]
    assert "/help" in names and "/memory optin" in names and "/whois" in names
    for name in names:  # every synced command is listed
        assert f"`{name}`" in said, name
    assert "Manage Server" in said
