"""Gone means gone: after a delete, an edit, a forget, an opt-out or a purge, the words are in no
prompt the model receives (the window, the memories of everyone involved) and in no export.

Each test reads the exact reply prompt through a capturing provider on the real bot against the
fake Discord; memory work runs on the offline provider.
"""

from __future__ import annotations

from datetime import date

import asyncpg

from bot.client import MemoryBot
from memory.llm import MemoryLLM
from tests.e2e.conftest import StartBot, directory_ready, settled, until_stored, wired
from tests.e2e.fake_discord import ALICE_ID, BOB_ID, GENERAL_ID, GUILD_ID, FakeDiscord
from tests.e2e.test_replies_e2e import CapturingProvider, _reply_to, _start
from tests.support import eventually

OPT_OUT_EXTENSIONS = [
    "bot.cogs.errors",
    "bot.cogs.ingest",
    "bot.cogs.facts",
    "bot.cogs.replies",
    "bot.cogs.memory_group",
]


async def _start_with(
    start_bot: StartBot, provider: CapturingProvider, extensions: list[str]
) -> MemoryBot:
    bot = await start_bot(
        extensions=extensions,
        llm=MemoryLLM(provider),
        reply_cooldown_seconds=0,
        commands_per_minute=100,
    )
    await directory_ready(bot)
    return bot


async def _ask(fake: FakeDiscord, provider: CapturingProvider, text: str, author: str) -> str:
    """Address the bot and return the prompt its reply was made from."""
    start = len(fake.sent_messages)
    asked = len(provider.reply_prompts)
    sent = await fake.send_message(f"<@{fake.bot_user.id}> {text}", author=author)
    await _reply_to(fake, sent, start)
    assert len(provider.reply_prompts) == asked + 1
    return provider.reply_prompts[-1]


async def _stored(bot: MemoryBot, pool: asyncpg.Pool, message_id: int) -> None:
    async def there() -> bool:
        return bool(await pool.fetchval("SELECT 1 FROM messages WHERE message_id = $1", message_id))

    await until_stored(bot, there)


async def _in_window(bot: MemoryBot, text: str, *, held: bool = True) -> None:
    """Wait until the channel's window holds `text` (a turn is added once its author's
    consent is read), or with `held=False` until neither a turn nor its summary holds it."""

    async def there() -> bool:
        view = await wired(bot).replies.windows.view(GENERAL_ID)
        found = text in view.summary or any(text in turn.content for turn in view.turns)
        return found == held

    await eventually(there)


async def _learned_from(pool: asyncpg.Pool, message_id: int, about: int, statement: str) -> None:
    """A fact chat taught about `about` from the stored message (as a day's pass would)."""
    await pool.execute(
        "INSERT INTO learned_facts (guild_id, user_id, subject, statement, said_by, message_ids,"
        " first_seen, last_seen) SELECT guild_id, $2, 'health', $3, author_id,"
        " ARRAY[message_id], $4, $4 FROM messages WHERE message_id = $1",
        message_id,
        about,
        statement,
        date.today(),
    )


async def test_a_deleted_message_leaves_the_next_prompt(
    fake_discord: FakeDiscord, start_bot: StartBot, db_pool: asyncpg.Pool
) -> None:
    provider = CapturingProvider()
    bot = await _start(start_bot, provider)
    secret = await fake_discord.send_message(
        "my home address is 42 Quillfeather Road", author="alice"
    )
    await _stored(bot, db_pool, int(secret["id"]))
    answer = await _ask(fake_discord, provider, "where should we meet?", "alice")
    memories, window = answer.split("<conversation", 1)
    assert "Quillfeather" in memories and "Quillfeather" in window  # her notes of today too
    await fake_discord.send_message("the park is nice", author="bob")
    await _in_window(bot, "the park is nice")

    await fake_discord.delete_message(int(secret["id"]))
    await _in_window(bot, "Quillfeather", held=False)

    async def blanked() -> bool:
        content: str | None = await db_pool.fetchval(
            "SELECT content FROM messages WHERE message_id = $1", int(secret["id"])
        )
        return content == ""

    await until_stored(bot, blanked)
    prompt = await _ask(fake_discord, provider, "so where do we meet, alice?", "alice")

    assert "Quillfeather" not in prompt  # neither her window turn nor her notes of today
    assert "the park is nice" in prompt


