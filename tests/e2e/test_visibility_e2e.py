"""Who may read what, through the real bot on the fake Discord with permission overwrites.

#mods denies View Channel to @everyone and allows it to the mods role. kim (a moderator) posts
there about mia; alice, an ordinary member, must not receive those words through the bot: not
in her /recall, not in the prompt of a reply in #general, not in mia's context or whois. kim's
/recall finds them, and a reply inside #mods may use them.
"""

from __future__ import annotations

import functools
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg

from bot.client import MemoryBot
from db.summaries import daily_summaries
from memory.llm import MemoryLLM
from tests.e2e.conftest import StartBot, directory_ready, settled, until_stored, wired
from tests.e2e.fake_discord import (
    GUILD_ID,
    MANAGE_GUILD,
    VIEW_CHANNEL,
    FakeDiscord,
    FakeMember,
    Overwrite,
    eventually,
)
from tests.fakes import RecordingProvider

MIA_ID, KIM_ID = 800000000000003101, 800000000000003102
MODS_SAID = f"<@{MIA_ID}> is the alt of zorvath, the spammer we banned last week"
SECRET = "alt of zorvath"  # words only #mods holds (questions may name zorvath)


def with_mods(fake: FakeDiscord) -> None:
    """A mods role, kim holding it, ordinary mia, and #mods that only mods can view."""
    mods = fake.add_role("mods")
    fake.add_member(FakeMember(MIA_ID, "mia", "Mia"))
    fake.add_member(FakeMember(KIM_ID, "kim", "Kim", roles=[mods.id]))
    fake.add_channel("mods", readable=False, overwrites=[Overwrite(mods.id, allow=VIEW_CHANNEL)])


async def start(
    start_bot: StartBot, provider: RecordingProvider, who: str = "kim", **settings: Any
) -> MemoryBot:
    bot = await start_bot(
        llm=MemoryLLM(provider),
        reply_cooldown_seconds=0,
        commands_per_minute=100,
        **settings,
    )
    await directory_ready(bot, who)
    return bot


async def visibility(pool: asyncpg.Pool, channel_id: int) -> bool | None:
    public: bool | None = await pool.fetchval(
        "SELECT public FROM channel_visibility WHERE guild_id = $1 AND channel_id = $2",
        GUILD_ID,
        channel_id,
    )
    return public


async def recorded(pool: asyncpg.Pool, channel_id: int) -> bool:
    return await visibility(pool, channel_id) is not None


async def recall_as(fake: FakeDiscord, user: str, query: str) -> str:
    interaction = await fake.invoke_slash("recall", {"query": query}, user=user)
    await fake.wait_for_interaction_response(interaction["id"])
    await eventually(lambda: fake.interaction_text(interaction["id"]), timeout=10)
    return fake.interaction_text(interaction["id"])


async def ask(fake: FakeDiscord, text: str, *, author: str, channel: str = "general") -> str:
    start = len(fake.sent_messages)
    sent = await fake.send_message(text, author=author, channel=channel)
    reply = await fake.wait_for_sent(
        lambda m: (m.get("message_reference") or {}).get("message_id") == sent["id"],
        start=start,
        timeout=15,
    )
    return str(reply["content"])


async def test_a_members_reach_stops_at_the_channels_they_can_read(
    fake_discord: FakeDiscord, start_bot: StartBot, db_pool: asyncpg.Pool
) -> None:
    with_mods(fake_discord)
    mods = fake_discord.channel_named("mods")
    provider = RecordingProvider()
    bot = await start(start_bot, provider)

    # The bot recorded who can read each channel on start.
    await eventually(lambda: recorded(db_pool, mods.id), timeout=10)
    assert await visibility(db_pool, mods.id) is False
    assert await visibility(db_pool, fake_discord.channel.id) is True

    said = await fake_discord.send_message(
        MODS_SAID, author="kim", channel="mods", mentions=["mia"]
    )
    await fake_discord.send_message(
        "I baked sourdough bread this morning, it came out great", author="mia"
    )

    async def stored() -> bool:
        return bool(
            await db_pool.fetchval("SELECT 1 FROM messages WHERE message_id = $1", int(said["id"]))
        )

    await until_stored(bot, stored)

    # /recall: alice cannot read #mods, so nothing of it; kim can, and finds it.
    assert SECRET not in await recall_as(fake_discord, "alice", "zorvath spammer")
    assert SECRET in await recall_as(fake_discord, "kim", "zorvath spammer")

    # A reply in #general: neither the recalled messages nor mia's context carry #mods words.
    await ask(fake_discord, "Bot, what did the mods say about zorvath last week?", author="alice")
    await ask(fake_discord, "Bot, what has mia been up to lately?", author="alice")
    whois = await ask(fake_discord, "Bot what do you know about mia?", author="alice")
    assert len(provider.reply_prompts) == 2  # the whois is a memory command, no reply
    for prompt in provider.reply_prompts:
        assert SECRET not in prompt and "spammer" not in prompt
    assert "sourdough" in provider.reply_prompts[-1], "mia's public day reaches her context"
    assert "zorvath" not in whois.lower() and "sourdough" in whois
    report = await bot.memory.manager.wait_for_context(GUILD_ID, MIA_ID)
    assert report.text is not None, "mia has a context"
    assert "zorvath" not in report.text.lower() and "sourdough" in report.text

    # Inside #mods, a reply may use #mods' own messages.
    await ask(
        fake_discord, "Bot, what did we say about zorvath earlier?", author="kim", channel="mods"
    )
    assert "<recalled" in provider.reply_prompts[-1] and SECRET in provider.reply_prompts[-1]
    await settled(bot)


