"""A reply's prompt carries the channel's current episode (title, summary so far, open loops)
and, asked "what were we talking about yesterday?", that day's episodes of channels the
reader may read."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg
import pytest

from db.guilds import ensure_channel_names
from db.messages import insert_messages
from memory.core.models import ChatMessage, Member
from memory.core.viewer import Viewer
from memory.ports import IncomingMessage
from memory.wiring import Memory
from tests.memory.episode_support import episode_lines, memory_at

G, GENERAL, MODS, OTHER = 990, 991, 992, 993
NOW = datetime(2026, 11, 21, 15, 0, tzinfo=UTC)
YESTERDAY = NOW - timedelta(days=1)

TRIP = [
    "planning the camping trip to the lake next weekend",
    "the lake trip needs tents and a camping stove",
    "should we rent a canoe at the lake?",
    "let's book the campsite by the lake tomorrow",
]
BAKE = [
    "the sourdough starter finally bubbled this morning",
    "feed the sourdough starter twice a day with rye flour",
    "my sourdough loaf came out flat again",
    "try a longer cold proof for the sourdough loaf",
    "does anyone have a dutch oven for baking bread?",
    "I bake sourdough in a dutch oven, my starter loves rye flour",
    "the sourdough crust needs steam in the oven",
    "rye flour makes the starter rise faster",
    "my starter smells like vinegar after the weekend",
    "vinegar smell means the sourdough starter is hungry",
]


def said(texts: list[str], at: datetime, channel: int, first_id: int) -> list[ChatMessage]:
    return episode_lines(texts, guild=G, channel=channel, at=at, first_id=first_id)


@pytest.fixture
async def memory(db_pool: asyncpg.Pool, tmp_path: Path) -> AsyncIterator[Memory]:
    async with memory_at(db_pool, tmp_path, NOW) as opened:
        yield opened


def ask(text: str, *, viewer: Viewer | None) -> IncomingMessage:
    return IncomingMessage(G, GENERAL, 77_000, 1, "alice", text, viewer=viewer)


async def test_a_reply_carries_the_current_episode_and_the_day_asked_about(
    memory: Memory,
) -> None:
    await insert_messages(memory.pool, said(TRIP, YESTERDAY, GENERAL, 70_000))
    await insert_messages(
        memory.pool, said(["mods only: zorvath alt again"] * 3, YESTERDAY, MODS, 71_000)
    )
    await insert_messages(memory.pool, said(BAKE, NOW - timedelta(minutes=20), GENERAL, 72_000))
    await memory.episodes.cut_guild(G)
    await memory.episodes.sweep()
    await memory.episodes.summarize_guild(G)

    result = await memory.replies.compose(ask("Bot, any bread tips?", viewer=None))
    episode = result.prompt.split("<episode>")[1].split("</episode>")[0]
    assert "Current topic: the sourdough starter finally bubbled" in episode

    reader = Viewer.of_channels(1, {GENERAL})  # alice cannot read #mods
    question = "Bot, what were we talking about yesterday?"
    result = await memory.replies.compose(ask(question, viewer=reader))
    episode = result.prompt.split("<episode>")[1].split("</episode>")[0]
    assert "planning the camping trip to the lake" in episode
    assert "zorvath" not in result.prompt

    moderator = Viewer.of_channels(1, {GENERAL, MODS})
    question = f"Bot, what were we talking about in <#{MODS}> yesterday?"
    result = await memory.replies.compose(ask(question, viewer=moderator))
    assert "zorvath" in result.prompt.split("<episode>")[1]


BUILD = [
    "the compiler build broke after the rust upgrade",
    "cargo build fails with a linker error since the upgrade",
    "try cleaning the cargo target directory and rebuild",
]


async def test_a_question_naming_a_date_and_a_channel_gets_that_days_episodes(
    memory: Memory,
) -> None:
    monday = datetime(2026, 10, 12, 18, 0, tzinfo=UTC)  # six weeks back
    await insert_messages(memory.pool, said(TRIP, monday, GENERAL, 73_000))
    await insert_messages(memory.pool, said(BUILD, monday + timedelta(days=1), GENERAL, 74_000))
    await insert_messages(memory.pool, said(["mods only: zorvath alt"] * 3, monday, MODS, 75_000))
    await insert_messages(memory.pool, said(BAKE, NOW - timedelta(minutes=20), GENERAL, 76_000))
    await ensure_channel_names(memory.pool, [(G, GENERAL, "general"), (G, MODS, "mods")])
    await memory.episodes.cut_guild(G)  # none summarised yet: the reply extracts its own

    reader = Viewer.of_channels(1, {GENERAL})
    question = "Bot, what did we talk about in #general on Monday, October 12?"
    result = await memory.replies.compose(ask(question, viewer=reader))
    episode = result.prompt.split("<episode>")[1].split("</episode>")[0]
    assert episode.startswith("#general 2026-10-12 18:00–18:03: planning the camping trip")
    assert "cargo" not in episode  # the next day's episode is not the day asked about
    assert episode.index("camping") < episode.index("Current topic: the sourdough")
    # The extract was for this reply: the episode's own summary is still due for its job.
    closed = [e for e in await memory.episodes.listing(G) if e.state != "open"]
    assert len(closed) == 2 and not any(e.summary for e in closed)

    # A channel the asker may not read, by name: not theirs to ask about.
    question = "Bot, what were we talking about in #mods on October 12?"
    result = await memory.replies.compose(ask(question, viewer=reader))
    assert "zorvath" not in result.prompt
    assert "planning the camping trip" in result.prompt.split("<episode>")[1]


async def test_the_working_memory_does_not_echo_the_message_being_answered(
    memory: Memory,
) -> None:
    question = "is rye flour better for a sourdough starter?"
    lines = said([*BAKE, f"Bot, {question}"], NOW - timedelta(minutes=20), GENERAL, 72_000)
    await insert_messages(memory.pool, lines)
    await memory.episodes.cut_guild(G)  # the question is stored before the reply reads it

    # The composer gets the text addressed to it ("Bot, " taken off), as the bot's cogs do.
    result = await memory.replies.compose(ask(question, viewer=None))
    episode = result.prompt.split("<episode>")[1].split("</episode>")[0]
    assert "Current topic: the sourdough starter finally bubbled" in episode
    assert "rye flour better" not in episode


async def test_an_edit_or_delete_changes_the_extract_a_reply_gets_for_an_asked_day(
    memory: Memory,
) -> None:
    """Extracts made for replies are kept by the lines they summarise: the next reply after an
    edit or a delete is made from the chat as it is now, never from the kept one."""
    monday = datetime(2026, 10, 12, 18, 0, tzinfo=UTC)
    trip = said(TRIP, monday, GENERAL, 73_000)
    memory.writer.submit_member(Member(G, 1, username="alice"))
    memory.writer.submit_member(Member(G, 2, username="bob"))
    for message in trip:
        memory.writer.submit(message)
    await memory.writer.flush()
    await memory.episodes.settled()
    reader = Viewer.of_channels(1, {GENERAL})
    question = "Bot, what did we talk about on Monday, October 12?"

    async def asked_episode() -> str:
        result = await memory.replies.compose(ask(question, viewer=reader))
        return result.prompt.split("<episode>")[1].split("</episode>")[0]

    assert "planning the camping trip" in await asked_episode()
    assert "planning the camping trip" in await asked_episode()  # the kept extract

    memory.writer.submit_edit(replace(trip[0], content="planning the kayak outing next weekend"))
    await memory.writer.flush()
    await memory.episodes.settled()
    episode = await asked_episode()
    assert "camping trip to the lake next weekend" not in episode
    assert "kayak outing" in episode

    memory.writer.submit_delete(trip[0].guild_id, trip[0].message_id)
    await memory.writer.flush()
    await memory.episodes.settled()
    assert "kayak" not in await asked_episode()


async def test_asking_what_topics_came_up_in_a_channel_brings_its_episodes(
    memory: Memory,
) -> None:
    """One rule says a question asks what was talked about, for routing it to episodes and for
    the offline answer: "topics" and "conversations" count, as "talking" and "discuss" do."""
    monday = datetime(2026, 10, 12, 18, 0, tzinfo=UTC)
    await insert_messages(memory.pool, said(TRIP, monday, GENERAL, 73_000))
    await ensure_channel_names(memory.pool, [(G, GENERAL, "general")])
    await memory.episodes.cut_guild(G)

    reader = Viewer.of_channels(1, {GENERAL})
    result = await memory.replies.compose(
        ask("Bot, what topics came up in #general?", viewer=reader)
    )
    episode = result.prompt.split("<episode>")[1].split("</episode>")[0]
    assert "#general 2026-10-12 18:00" in episode
    assert result.text.startswith("Here is what was talked about"), result.text


async def test_asking_what_was_talked_about_last_week_brings_that_weeks_episodes(
    memory: Memory,
) -> None:
    """A week, a month or a year as members say it ("last week", "in October") brings that
    stretch's episodes; the one before it stays out."""
    last_week = datetime(2026, 11, 11, 18, 0, tzinfo=UTC)  # NOW is Saturday 21 November
    await insert_messages(memory.pool, said(TRIP, last_week, GENERAL, 74_000))
    await insert_messages(memory.pool, said(BAKE, last_week - timedelta(days=14), OTHER, 75_000))
    hello = ["good morning all", "morning!"]  # the channel's current episode: nothing to tell
    await insert_messages(memory.pool, said(hello, NOW - timedelta(minutes=5), GENERAL, 76_000))
    await memory.episodes.cut_guild(G)

    reader = Viewer.of_channels(1, {GENERAL, OTHER})
    result = await memory.replies.compose(
        ask("Bot, what did we talk about last week?", viewer=reader)
    )
    episode = result.prompt.split("<episode>")[1].split("</episode>")[0]
    assert "2026-11-11 18:00" in episode and "camping trip" in episode
    assert "sourdough" not in episode
    assert result.text.startswith("Here is what was talked about"), result.text
    result = await memory.replies.compose(
        ask("Bot, what did we talk about in October?", viewer=reader)
    )
    episode = result.prompt.split("<episode>")[1].split("</episode>")[0]
    assert "sourdough" in episode and "camping trip" not in episode


