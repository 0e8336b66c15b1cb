"""The import use case (`memory.imports`) on a real PostgreSQL: after its files, an import
leaves the planner's statistics, its episodes cut (and summarised when learning), its messages
embedded and every day that is over closed; imported again, it owes nothing more."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import asyncpg
import pytest

from memory.core.clock import FixedClock
from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from memory.ports import CLOSED, EMBEDDED, EPISODES, Settled
from memory.wiring import Memory, open_memory
from tests.memory.embedding_support import embeddings_reply
from tests.memory.episode_support import memory_at
from tests.memory.export_samples import ALICE, BOB, GUILD_ID, export, message, write
from tests.memory.llm.fake_http import FakeHTTPServer, Reply

NOW = datetime(2025, 3, 4, 12, tzinfo=UTC)
LINES = (
    "I finally booked the ferry to the islands for the long weekend",
    "nice, which island are you staying on first?",
    "the small one with the lighthouse, my sister rents a cottage there",
    "bring a rain jacket, the forecast for the coast looks grim",
)


def _history() -> list[dict[str, object]]:
    """Two evenings of talk, a day apart: two days to close, at least two episodes."""
    said = []
    for day in (1, 2):
        for minute, text in enumerate(LINES):
            said.append(
                message(
                    day * 1000 + minute,
                    f"{text} (day {day})",
                    author=ALICE if minute % 2 == 0 else BOB,
                    timestamp=f"2025-03-0{day}T19:{minute:02d}:00+00:00",
                )
            )
    return said


@pytest.fixture
async def memory(db_pool: asyncpg.Pool, tmp_path: Path) -> AsyncIterator[Memory]:
    async with memory_at(db_pool, tmp_path, NOW) as opened:
        yield opened


def _steps(settled: list[Settled], step: str) -> list[Settled]:
    return [item for item in settled if item.step == step]


async def _import(memory: Memory, path: Path, *, learn: bool) -> list[Settled]:
    importer = memory.imports.importer(include_bots=False)
    result = await importer.import_file(path)
    return await memory.imports.settle(importer, [result], learn=learn)


async def test_an_import_settles_what_it_owes_the_rest_of_memory(
    memory: Memory, db_pool: asyncpg.Pool, tmp_path: Path
) -> None:
    path = write(tmp_path / "general.json", export(_history()))
    settled = await _import(memory, path, learn=True)

    [cut] = _steps(settled, EPISODES)
    assert cut.guild_id == GUILD_ID and cut.guild_name == "Café ☕" and cut.count >= 2
    [closed] = _steps(settled, CLOSED)
    assert (closed.count, closed.due) == (2, 2)
    assert len(_steps(settled, EMBEDDED)) == int(await memory.embeddings.ready())
    tuples = await db_pool.fetchval("SELECT reltuples FROM pg_class WHERE relname = 'messages'")
    assert tuples == len(LINES) * 2  # sampled: the first questions are planned for them
    episodes = await memory.episodes.listing(GUILD_ID, limit=10)
    assert len(episodes) == cut.count and any(episode.summary for episode in episodes)
    days = await db_pool.fetchval(
        "SELECT count(DISTINCT day) FROM daily_summaries WHERE guild_id = $1", GUILD_ID
    )
    assert days == 2
    for table in ["episodes", "daily_summaries", "day_notes"]:  # sampled once filled
        assert await _sampled_rows(db_pool, table) == await db_pool.fetchval(
            f"SELECT count(*) FROM {table}"
        )

    again = await _import(memory, path, learn=True)  # nothing new: nothing more owed
    assert [step.count for step in _steps(again, EMBEDDED)] == [0] * len(_steps(settled, EMBEDDED))
    [closed_again] = _steps(again, CLOSED)
    assert (closed_again.count, closed_again.due) == (0, 0)


async def _sampled_rows(db_pool: asyncpg.Pool, table: str) -> float:
    """The planner's row count of `table` (-1: never sampled)."""
    return float(await db_pool.fetchval("SELECT reltuples FROM pg_class WHERE relname = $1", table))


async def test_an_import_that_does_not_learn_closes_no_day(
    memory: Memory, db_pool: asyncpg.Pool, tmp_path: Path
) -> None:
    path = write(tmp_path / "general.json", export(_history()))
    settled = await _import(memory, path, learn=False)

    assert _steps(settled, CLOSED) == [] and _steps(settled, EPISODES)
    assert await db_pool.fetchval("SELECT count(*) FROM daily_summaries") == 0
    episodes = await memory.episodes.listing(GUILD_ID, limit=10)
    assert episodes and not any(episode.summary for episode in episodes)


async def test_an_embedder_that_fails_leaves_the_rest_to_the_next_import(
    db_pool: asyncpg.Pool, fake_http: FakeHTTPServer, tmp_path: Path
) -> None:
    """A provider down mid-import: the days still close and the step says what is left;
    the same file imported again (nothing new in it) embeds the rest."""
    settings = Settings(
        _env_file=None,
        log_dir=tmp_path / "logs",
        embedding_provider="openai",
        openai_base_url=fake_http.base_url + "/v1",
    )
    fake_http.responder = lambda request: Reply(status=503, body={"error": {"message": "down"}})
    path = write(tmp_path / "general.json", export(_history()))
    async with open_memory(
        settings, clock=FixedClock(NOW), pool=db_pool, telemetry=Telemetry()
    ) as memory:
        settled = await _import(memory, path, learn=True)
        [failed] = _steps(settled, EMBEDDED)
        assert failed.count == 0 and failed.problem
        assert [(s.count, s.due) for s in _steps(settled, CLOSED)] == [(2, 2)]
        assert await db_pool.fetchval("SELECT count(*) FROM message_embeddings") == 0

        fake_http.responder = embeddings_reply
        [embedded] = _steps(await _import(memory, path, learn=True), EMBEDDED)
        assert (embedded.count, embedded.problem) == (len(LINES) * 2, "")
        assert await db_pool.fetchval("SELECT count(*) FROM message_embeddings") == embedded.count
