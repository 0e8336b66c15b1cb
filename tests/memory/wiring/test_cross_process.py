"""Caches that hear other processes: two memories (separate pools and caches, one database)
stand for two processes; a purge in one is seen by the other's next request within 2 s."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg

from db.pool import create_pool
from memory.core.clock import FixedClock
from memory.core.models import Member
from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from memory.core.viewer import Viewer
from memory.llm import MemoryLLM
from memory.replies import IncomingMessage
from memory.wiring import Memory, open_memory
from tests.fakes import RecordingProvider
from tests.support import chat_message, eventually

G, ALICE, BOB, CHANNEL = 950, 95, 96, 9500
NOW = datetime(2026, 11, 7, 12, tzinfo=UTC)


@asynccontextmanager
async def two_processes(
    db_pool: asyncpg.Pool, database_dsn: str, tmp_path: Path, *, llm: MemoryLLM | None = None
) -> AsyncIterator[tuple[Memory, Memory]]:
    """Two memories on one database, as two processes would open them (each its own pool);
    the first listens for the other's invalidations before the test starts."""
    settings = Settings(_env_file=None, log_dir=tmp_path / "logs")
    other_pool = await create_pool(database_dsn)
    clock = FixedClock(NOW)
    try:
        async with (
            open_memory(
                settings, clock=clock, pool=db_pool, telemetry=Telemetry(), llm=llm
            ) as first,
            open_memory(settings, clock=clock, pool=other_pool, telemetry=Telemetry()) as second,
        ):
            await eventually(lambda: first.caches.listener.connected.is_set())
            yield first, second
    finally:
        await other_pool.close()


async def test_a_purge_in_one_process_reaches_the_others_cache(
    db_pool: asyncpg.Pool, database_dsn: str, tmp_path: Path
) -> None:
    async with two_processes(db_pool, database_dsn, tmp_path) as (bot, cli):
        alice = Member(G, ALICE, username="alice")
        await bot.commands.remember(G, alice, alice, "I play the cello")
        assert "cello" in (await bot.manager.get_memories(G, ALICE, budget=5) or "")
        assert bot.manager._warm.get(G, ALICE) is not None  # warm: served from memory

        subject = await cli.privacy.subject(G, str(ALICE))  # the command line, elsewhere
        await cli.privacy.purge(subject)

        # The bot's warm entry goes within 2 s, so its next request sees the purge.
        await eventually(lambda: bot.manager._warm.get(G, ALICE) is None, timeout=2)
        assert await bot.manager.get_memories(G, ALICE, budget=5) is None


async def test_a_lost_listening_connection_reconnects_and_drops_warm_contexts(
    db_pool: asyncpg.Pool, tmp_path: Path
) -> None:
    settings = Settings(_env_file=None, log_dir=tmp_path / "logs")
    async with open_memory(
        settings, clock=FixedClock(NOW), pool=db_pool, telemetry=Telemetry()
    ) as bot:
        listener = bot.caches.listener
        await eventually(lambda: listener.connected.is_set())
        alice = Member(G, ALICE, username="alice")
        await bot.commands.remember(G, alice, alice, "I play the cello")
        await bot.manager.get_memories(G, ALICE, budget=5)
        assert bot.manager._warm.get(G, ALICE) is not None
        first = listener.server_pid
        await db_pool.execute("SELECT pg_terminate_backend($1)", first)
        await eventually(lambda: listener.reconnects == 1 and listener.connected.is_set())
        assert listener.server_pid != first
        assert bot.manager._warm.get(G, ALICE) is None  # events may have been missed


def _said(message_id: int, author_id: int, name: str, text: str) -> IncomingMessage:
    return IncomingMessage(G, CHANNEL, message_id, author_id, name, text)


async def test_an_opt_out_in_one_process_empties_the_others_windows_and_contexts(
    db_pool: asyncpg.Pool, database_dsn: str, tmp_path: Path
) -> None:
    recorder = RecordingProvider()
    async with two_processes(db_pool, database_dsn, tmp_path, llm=MemoryLLM(recorder)) as (
        bot,
        cli,
    ):
        alice, bob = Member(G, ALICE, username="alice"), Member(G, BOB, username="bob")
        bot.writer.submit_member(alice)
        bot.writer.submit_member(bob)
        await bot.writer.flush()
        await bot.replies.observe(_said(1, ALICE, "alice", "my pin is 8080, don't tell"))
        await pool_learned(db_pool, about=BOB, said_by=ALICE, text="bob fears geese")
        assert "geese" in (await bot.manager.get_memories(G, BOB, budget=5) or "")

        subject = await cli.privacy.subject(G, str(ALICE))  # the command line, elsewhere
        await cli.privacy.opt_out(subject, actor_id=None, by_admin=True)

        async def window_empty() -> bool:
            return not (await bot.replies.windows.view(CHANNEL)).turns

        await eventually(window_empty, timeout=2)
        await eventually(lambda: bot.manager._warm.get(G, BOB) is None, timeout=2)
        await bot.replies.observe(_said(2, ALICE, "alice", "and my door code is 1234"))
        await bot.replies.compose(_said(3, BOB, "bob", "Bot, what's new?"))

        prompt = recorder.reply_prompts[-1]
        assert "8080" not in prompt and "1234" not in prompt
        assert "geese" not in prompt


