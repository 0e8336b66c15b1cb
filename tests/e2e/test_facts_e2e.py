"""Memory commands through the real bot, discord.py and the fake Discord, on PostgreSQL with the
offline provider: what a member types, what the bot answers, what it stores."""

from __future__ import annotations

import asyncio
from typing import Any

import asyncpg

from bot.client import MemoryBot
from db.facts import get_history
from db.members import find_by_name
from tests.e2e.cogs import MEMORY_COGS
from tests.e2e.conftest import StartBot, directory_ready, settled, wired
from tests.e2e.fake_discord import ALICE_ID, BOB_ID, GUILD_ID, FakeDiscord, FakeMember
from tests.support import eventually

EXTENSIONS = MEMORY_COGS
MANAGE_GUILD = 1 << 5


async def started(start_bot: StartBot, **settings: Any) -> MemoryBot:
    bot = await start_bot(extensions=EXTENSIONS, **{"commands_per_minute": 100, **settings})
    # The ingest cog fills the member directory from the guild; resolution needs it.
    assert bot.memory.writer is not None
    await directory_ready(bot)
    return bot


async def ask(fake: FakeDiscord, text: str, **options: Any) -> dict[str, Any]:
    """Send a message and return the bot's reply to it."""
    start = len(fake.sent_messages)
    sent = await fake.send_message(text, **options)
    return await fake.wait_for_sent(
        lambda m: (m.get("message_reference") or {}).get("message_id") == sent["id"],
        start=start,
        timeout=10,
    )


async def blob(bot: MemoryBot, user_id: int) -> str:
    assert bot.memory.facts is not None
    return await bot.memory.facts.blob(GUILD_ID, user_id)


def no_pings(message: dict[str, Any]) -> bool:
    allowed = message.get("allowed_mentions") or {}
    return allowed.get("parse") == [] and not allowed.get("replied_user")


async def test_freeform_phrasings(
    fake_discord: FakeDiscord, start_bot: StartBot, db_pool: asyncpg.Pool
) -> None:
    bot = await started(start_bot)

    reply = await ask(fake_discord, "Bot remember that alice is Sergey", author="bob")
    assert reply["content"] == (
        "Got it, I'll remember that about Alice. I'll also know \"Sergey\" means Alice."
    )
    assert no_pings(reply)
    assert "Sergey" in await blob(bot, ALICE_ID)
    assert [m.user_id for m in await find_by_name(db_pool, GUILD_ID, "Sergey")] == [ALICE_ID]

    quoted = await fake_discord.send_message("I just adopted a cat", author="bob")
    reply = await ask(
        fake_discord, "Bot, remember this about bob", author="alice", reply_to=int(quoted["id"])
    )
    assert reply["content"] == "Got it, I'll remember that about Bobby."
    assert "Bobby just adopted a cat" in await blob(bot, BOB_ID)

    await ask(fake_discord, "bot remember that I like pizza", author="alice")
    reply = await ask(fake_discord, "Bot forget that alice likes pizza", author="alice")
    assert reply["content"] == "Done, I've forgotten that about Alice."
    reply = await ask(fake_discord, "Bot forget that alice likes pizza", author="alice")
    assert "didn't have that" in reply["content"]
    assert "pizza" not in await blob(bot, ALICE_ID)

    by_mention = await ask(
        fake_discord, f"Bot what do you know about <@{BOB_ID}>?", author="alice", mentions=["bob"]
    )
    by_name = await ask(fake_discord, "Bot, what do you know about bob", author="alice")
    assert "adopted a cat" in by_mention["content"]
    assert by_mention["content"] == by_name["content"] and no_pings(by_name)

    # addressed by mention, and by replying to the bot
    me = await ask(
        fake_discord,
        f"<@{fake_discord.bot_user.id}> what do you know about me",
        author="alice",
        mentions=[fake_discord.bot_user],
    )
    assert "Sergey" in me["content"]
    follow_up = await ask(
        fake_discord, "what do you know about bob?", author="alice", reply_to=int(me["id"])
    )
    assert "adopted a cat" in follow_up["content"]

    history = await get_history(db_pool, GUILD_ID, ALICE_ID)
    assert history[-1].actor_id == BOB_ID and history[-1].source_message_id is not None


