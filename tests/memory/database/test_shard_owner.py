"""One owner per shard: two processes' memories opened on one database cannot both claim a
shard; the second is refused in one line naming the holder, and may claim it once it is free."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Awaitable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Protocol

import asyncpg
import pytest

from db.pool import create_pool
from memory.core.clock import SystemClock
from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from memory.ports import ShardTaken
from memory.wiring import Memory, open_memory
from tests.support import eventually


class Opener(Protocol):
    """Opens one more process's memory on the test database."""

    def __call__(
        self, shard_count: str = "1", shard_ids: str | None = None
    ) -> Awaitable[Memory]: ...


@pytest.fixture
async def opener(database_dsn: str, tmp_path: Path) -> AsyncIterator[Opener]:
    """Opens memory as a `memorybot run` would, each with its own pool on the one database."""
    async with AsyncExitStack() as stack:

        async def open_one(shard_count: str = "1", shard_ids: str | None = None) -> Memory:
            pool: asyncpg.Pool = await create_pool(database_dsn, min_size=1, max_size=3)
            stack.push_async_callback(pool.close)
            settings = Settings(
                _env_file=None,
                log_dir=tmp_path / "logs",
                telemetry_stdout=False,
                llm_provider="offline",
                shard_count=shard_count,
                shard_ids=shard_ids,
            )
            memory = open_memory(settings, clock=SystemClock(), pool=pool, telemetry=Telemetry())
            return await stack.enter_async_context(memory)

        yield open_one


async def test_a_second_owner_of_a_shard_is_refused_naming_the_holder(opener: Opener) -> None:
    first, second = await opener(), await opener()
    async with first.operations.claim_shards():
        with pytest.raises(ShardTaken) as refused:
            async with second.operations.claim_shards():
                pytest.fail("two owners of shard 0/1")
        message = str(refused.value)
        assert "\n" not in message
        assert "shard 0/1 is already run against this database" in message
        assert f"pid {os.getpid()}" in message
    async with second.operations.claim_shards():  # the first stopped: the shard is free again
        pass


async def test_shards_of_one_count_split_and_another_count_is_refused(opener: Opener) -> None:
    zero, one, whole = await opener("2", "0"), await opener("2", "1"), await opener("1")
    async with zero.operations.claim_shards(), one.operations.claim_shards():
        with pytest.raises(ShardTaken, match="already run with SHARD_COUNT=2"):
            async with whole.operations.claim_shards():
                pytest.fail("a process of another shard count overlapped")
    async with (
        whole.operations.claim_shards()
    ):  # the left-over descriptions of stopped shards are no owners
        pass


async def _holder_session(pool: asyncpg.Pool) -> int | None:
    """The database session holding a shard's advisory lock, if any."""
    pid: int | None = await pool.fetchval(
        "SELECT min(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted"
    )
    return pid


async def _cut_the_claims_session(pool: asyncpg.Pool) -> int:
    """What a database restart does to the claim: its session (and session locks) end."""
    pid = await _holder_session(pool)
    assert pid is not None
    await pool.execute("SELECT pg_terminate_backend($1)", pid)
    return pid


async def test_a_lost_session_is_claimed_again_or_the_owner_stops(
    opener: Opener, db_pool: asyncpg.Pool
) -> None:
    first, second = await opener(), await opener()
    lost = asyncio.Event()
    async with first.operations.claim_shards(on_lost=lost.set, watch_seconds=0.05):
        # The session ends, and nobody else claims: the first claims its shard again.
        cut = await _cut_the_claims_session(db_pool)

        async def claimed_again() -> bool:
            return (await _holder_session(db_pool)) not in (None, cut)

        await eventually(claimed_again, timeout=10)
        with pytest.raises(ShardTaken):
            async with second.operations.claim_shards():
                pytest.fail("two owners after a lost session")
        assert not lost.is_set()

    # The session ends and another process claims before the next check: the first stops.
    async with first.operations.claim_shards(on_lost=lost.set, watch_seconds=1.0):
        await _cut_the_claims_session(db_pool)

        async def freed() -> bool:
            return await _holder_session(db_pool) is None

        await eventually(freed, timeout=1)
        async with second.operations.claim_shards():
            await asyncio.wait_for(lost.wait(), 10)
