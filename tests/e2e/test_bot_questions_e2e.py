"""Through the real bot: a question put to the bot by @mentioning it is a request, not the
asker's day. The bot's own member row comes with its guild's members on READY, so the day notes
know the mention is the bot's and leave the question out, as they do one that calls it by name."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import asyncpg

from db.messages import insert_messages
from memory.core.models import ChatMessage
from tests.e2e.conftest import StartBot, directory_ready, until_stored
from tests.e2e.fake_discord import ALICE_ID, BOB_ID, GUILD_ID, FakeDiscord
from tests.e2e.fake_discord_models import GENERAL_ID

EXTENSIONS = ["bot.cogs.errors", "bot.cogs.ingest"]


async def test_a_question_to_the_bot_by_mention_stays_out_of_the_day_notes(
    fake_discord: FakeDiscord, start_bot: StartBot, db_pool: asyncpg.Pool
) -> None:
    bot = await start_bot(extensions=EXTENSIONS)
    bot_id = fake_discord.bot_user.id
    await directory_ready(bot, "alice")

    async def bot_known() -> bool:
        return bool(
            await db_pool.fetchval(
                "SELECT is_bot FROM members WHERE guild_id = $1 AND user_id = $2", GUILD_ID, bot_id
            )
        )

    await until_stored(bot, bot_known)
    yesterday = datetime.now(UTC).replace(hour=10, minute=0, second=0) - timedelta(days=1)
    said = [
        (ALICE_ID, "I moved here from Quillport last spring", ()),
        (
            BOB_ID,
            f"<@{bot_id}> which town did Alice move from, the one with the Varnholt ferry?",
            (bot_id,),
        ),
        (ALICE_ID, f"<@{BOB_ID}> your Tamberlane lamp is still at my place", (BOB_ID,)),
    ]
    await insert_messages(
        db_pool,
        [
            ChatMessage(
                6_000 + i, GUILD_ID, GENERAL_ID, who, text, yesterday.replace(minute=i), None, ids
            )
            for i, (who, text, ids) in enumerate(said)
        ],
    )
    await bot.memory.manager.summarize_day(GUILD_ID, yesterday.date())
    notes = " ".join(
        row["note"] for row in await db_pool.fetch("SELECT note FROM day_notes")
    ).lower()
    assert "quillport" in notes and "tamberlane" in notes, notes  # the chat is in the notes
    assert "varnholt" not in notes, notes  # bob asked the bot, he said nothing of his day