async def test_an_edited_message_keeps_only_its_new_text_in_the_prompt(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    provider = CapturingProvider()
    bot = await _start(start_bot, provider)
    said = await fake_discord.send_message("the safe code is 7319-0426", author="alice")
    await _in_window(bot, "7319-0426")
    await fake_discord.edit_message(int(said["id"]), "ask me in private for the safe code")
    await _in_window(bot, "ask me in private")

    prompt = await _ask(fake_discord, provider, "what did alice just say?", "bob")

    assert "7319-0426" not in prompt
    assert "ask me in private for the safe code" in prompt


async def test_a_forgotten_statement_is_in_no_part_of_the_prompt(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    provider = CapturingProvider()
    bot = await _start(start_bot, provider)
    await fake_discord.send_message("I am a nurse, mostly night shifts", author="alice")
    await fake_discord.send_message("Bot remember that I am a nurse", author="alice")
    await fake_discord.wait_for_sent(lambda m: "remember" in m["content"], timeout=10)
    before = await _ask(fake_discord, provider, "what does alice do?", "bob")
    assert before.count("nurse") >= 2  # her facts and the window

    start = len(fake_discord.sent_messages)
    await fake_discord.send_message("Bot forget that I am a nurse", author="alice")
    await fake_discord.wait_for_sent(lambda m: True, start=start, timeout=10)
    await _in_window(bot, "nurse", held=False)
    prompt = await _ask(fake_discord, provider, "what does alice do?", "bob")

    assert "nurse" not in prompt.lower()


async def test_an_opted_out_member_and_what_was_learned_from_her_leave_every_prompt(
    fake_discord: FakeDiscord, start_bot: StartBot, db_pool: asyncpg.Pool
) -> None:
    provider = CapturingProvider()
    bot = await _start_with(start_bot, provider, OPT_OUT_EXTENSIONS)
    told = await fake_discord.send_message(
        "heads up: Bobby is allergic to kiwiberry jam", author="alice"
    )
    await _stored(bot, db_pool, int(told["id"]))
    await _learned_from(db_pool, int(told["id"]), BOB_ID, "Bobby is allergic to kiwiberry jam")
    wired(bot).manager.invalidate(GUILD_ID, BOB_ID)  # (the pass that learns it tells caches)
    before = await _ask(fake_discord, provider, "any snack ideas for me?", "bob")
    assert before.count("kiwiberry") >= 2  # bob's memories and alice's turn

    asked = await fake_discord.invoke_slash("memory optout", user="alice")
    await fake_discord.wait_for_interaction_response(asked["id"])
    await fake_discord.click_button(asked["id"], "Yes, forget me", user="alice")

    async def confirmed() -> bool:
        return "will not remember you" in fake_discord.interaction_text(asked["id"])

    await until_stored(bot, confirmed, within=10)
    await fake_discord.send_message("psst, my locker combination is 24-7-13", author="alice")
    await settled(bot)
    prompt = await _ask(fake_discord, provider, "any snack ideas for me?", "bob")

    assert "kiwiberry" not in prompt
    assert "24-7-13" not in prompt
    subject = await bot.memory.privacy.subject(GUILD_ID, str(BOB_ID))
    export = await bot.memory.privacy.export(subject)
    assert "kiwiberry" not in str(export)


async def test_a_purge_takes_her_turns_and_what_she_said_about_others(
    fake_discord: FakeDiscord, start_bot: StartBot, db_pool: asyncpg.Pool
) -> None:
    provider = CapturingProvider()
    bot = await _start(start_bot, provider)
    told = await fake_discord.send_message(
        "heads up: Bobby is allergic to kiwiberry jam", author="alice"
    )
    await _stored(bot, db_pool, int(told["id"]))
    await _learned_from(db_pool, int(told["id"]), BOB_ID, "Bobby is allergic to kiwiberry jam")
    wired(bot).manager.invalidate(GUILD_ID, BOB_ID)
    assert "kiwiberry jam" in (
        await wired(bot).manager.get_memories(GUILD_ID, BOB_ID, budget=5) or ""
    )

    subject = await bot.memory.privacy.subject(GUILD_ID, str(ALICE_ID))
    said = (await bot.memory.privacy.export(subject))["learned_facts_said_by_member"]
    assert [row["statement"] for row in said] == ["Bobby is allergic to kiwiberry jam"]
    report = await bot.memory.privacy.purge(subject)
    assert report.counts.rows["learned_facts_said_by"] == 1
    await fake_discord.send_message("back again after the purge", author="alice")
    await _in_window(bot, "back again after the purge")
    prompt = await _ask(fake_discord, provider, "any snack ideas for me?", "bob")

    assert "kiwiberry" not in prompt
    assert "back again after the purge" in prompt  # a purge is not an opt-out
    bob = await bot.memory.privacy.export(await bot.memory.privacy.subject(GUILD_ID, str(BOB_ID)))
    assert "kiwiberry" not in str(bob)
