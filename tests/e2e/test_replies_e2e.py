"""Replies through the real bot on the fake Discord: memories of everyone involved and the
conversation window reach the prompt; long answers split; no pings; failures apologise."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg

from bot.client import MemoryBot
from db.messages import get_message
from memory.core.models import Member
from memory.core.tokens import estimate_tokens
from memory.llm import MemoryLLM
from memory.llm.offline import OfflineProvider
from memory.llm.providers import LLMProvider, LLMRequest, LLMResponse, LLMUnavailable
from tests.e2e.conftest import StartBot, directory_ready, settled, until_stored, wired
from tests.e2e.fake_discord import ALICE_ID, BOB_ID, GUILD_ID, FakeDiscord

EXTENSIONS = ["bot.cogs.ingest", "bot.cogs.facts", "bot.cogs.replies"]


class CapturingProvider(LLMProvider):
    """The offline provider for memory work; replies are scripted and their prompts kept."""

    name = "capturing"

    def __init__(self, answer: str = "Happy to help!", *, fail_replies: bool = False) -> None:
        self.offline = OfflineProvider()
        self.answer = answer
        self.fail_replies = fail_replies
        self.reply_prompts: list[str] = []

    async def complete(self, request: LLMRequest) -> LLMResponse:
        if request.purpose != "reply":
            return await self.offline.complete(request)
        self.reply_prompts.append(request.prompt)
        if self.fail_replies:
            raise LLMUnavailable("model is down")
        return LLMResponse(text=self.answer, provider="capturing", model="capturing")


async def _start(start_bot: StartBot, provider: CapturingProvider, **settings: Any) -> MemoryBot:
    bot = await start_bot(
        extensions=EXTENSIONS,
        llm=MemoryLLM(provider),
        **{"reply_cooldown_seconds": 0, "commands_per_minute": 100, **settings},
    )
    await directory_ready(bot)
    return bot


async def _remember(bot: MemoryBot, user_id: int, name: str, statement: str) -> None:
    assert bot.memory.facts is not None
    await wired(bot).facts.remember(
        GUILD_ID, Member(GUILD_ID, user_id, username=name), statement, actor_id=user_id
    )


async def _reply_to(fake: FakeDiscord, sent: dict[str, Any], start: int) -> dict[str, Any]:
    return await fake.wait_for_sent(
        lambda m: (m.get("message_reference") or {}).get("message_id") == sent["id"],
        start=start,
        timeout=10,
    )


async def test_reply_prompt_holds_both_named_members_and_the_window(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    provider = CapturingProvider()
    bot = await _start(start_bot, provider, reply_prompt_token_budget=3000)
    await _remember(bot, ALICE_ID, "alice", "alice lives in Lisbon")
    await _remember(bot, BOB_ID, "bob", "bob plays the cello")

    await fake_discord.send_message("anyone up for a concert tonight?", author="alice")
    await fake_discord.send_message("only if there is a cello solo", author="bob")
    bot_id = fake_discord.bot_user.id
    start = len(fake_discord.sent_messages)
    sent = await fake_discord.send_message(
        f"<@{bot_id}> should alice and bob go together?", author="alice"
    )
    reply = await _reply_to(fake_discord, sent, start)

    assert reply["content"] == "Happy to help!"
    assert reply["allowed_mentions"]["parse"] == []
    prompt = provider.reply_prompts[-1]
    assert "lives in Lisbon" in prompt and "plays the cello" in prompt
    assert "anyone up for a concert tonight?" in prompt, "conversation window"
    assert "only if there is a cello solo" in prompt
    assert "should alice and bob go together?" in prompt
    assert estimate_tokens(prompt) <= 3000
    assert fake_discord.typing, "a typing indicator was shown"
    # Composing does not wait for Discord's answer to the indicator, but the answer is only
    # sent once it was (an indicator arriving after the answer would keep showing).
    channel_posts = [path for method, path in fake_discord.requests if method == "POST"]
    typing_at = max(i for i, path in enumerate(channel_posts) if path.endswith("/typing"))
    assert any(path.endswith("/messages") for path in channel_posts[typing_at + 1 :]), (
        "the answer came after the indicator"
    )


class GatedProvider(CapturingProvider):
    """Holds the first reply until released: a reply still composing when others arrive."""

    def __init__(self) -> None:
        super().__init__()
        self.composing = asyncio.Event()
        self.release = asyncio.Event()

    async def complete(self, request: LLMRequest) -> LLMResponse:
        if request.purpose == "reply" and not self.composing.is_set():
            self.composing.set()
            await self.release.wait()
        return await super().complete(request)


async def test_in_a_burst_replies_come_without_a_typing_indicator(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    """Past `busy_replies` replies composing, Discord's request budget goes to the answers:
    the next reply shows no typing indicator, and every question is still answered."""
    provider = GatedProvider()
    bot = await _start(start_bot, provider)
    composer = wired(bot).replies
    composer.config = replace(composer.config, busy_replies=0)  # one composing is a burst
    other = await fake_discord.create_channel("random")
    bot_id = fake_discord.bot_user.id
    start = len(fake_discord.sent_messages)

    first = await fake_discord.send_message(f"<@{bot_id}> hello there", author="alice")
    await asyncio.wait_for(provider.composing.wait(), 10)
    assert fake_discord.typing == [fake_discord.channel.id], "a lone reply shows the indicator"
    second = await fake_discord.send_message(
        f"<@{bot_id}> and hello here", author="bob", channel=other
    )
    reply = await _reply_to(fake_discord, second, start)
    provider.release.set()
    await _reply_to(fake_discord, first, start)

    assert reply["content"] == "Happy to help!"
    assert other.id not in fake_discord.typing, "no indicator for a reply during a burst"


async def test_long_answer_is_split_and_failures_apologise(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    sentence = "Here is one more thought about your question. "
    provider = CapturingProvider(answer=sentence * 100)
    await _start(start_bot, provider)
    start = len(fake_discord.sent_messages)
    await fake_discord.send_message("Bot, tell me a long story", author="bob")
    await fake_discord.wait_for_sent(lambda m: True, start=start + 2, timeout=10)
    parts = [m["content"] for m in fake_discord.sent_messages[start:]]
    assert len(parts) == 3 and all(len(part) <= 2000 for part in parts)
    assert " ".join(parts).split() == (sentence * 100).split()

    provider.fail_replies = True
    start = len(fake_discord.sent_messages)
    sent = await fake_discord.send_message("Bot, are you there?", author="bob")
    reply = await _reply_to(fake_discord, sent, start)
    assert reply["content"].startswith("Sorry")


async def test_memory_commands_are_not_answered_twice(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    provider = CapturingProvider()
    bot = await _start(start_bot, provider)
    start = len(fake_discord.sent_messages)
    sent = await fake_discord.send_message("Bot remember that bob likes jazz", author="alice")
    await _reply_to(fake_discord, sent, start)
    await settled(bot)
    replies = [
        m
        for m in fake_discord.sent_messages[start:]
        if (m.get("message_reference") or {}).get("message_id") == sent["id"]
    ]
    assert len(replies) == 1 and "remember" in replies[0]["content"].lower()
    assert provider.reply_prompts == []


class HeldMemoryProvider(CapturingProvider):
    """Memory building (summaries, merges) is held until the test lets it go: slower than any
    reply budget, without a clock."""

    def __init__(self) -> None:
        super().__init__()
        self.holding = False
        self.held = asyncio.Event()  # a memory build reached the model and is waiting
        self.released = asyncio.Event()

    async def complete(self, request: LLMRequest) -> LLMResponse:
        if self.holding and request.purpose in ("daily_summary", "historical_summary", "merge"):
            self.held.set()
            await self.released.wait()
        return await super().complete(request)


async def test_memory_slower_than_the_budget_replies_on_the_fallback(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    provider = HeldMemoryProvider()
    bot = await _start(start_bot, provider, reply_memory_budget_seconds=0.2)
    await _remember(bot, ALICE_ID, "alice", "alice is a marine biologist")
    dive = await fake_discord.send_message(
        "just got back from a dive in the Azores", author="alice"
    )

    # today has a message to summarise: the slow path is real
    await until_stored(bot, lambda: get_message(wired(bot).pool, int(dive["id"])))

    provider.holding = True
    try:
        start = len(fake_discord.sent_messages)
        sent = await fake_discord.send_message("Bot, any tips for my next trip?", author="alice")
        reply = await _reply_to(fake_discord, sent, start)
        # The build goes on in the background past the budget; on a slow machine its database
        # reads may outlast 0.2 s, so it may reach the model only after the reply is out.
        await asyncio.wait_for(provider.held.wait(), 10)
        assert not provider.released.is_set(), "the reply came while memory was still building"
        assert reply["content"] == "Happy to help!"
        assert "marine biologist" in provider.reply_prompts[-1], "facts came from the fallback"
        fallbacks = bot.memory.telemetry.recent("fallback")
        assert any(event.get("reason") == "timeout" for event in fallbacks)
    finally:
        provider.released.set()


async def test_cooldown_spaces_replies_in_a_channel_without_dropping_any(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    provider = CapturingProvider()
    await _start(start_bot, provider, reply_cooldown_seconds=0.6)
    start = len(fake_discord.sent_messages)
    first = await fake_discord.send_message("Bot, first question", author="alice")
    second = await fake_discord.send_message("Bot, second question", author="bob")
    a = await _reply_to(fake_discord, first, start)
    b = await _reply_to(fake_discord, second, start)
    assert a["content"] == b["content"] == "Happy to help!", "both got an answer"
    # When the fake received each POST (not when the test noticed it: polling adds its own lag).
    first_at, second_at = (datetime.fromisoformat(m["timestamp"]) for m in (a, b))
    spacing = abs((second_at - first_at).total_seconds())
    assert spacing >= 0.5, "the second reply waited out the channel cooldown"


async def test_a_runaway_answer_is_cut_to_three_messages(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    provider = CapturingProvider(answer="blah " * 40_000)  # 200,000 characters
    bot = await _start(start_bot, provider)
    start = len(fake_discord.sent_messages)
    await fake_discord.send_message("Bot, say a lot", author="bob")
    await fake_discord.wait_for_sent(lambda m: True, start=start + 2, timeout=10)
    await settled(bot)
    parts = [m["content"] for m in fake_discord.sent_messages[start:]]
    assert len(parts) == 3 and all(len(part) <= 2000 for part in parts)
    assert parts[-1].endswith(" […]") and parts[-1][:-4].endswith("blah")  # never mid-word


async def test_a_burst_from_one_member_costs_a_few_replies_and_one_notice(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    provider = CapturingProvider()
    bot = await _start(start_bot, provider, replies_per_minute=4)
    start = len(fake_discord.sent_messages)
    for n in range(30):
        await fake_discord.send_message(f"Bot hi {n}", author="bob")

    async def all_received() -> bool:  # every message reached the bot (and was stored)
        count: int = await wired(bot).pool.fetchval("SELECT count(*) FROM messages")
        return count >= 30

    await until_stored(bot, all_received)
    await settled(bot)
    sent = [m["content"] for m in fake_discord.sent_messages[start:]]
    assert len(provider.reply_prompts) == 4  # LLM calls: the member's allowance, not 30
    assert sent.count("That's a lot at once - give me a minute before the next one.") == 1
    assert len(sent) == 5


async def test_an_opted_in_server_tells_a_member_once_how_to_opt_in(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    provider = CapturingProvider()
    bot = await _start(start_bot, provider)
    await bot.memory.guild_settings.update(GUILD_ID, storage="opted-in")
    start = len(fake_discord.sent_messages)
    first = await fake_discord.send_message("Bot hello", author="bob")
    reply = await _reply_to(fake_discord, first, start)
    assert "/memory optin" in reply["content"]
    start = len(fake_discord.sent_messages)
    second = await fake_discord.send_message("Bot hello again", author="bob")
    reply = await _reply_to(fake_discord, second, start)
    assert "/memory optin" not in reply["content"]  # once


async def test_a_question_about_the_past_brings_the_old_message_into_the_reply(
    fake_discord: FakeDiscord, start_bot: StartBot, db_pool: asyncpg.Pool
) -> None:
    from db.messages import insert_messages
    from tests.support import chat_message

    old = chat_message(
        None,
        "moving to Berlin next spring for the new job",
        guild_id=GUILD_ID,
        channel_id=fake_discord.channel.id,
        author_id=BOB_ID,
        created_at=datetime.now(UTC) - timedelta(days=60),
    )
    await insert_messages(db_pool, [old])
    provider = CapturingProvider()
    await _start(start_bot, provider)
    start = len(fake_discord.sent_messages)
    asked = await fake_discord.send_message("Bot, what did bob say about Berlin?", author="alice")
    await _reply_to(fake_discord, asked, start)
    assert "<recalled" in provider.reply_prompts[-1]
    assert "moving to Berlin next spring" in provider.reply_prompts[-1]
