"""Several processes on one PostgreSQL: two `memorybot run` shards (0 and 1 of 2) and
`memorybot worker`s, against the fake Discord gateway; a second `memorybot run` of a shard
already running is refused.

Each guild's events reach only the process owning its shard, which stores and answers them
once; a purge from the command line reaches the running bot's next whois; a past day is closed
through the job queue once, and a worker killed mid-job leaves it to the next worker.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bench.fleet_procs import Children
from db.members import find_by_name
from memory.core.shards import shard_of
from tests.e2e.fake_discord import ALICE_ID, GUILD_ID, FakeDiscord
from tests.memory.llm.fake_http import FakeHTTPServer, Reply, openai_text
from tests.support import eventually

OWNER = shard_of(GUILD_ID, 2)


@pytest.fixture
async def processes(
    fake_discord: FakeDiscord, database_dsn: str, tmp_path: Path
) -> AsyncIterator[Children]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DISCORD_", "LLM_", "OPENAI_", "GEMINI_", "SHARD_", "JOB_"))
    }
    env.update(
        DATABASE_URL=database_dsn,
        DISCORD_TOKEN="fake-token",
        DISCORD_API_URL=fake_discord.api_base,
        DISCORD_GATEWAY_URL=fake_discord.gateway_url,
        LLM_PROVIDER="offline",
        TELEMETRY_STDOUT="false",
        INGEST_FLUSH_SECONDS="0.05",
        MEMORYBOT_IN_CONTAINER="0",
        DATA_DIR=str(tmp_path / "data"),
    )
    async with Children(env, tmp_path, cwd=tmp_path) as children:
        yield children


def answers(message_id: str) -> Callable[[dict[str, Any]], bool]:
    """Whether a message the bot sent replies to `message_id`."""
    return lambda m: (m.get("message_reference") or {}).get("message_id") == message_id


async def ask(fake: FakeDiscord, text: str, author: str) -> str:
    """Send a message and return the bot's one reply to it."""
    sent = await fake.send_message(text, author=author)
    reply = await fake.wait_for_sent(answers(sent["id"]), timeout=30)
    return str(reply["content"])


def replies_to(fake: FakeDiscord, message_id: str) -> int:
    return sum(1 for m in fake.sent_messages if answers(message_id)(m))


async def test_two_shards_and_workers_share_one_database(
    fake_discord: FakeDiscord,
    processes: Children,
    db_pool: asyncpg.Pool,
) -> None:
    shard_env = {"SHARD_COUNT": "2", "RUN_WORKER": "false"}
    processes.start("shard0", "run", SHARD_IDS="0", **shard_env)
    processes.start("shard1", "run", SHARD_IDS="1", **shard_env)
    try:
        await eventually(lambda: len(fake_discord.identifies) == 2, timeout=60)
        await fake_discord.wait_connected(timeout=30)
    except TimeoutError:
        pytest.fail(
            f"shards did not connect:\n{processes.output('shard0')}\n{processes.output('shard1')}"
        )
    assert sorted(tuple(i["shard"]) for i in fake_discord.identifies) == [(0, 2), (1, 2)]

    async def directory_known() -> bool:  # the owner stored the guild's members
        return bool(await find_by_name(db_pool, GUILD_ID, "alice"))

    await eventually(directory_known, timeout=30)

    # The guild's shard stores and answers; the other process never hears of the guild.
    first = await fake_discord.send_message("Bot remember that alice likes pizza", author="alice")
    await fake_discord.wait_for_sent(answers(first["id"]), timeout=30)
    assert "pizza" in await ask(fake_discord, "Bot what do you know about alice?", "bob")
    assert replies_to(fake_discord, first["id"]) == 1
    owner, other = f"shard{OWNER}", f"shard{1 - OWNER}"
    owner_events = processes.events(owner)
    assert any(e["op"] == "remember" for e in owner_events)
    assert {e.get("shards") for e in owner_events} == {f"{OWNER}/2"}
    assert not [e for e in processes.events(other) if e.get("guild_id") == GUILD_ID]

    async def stored_once() -> bool:  # the owner's batched writer flushes a moment later
        query = "SELECT count(*) FROM messages WHERE message_id = $1"
        count: int = await db_pool.fetchval(query, int(first["id"]))
        return count == 1

    await eventually(stored_once, timeout=10)

    # A purge from the command line reaches the running bot's warm cache.
    purge = await processes.run(
        "purge", "user", "purge", "--guild", str(GUILD_ID), "--user", str(ALICE_ID), "--yes"
    )
    assert purge == 0, processes.output("purge")

    async def forgotten() -> bool:
        return "pizza" not in await ask(fake_discord, "Bot what do you know about alice?", "bob")

    await eventually(forgotten, timeout=2)

    await _a_day_closes_once_through_the_queue(fake_discord, processes, db_pool)