async def test_memory_sources_all_builds_shared_memory_from_every_channel(
    fake_discord: FakeDiscord, start_bot: StartBot, db_pool: asyncpg.Pool
) -> None:
    with_mods(fake_discord)
    provider = RecordingProvider()
    bot = await start(start_bot, provider)
    changed = await fake_discord.invoke_slash(
        "memory settings", {"memory_sources": "all"}, user="kim", member_permissions=MANAGE_GUILD
    )
    await fake_discord.wait_for_interaction_response(changed["id"])
    await eventually(lambda: "every stored channel" in fake_discord.interaction_text(changed["id"]))
    assert (await bot.memory.guild_settings.get(GUILD_ID)).memory_sources == "all"
    said = await fake_discord.send_message(
        MODS_SAID, author="kim", channel="mods", mentions=["mia"]
    )

    async def stored() -> bool:
        return bool(
            await db_pool.fetchval("SELECT 1 FROM messages WHERE message_id = $1", int(said["id"]))
        )

    await until_stored(bot, stored)
    report = await bot.memory.manager.wait_for_context(GUILD_ID, MIA_ID)
    assert report.text is not None and "zorvath" in report.text.lower()
    # The search itself still answers to the reader: alice's /recall stays out of #mods.
    assert SECRET not in await recall_as(fake_discord, "alice", "zorvath")


def _mia_yesterday(fake: FakeDiscord, yesterday: datetime) -> None:
    """mia, and what was said of her yesterday (before the bot started): her cat in #random,
    her hiking in #general."""
    fake.add_member(FakeMember(MIA_ID, "mia", "Mia"))
    fake.add_history(
        "my cat is called Pixel and she is mine",
        author="mia",
        channel="random",
        created_at=yesterday,
    )
    fake.add_history(
        f"<@{MIA_ID}> loves hiking in the Alps",
        author="alice",
        channel="general",
        mentions=["mia"],
        created_at=yesterday,
    )


async def test_a_channel_turning_restricted_takes_its_words_out_of_shared_memory(
    fake_discord: FakeDiscord, start_bot: StartBot, db_pool: asyncpg.Pool
) -> None:
    yesterday = datetime.now(UTC) - timedelta(days=1)
    _mia_yesterday(fake_discord, yesterday)
    provider = RecordingProvider()
    bot = await start(start_bot, provider, "mia")
    random = fake_discord.channel_named("random")
    await until_stored(bot, lambda: recorded(db_pool, random.id))

    async def backfilled() -> bool:
        count: int = await db_pool.fetchval("SELECT count(*) FROM messages")
        return count == 2

    await until_stored(bot, backfilled)
    day = yesterday.date()
    await bot.memory.manager.summarize_day(GUILD_ID, day)
    assert "Pixel" in (await daily_summaries(db_pool, GUILD_ID, day)).get(MIA_ID, "")
    assert "Pixel" in await _learned(db_pool), "learned from #random while it was public"

    # An admin denies View Channel to @everyone in #random: the day is marked stale ...
    await fake_discord.update_channel("random", readable=False)

    async def stale() -> bool:
        return bool(
            await db_pool.fetchval(
                "SELECT stale FROM summary_days WHERE guild_id = $1 AND day = $2", GUILD_ID, day
            )
        )

    async def dropped() -> bool:  # nothing serves #random's words while the day is rebuilt
        return "Pixel" not in (await daily_summaries(db_pool, GUILD_ID, day)).get(MIA_ID, "")

    await eventually(stale, timeout=10)
    await eventually(dropped, timeout=10)
    assert await visibility(db_pool, random.id) is False
    served = await wired(bot).manager.get_memories(GUILD_ID, MIA_ID, budget=0.0)
    assert "Pixel" not in (served or "")
    # ... and summarised again without #random: mia's day keeps only what #general said.
    await bot.memory.manager.summarize_day(GUILD_ID, day, force=False)
    summary = (await daily_summaries(db_pool, GUILD_ID, day)).get(MIA_ID, "")
    assert "Pixel" not in summary and "hiking" in summary
    assert "Pixel" not in await _learned(db_pool)
    report = await bot.memory.manager.wait_for_context(GUILD_ID, MIA_ID)
    assert report.text is not None and "Pixel" not in report.text

    # The @everyone role losing View Channel makes every channel restricted.
    await fake_discord.update_role(None, permissions=0)
    await eventually(lambda: _is_restricted(db_pool, fake_discord.channel.id), timeout=10)


