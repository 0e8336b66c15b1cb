"""An opt-out in one process (the command line) takes the member's words out of what another
process (the bot) holds of others: bob's memory built yesterday from alice's warning no longer
carries it in the bot's next answer, without waiting for any worker."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import asyncpg

from db.members import upsert_members
from db.messages import insert_messages
from memory.core.models import Member
from tests.memory.wiring.test_cross_process import CHANNEL, NOW, two_processes
from tests.support import chat_message, eventually

G, ALICE, BOB = 951, 97, 98
YESTERDAY = NOW - timedelta(days=1)


async def test_an_opt_out_elsewhere_takes_her_words_out_of_others_memory(
    db_pool: asyncpg.Pool, database_dsn: str, tmp_path: Path
) -> None:
    await upsert_members(
        db_pool, [Member(G, ALICE, username="alice"), Member(G, BOB, username="bob")]
    )
    warning = "careful everyone, bob is allergic to Kiwiberry jam, keep it away"
    await insert_messages(
        db_pool,
        [
            chat_message(
                1, warning, guild_id=G, channel_id=CHANNEL, author_id=ALICE, created_at=YESTERDAY
            ),
            chat_message(
                2,
                "I lead the Saturday hike to the lake, we leave at eight from the station",
                guild_id=G,
                channel_id=CHANNEL,
                author_id=BOB,
                created_at=YESTERDAY + timedelta(minutes=1),
            ),
        ],
    )
    async with two_processes(db_pool, database_dsn, tmp_path) as (bot, cli):
        assert "Kiwiberry" in (await bot.manager.get_memories(G, BOB, budget=5) or "")
        await eventually(lambda: bot.manager.get_memories(G, BOB, budget=5))
        assert bot.manager._warm.get(G, BOB) is not None  # the bot holds it warm

        subject = await cli.privacy.subject(G, "alice")  # the command line, elsewhere
        await cli.privacy.opt_out(subject, actor_id=None, by_admin=True)

        await eventually(lambda: bot.manager._warm.get(G, BOB) is None, timeout=2)
        # What a reply falls back to when its budget runs out: only what is stored.
        stored = (await bot.manager.stored_context(G, BOB)).text or ""
        assert "Kiwiberry" not in stored and "alice" not in stored.lower(), stored
        report = await bot.manager.wait_for_context(G, BOB)
        memories = report.text or ""
        assert "Kiwiberry" not in memories and "alice" not in memories.lower()
        assert "Saturday hike" in memories