async def _a_day_closes_once_through_the_queue(
    fake: FakeDiscord, processes: Children, db_pool: asyncpg.Pool
) -> None:
    yesterday = datetime.now(UTC) - timedelta(days=1)
    said = await fake.send_message("my sister moved to Lisbon", author="bob", created_at=yesterday)

    async def stored() -> bool:
        count = await db_pool.fetchval(
            "SELECT count(*) FROM messages WHERE message_id = $1", int(said["id"])
        )
        return bool(count)

    await eventually(stored, timeout=10)
    day = yesterday.date()

    # The first worker's model hangs: the job is mid-way when the worker is killed.
    hung = asyncio.Event()
    model = FakeHTTPServer()
    await model.start()
    try:
        model.queue(*[Reply(body=openai_text("never sent"), hold=hung) for _ in range(5)])
        worker_env = {"JOB_HEARTBEAT_TIMEOUT_SECONDS": "2"}
        first = processes.start(
            "worker1",
            "worker",
            LLM_PROVIDER="openai",
            OPENAI_BASE_URL=model.base_url + "/v1",
            **worker_env,
        )
        await eventually(lambda: len(model.requests) > 0, timeout=60)
        first.kill()
        await asyncio.to_thread(first.wait)
        assert not await _closed(db_pool, day)

        processes.start("worker2", "worker", **worker_env)
        await eventually(lambda: _closed(db_pool, day), timeout=60)
    finally:
        hung.set()
        await model.stop()

    def closes() -> list[str]:
        events = processes.events("worker2")
        jobs = [e for e in events if e["op"] == "job" and e["outcome"] == "ok"]
        return [e["day"] for e in jobs if e["job"] == "close_day"]

    await eventually(closes, timeout=10)
    assert closes() == [day.isoformat()]  # once, by the second worker

    async def logged() -> int:
        count: int = await db_pool.fetchval(
            "SELECT count(*) FROM pgqueuer_log WHERE entrypoint = 'close_day'"
            " AND status = 'successful'"
        )
        return count

    await eventually(logged, timeout=10)
    assert await logged() == 1


async def _closed(pool: asyncpg.Pool, day: object) -> bool:
    count = await pool.fetchval(
        "SELECT count(*) FROM summary_days WHERE guild_id = $1 AND day = $2", GUILD_ID, day
    )
    return bool(count)


async def test_a_second_run_of_the_same_shard_refuses_in_one_line(
    fake_discord: FakeDiscord, processes: Children
) -> None:
    first = processes.start("first", "run", RUN_WORKER="false")
    try:
        await fake_discord.wait_connected(timeout=60)
    except TimeoutError:
        pytest.fail(f"the first bot did not connect:\n{processes.output('first')}")
    assert await processes.run("second", "run", RUN_WORKER="false") == 1
    refusal = [line for line in processes.output("second").splitlines() if "shard 0/1" in line]
    assert len(refusal) == 1, processes.output("second")
    assert f"already run against this database by pid {first.pid}" in refusal[0]
    assert len(fake_discord.identifies) == 1  # the second never reached the gateway

    # The first still answers, once.
    asked = await fake_discord.send_message("Bot hello", author="alice")
    await fake_discord.wait_for_sent(answers(asked["id"]), timeout=30)
    assert replies_to(fake_discord, asked["id"]) == 1
