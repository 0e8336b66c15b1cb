"""Episodes in PostgreSQL: cut as the writer stores messages (the same as an import cuts them),
closed by silence, summarised in one batched call, staled by edits and gone with a purge."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from db.facts import add_forgotten
from db.messages import insert_messages
from memory.core.clock import FixedClock
from memory.core.models import ChatMessage, Member
from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from memory.core.viewer import Viewer
from memory.episodes import Episode, EpisodeService
from memory.llm import MemoryLLM
from memory.llm.providers import LLMProvider, LLMRequest
from memory.wiring import Memory, open_memory
from tests.memory.episode_support import episode_lines, memory_at
from tests.support import chat_message, eventually

G, C, D = 880, 881, 882
START = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)
NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)

TRIP = [
    "planning the camping trip to the lake next weekend",
    "the lake trip needs tents and a camping stove",
    "I can bring the tents for the camping trip",
    "who drives to the lake on saturday morning?",
    "I drive, the car fits four tents and the stove",
]
BUILD = [
    "the compiler build broke after the rust upgrade",
    "cargo build fails with a linker error since the upgrade",
    "try cleaning the cargo target directory and rebuild",
]


def lines(
    texts: list[str], *, at: datetime, channel: int = C, first_id: int = 10_000, id_step: int = 1
) -> list[ChatMessage]:
    return episode_lines(texts, guild=G, channel=channel, at=at, first_id=first_id, id_step=id_step)


@pytest.fixture
async def memory(db_pool: asyncpg.Pool, tmp_path: Path) -> AsyncIterator[Memory]:
    async with memory_at(db_pool, tmp_path, NOW) as opened:
        yield opened


async def spans(pool: asyncpg.Pool, channel: int = C) -> list[tuple[int, int, str]]:
    rows = await pool.fetch(
        "SELECT first_message_id, message_count, state FROM episodes WHERE channel_id = $1"
        " ORDER BY started_at",
        channel,
    )
    return [(row[0], row[1], row[2]) for row in rows]


async def test_live_batches_and_an_import_give_the_same_episodes(
    memory: Memory, db_pool: asyncpg.Pool
) -> None:
    chat = [
        *lines(TRIP + BUILD, at=START),
        *lines(
            ["anyway, back to the lake trip tents", "sure"],
            at=START + timedelta(hours=1),
            first_id=10_100,
        ),
        *lines(TRIP[:2], at=START + timedelta(hours=6), first_id=10_200),
    ]
    for message in chat:  # one by one, as live chat arrives
        memory.writer.submit(message)
        await memory.writer.flush()
    await memory.episodes.settled()
    live = await spans(db_pool)
    assert live == [
        (10_000, 5, "closed"),
        (10_005, 3, "closed"),
        (10_100, 2, "closed"),
        (10_200, 2, "open"),
    ]
    # The same messages imported into another channel, cut in one go.
    await insert_messages(
        db_pool,
        [
            chat_message(
                m.message_id + 50_000,
                m.content,
                guild_id=G,
                channel_id=D,
                author_id=m.author_id,
                created_at=m.created_at,
            )
            for m in chat
        ],
    )
    await memory.episodes.cut_guild(G)
    imported = await spans(db_pool, D)
    assert [(first - 50_000, n, state) for first, n, state in imported] == live


async def test_a_late_message_recuts_from_its_episode_and_keeps_the_others(
    memory: Memory, db_pool: asyncpg.Pool
) -> None:
    # Ids ten apart: a message said between two others has an id between theirs.
    await insert_messages(db_pool, lines(TRIP + BUILD, at=START, id_step=10))
    await memory.episodes.cut_guild(G)
    await memory.episodes.summarize_guild(G)
    before = await spans(db_pool)
    assert before == [(10_000, 5, "closed"), (10_050, 3, "open")]
    late = chat_message(
        10_025,
        "camping gear list for the lake",
        guild_id=G,
        channel_id=C,
        author_id=2,
        created_at=START + timedelta(minutes=2, seconds=30),
    )
    memory.writer.submit(late)
    await memory.writer.flush()
    await memory.episodes.settled()
    assert await spans(db_pool) == [(10_000, 6, "closed"), (10_050, 3, "open")]


async def test_closed_episodes_are_summarised_in_one_call_and_edits_make_them_stale(
    memory: Memory, db_pool: asyncpg.Pool
) -> None:
    await insert_messages(db_pool, lines(TRIP + BUILD, at=START))
    await insert_messages(db_pool, lines(TRIP[:3], at=START, channel=D, first_id=20_000))
    await memory.episodes.cut_guild(G)
    guilds, _ = await memory.episodes.sweep()  # NOW is a day later: everything is quiet
    assert guilds == [G]
    # Without a digest: extractive summaries, no call at all.
    assert await memory.episodes.summarize_guild(G) == 3
    calls = [e for e in memory.telemetry.recent("llm_call") if e.get("purpose") == "episode"]
    assert calls == []
    # With one, the digest's batch: three episodes of two channels, one call.
    await memory.guild_settings.update(G, digest=(C, "08:00"))
    assert "camping" in await memory.episodes.digest_preview(G, START.date())
    calls = [e for e in memory.telemetry.recent("llm_call") if e.get("purpose") == "episode"]
    assert len(calls) == 1
    trip = (await memory.episodes.listing(G, channel_id=C))[-1]
    assert trip.title.startswith("planning the camping trip")
    assert "who drives to the lake on saturday morning?" not in " ".join(trip.open_loops)
    assert trip.summary and len(trip.summary) <= 400
    # An edit inside it: the summary's words go at once, the episode is due again.
    await db_pool.execute("UPDATE messages SET content = 'redacted' WHERE message_id = 10001")
    edited = (await memory.episodes.listing(G, channel_id=C))[-1]
    assert (edited.state, edited.summary, edited.title) == ("stale", "", "")
    assert await memory.episodes.summarize_guild(G) == 1
    assert (await memory.episodes.listing(G, channel_id=C))[-1].state == "closed"


async def test_purge_and_search_respect_members_and_channels(
    memory: Memory, db_pool: asyncpg.Pool
) -> None:
    await insert_messages(db_pool, lines(TRIP, at=START))
    await insert_messages(db_pool, lines(BUILD, at=START, channel=D, first_id=20_000))
    await memory.episodes.cut_guild(G)
    await memory.episodes.sweep()
    await memory.episodes.summarize_guild(G)
    everyone = await memory.episodes.search(G, "camping lake", viewer=Viewer.everything())
    assert [episode.channel_id for episode in everyone] == [C]
    only_d = Viewer.of_channels(7, {D})
    assert await memory.episodes.search(G, "camping lake", viewer=only_d) == []
    assert [e.channel_id for e in await memory.episodes.search(G, "cargo", viewer=only_d)] == [D]
    # Member 2 is purged: their lines go, the trip is cut again from member 1's alone.
    subject = await memory.privacy.subject_or_id(G, "2")
    await memory.privacy.purge(subject)
    rows = await db_pool.fetch("SELECT member_ids, summary FROM episodes WHERE channel_id = $1", C)
    assert [list(row["member_ids"]) for row in rows] == [[1]]
    assert rows[0]["summary"] == ""  # summarised again later, from what is left
    await memory.episodes.sweep()  # quiet for a day: closed again
    assert await memory.episodes.summarize_guild(G) == 2  # the trip, and #D's build talk
    text = await db_pool.fetchval("SELECT summary FROM episodes WHERE channel_id = $1", C)
    assert "needs tents" not in text and "who drives" not in text  # member 2's lines
    assert "bring the tents" in text  # member 1's stay


async def test_the_digest_holds_only_public_channels(db_pool: asyncpg.Pool, tmp_path: Path) -> None:
    """Restricted channels never reach a digest: it asks the one visibility function."""

    async def public(guild_id: int, channel_ids: set[int]) -> frozenset[int]:
        return frozenset(channel_ids) - {D}  # D is a moderators' channel

    settings = Settings(_env_file=None, log_dir=tmp_path / "logs")
    async with open_memory(
        settings, clock=FixedClock(NOW), pool=db_pool, telemetry=Telemetry()
    ) as memory:
        service = EpisodeService(
            db_pool,
            memory.llm,
            memory.guild_settings,
            clock=memory.clock,
            telemetry=memory.telemetry,
            public_channels=public,
        )
        await insert_messages(db_pool, lines(TRIP, at=START))
        await insert_messages(db_pool, lines(BUILD, at=START, channel=D, first_id=20_000))
        await service.cut_guild(G)
        await service.sweep()
        await service.summarize_guild(G)
        text = await service.digest_text(G, START.date())
        everything = await memory.episodes.digest_text(G, START.date())
    assert f"<#{C}>" in text and "camping" in text
    assert f"<#{D}>" not in text and "cargo" not in text and "compiler" not in text
    assert f"<#{D}>" in everything  # (what the unwired default would let through)


async def test_the_sweep_queues_one_summary_job_per_guild_and_a_worker_runs_it(
    memory: Memory, db_pool: asyncpg.Pool
) -> None:
    await insert_messages(db_pool, lines(TRIP, at=START))
    await insert_messages(db_pool, lines(BUILD, at=START, channel=D, first_id=20_000))
    # Nothing cut these yet: the sweep cuts them (as after a crash), closes them, queues.
    assert await memory.worker.sweep() >= 1
    keys = await db_pool.fetch("SELECT dedupe_key FROM pgqueuer WHERE entrypoint = 'episodes'")
    assert [row["dedupe_key"] for row in keys] == [f"episodes:{G}"]
    await memory.worker.sweep()  # already queued: not twice
    assert (
        await db_pool.fetchval("SELECT count(*) FROM pgqueuer WHERE entrypoint = 'episodes'") == 1
    )
    memory.worker.start()

    async def summarised() -> bool:
        return not await db_pool.fetchval(
            "SELECT count(*) FROM episodes WHERE summarized_count <> message_count"
        )

    await eventually(summarised, timeout=30)
    jobs = [e for e in memory.telemetry.recent("job") if e["job"] == "episodes"]
    assert [(e["guild_id"], e["outcome"]) for e in jobs] == [(G, "ok")]


async def test_a_busy_channels_summary_so_far_in_a_catch_up_leaves_out_what_was_forgotten(
    db_pool: asyncpg.Pool, tmp_path: Path
) -> None:
    """The catch-up summarises a busy channel's open episode on the spot; that fresh summary
    is served scrubbed of forgotten statements like every listed episode."""
    guild, channel = 9101, 9102
    start = datetime(2026, 5, 4, 9, 0, tzinfo=UTC)
    texts = ["I am allergic to cats, sadly"] + [
        f"the bake sale needs {n} more trays of lemon bars" for n in range(1, 40)
    ]
    async with memory_at(db_pool, tmp_path, start + timedelta(minutes=45)) as memory:
        for user_id, name in ((1, "alice"), (2, "bob")):
            memory.writer.submit_member(Member(guild, user_id, username=name))
        for line in episode_lines(texts, guild=guild, channel=channel, at=start, first_id=1):
            memory.writer.submit(line)
        await memory.writer.flush()
        await memory.episodes.settled()
        await add_forgotten(db_pool, guild, 1, "alice is allergic to cats", 1)

        caught_up = await memory.episodes.catch_up(
            guild, 3, Viewer.of_channels(3, {channel}), hours=24
        )

    assert "bake sale" in caught_up, caught_up
    assert "allergic" not in caught_up, caught_up


async def test_a_model_echoing_the_example_gets_each_episode_the_offline_summary(
    db_pool: asyncpg.Pool, tmp_path: Path
) -> None:
    """Issue 33: titles and summaries a model copied from the prompt's `"..."` example, or
    left out, are the offline answer's, item by item, and the swap is told in telemetry."""
    from tests.fakes import ScriptedProvider

    def echo(request: LLMRequest) -> dict[str, Any]:  # the first echoed, the second left out
        first = request.inputs["episodes"][0]["id"]
        return {"episodes": [{"id": first, "title": "...", "summary": "...", "open_loops": []}]}

    telemetry = Telemetry()
    listed = await _digested_by(ScriptedProvider({"episode": echo}), db_pool, tmp_path, telemetry)
    assert len(listed) == 2
    assert all(episode.title not in ("", "...") for episode in listed)
    assert all(episode.summary and episode.summary != "..." for episode in listed)
    [degraded] = [e for e in telemetry.recent("llm_call") if e.get("outcome") == "degraded"]
    assert degraded["purpose"] == "episode" and degraded["items"] == 2
    assert degraded["detail"] == "missing, ungrounded"  # "..." says nothing of its lines


