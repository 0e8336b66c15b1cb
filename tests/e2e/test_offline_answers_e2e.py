"""Through the real bot on the fake Discord, with the offline provider (the default without a
key): a question about the past is answered with the old message that holds the answer,
quoted with who said it and when, not with a canned line."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import asyncpg

from db.messages import insert_messages
from memory.language import day_label
from memory.llm import MemoryLLM, OfflineProvider
from tests.e2e.conftest import StartBot, directory_ready
from tests.e2e.fake_discord import BOB_ID, GUILD_ID, FakeDiscord
from tests.support import chat_message

EXTENSIONS = ["bot.cogs.ingest", "bot.cogs.facts", "bot.cogs.replies"]


async def test_the_offline_bot_answers_a_question_about_the_past_from_the_old_message(
    fake_discord: FakeDiscord, start_bot: StartBot, db_pool: asyncpg.Pool
) -> None:
    said_at = datetime.now(UTC) - timedelta(days=60)
    old = chat_message(
        None,
        "moving to Berlin next spring for the new job",
        guild_id=GUILD_ID,
        channel_id=fake_discord.channel.id,
        author_id=BOB_ID,
        created_at=said_at,
    )
    await insert_messages(db_pool, [old])
    bot = await start_bot(
        extensions=EXTENSIONS,
        llm=MemoryLLM(OfflineProvider()),
        reply_cooldown_seconds=0,
        commands_per_minute=100,
    )
    await directory_ready(bot)
    start = len(fake_discord.sent_messages)
    asked = await fake_discord.send_message("Bot, what did bob say about Berlin?", author="alice")
    reply = await fake_discord.wait_for_sent(
        lambda m: (m.get("message_reference") or {}).get("message_id") == asked["id"],
        start=start,
        timeout=10,
    )
    content = reply["content"]
    assert '"moving to Berlin next spring for the new job"' in content
    assert day_label(said_at.date()) in content and "said" in content
    assert "offline mode" not in content
