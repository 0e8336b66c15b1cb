"""The real bot against the fake Discord and PostgreSQL: what members say is stored, edits and
deletes follow, the bot's own words and other bots are left out, an outage loses nothing."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import asyncpg

from db.embedded import EmbeddedPostgres
from db.members import get_member
from db.messages import get_message
from tests.e2e.conftest import StartBot, settled, until_stored
from tests.e2e.fake_discord import (
    ALICE_ID,
    BOB_ID,
    GENERAL_ID,
    GUILD_ID,
    RANDOM_ID,
    FakeDiscord,
    FakeMember,
    eventually,
)

INGEST_ONLY = ["bot.cogs.ingest"]


async def _stored_ids(pool: asyncpg.Pool) -> list[int]:
    rows = await pool.fetch("SELECT message_id FROM messages ORDER BY message_id")
    return [row["message_id"] for row in rows]


async def _wait_rows(pool: asyncpg.Pool, count: int, timeout: float = 10.0) -> list[int]:  # noqa: ASYNC109
    async def probe() -> list[int] | None:
        ids = await _stored_ids(pool)
        return ids if len(ids) >= count else None

    deadline = asyncio.get_running_loop().time() + timeout
    while (ids := await probe()) is None:
        assert asyncio.get_running_loop().time() < deadline, await _stored_ids(pool)
        await asyncio.sleep(0.02)
    return ids


async def test_messages_edits_and_deletes_reach_the_database(
    fake_discord: FakeDiscord, start_bot: StartBot, db_pool: asyncpg.Pool
) -> None:
    bot = await start_bot(extensions=INGEST_ONLY)
    hello = await fake_discord.send_message(
        f"hello 👋 <@{BOB_ID}>", author="alice", mentions=["bob"]
    )
    photo = await fake_discord.send_message(
        "", author="bob", reply_to=int(hello["id"]), attachments=["cat.png"]
    )
    fancy = await fake_discord.send_message(
        "look",
        author="alice",
        channel="random",
        stickers=["wave"],
        embeds=[{"type": "rich", "title": "Poll results"}],
    )
    await fake_discord.send_message("beep", author="otherbot")
    own = await bot.get_channel(fake_discord.channel.id).send("I am the bot")
    assert int(fake_discord.sent_messages[-1]["id"]) == own.id
    await _wait_rows(db_pool, 3)

    stored = await get_message(db_pool, int(hello["id"]))
    assert stored is not None
    assert stored.content == f"hello 👋 <@{BOB_ID}>"
    assert stored.mention_ids == (BOB_ID,) and stored.author_id == ALICE_ID
    assert stored.guild_id == fake_discord.guild.id and stored.channel_id == GENERAL_ID
    assert stored.created_at == datetime.fromisoformat(hello["timestamp"])
    reply = await get_message(db_pool, int(photo["id"]))
    assert reply.content == "[image: cat.png]" and reply.reply_to_id == int(hello["id"])
    assert (await get_message(db_pool, int(fancy["id"]))).content == (
        "look [embed: Poll results] [sticker: wave]"
    )

    await fake_discord.edit_message(int(hello["id"]), "hello, edited")
    await fake_discord.delete_message(int(photo["id"]))
    await fake_discord.update_member("alice", nick="Ally")
    await eventually(lambda: bot.memory.writer.depth > 0 or None, timeout=5)
    await bot.memory.writer.flush()

    edited = await get_message(db_pool, int(hello["id"]))
    assert edited.content == "hello, edited" and edited.edited_at is not None
    deleted = await get_message(db_pool, int(photo["id"]))
    assert deleted.deleted and deleted.content == ""
    # the bot's own message and the other bot's were never stored
    assert await _stored_ids(db_pool) == sorted(
        [int(hello["id"]), int(photo["id"]), int(fancy["id"])]
    )
    alice = await get_member(db_pool, fake_discord.guild.id, ALICE_ID)
    assert alice.nickname == "Ally" and alice.username == "alice"
    bob = await get_member(db_pool, fake_discord.guild.id, BOB_ID)
    assert bob.display_name == "Bobby"
    guild = await db_pool.fetchrow("SELECT name FROM guilds WHERE guild_id = $1", GUILD_ID)
    assert guild["name"] == "Test Guild"


async def test_other_bots_are_stored_when_configured(
    fake_discord: FakeDiscord, start_bot: StartBot, db_pool: asyncpg.Pool
) -> None:
    bot = await start_bot(extensions=INGEST_ONLY, ingest_bot_messages=True)
    beep = await fake_discord.send_message("beep", author="otherbot")
    await bot.get_channel(fake_discord.channel.id).send("still not me")
    await _wait_rows(db_pool, 1)
    await settled(bot)
    assert await _stored_ids(db_pool) == [int(beep["id"])]
    assert (await get_message(db_pool, int(beep["id"]))).author_is_bot


async def test_new_member_joins_the_directory(
    fake_discord: FakeDiscord, start_bot: StartBot, db_pool: asyncpg.Pool
) -> None:
    await start_bot(extensions=INGEST_ONLY)
    await fake_discord.member_join(FakeMember(800000000000003010, "carol", "Carol"))

    async def joined() -> object:
        return await get_member(db_pool, fake_discord.guild.id, 800000000000003010)

    deadline = asyncio.get_running_loop().time() + 5
    while (member := await joined()) is None:
        assert asyncio.get_running_loop().time() < deadline
        await asyncio.sleep(0.02)
    assert member.global_name == "Carol"


async def test_close_flushes_pending_writes(
    fake_discord: FakeDiscord, start_bot: StartBot, db_pool: asyncpg.Pool
) -> None:
    bot = await start_bot(extensions=INGEST_ONLY, ingest_flush_seconds=60)
    sent = [await fake_discord.send_message(f"m{i}") for i in range(5)]
    await eventually(lambda: bot.memory.writer.depth >= 5 + 0 or None)
    assert await _stored_ids(db_pool) == []
    await bot.close()
    assert await _stored_ids(db_pool) == [int(m["id"]) for m in sent]


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
    cog = bot.get_cog("Ingest")
    assert cog is not None  # (load_extension imports its own copy: no isinstance here)
    await eventually(lambda: cog.backfill_task)
    assert await asyncio.wait_for(cog.backfill_done(), 20) == 151
    await bot.memory.writer.flush()

    expected = {int(already["id"]), int(in_random["id"]), *(int(m["id"]) for m in missed)}
    assert set(await _stored_ids(db_pool)) == expected
    assert int(too_old["id"]) not in expected
    # a second run starts after the newest stored message: nothing new, nothing re-read
    requests_before = len(fake_discord.requests)
    assert await cog.backfiller.run(bot.guilds) == 0
    history_calls = [
        r for r in fake_discord.requests[requests_before:] if r[1].endswith("/messages")
    ]
    assert len(history_calls) == 2  # one empty page per readable channel


async def test_database_outage_mid_stream_loses_nothing(
    fake_discord: FakeDiscord,
    start_bot: StartBot,
    db_pool: asyncpg.Pool,
    pg_server: EmbeddedPostgres,
) -> None:
    bot = await start_bot(extensions=INGEST_ONLY)
    writer = bot.memory.writer
    writer._backoff_max = 0.2  # keep the test quick; production caps at 5 s
    first = [await fake_discord.send_message(f"before {i}") for i in range(20)]
    await _wait_rows(db_pool, 20)

    pg_server.stop()
    try:
        during = [await fake_discord.send_message(f"during {i}") for i in range(30)]
        await fake_discord.edit_message(int(first[0]["id"]), "edited while down")
        await fake_discord.delete_message(int(first[1]["id"]))
        await eventually(lambda: writer.failing_since, timeout=5)
        # nothing was dropped while the database was away
        await eventually(lambda: writer.depth >= 32, timeout=5)
    finally:
        pg_server.start()

    await asyncio.wait_for(writer.flush(), 30)
    expected = sorted(int(m["id"]) for m in first + during)
    assert await _stored_ids(db_pool) == expected
    assert (await get_message(db_pool, int(first[0]["id"]))).content == "edited while down"
    assert (await get_message(db_pool, int(first[1]["id"]))).deleted
    after = await fake_discord.send_message("after")
    await _wait_rows(db_pool, 51)
    assert int(after["id"]) in await _stored_ids(db_pool)


async def test_dirty_text_from_the_gateway_is_stored_clean_and_folds(
    fake_discord: FakeDiscord, start_bot: StartBot, db_pool: asyncpg.Pool, telemetry
) -> None:
    """A lone surrogate or NUL in a live message, a nickname or the window never costs the
    message: it is stored with U+FFFD, and the conversation window still folds."""
    bot = await start_bot(
        extensions=["bot.cogs.ingest", "bot.cogs.facts", "bot.cogs.replies"],
        window_token_budget=100,
    )
    await fake_discord.update_member("alice", nick="Al\ud800ice")
    sent = [
        await fake_discord.send_message(f"dirty {i} \ud800 and\x00 nul " + "word " * 10)
        for i in range(12)
    ]
    stored = await _wait_rows(db_pool, 12)
    assert stored == sorted(int(m["id"]) for m in sent)
    first = await get_message(db_pool, int(sent[0]["id"]))
    assert first.content.startswith("dirty 0 \ufffd and nul")
    await until_stored(
        bot,
        lambda: _nickname_is(db_pool, "Al\ufffdice"),
    )
    assert telemetry.recent("ingest_reject") == []

    def folded() -> bool:
        return bool(telemetry.recent("window_fold"))

    await eventually(folded)
    assert all(e["outcome"] == "ok" for e in telemetry.recent("window_fold"))
    view = await bot.memory.replies._windows.view(GENERAL_ID)
    text = view.summary + "".join(t.content + t.author_name for t in view.turns)
    assert "\ud800" not in text and "\x00" not in text
    text.encode("utf-8")  # every part of the window is valid text


async def _nickname_is(pool: asyncpg.Pool, nickname: str) -> bool:
    member = await get_member(pool, GUILD_ID, ALICE_ID)
    return member is not None and member.nickname == nickname


async def test_a_cleared_nickname_stops_being_the_display_name(
    fake_discord: FakeDiscord, start_bot: StartBot, db_pool: asyncpg.Pool
) -> None:
    bot = await start_bot(extensions=INGEST_ONLY)

    async def named(name: str) -> bool:
        names = await bot.memory.members.display_names(GUILD_ID, [BOB_ID])
        return names.get(BOB_ID) == name

    await until_stored(bot, lambda: named("Bobby"))
    await fake_discord.update_member("bob", nick=None)  # GUILD_MEMBER_UPDATE, nick null
    await until_stored(bot, lambda: named("Bob"))
    bob = await get_member(db_pool, GUILD_ID, BOB_ID)
    assert bob.nickname is None and "Bobby" in bob.aliases
    # a later message from bob carries no nickname either: it stays cleared
    await fake_discord.send_message("still me", author="bob")
    await _wait_rows(db_pool, 1)
    assert (await bot.memory.members.display_names(GUILD_ID, [BOB_ID]))[BOB_ID] == "Bob"


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
    cog = bot.get_cog("Ingest")
    await eventually(lambda: cog.backfill_task)
    assert await asyncio.wait_for(cog.backfill_done(), 30) == 120
    await bot.memory.writer.flush()

    for message_id in gone:
        row = await get_message(db_pool, message_id)
        assert row.deleted and row.content == "", "an offline delete was not detected"
    kept = [int(m["id"]) for m in stored if int(m["id"]) not in gone]
    for message_id in kept:
        assert not (await get_message(db_pool, message_id)).deleted
    assert (await get_message(db_pool, int(stored[7]["id"]))).content == "edited while offline"
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
    cog = bot.get_cog("Ingest")
    await eventually(lambda: cog.backfill_task)
    await asyncio.wait_for(cog.backfill_done(), 30)
    await bot.memory.writer.flush()
    stored = await get_message(db_pool, int(message["id"]))
    assert not stored.deleted and stored.content == "kept"
