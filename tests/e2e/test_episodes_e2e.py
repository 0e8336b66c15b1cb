"""Episodes through the real bot on the fake Discord: /catchup and "what did I miss?" list
what a member missed of channels they can read; the daily digest is posted once however many
workers run, and not when it is off or nothing happened."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, time, timedelta
from typing import Any

import asyncpg

from db.pool import create_pool
from memory.core.clock import SystemClock
from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from memory.wiring import open_memory
from tests.e2e.conftest import StartBot, settled, until_stored, wired
from tests.e2e.fake_discord import GENERAL_ID, GUILD_ID, RANDOM_ID, SECRET_ID, FakeDiscord
from tests.support import eventually

EXTENSIONS = [
    "bot.cogs.errors",
    "bot.cogs.ingest",
    "bot.cogs.facts",
    "bot.cogs.memory_group",
    "bot.cogs.replies",
    "bot.cogs.episodes",
]
TRIP = [
    "planning the camping trip to the lake next weekend",
    "the lake trip needs tents and a camping stove",
    "should we rent a canoe at the lake?",
    "let's book the campsite by the lake tomorrow",
]
MODS = ["the banned user zorvath is back with an alt", "zorvath alt account flagged again"]
QUICK = {"job_sweep_seconds": 0.2, "digest_poll_seconds": 0.1, "reply_cooldown_seconds": 0}


async def _chat(fake: FakeDiscord, at: datetime) -> None:
    for index, text in enumerate(TRIP):
        author = ("alice", "bob")[index % 2]
        await fake.send_message(text, author=author, created_at=at + timedelta(minutes=index))
    for index, text in enumerate(MODS):
        await fake.send_message(
            text, author="bob", channel="secret", created_at=at + timedelta(minutes=index)
        )


async def _episodes(pool: asyncpg.Pool, count: int) -> bool:
    stored: int = await pool.fetchval("SELECT count(*) FROM episodes")
    return stored >= count


async def test_catchup_lists_what_was_missed_only_from_readable_channels(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    bot = await start_bot(extensions=EXTENSIONS, **QUICK)
    now = datetime.now(UTC)
    # Before alice's last visit (she wrote 7 hours ago): not missed.
    await fake_discord.send_message(
        "cat pictures anyone, my cat is adorable",
        author="bob",
        channel="random",
        created_at=now - timedelta(hours=10),
    )
    await fake_discord.send_message(
        "here is my cat", author="alice", channel="random", created_at=now - timedelta(hours=7)
    )
    earlier = now - timedelta(hours=5)
    await _chat(fake_discord, earlier)
    await fake_discord.send_message("morning, anyone around?", author="bob")  # a new episode
    await until_stored(bot, lambda: _episodes(wired(bot).pool, 4))
    await bot.memory.episodes.settled()
    await bot.memory.episodes.summarize_guild(GUILD_ID)

    interaction = await fake_discord.invoke_slash("catchup", user="alice")
    await fake_discord.wait_for_interaction_response(interaction["id"])
    await eventually(
        lambda: "Since you were last here" in fake_discord.interaction_text(interaction["id"])
    )
    text = fake_discord.interaction_text(interaction["id"])
    assert f"<#{GENERAL_ID}> **planning the camping trip" in text
    assert f"https://discord.com/channels/{GUILD_ID}/{GENERAL_ID}/" in text
    assert str(SECRET_ID) not in text and "zorvath" not in text
    assert "cat pictures" not in text and str(RANDOM_ID) not in text
    # Newest first: the open morning episode (shown by what was said, no call) before the trip.
    assert "not summarised yet" not in text
    assert text.index("morning, anyone around?") < text.index("planning the camping trip")

    sent = len(fake_discord.sent_messages)
    await fake_discord.send_message("Bot, what did I miss?", author="alice")
    answer = await fake_discord.wait_for_sent(start=sent)
    assert answer["content"].startswith("Since you were last here:")
    assert "planning the camping trip" in answer["content"] and "zorvath" not in answer["content"]
    assert "cat pictures" not in answer["content"]
    assert answer["allowed_mentions"]["parse"] == []


def _digests(fake: FakeDiscord) -> list[dict[str, Any]]:
    return [
        message
        for message in fake.sent_messages
        if int(message["channel_id"]) == RANDOM_ID and "What happened on" in message["content"]
    ]


async def test_the_digest_is_posted_once_by_two_workers_without_opted_out_members(
    fake_discord: FakeDiscord,
    start_bot: StartBot,
    database_dsn: str,
    e2e_settings: Callable[..., Settings],
) -> None:
    bot = await start_bot(extensions=EXTENSIONS, **QUICK)
    yesterday = datetime.now(UTC).date() - timedelta(days=1)
    at = datetime.combine(yesterday, time(10), UTC)
    await _chat(fake_discord, at)
    await fake_discord.send_message(
        "carol here, I think the lake is too cold",
        author="alice",
        created_at=at + timedelta(minutes=5),
    )
    await until_stored(bot, lambda: _episodes(wired(bot).pool, 2))
    await settled(bot)
    # bob opts out: his words and name leave every episode and so the digest.
    await bot.memory.privacy.opt_out(
        await bot.memory.privacy.subject_or_id(GUILD_ID, "bob"), actor_id=None, by_admin=True
    )
    await bot.memory.guild_settings.update(GUILD_ID, digest=(RANDOM_ID, "00:00"))

    other_pool = await create_pool(database_dsn)
    try:
        async with open_memory(
            e2e_settings(**QUICK), clock=SystemClock(), pool=other_pool, telemetry=Telemetry()
        ) as worker:
            worker.worker.start()
            bot.memory.worker.start()
            await eventually(lambda: _digests(fake_discord), timeout=30)
            posted = await eventually(
                lambda: wired(bot).pool.fetchval(
                    "SELECT posted_at IS NOT NULL FROM episode_digests WHERE guild_id = $1",
                    GUILD_ID,
                ),
                timeout=10,
            )
            assert posted
            # Both workers sweep again: nothing is due, nothing is posted twice.
            assert await worker.worker.sweep() == 0
            assert await wired(bot).worker.sweep() == 0
            assert await bot.memory.episodes.next_digest([GUILD_ID]) is None
    finally:
        await other_pool.close()
    digests = _digests(fake_discord)
    assert len(digests) == 1
    text = digests[0]["content"]
    assert len(text) <= 1_500 and f"<#{GENERAL_ID}>" in text
    assert "Bobby" not in text and "bob" not in text.lower().replace("bobby", "")
    assert "tents and a camping stove" not in text  # bob's line
    assert digests[0]["allowed_mentions"]["parse"] == []
    composed = [e for e in bot.memory.telemetry.recent("digest") if e["stored"]]
    assert len(composed) <= 1  # this process's share; the row's key makes it one in all


async def test_no_digest_when_off_or_when_nothing_happened(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    bot = await start_bot(extensions=EXTENSIONS, **QUICK)
    yesterday = datetime.now(UTC).date() - timedelta(days=1)
    await _chat(fake_discord, datetime.combine(yesterday, time(10), UTC))
    await until_stored(bot, lambda: _episodes(wired(bot).pool, 2))
    # Off (the default): sweeps queue no digest.
    bot.memory.worker.start()
    await wired(bot).worker.sweep()
    assert await wired(bot).pool.fetchval("SELECT count(*) FROM episode_digests") == 0
    await wired(bot).worker.stop()
    # On, but the day asked about had nothing: stored empty, never posted.
    await bot.memory.guild_settings.update(GUILD_ID, digest=(RANDOM_ID, "00:00"))
    day = yesterday - timedelta(days=3)
    assert await wired(bot).episodes.run_digest(GUILD_ID, day)
    row = await wired(bot).pool.fetchrow(
        "SELECT text, posted_at FROM episode_digests WHERE day = $1", day
    )
    assert row is not None and row["text"] == ""
    assert await bot.memory.episodes.next_digest([GUILD_ID]) is None  # nothing to post
    assert _digests(fake_discord) == []


async def test_memory_episodes_shows_the_channels_recent_ones_and_digest_off(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    bot = await start_bot(extensions=EXTENSIONS, **QUICK)
    await _chat(fake_discord, datetime.now(UTC) - timedelta(hours=5))
    await until_stored(bot, lambda: _episodes(wired(bot).pool, 2))
    await bot.memory.episodes.settled()
    await wired(bot).episodes.sweep()
    await bot.memory.episodes.summarize_guild(GUILD_ID)
    interaction = await fake_discord.invoke_slash("memory episodes", user="alice")
    await eventually(
        lambda: "planning the camping trip" in fake_discord.interaction_text(interaction["id"])
    )
    text = fake_discord.interaction_text(interaction["id"])
    assert f"<#{GENERAL_ID}> [closed]" in text and "(4 msgs)" in text
    assert "zorvath" not in text  # another channel's

    await bot.memory.guild_settings.update(GUILD_ID, digest=(RANDOM_ID, "08:00"))
    refused = await fake_discord.invoke_slash("memory digest", user="alice")
    await eventually(lambda: "Manage Server" in fake_discord.interaction_text(refused["id"]))
    assert (await bot.memory.guild_settings.refresh(GUILD_ID)).digest_channel_id == RANDOM_ID
    admin = await fake_discord.invoke_slash(
        "memory digest", user="alice", member_permissions=1 << 5
    )
    await eventually(
        lambda: "Daily digest turned off" in fake_discord.interaction_text(admin["id"])
    )
    assert (await bot.memory.guild_settings.refresh(GUILD_ID)).digest_channel_id is None