async def _is_restricted(pool: asyncpg.Pool, channel_id: int) -> bool:
    return await visibility(pool, channel_id) is False


async def kim_posts_in_mods(fake: FakeDiscord, bot: MemoryBot, pool: asyncpg.Pool) -> None:
    """kim's words about mia in #mods, stored."""
    said = await fake.send_message(MODS_SAID, author="kim", channel="mods", mentions=["mia"])

    async def stored() -> bool:
        query = "SELECT 1 FROM messages WHERE message_id = $1"
        return bool(await pool.fetchval(query, int(said["id"])))

    await until_stored(bot, stored)


async def test_what_a_member_may_search_follows_their_roles_and_the_channel(
    fake_discord: FakeDiscord, start_bot: StartBot, db_pool: asyncpg.Pool
) -> None:
    with_mods(fake_discord)
    mods_role = fake_discord.guild.roles[0]
    bot = await start(start_bot, RecordingProvider())
    await kim_posts_in_mods(fake_discord, bot, db_pool)
    assert SECRET not in await recall_as(fake_discord, "alice", "zorvath")

    # alice is made a moderator: her next search reads #mods (her cached channels were dropped).
    await fake_discord.update_member("alice", roles=[mods_role.id])
    await eventually(lambda: _finds(fake_discord, "alice"), timeout=10)

    # The role loses View Channel in #mods: nobody but admins reads it any more.
    await fake_discord.update_channel("mods", overwrites=[])
    await eventually(lambda: _misses(fake_discord, "alice"), timeout=10)
    assert SECRET not in await recall_as(fake_discord, "kim", "zorvath")

    # #mods opened to everyone: the channel is public, its words may become shared memory.
    await fake_discord.update_channel("mods", readable=True)
    mods = fake_discord.channel_named("mods")
    await eventually(lambda: _public(db_pool, mods.id), timeout=10)
    assert SECRET in await recall_as(fake_discord, "bob", "zorvath")


async def test_a_member_named_in_an_overwrite_reads_what_others_with_the_same_roles_cannot(
    fake_discord: FakeDiscord, start_bot: StartBot, db_pool: asyncpg.Pool
) -> None:
    """Readable channels are resolved once per role set; a member-specific overwrite (mia
    may view #mods, alice with the same roles may not) is not shared with the role set."""
    with_mods(fake_discord)
    fake_discord.channel_named("mods").overwrites.append(
        Overwrite(MIA_ID, allow=VIEW_CHANNEL, kind=1)
    )
    bot = await start(start_bot, RecordingProvider(), who="mia")
    await kim_posts_in_mods(fake_discord, bot, db_pool)
    # alice (no roles) was resolved first; mia has no roles either, but the overwrite names her.
    assert SECRET not in await recall_as(fake_discord, "alice", "zorvath")
    assert SECRET in await recall_as(fake_discord, "mia", "zorvath")
    assert SECRET not in await recall_as(fake_discord, "bob", "zorvath")


async def _finds(fake: FakeDiscord, user: str) -> bool:
    return SECRET in await recall_as(fake, user, "zorvath")


async def _misses(fake: FakeDiscord, user: str) -> bool:
    return SECRET not in await recall_as(fake, user, "zorvath")


async def _public(pool: asyncpg.Pool, channel_id: int) -> bool:
    return await visibility(pool, channel_id) is True


async def test_threads_are_public_only_in_a_public_channel_and_when_not_private(
    fake_discord: FakeDiscord, start_bot: StartBot, db_pool: asyncpg.Pool
) -> None:
    with_mods(fake_discord)
    await start(start_bot, RecordingProvider())
    open_thread = await fake_discord.create_thread("plans", parent="general")
    private = await fake_discord.create_thread("surprise", parent="general", private=True)
    in_mods = await fake_discord.create_thread("appeals", parent="mods")
    for thread in (open_thread, private, in_mods):
        await eventually(functools.partial(recorded, db_pool, thread.id), timeout=10)
    assert await visibility(db_pool, open_thread.id) is True
    assert await visibility(db_pool, private.id) is False
    assert await visibility(db_pool, in_mods.id) is False
    kinds = await db_pool.fetch(
        "SELECT channel_id, parent_id, kind FROM channel_visibility WHERE channel_id = ANY($1)",
        [private.id, in_mods.id],
    )
    assert {(r["parent_id"], r["kind"]) for r in kinds} == {
        (fake_discord.channel.id, "private_thread"),
        (fake_discord.channel_named("mods").id, "thread"),
    }


async def _learned(pool: asyncpg.Pool) -> str:
    rows = await pool.fetch("SELECT statement FROM learned_facts WHERE user_id = $1", MIA_ID)
    return " ".join(row["statement"] for row in rows)