async def _last_week_asked(memory: Memory, rooms: list[int]) -> str:
    """The guild cut into episodes, then "what did we talk about last week?" asked by one who
    reads #general and `rooms`: the reply prompt's episode part."""
    await memory.episodes.cut_guild(G)
    reader = Viewer.of_channels(1, {GENERAL, *rooms})
    result = await memory.replies.compose(
        ask("Bot, what did we talk about last week?", viewer=reader)
    )
    return result.prompt.split("<episode>")[1].split("</episode>")[0]


async def test_a_week_asked_about_brings_its_biggest_episodes_not_its_last(
    memory: Memory,
) -> None:
    """Its last five were its Sunday's small talk, not what the week talked about."""
    await insert_messages(
        memory.pool, said(BAKE, datetime(2026, 11, 9, 18, 0, tzinfo=UTC), GENERAL, 77_000)
    )
    small_talk = ["hey all", "hi!", "how was everyone's weekend?"]
    rooms = [1_000 + n for n in range(5)]
    for n, room in enumerate(rooms):  # Sunday 15 November, a short talk in each room
        sunday = datetime(2026, 11, 15, 10 + n, 0, tzinfo=UTC)
        await insert_messages(memory.pool, said(small_talk, sunday, room, 78_000 + 100 * n))
    hello = ["good morning all", "morning!"]  # the channel's current episode: nothing to tell
    await insert_messages(memory.pool, said(hello, NOW - timedelta(minutes=5), GENERAL, 79_000))
    episode = await _last_week_asked(memory, rooms)
    assert "2026-11-09 18:00" in episode and "sourdough" in episode
    assert episode.count("2026-11-15") == 4  # the biggest five: Monday's, then four of Sunday's
    assert episode.index("2026-11-09") < episode.index("2026-11-15")  # as the week went


