"""Through the real bot: alice opts out with `/memory optout` and her warning about bob leaves
bob's day notes and summaries as the confirmation arrives, not when a worker next runs."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import asyncpg

from db.messages import insert_messages
from memory.core.models import ChatMessage
from tests.e2e.conftest import StartBot, directory_ready, until_stored
from tests.e2e.fake_discord import ALICE_ID, BOB_ID, GUILD_ID, FakeDiscord
from tests.e2e.fake_discord_models import GENERAL_ID

EXTENSIONS = ["bot.cogs.errors", "bot.cogs.ingest", "bot.cogs.memory_group"]


async def _derived(pool: asyncpg.Pool) -> str:
    rows = await pool.fetch(
        "SELECT note AS t FROM day_notes UNION ALL SELECT summary FROM daily_summaries"
        " UNION ALL SELECT summary FROM historical_summaries"
        " UNION ALL SELECT context FROM merged_contexts"
    )
    return " ".join(row["t"] for row in rows).lower()


async def test_an_opt_out_takes_her_words_out_of_bobs_days(
    fake_discord: FakeDiscord, start_bot: StartBot, db_pool: asyncpg.Pool
) -> None:
    bot = await start_bot(extensions=EXTENSIONS, commands_per_minute=100)
    await fake_discord.send_message("hi all", author="alice")
    await fake_discord.send_message("hello", author="bob")
    await directory_ready(bot, "alice")
    await directory_ready(bot, "bob")
    yesterday = datetime.now(UTC).replace(hour=10, minute=0, second=0) - timedelta(days=1)
    said = [
        (ALICE_ID, "careful everyone, bob is allergic to Kiwiberry jam, keep it away"),
        (BOB_ID, "I lead the Saturday hike to the lake, we leave at eight"),
    ]
    await insert_messages(
        db_pool,
        [
            ChatMessage(5_000 + i, GUILD_ID, GENERAL_ID, who, text, yesterday.replace(minute=i))
            for i, (who, text) in enumerate(said)
        ],
    )
    await bot.memory.manager.summarize_day(GUILD_ID, yesterday.date())
    assert "kiwiberry" in await _derived(db_pool)

    asked = await fake_discord.invoke_slash("memory optout", user="alice")
    await fake_discord.wait_for_interaction_response(asked["id"])
    await fake_discord.click_button(asked["id"], "Yes, forget me", user="alice")

    async def confirmed() -> bool:
        return "will not remember you" in fake_discord.interaction_text(asked["id"])

    await until_stored(bot, confirmed, within=10)
    held = await _derived(db_pool)
    assert "kiwiberry" not in held and "alice" not in held, held
