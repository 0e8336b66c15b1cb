"""The real bot catching up on start: history missed while it was offline is backfilled
within retention (threads too), offline deletes and edits are reconciled, and a history read
Discord refuses deletes nothing."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import asyncpg

from tests.e2e.conftest import StartBot
from tests.e2e.fake_discord import (
    ALICE_ID,
    GENERAL_ID,
    GUILD_ID,
    RANDOM_ID,
    FakeDiscord,
    eventually,
)
from tests.e2e.ingest_support import (
    INGEST_ONLY,
    ingest_cog,
    stored_ids,
    stored_message,
)


async def test_backfill_fetches_what_was_missed_within_retention(
    fake_discord: FakeDiscord, start_bot: StartBot, db_pool: asyncpg.Pool
) -> None:
    now = datetime.now(UTC)
    too_old = fake_discord.add_history("ancient", created_at=now - timedelta(days=40))
    already = fake_discord.add_history("already stored", created_at=now - timedelta(hours=3))
    missed = [
        fake_discord.add_history(f"missed {i}", author="bob", created_at=now - timedelta(hours=2))
        for i in range(150)  # more than one history page
    ]
    in_random = fake_discord.add_history("over here", channel="random")
    fake_discord.add_history("no access", channel="secret")
    fake_discord.add_history("a bot", author="otherbot")
    await db_pool.execute(
        "INSERT INTO messages (message_id, guild_id, channel_id, author_id, content, created_at)"
        " VALUES ($1, $2, $3, $4, 'already stored', now())",
        int(already["id"]),
        GUILD_ID,
        GENERAL_ID,
        ALICE_ID,
    )

    bot = await start_bot(extensions=INGEST_ONLY)
    cog = ingest_cog(bot)
    await eventually(lambda: cog.backfill_task)
    assert await asyncio.wait_for(cog.backfill_done(), 20) == 151
    await bot.memory.writer.flush()

    expected = {int(already["id"]), int(in_random["id"]), *(int(m["id"]) for m in missed)}
    assert set(await stored_ids(db_pool)) == expected
    assert int(too_old["id"]) not in expected
    # a second run starts after the newest stored message: nothing new, nothing re-read
    requests_before = len(fake_discord.requests)
    assert await cog.backfiller.run(bot.guilds) == 0
    history_calls = [
        r for r in fake_discord.requests[requests_before:] if r[1].endswith("/messages")
    ]
    assert len(history_calls) == 2  # one empty page per readable channel


async def test_start_reconciles_offline_deletes_and_backfills_active_threads(
    fake_discord: FakeDiscord, start_bot: StartBot, db_pool: asyncpg.Pool
) -> None:
    """While the bot was offline: 3 of 10 stored messages were deleted, one was edited, and
    an active thread got 120 messages. On start all of it is caught up."""
    now = datetime.now(UTC)
    stored = [
        fake_discord.add_history(f"stored {i}", created_at=now - timedelta(hours=3, minutes=i))
        for i in range(10)
    ]
    for message in stored:
        await db_pool.execute(
            "INSERT INTO messages (message_id, guild_id, channel_id, author_id, content,"
            " created_at) VALUES ($1, $2, $3, $4, $5, $6)",
            int(message["id"]),
            GUILD_ID,
            GENERAL_ID,
            ALICE_ID,
            message["content"],
            datetime.fromisoformat(message["timestamp"]),
        )
    gone = [int(m["id"]) for m in stored[2:5]]
    for message_id in gone:
        fake_discord.forget_message(message_id)  # deleted while the bot was offline
    stored[7]["content"] = "edited while offline"
    stored[7]["edited_timestamp"] = now.isoformat()
    thread = fake_discord.add_thread("plans")
    in_thread = [
        fake_discord.add_history(f"thread {i}", channel=thread, created_at=now - timedelta(hours=1))
        for i in range(120)  # more than one history page
    ]

    bot = await start_bot(extensions=INGEST_ONLY)
    cog = ingest_cog(bot)
    await eventually(lambda: cog.backfill_task)
    assert await asyncio.wait_for(cog.backfill_done(), 30) == 120
    await bot.memory.writer.flush()

    for message_id in gone:
        row = await stored_message(db_pool, message_id)
        assert row.deleted and row.content == "", "an offline delete was not detected"
    kept = [int(m["id"]) for m in stored if int(m["id"]) not in gone]
    for message_id in kept:
        assert not (await stored_message(db_pool, message_id)).deleted
    assert (await stored_message(db_pool, int(stored[7]["id"]))).content == "edited while offline"
    rows = await db_pool.fetch(
        "SELECT message_id FROM messages WHERE channel_id = $1 ORDER BY 1", thread.id
    )
    assert [r["message_id"] for r in rows] == sorted(int(m["id"]) for m in in_thread)
    assert ("GET", f"/guilds/{GUILD_ID}/threads/active") in fake_discord.requests

    # later READYs (reconnects) only catch up: no second full read of the window
    before = len(fake_discord.requests)
    assert await cog.backfiller.run(bot.guilds) == 0
    reads = [r for r in fake_discord.requests[before:] if r[1].endswith("/messages")]
    assert len(reads) == 3  # one empty page per readable channel and thread


async def test_a_history_read_cut_short_deletes_nothing(
    fake_discord: FakeDiscord, start_bot: StartBot, db_pool: asyncpg.Pool
) -> None:
    now = datetime.now(UTC)
    message = fake_discord.add_history("kept", channel="random", created_at=now)
    await db_pool.execute(
        "INSERT INTO messages (message_id, guild_id, channel_id, author_id, content,"
        " created_at) VALUES ($1, $2, $3, $4, 'kept', now())",
        int(message["id"]),
        GUILD_ID,
        RANDOM_ID,
        ALICE_ID,
    )
    fake_discord.history_forbidden.add(RANDOM_ID)  # Discord refuses: we learn nothing
    bot = await start_bot(extensions=INGEST_ONLY)
    cog = ingest_cog(bot)
    await eventually(lambda: cog.backfill_task)
    await asyncio.wait_for(cog.backfill_done(), 30)
    await bot.memory.writer.flush()
    stored = await stored_message(db_pool, int(message["id"]))
    assert not stored.deleted and stored.content == "kept"
