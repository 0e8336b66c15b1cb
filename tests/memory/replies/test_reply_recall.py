"""A reply's recall, through the front door's wiring (open_memory's composer, its real
RecallService on PostgreSQL): every question is searched, the question itself, other questions
to the bot and the bot's own replies never come back as evidence, nor forgotten statements
or channels the reader cannot see; a 100,000-character question still gets its reply."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from db.members import upsert_members
from db.messages import insert_messages, mark_deleted
from memory.core.clock import FixedClock
from memory.core.models import ChatMessage, Member
from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from memory.core.viewer import Viewer
from memory.llm import MemoryLLM
from memory.ports import IncomingMessage
from memory.replies import ReplyResult
from memory.wiring import Memory, open_memory
from tests.fakes import ScriptedProvider
from tests.support import chat_message, recalled_lines

G, GENERAL, MODS = 930, 600, 601
MELANIE, CAROLINE, JUDY, KIM = 31, 32, 33, 34
BOT = 1 << 60
NOW = datetime(2023, 7, 20, 12, tzinfo=UTC)


def _said(
    author: int, text: str, *, days_ago: float, channel: int = GENERAL, **extra: Any
) -> ChatMessage:
    return chat_message(
        None,
        text,
        guild_id=G,
        channel_id=channel,
        author_id=author,
        created_at=NOW - timedelta(days=days_ago),
        **extra,
    )


@pytest.fixture
async def memory(
    db_pool: asyncpg.Pool, telemetry: Telemetry, tmp_path: Path
) -> AsyncIterator[Memory]:
    provider = ScriptedProvider({"reply": lambda request: "ok"})
    settings = Settings(
        _env_file=None, llm_provider="offline", telemetry_stdout=False, log_dir=tmp_path
    )
    await upsert_members(
        db_pool,
        [
            Member(G, MELANIE, username="melanie"),
            Member(G, CAROLINE, username="caroline"),
            Member(G, JUDY, username="judy"),
            Member(G, KIM, username="kim"),
        ],
    )
    async with open_memory(
        settings, pool=db_pool, telemetry=telemetry, clock=FixedClock(NOW), llm=MemoryLLM(provider)
    ) as opened:
        opened.replies.bot_user_id = BOT
        yield opened


async def _ask(
    memory: Memory, db_pool: asyncpg.Pool, author: int, text: str, *, viewer: Viewer | None = None
) -> tuple[ReplyResult, list[str]]:
    """Store the question as the writer would, then compose the reply to it."""
    asked = _said(author, text, days_ago=0)
    await insert_messages(db_pool, [asked])
    body = re.sub(r"^Bot,?\s*", "", text)
    message = IncomingMessage(G, GENERAL, asked.message_id, author, "x", body, viewer=viewer)
    result = await memory.replies.compose(message)
    return result, [line.text for line in recalled_lines(result.prompt)]


async def test_a_question_is_never_its_own_evidence_nor_are_questions_to_the_bot(
    memory: Memory, db_pool: asyncpg.Pool
) -> None:
    await insert_messages(
        db_pool,
        [
            _said(MELANIE, "Yesterday I took the kids to the museum", days_ago=14),
            _said(KIM, "Bot, when did Melanie go to the museum?", days_ago=3),
            _said(KIM, f"<@{BOT}> museum museum museum?", days_ago=2, mention_ids=(BOT,)),
            _said(BOT, "Melanie went to the museum, I think", days_ago=2, author_is_bot=True),
        ],
    )
    result, recalled = await _ask(
        memory, db_pool, CAROLINE, "Bot, When did Melanie go to the museum?"
    )
    assert recalled[0] == "Yesterday I took the kids to the museum"
    assert 'date="Thu 6 July 2023"' in result.prompt
    assert "melanie [yesterday = Wed 5 July 2023]: Yesterday I took the kids" in result.prompt
    assert all("Bot" not in line and "?" not in line and "I think" not in line for line in recalled)


async def test_every_question_is_searched_and_greetings_are_not(
    memory: Memory, db_pool: asyncpg.Pool
) -> None:
    await insert_messages(
        db_pool,
        [_said(CAROLINE, "this summer I plan to walk the coast of Norway", days_ago=40)],
    )
    _, recalled = await _ask(memory, db_pool, KIM, "Bot, what are Caroline's plans for the summer?")
    assert recalled == ["this summer I plan to walk the coast of Norway"]
    _, nothing = await _ask(memory, db_pool, KIM, "Bot, thanks a lot!")
    assert nothing == []


async def test_forgotten_and_unreadable_words_stay_out_of_the_prompt(
    memory: Memory, db_pool: asyncpg.Pool
) -> None:
    await insert_messages(
        db_pool,
        [
            _said(JUDY, "I am a nurse, the night shifts are brutal", days_ago=20),
            _said(JUDY, "the night shifts at the bakery start at four", days_ago=10),
            _said(KIM, "judy's night shifts came up in the mod meeting", days_ago=5, channel=MODS),
        ],
    )
    await db_pool.execute(
        "INSERT INTO forgotten_statements (guild_id, user_id, statement) VALUES ($1, $2, $3)",
        G,
        JUDY,
        "Judy is a nurse",
    )
    question = "Bot, what did judy say about the night shifts?"
    _, recalled = await _ask(memory, db_pool, KIM, question)  # no viewer: this channel
    assert recalled == ["the night shifts at the bakery start at four"]
    member = Viewer.of_channels(KIM, {GENERAL})
    _, seen = await _ask(memory, db_pool, KIM, question, viewer=member)
    assert "nurse" not in " ".join(seen) and "mod meeting" not in " ".join(seen)
    moderator = Viewer.of_channels(KIM, {GENERAL, MODS})
    _, mod_seen = await _ask(memory, db_pool, KIM, question, viewer=moderator)
    assert "judy's night shifts came up in the mod meeting" in mod_seen


async def test_a_hundred_thousand_character_question_gets_a_normal_reply(
    memory: Memory, db_pool: asyncpg.Pool
) -> None:
    await insert_messages(
        db_pool, [_said(MELANIE, "the lighthouse tour was on a Thursday", days_ago=9)]
    )
    words = " ".join(f"word{n}" for n in range(20_000))
    question = ("Bot, when was the lighthouse tour? " + words)[:100_000]
    # The search reads the question's first words (capped), and finds the answer.
    hits = await memory.recall.search(G, question)
    assert [hit.text for hit in hits] == ["the lighthouse tour was on a Thursday"]
    # The reply is an ordinary one (the message fills the prompt's budget: nothing to add).
    result, _ = await _ask(memory, db_pool, KIM, question)
    assert result.text == "ok"


def _chatter(
    author: int, lines: tuple[str, ...], *, first_day: int, times: int = 4
) -> list[ChatMessage]:
    """`author` saying each of `lines` on `times` different days (words said that often carry
    no news)."""
    return [
        _said(author, line, days_ago=first_day - 7 * n - 0.01 * i)
        for n in range(times)
        for i, line in enumerate(lines)
    ]


_SMALL_TALK = ("lol same here honestly", "work was busy again today", "I need a coffee now")


async def test_asking_about_a_member_brings_what_they_told_months_apart(
    memory: Memory, db_pool: asyncpg.Pool
) -> None:
    # Caroline's two pieces of news, two months apart, among her small talk and others'.
    await insert_messages(
        db_pool,
        [
            *_chatter(CAROLINE, _SMALL_TALK, first_day=80),
            *_chatter(MELANIE, ("hey caroline!", "lol same here honestly"), first_day=79),
            _said(CAROLINE, "went to my first pottery evening, my bowl collapsed", days_ago=75),
            _said(CAROLINE, "the fencing masks at the sports hall smell awful", days_ago=12),
        ],
    )
    for question in ("Bot, what do you know about Caroline?", "Bot, how is Caroline doing?"):
        result, _ = await _ask(memory, db_pool, KIM, question)
        hers = [
            line.text
            for line in recalled_lines(result.prompt)
            if line.found and line.speaker == "caroline"
        ]
        assert "went to my first pottery evening, my bowl collapsed" in hers, question
        assert "the fencing masks at the sports hall smell awful" in hers, question
        assert not set(_SMALL_TALK) & set(hers), "her small talk carries no news"


async def test_a_members_statements_keep_to_what_the_asker_may_read(
    memory: Memory, db_pool: asyncpg.Pool
) -> None:
    await insert_messages(
        db_pool,
        [
            *_chatter(JUDY, _SMALL_TALK, first_day=60),
            _said(JUDY, "my landlord finally fixed the boiler in the flat", days_ago=30),
            _said(JUDY, "passed the sommelier exam on the second try", days_ago=20),
            _said(JUDY, "my brother is moving to Montreal next spring", days_ago=10, channel=MODS),
        ],
    )
    passed = await db_pool.fetchval(
        "SELECT message_id FROM messages WHERE content LIKE 'passed the sommelier%'"
    )
    await mark_deleted(db_pool, G, [passed])
    await db_pool.execute(
        "INSERT INTO forgotten_statements (guild_id, user_id, statement) VALUES ($1, $2, $3)",
        G,
        JUDY,
        "Judy's landlord fixed the boiler",
    )
    question = "Bot, what do you know about Judy?"
    _, seen = await _ask(memory, db_pool, KIM, question, viewer=Viewer.of_channels(KIM, {GENERAL}))
    said = " ".join(seen)
    assert "Montreal" not in said and "sommelier" not in said and "boiler" not in said
    _, mod_seen = await _ask(
        memory, db_pool, KIM, question, viewer=Viewer.of_channels(KIM, {GENERAL, MODS})
    )
    assert "my brother is moving to Montreal next spring" in mod_seen


async def test_which_hobbies_brings_both_from_different_months(
    memory: Memory, db_pool: asyncpg.Pool
) -> None:
    # Melanie's two new pastimes, told two months apart in words the question does not use.
    await insert_messages(
        db_pool,
        [
            *_chatter(MELANIE, _SMALL_TALK, first_day=90),
            *_chatter(JUDY, ("took the dog out, freezing", "lol same here honestly"), first_day=88),
            _said(MELANIE, "joined a climbing club downtown, my arms are jelly", days_ago=70),
            _said(MELANIE, "my first salsa class was chaos but so fun", days_ago=8),
        ],
    )
    result, _ = await _ask(memory, db_pool, KIM, "Bot, which hobbies has Melanie taken up?")
    recalled = [line.text for line in recalled_lines(result.prompt)]
    assert "joined a climbing club downtown, my arms are jelly" in recalled
    assert "my first salsa class was chaos but so fun" in recalled
    assert "took the dog out, freezing" not in recalled, "'taken up' is not 'took'"


async def test_asking_what_is_new_brings_news_before_lasting_facts(
    memory: Memory, db_pool: asyncpg.Pool
) -> None:
    # Kim's lasting facts have rarer words than her news; "what's new" wants the news.
    facts = (
        "my chinchilla is called Biscuit and she hates the vacuum cleaner",
        "I grew up in Valparaíso near the funicular by the harbour",
        "I work as a cartographer for the hydrographic office downtown",
        "my favourite opera is Rusalka, the aria gets me every single time",
    )
    news = (
        "tried rowing on the canal for the first time, loved it",
        "signed up for a ceramics course at the community centre",
    )
    await insert_messages(
        db_pool,
        [
            *_chatter(KIM, _SMALL_TALK, first_day=90),
            *[_said(KIM, text, days_ago=60 - i) for i, text in enumerate(facts)],
            *[_said(KIM, text, days_ago=30 - 10 * i) for i, text in enumerate(news)],
        ],
    )
    _, recalled = await _ask(memory, db_pool, JUDY, "Bot, what has Kim been up to lately?")
    assert set(news) <= set(recalled), recalled