async def test_a_week_asked_about_brings_each_days_biggest_not_one_busy_days_five(
    memory: Memory,
) -> None:
    """A busy Wednesday's six long talks do not crowd out Monday's and Friday's: each day's
    biggest comes first, then the busiest day's next ones."""
    await insert_messages(
        memory.pool, said(BAKE[:4], datetime(2026, 11, 9, 18, 0, tzinfo=UTC), GENERAL, 77_000)
    )
    rooms = [1_000 + n for n in range(6)]
    for n, room in enumerate(rooms):  # Wednesday 11 November, a long talk in each room
        wednesday = datetime(2026, 11, 11, 9 + n, 0, tzinfo=UTC)
        await insert_messages(memory.pool, said(TRIP * 2, wednesday, room, 78_000 + 100 * n))
    friday = datetime(2026, 11, 13, 20, 0, tzinfo=UTC)
    await insert_messages(memory.pool, said(TRIP[:3], friday, GENERAL, 79_000))
    episode = await _last_week_asked(memory, rooms)
    assert "2026-11-09" in episode and "2026-11-13" in episode
    assert episode.count("2026-11-11") == 3  # five: a day's biggest each, then Wednesday's
    assert episode.index("2026-11-09") < episode.index("2026-11-11") < episode.index("2026-11-13")


async def test_a_days_episodes_not_summarised_yet_each_get_their_own_extract(
    memory: Memory,
) -> None:
    """The asked episodes are read together and extracted in one request: each line still
    says its own episode, and none is stored (their summaries stay due for their job)."""
    await insert_messages(memory.pool, said(TRIP, YESTERDAY, GENERAL, 78_000))
    await insert_messages(memory.pool, said(BUILD, YESTERDAY + timedelta(hours=3), GENERAL, 78_100))
    await insert_messages(memory.pool, said(BAKE[:4], YESTERDAY, OTHER, 78_200))
    await ensure_channel_names(memory.pool, [(G, GENERAL, "general"), (G, OTHER, "kitchen")])
    await memory.episodes.cut_guild(G)

    reader = Viewer.of_channels(1, {GENERAL, OTHER})
    result = await memory.replies.compose(
        ask("Bot, what were we talking about yesterday?", viewer=reader)
    )
    lines = result.prompt.split("<episode>")[1].split("</episode>")[0].splitlines()
    trip, build, bake = (
        next(line for line in lines if word in line) for word in ("camping", "cargo", "sourdough")
    )
    # Each line's place and time are its episode's, and so are its words.
    assert trip.startswith("#general 2026-11-20 15:00") and "cargo" not in trip
    assert build.startswith("#general 2026-11-20 18:00") and "camping" not in build
    assert bake.startswith("#kitchen 2026-11-20 15:00") and "cargo" not in bake
    closed = [e for e in await memory.episodes.listing(G) if e.state != "open"]
    assert closed and not any(e.summary for e in closed)
