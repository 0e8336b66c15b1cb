"""A member's own controls through the real bot and discord.py against the fake Discord."""

from __future__ import annotations

import asyncpg

from tests.e2e.cogs import MEMORY_COGS
from tests.e2e.conftest import StartBot, directory_ready, settled, until_stored
from tests.e2e.fake_discord import ALICE_ID, BOB_ID, GUILD_ID, FakeDiscord

EXTENSIONS = MEMORY_COGS


async def _authors(pool: asyncpg.Pool) -> list[int]:
    rows = await pool.fetch("SELECT author_id FROM messages ORDER BY message_id")
    return [row["author_id"] for row in rows]


async def test_an_opted_out_member_is_not_stored_from_live_chat(
    fake_discord: FakeDiscord, start_bot: StartBot, db_pool: asyncpg.Pool
) -> None:
    bot = await start_bot(extensions=EXTENSIONS, commands_per_minute=100)
    await fake_discord.send_message("hello, I'm alice", author="alice")
    await directory_ready(bot, "alice")
    subject = await bot.memory.privacy.subject_or_id(GUILD_ID, str(ALICE_ID))
    await bot.memory.privacy.opt_out(subject, actor_id=ALICE_ID, by_admin=False)

    await fake_discord.send_message("alice again, after opting out", author="alice")
    await fake_discord.send_message("bob here, talking about alice", author="bob")

    async def bobs_message() -> bool:
        return BOB_ID in await _authors(db_pool)

    await until_stored(bot, bobs_message)
    await settled(bot)
    assert await _authors(db_pool) == [BOB_ID]

    start = len(fake_discord.sent_messages)
    await fake_discord.send_message(
        f"Bot remember that <@{ALICE_ID}> likes tea", author="bob", mentions=["alice"]
    )
    reply = await fake_discord.wait_for_sent(lambda m: True, start=start, timeout=10)
    assert "asked not to be remembered" in reply["content"]


async def test_opting_out_with_the_confirm_button_forgets_the_member(
    fake_discord: FakeDiscord, start_bot: StartBot, db_pool: asyncpg.Pool
) -> None:
    bot = await start_bot(extensions=EXTENSIONS, commands_per_minute=100)
    await fake_discord.send_message("I'm alice and I play the cello", author="alice")
    await directory_ready(bot, "alice")
    await until_stored(bot, lambda: _has_author(db_pool, ALICE_ID))

    asked = await fake_discord.invoke_slash("memory optout", user="alice")
    await fake_discord.wait_for_interaction_response(asked["id"])
    await fake_discord.click_button(asked["id"], "Yes, forget me", user="bob")  # not theirs
    await fake_discord.click_button(asked["id"], "Yes, forget me", user="alice")

    async def confirmed() -> bool:
        return "will not remember you" in fake_discord.interaction_text(asked["id"])

    await until_stored(bot, confirmed, within=10)
    assert ALICE_ID not in await _authors(db_pool)
    subject = await bot.memory.privacy.subject_or_id(GUILD_ID, str(ALICE_ID))
    assert (await bot.memory.privacy.export(subject))["opted_out"] is True


async def test_cancelling_the_opt_out_changes_nothing(
    fake_discord: FakeDiscord, start_bot: StartBot, db_pool: asyncpg.Pool
) -> None:
    bot = await start_bot(extensions=EXTENSIONS, commands_per_minute=100)
    await fake_discord.send_message("I'm alice and I play the cello", author="alice")
    await until_stored(bot, lambda: _has_author(db_pool, ALICE_ID))

    asked = await fake_discord.invoke_slash("memory optout", user="alice")
    await fake_discord.wait_for_interaction_response(asked["id"])
    click = await fake_discord.click_button(asked["id"], "Cancel", user="alice")
    update = await fake_discord.wait_for_interaction_response(click["id"])
    assert update["type"] == 7  # the question is replaced in place
    assert "Nothing changed" in (update.get("data") or {}).get("content", "")
    await settled(bot)
    assert await _authors(db_pool) == [ALICE_ID]


async def _has_author(pool: asyncpg.Pool, author: int) -> bool:
    return author in await _authors(pool)
