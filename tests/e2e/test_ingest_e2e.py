"""The real bot against the fake Discord and PostgreSQL: what members say is stored, edits and
deletes follow, the bot's own words and other bots are left out, an outage loses nothing."""

from __future__ import annotations

import asyncio
from datetime import datetime

import asyncpg

from db.embedded import EmbeddedPostgres
from db.members import get_member
from memory.core.models import Member
from memory.core.telemetry import Telemetry
from tests.e2e.conftest import StartBot, settled, until_stored, wired
from tests.e2e.fake_discord import (
    ALICE_ID,
    BOB_ID,
    GENERAL_ID,
    GUILD_ID,
    FakeDiscord,
    FakeMember,
    eventually,
)
from tests.e2e.ingest_support import (
    INGEST_ONLY,
    stored_ids,
    stored_member,
    stored_message,
    text_channel,
)


async def _wait_rows(pool: asyncpg.Pool, count: int, timeout: float = 10.0) -> list[int]:  # noqa: ASYNC109
    async def probe() -> list[int] | None:
        ids = await stored_ids(pool)
        return ids if len(ids) >= count else None

    deadline = asyncio.get_running_loop().time() + timeout
    while (ids := await probe()) is None:
        assert asyncio.get_running_loop().time() < deadline, await stored_ids(pool)
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
    own = await text_channel(bot, fake_discord.channel.id).send("I am the bot")
    assert int(fake_discord.sent_messages[-1]["id"]) == own.id
    await _wait_rows(db_pool, 3)

    stored = await stored_message(db_pool, int(hello["id"]))
    assert stored is not None
    assert stored.content == f"hello 👋 <@{BOB_ID}>"
    assert stored.mention_ids == (BOB_ID,) and stored.author_id == ALICE_ID
    assert stored.guild_id == fake_discord.guild.id and stored.channel_id == GENERAL_ID
    assert stored.created_at == datetime.fromisoformat(hello["timestamp"])
    reply = await stored_message(db_pool, int(photo["id"]))
    assert reply.content == "[image: cat.png]" and reply.reply_to_id == int(hello["id"])
    assert (await stored_message(db_pool, int(fancy["id"]))).content == (
        "look [embed: Poll results] [sticker: wave]"
    )

    await fake_discord.edit_message(int(hello["id"]), "hello, edited")
    await fake_discord.delete_message(int(photo["id"]))
    await fake_discord.update_member("alice", nick="Ally")
    await eventually(lambda: bot.memory.writer.depth > 0 or None, timeout=5)
    await bot.memory.writer.flush()

    edited = await stored_message(db_pool, int(hello["id"]))
    assert edited.content == "hello, edited" and edited.edited_at is not None
    deleted = await stored_message(db_pool, int(photo["id"]))
    assert deleted.deleted and deleted.content == ""
    # the bot's own message and the other bot's were never stored
    assert await stored_ids(db_pool) == sorted(
        [int(hello["id"]), int(photo["id"]), int(fancy["id"])]
    )
    alice = await stored_member(db_pool, fake_discord.guild.id, ALICE_ID)
    assert alice.nickname == "Ally" and alice.username == "alice"
    bob = await stored_member(db_pool, fake_discord.guild.id, BOB_ID)
    assert bob.display_name == "Bobby"
    guild = await db_pool.fetchrow("SELECT name FROM guilds WHERE guild_id = $1", GUILD_ID)
    assert guild is not None and guild["name"] == "Test Guild"


async def test_other_bots_are_stored_when_configured(
    fake_discord: FakeDiscord, start_bot: StartBot, db_pool: asyncpg.Pool
) -> None:
    bot = await start_bot(extensions=INGEST_ONLY, ingest_bot_messages=True)
    beep = await fake_discord.send_message("beep", author="otherbot")
    await text_channel(bot, fake_discord.channel.id).send("still not me")
    await _wait_rows(db_pool, 1)
    await settled(bot)
    assert await stored_ids(db_pool) == [int(beep["id"])]
    assert (await stored_message(db_pool, int(beep["id"]))).author_is_bot


async def test_new_member_joins_the_directory(
    fake_discord: FakeDiscord, start_bot: StartBot, db_pool: asyncpg.Pool
) -> None:
    await start_bot(extensions=INGEST_ONLY)
    await fake_discord.member_join(FakeMember(800000000000003010, "carol", "Carol"))

    async def joined() -> Member | None:
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
    assert await stored_ids(db_pool) == []
    await bot.close()
    assert await stored_ids(db_pool) == [int(m["id"]) for m in sent]


async def test_database_outage_mid_stream_loses_nothing(
    fake_discord: FakeDiscord,
    start_bot: StartBot,
    db_pool: asyncpg.Pool,
    pg_server: EmbeddedPostgres,
) -> None:
    bot = await start_bot(extensions=INGEST_ONLY)
    writer = wired(bot).writer
    writer.backoff_max = 0.2  # keep the test quick; production caps at 5 s
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
    assert await stored_ids(db_pool) == expected
    assert (await stored_message(db_pool, int(first[0]["id"]))).content == "edited while down"
    assert (await stored_message(db_pool, int(first[1]["id"]))).deleted
    after = await fake_discord.send_message("after")
    await _wait_rows(db_pool, 51)
    assert int(after["id"]) in await stored_ids(db_pool)


async def test_dirty_text_from_the_gateway_is_stored_clean_and_folds(
    fake_discord: FakeDiscord, start_bot: StartBot, db_pool: asyncpg.Pool, telemetry: Telemetry
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
    first = await stored_message(db_pool, int(sent[0]["id"]))
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
    view = await wired(bot).replies.windows.view(GENERAL_ID)
    text = view.summary + "".join(t.content + t.author_name for t in view.turns)
    assert "\ud800" not in text and "\x00" not in text
    text.encode("utf-8")  # every part of the window is valid text


async def _nickname_is(pool: asyncpg.Pool, nickname: str) -> bool:
    member = await stored_member(pool, GUILD_ID, ALICE_ID)
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
    bob = await stored_member(db_pool, GUILD_ID, BOB_ID)
    assert bob.nickname is None and "Bobby" in bob.aliases
    # a later message from bob carries no nickname either: it stays cleared
    await fake_discord.send_message("still me", author="bob")
    await _wait_rows(db_pool, 1)
    assert (await bot.memory.members.display_names(GUILD_ID, [BOB_ID]))[BOB_ID] == "Bob"