async def test_a_fact_learned_from_chat_shows_in_every_process_at_once(
    db_pool: asyncpg.Pool, database_dsn: str, tmp_path: Path
) -> None:
    async with two_processes(db_pool, database_dsn, tmp_path) as (bot, worker):
        alice = Member(G, ALICE, username="alice")
        await bot.commands.remember(G, alice, alice, "I play the cello")
        assert "Lisbon" not in (await bot.manager.get_memories(G, ALICE, budget=5) or "")
        assert bot.manager._warm.get(G, ALICE) is not None

        # Another process reads today's chat (stored by a third, unheard) and learns
        # where she lives now.
        await db_pool.execute(
            "INSERT INTO messages (message_id, guild_id, channel_id, author_id, content,"
            " created_at) VALUES (7, $1, $2, $3, 'I moved to Lisbon last month', $4)",
            G,
            CHANNEL,
            ALICE,
            NOW - timedelta(hours=2),
        )
        report = await worker.manager.wait_for_context(G, ALICE)
        assert "Lisbon" in (report.text or "")  # the build that learned it says it

        await eventually(lambda: bot.manager._warm.get(G, ALICE) is None, timeout=2)
        assert "Lisbon" in (await bot.manager.get_memories(G, ALICE, budget=5) or "")


async def pool_learned(pool: asyncpg.Pool, *, about: int, said_by: int, text: str) -> None:
    """A fact chat taught about `about` from `said_by`'s words (as a day's pass would)."""
    await pool.execute(
        "INSERT INTO learned_facts (guild_id, user_id, subject, statement, said_by,"
        " first_seen, last_seen) VALUES ($1, $2, 'other', $3, $4, $5, $5)",
        G,
        about,
        text,
        said_by,
        NOW.date(),
    )


async def test_a_forget_in_one_process_leaves_the_others_windows(
    db_pool: asyncpg.Pool, database_dsn: str, tmp_path: Path
) -> None:
    async with two_processes(db_pool, database_dsn, tmp_path) as (bot, other):
        alice = Member(G, ALICE, username="alice")
        await bot.replies.observe(_said(1, ALICE, "alice", "I am a nurse. Nights again"))
        await bot.replies.observe(_said(2, BOB, "bob", "long week for alice the nurse"))

        await other.facts.forget(G, alice, "alice is a nurse", actor_id=ALICE)

        async def forgotten() -> bool:
            turns = (await bot.replies.windows.view(CHANNEL)).turns
            return all("nurse" not in turn.content for turn in turns)

        await eventually(forgotten, timeout=2)
        turns = (await bot.replies.windows.view(CHANNEL)).turns
        assert [turn.content for turn in turns] == ["Nights again"]


async def test_an_opt_out_elsewhere_reaches_the_consent_held_here(
    db_pool: asyncpg.Pool, database_dsn: str, tmp_path: Path
) -> None:
    """The reply path holds consent a minute: another process's opt-out still shows at once
    (the bot refuses to answer from memory), and an opt-in back too."""
    async with two_processes(db_pool, database_dsn, tmp_path) as (bot, cli):
        bot.writer.submit_member(Member(G, ALICE, username="alice"))
        await bot.writer.flush()
        assert await bot.privacy.consent(G, ALICE) is None  # read once: now held

        subject = await cli.privacy.subject(G, str(ALICE))
        await cli.privacy.opt_out(subject, actor_id=ALICE, by_admin=False)

        async def state() -> str | None:
            consent = await bot.privacy.consent(G, ALICE)
            return consent.state if consent is not None else None

        await eventually(lambda: _is(state, "out"), timeout=2)
        await cli.privacy.opt_in(G, ALICE, actor_id=ALICE, by_admin=False)
        await eventually(lambda: _is(state, "in"), timeout=2)


async def test_a_forget_elsewhere_reaches_the_forgotten_statements_held_here(
    db_pool: asyncpg.Pool, database_dsn: str, tmp_path: Path
) -> None:
    """A catch-up scrubs episodes with the guild's forgotten statements, held a minute: a
    forget in another process takes the statement out of this one's next catch-up."""
    async with two_processes(db_pool, database_dsn, tmp_path) as (bot, other):
        for user_id, name in ((ALICE, "alice"), (BOB, "bob")):
            bot.writer.submit_member(Member(G, user_id, username=name))
        texts = ["I am allergic to cats, sadly", "oh no, and the bake sale has cat cookies"]
        for index, text in enumerate(texts):
            bot.writer.submit(
                chat_message(
                    100 + index,
                    text,
                    guild_id=G,
                    channel_id=CHANNEL,
                    author_id=(ALICE, BOB)[index],
                    created_at=NOW - timedelta(hours=1, minutes=-index),
                )
            )
        await bot.writer.flush()
        await bot.episodes.settled()
        viewer = Viewer.of_channels(3, {CHANNEL})
        assert "allergic" in await bot.episodes.catch_up(G, 3, viewer, hours=24)

        alice = Member(G, ALICE, username="alice")
        await other.facts.forget(G, alice, "alice is allergic to cats", actor_id=ALICE)

        async def scrubbed() -> bool:
            return "allergic" not in await bot.episodes.catch_up(G, 3, viewer, hours=24)

        await eventually(scrubbed, timeout=2)


async def _is(read: Callable[[], Awaitable[object]], expected: object) -> bool:
    return await read() == expected