async def test_slash_commands_and_permissions(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    bot = await started(start_bot)

    async def slash(name: str, options: dict[str, Any] | None = None, **kwargs: Any) -> str:
        interaction = await fake_discord.invoke_slash(name, options, **kwargs)
        key = int(interaction["id"])
        for _ in range(500):
            if fake_discord.followups.get(key):
                break
            await asyncio.sleep(0.02)
        [followup] = fake_discord.followups[key]
        assert no_pings(followup)
        return fake_discord.interaction_text(key)

    names = {c["name"] for c in fake_discord.synced_commands[None]}
    assert {"remember", "forget", "whois", "memory"} <= names

    said = await slash("remember", {"user": "bob", "fact": "bob plays bass"}, user="alice")
    assert said == "Got it, I'll remember that about Bobby."
    assert "bass" in await slash("whois", {"user": "bob"}, user="alice")

    refused = await slash("forget", {"user": "bob", "fact": "bob plays bass"}, user="alice")
    assert refused.startswith("Sorry, only Bobby or someone with the Manage Server permission")
    assert "bass" in await blob(bot, BOB_ID)
    assert await slash("memory undo", {"user": "bob"}, user="alice") == (
        "Sorry, only Bobby or someone with the Manage Server permission can undo changes to "
        "what I know about Bobby."
    )

    done = await slash(
        "forget",
        {"user": "bob", "fact": "bob plays bass"},
        user="alice",
        member_permissions=MANAGE_GUILD,
    )
    assert done == "Done, I've forgotten that about Bobby."
    assert "bass" not in await blob(bot, BOB_ID)

    # the member themself may undo: the fact comes back
    undone = await slash("memory undo", {"user": "bob"}, user="bob")
    assert undone.startswith("Undone.")
    assert "bass" in await blob(bot, BOB_ID)


async def test_ambiguity_is_a_question(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    fake_discord.add_member(FakeMember(3101, "sam_a", nick="Sam"))
    fake_discord.add_member(FakeMember(3102, "sam_b", global_name="Sam"))
    bot = await started(start_bot)
    await directory_ready(bot, "sam", count=2)
    reply = await ask(fake_discord, "Bot remember that sam likes golf", author="alice")
    assert reply["content"].startswith('Several people here go by "sam"')
    assert "Which one do you mean?" in reply["content"]
    assert await blob(bot, 3101) == "" and await blob(bot, 3102) == ""


async def test_chat_to_the_bot_is_answered_but_stores_no_fact(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    bot = await started(start_bot)
    reply = await ask(fake_discord, "Bot how are you?", author="alice")
    assert not reply["content"].startswith("Got it"), reply["content"]
    assert await blob(bot, ALICE_ID) == ""


async def test_unaddressed_messages_get_no_answer(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    bot = await started(start_bot)
    await fake_discord.send_message("remember that alice is Sergey", author="alice")
    await settled(bot)
    assert fake_discord.sent_messages == []
    assert await blob(bot, ALICE_ID) == ""


async def test_fifty_concurrent_remembers_all_end_up_in_the_blob(
    fake_discord: FakeDiscord, start_bot: StartBot, db_pool: asyncpg.Pool
) -> None:
    bot = await started(start_bot, facts_max_chars=5000)
    texts = [f"Bot remember that bob knows fact {n}" for n in range(50)]
    authors = ["alice", "bob"]
    await asyncio.gather(
        *(fake_discord.send_message(text, author=authors[n % 2]) for n, text in enumerate(texts))
    )
    for _ in range(1000):
        if len(fake_discord.sent_messages) >= 50:
            break
        await asyncio.sleep(0.02)
    contents = [m["content"] for m in fake_discord.sent_messages]
    assert set(contents) == {
        "Got it, I'll remember that about Bobby.",  # alice's messages
        "Got it, I'll remember that about you.",  # bob's own
    }
    assert len(fake_discord.sent_messages) == 50
    stored = await blob(bot, BOB_ID)
    assert all(f"fact {n}." in stored for n in range(50))
    assert len(await get_history(db_pool, GUILD_ID, BOB_ID, limit=100)) == 50


async def test_fifty_remembers_past_the_cap_lose_nothing_silently(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    """At the default FACTS_MAX_CHARS (1,500) fifty facts of ~50 characters do not all fit:
    every one is acknowledged, and each is either still held or named to the member when it
    was let go of for room (never gone silently)."""
    bot = await started(start_bot)
    assert wired(bot).facts.max_chars == 1500
    texts = [f"Bot remember that bob keeps spare key {n} under flowerpot {n}" for n in range(50)]
    authors = ["alice", "bob"]
    await asyncio.gather(
        *(fake_discord.send_message(text, author=authors[n % 2]) for n, text in enumerate(texts))
    )
    await eventually(lambda: len(fake_discord.sent_messages) >= 50, timeout=30)
    await settled(bot)
    replies = [m["content"] for m in fake_discord.sent_messages]
    assert len(replies) == 50 and all(r.startswith("Got it, I'll remember that") for r in replies)
    told = " ".join(r.split("I no longer keep: ", 1)[1] for r in replies if "no longer keep" in r)
    stored = await blob(bot, BOB_ID)

    def accounted(n: int) -> bool:
        fact = f"spare key {n} under flowerpot {n}"
        return f"{fact}." in stored or f"{fact};" in f"{told};" or f"{fact}." in told

    assert [n for n in range(50) if not accounted(n)] == []
    assert "no longer keep" in " ".join(replies)  # the cap was reached: some were let go
