"""One script of lines, said on Discord (the real bot, discord.py and the fake Discord) and in
the console: both adapters only translate, so a member gets the same answers in both, in the
same order of rules (a memory command; an opted-out member hears only that; "what did I
miss?"; the reply rate limits; a reply)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import asyncpg
import discord

from bot.console import ConsoleSession, user_id_for
from memory.core.clock import SystemClock
from memory.core.telemetry import Telemetry
from memory.ports import FrontDoor
from memory.wiring import open_memory
from tests.bot.console_support import console_settings
from tests.e2e.conftest import StartBot, directory_ready, settled
from tests.e2e.fake_discord import ALICE_ID, BOB_ID, GUILD_ID, FakeDiscord, eventually

# Each step: who says what, or who opts out ("/optout").
SCRIPT = [
    ("alice", "Bot, remember that Alice loves climbing"),
    ("alice", "Bot, what do you know about Alice?"),
    ("bob", "/optout"),
    ("bob", "Bot, what did I miss?"),
    ("bob", "Bot, how are you?"),
    ("alice", "Bot, what did I miss?"),
    ("alice", "Bot, which rope should I buy?"),
    ("alice", "Bot, and which shoes?"),
    ("alice", "Bot, and which chalk?"),
    ("alice", "see you all at the crag"),
]
# The same members on both sides: the console's are named as Discord shows the fake ones.
CONSOLE_NAMES = {"alice": "Alice", "bob": "Bobby"}
# Settings both sides run with: one reply a minute, so the rate limit is part of the script.
SETTINGS: dict[str, Any] = {"replies_per_minute": 1, "reply_cooldown_seconds": 0}

OptOut = Callable[[str], Awaitable[None]]
Say = Callable[[str, str], Awaitable[str]]


async def run(say: Say, opt_out: OptOut) -> list[str]:
    answers = []
    for who, text in SCRIPT:
        if text == "/optout":
            await opt_out(who)
        else:
            answers.append(await say(who, text))
    return answers


async def opt_out_by(memory: FrontDoor, guild_id: int, user_id: int) -> None:
    subject = await memory.privacy.subject_or_id(guild_id, str(user_id))
    await memory.privacy.opt_out(subject, actor_id=user_id, by_admin=False, wait=True)


async def on_discord(fake: FakeDiscord, start_bot: StartBot) -> list[str]:
    bot = await start_bot(**SETTINGS)
    await directory_ready(bot, "alice")
    seen: set[int] = set()

    async def on_message(message: discord.Message) -> None:
        seen.add(message.id)

    bot.add_listener(on_message)

    async def say(who: str, text: str) -> str:
        sent = await fake.send_message(text, author=who)
        # Every cog's handler of the message is running once it was seen: then wait them out.
        await eventually(lambda: int(sent["id"]) in seen)
        await settled(bot)
        parts = [
            m["content"]
            for m in fake.sent_messages
            if (m.get("message_reference") or {}).get("message_id") == sent["id"]
        ]
        return "\n".join(parts).replace("`/memory optin`", "{optin}")

    async def opt_out(who: str) -> None:
        await opt_out_by(bot.memory, GUILD_ID, {"alice": ALICE_ID, "bob": BOB_ID}[who])

    return await run(say, opt_out)


async def in_console(db_pool: asyncpg.Pool, telemetry: Telemetry, tmp_path: Any) -> list[str]:
    settings = console_settings(tmp_path, **SETTINGS)
    async with open_memory(
        settings, pool=db_pool, telemetry=telemetry, clock=SystemClock()
    ) as memory:
        session = ConsoleSession(memory, speaker="Alice")

        async def say(who: str, text: str) -> str:
            lines = await session.handle_line(f"{CONSOLE_NAMES[who]}: {text}")
            answer = "\n".join(line.removeprefix("Bot: ") for line in lines)
            return answer.replace("/optin", "{optin}")

        async def opt_out(who: str) -> None:
            await memory.writer.flush()
            await opt_out_by(memory, session.guild_id, user_id_for(CONSOLE_NAMES[who]))

        return await run(say, opt_out)


async def test_discord_and_the_console_answer_a_script_alike(
    fake_discord: FakeDiscord,
    start_bot: StartBot,
    db_pool: asyncpg.Pool,
    telemetry: Telemetry,
    tmp_path: Any,
) -> None:
    discord_answers = await on_discord(fake_discord, start_bot)
    console_answers = await in_console(db_pool, telemetry, tmp_path)

    not_remembered = (
        "You opted out here, so I don't remember you or answer from memory; {optin} lets me"
        " remember you again."
    )
    assert discord_answers[0] == "Got it, I'll remember that about you."
    assert discord_answers[1] == "Here's what I know about Alice: Alice loves climbing."
    assert discord_answers[2] == not_remembered, "an opted-out member gets no catch-up"
    assert discord_answers[3] == not_remembered
    assert discord_answers[4] == "Nothing new since you were last here."
    assert discord_answers[5].startswith("Hi Alice!"), "a reply composed from memory"
    assert discord_answers[6] == "That's a lot at once - give me a minute before the next one."
    assert discord_answers[7:] == ["", ""], "past the warning, silence; unaddressed: nothing"
    assert discord_answers == console_answers