async def test_a_model_that_rambles_is_stopped_at_what_the_episodes_asked_for(
    db_pool: asyncpg.Pool, tmp_path: Path
) -> None:
    """The episode request says how long an answer may be (docs/llm.md: every request sets
    max_tokens), room for each episode's title, summary and open loops and no more: without
    it a local server writes until its context is full (the live run's stall)."""
    from memory.core.tokens import tokens_to_write
    from memory.episodes._summaries import SUMMARY_CHARS
    from tests.fakes import ScriptedProvider

    def answer(request: LLMRequest) -> dict[str, Any]:
        return {"episodes": []}

    provider = ScriptedProvider({"episode": answer})
    await _digested_by(provider, db_pool, tmp_path, Telemetry())
    [asked] = [request for request in provider.requests if request.purpose == "episode"]
    assert len(asked.inputs["episodes"]) == 2
    limit = asked.max_output_tokens
    assert limit is not None
    assert 2 * tokens_to_write(SUMMARY_CHARS) < limit < 2_000


async def _digested_by(
    provider: LLMProvider, pool: asyncpg.Pool, tmp_path: Path, telemetry: Telemetry
) -> list[Episode]:
    """Two episodes (the trip, the build) closed and summarised by `provider` for a digest's
    preview: the channel's episodes as listed afterwards."""
    settings = Settings(_env_file=None, log_dir=tmp_path / "logs")
    llm = MemoryLLM(provider)
    async with open_memory(
        settings, clock=FixedClock(NOW), pool=pool, telemetry=telemetry, llm=llm
    ) as memory:
        await insert_messages(pool, lines(TRIP + BUILD, at=START))
        await memory.episodes.cut_guild(G)
        await memory.episodes.sweep()
        await memory.guild_settings.update(G, digest=(C, "08:00"))
        await memory.episodes.digest_preview(G, START.date())
        return await memory.episodes.listing(G, channel_id=C)
