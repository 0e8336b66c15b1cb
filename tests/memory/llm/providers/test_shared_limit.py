"""A requests-per-minute limit that holds for every process on the database together: two
shards and a worker must not each send the provider's whole quota."""

from __future__ import annotations

from datetime import timedelta

import asyncpg

from db.pool import create_pool
from db.rate_limits import reserve_slot
from memory.core.telemetry import Telemetry
from memory.llm.providers import (
    LLMRequest,
    ProviderChain,
    ProviderLimits,
    RetryPolicy,
    SharedRateLimiter,
    SharedRateLimits,
)
from memory.llm.providers.openai_compat import OpenAICompatibleProvider
from tests.memory.llm.fake_http import FakeHTTPServer, Reply, openai_text

MINUTE = timedelta(minutes=1)


async def test_two_processes_share_one_per_minute_budget(
    db_pool: asyncpg.Pool, database_dsn: str
) -> None:
    other = await create_pool(database_dsn)  # a second process on the same database
    try:
        waits = [
            await reserve_slot(pool, "gemini:gemini-2.5-flash", MINUTE)
            for pool in (db_pool, other, db_pool)
        ]
        untouched = await reserve_slot(other, "openai:llama3.1", MINUTE)
    finally:
        await other.close()
    # One request a minute between them: the second and third wait their turn, whoever asks.
    assert waits[0] < timedelta(seconds=1)
    assert timedelta(seconds=58) < waits[1] <= MINUTE
    assert timedelta(seconds=118) < waits[2] <= 2 * MINUTE
    assert untouched < timedelta(seconds=1)  # another model's quota is its own


async def test_the_provider_chain_reserves_its_slots_in_the_database(
    db_pool: asyncpg.Pool, fake_http: FakeHTTPServer
) -> None:
    provider = OpenAICompatibleProvider(
        base_url=fake_http.base_url + "/v1", model="llama3.1", timeout_seconds=5
    )
    chain = ProviderChain(
        [provider],
        limits={
            "openai": ProviderLimits(requests_per_minute=6000, shared=SharedRateLimits(db_pool))
        },
        policy=RetryPolicy(max_retries=0, timeout=5),
        telemetry=Telemetry(),
    )
    fake_http.queue(Reply(body=openai_text("one")), Reply(body=openai_text("two")))
    try:
        for _ in range(2):
            await chain.complete(LLMRequest(purpose="reply", prompt="hi"))
    finally:
        await provider.aclose()
    keys = await db_pool.fetch("SELECT key FROM llm_rate_slots")
    assert [row["key"] for row in keys] == ["openai:llama3.1"]
    assert len(fake_http.requests) == 2


async def test_without_the_database_the_limit_falls_back_to_this_process(
    database_dsn: str,
) -> None:
    pool = await create_pool(database_dsn)
    limiter = SharedRateLimiter(pool, "openai:llama3.1", requests_per_minute=6000)
    await pool.close()  # the database went away
    await limiter.acquire()  # no error: the local limiter admits the request
