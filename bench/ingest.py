"""Ingestion benchmark: messages per second into PostgreSQL through the batched writer, and how
much the event loop stalls while ~1000 messages/s arrive.

    python -m bench.ingest [--messages 50000] [--rate 1000] [--seconds 5]

Prints one JSON line per phase. Uses DATABASE_URL when set (a throwaway database is created on
that server), else a throwaway embedded PostgreSQL in a temporary directory.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg

from db.embedded import EmbeddedPostgres
from db.lifecycle import ensure_database
from db.migrate import migrate
from db.pool import create_pool
from memory.core import event_loop
from memory.core.models import ChatMessage
from memory.core.telemetry import Telemetry
from memory.ingest import BatchedWriter

WORDS = [
    *("hello", "there", "general", "kenobi", "кошка", "🐈", "café", "naïve", "日本語"),
    *("lunch", "meeting", "tomorrow", "ok", "lol"),
]


def _percentile(values: list[float], fraction: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return round(ordered[index], 3)


class MessageFactory:
    """Plausible chat: a few guilds and channels, 50 authors, 20-200 character texts."""

    def __init__(self, seed: int = 7) -> None:
        self._random = random.Random(seed)
        self._next_id = 1_300_000_000_000_000_000
        self._start = datetime.now(UTC) - timedelta(days=1)

    def make(self) -> ChatMessage:
        rnd = self._random
        self._next_id += rnd.randint(1, 1 << 22)
        length = rnd.randint(3, 30)
        mentions = (rnd.randint(1, 50),) if rnd.random() < 0.1 else ()
        return ChatMessage(
            message_id=self._next_id,
            guild_id=rnd.randint(1, 3),
            channel_id=rnd.randint(10, 19),
            author_id=rnd.randint(1, 50),
            content=" ".join(rnd.choice(WORDS) for _ in range(length)),
            created_at=self._start + timedelta(milliseconds=self._next_id % 86_400_000),
            mention_ids=mentions,
        )


@contextlib.asynccontextmanager
async def bench_database() -> AsyncIterator[str]:
    """DSN of a fresh, migrated throwaway database (dropped/removed afterwards)."""
    url = os.environ.get("DATABASE_URL")
    server: EmbeddedPostgres | None = None
    tmp: tempfile.TemporaryDirectory[str] | None = None
    if url:
        admin = url
    else:
        tmp = tempfile.TemporaryDirectory(prefix="memorybot-bench-")
        os.chmod(tmp.name, 0o755)  # the server may run as another system user when we are root
        server = EmbeddedPostgres(Path(tmp.name) / "pg")
        admin = server.start()
    name = f"bench_ingest_{uuid.uuid4().hex[:8]}"
    try:
        await ensure_database(admin, name)
        dsn = _with_database(admin, name) if url else server.uri(name)  # type: ignore[union-attr]
        connection = await asyncpg.connect(dsn)
        try:
            await migrate(connection)
        finally:
            await connection.close()
        yield dsn
    finally:
        if url:
            connection = await asyncpg.connect(admin)
            try:
                await connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            finally:
                await connection.close()
        if server is not None:
            server.stop()
        if tmp is not None:
            tmp.cleanup()


def _with_database(url: str, name: str) -> str:
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


def _batch_stats(telemetry: Telemetry) -> dict[str, Any]:
    events = [e for e in telemetry.recent("ingest_batch") if e["outcome"] == "ok"]
    latencies = [float(e["latency_ms"]) for e in events]
    return {
        "batches": len(events),
        "flush_latency_ms_p50": _percentile(latencies, 0.5),
        "flush_latency_ms_p99": _percentile(latencies, 0.99),
        "mean_batch_size": round(statistics.fmean(e["size"] for e in events), 1) if events else 0,
    }


async def throughput(
    dsn: str, messages: int, batch_size: int, flush_seconds: float
) -> dict[str, Any]:
    """Submit as fast as possible; time until everything is committed."""
    factory = MessageFactory()
    batch = [factory.make() for _ in range(messages)]
    telemetry = Telemetry(keep_recent=100_000)
    pool = await create_pool(dsn, min_size=1, max_size=4)
    await pool.execute("TRUNCATE messages CASCADE")  # and their embeddings
    writer = BatchedWriter(
        pool,
        batch_size=batch_size,
        flush_seconds=flush_seconds,
        queue_max=messages + 1,
        telemetry=telemetry,
    )
    writer.start()
    try:
        started = time.perf_counter()
        for index, message in enumerate(batch):
            writer.submit(message)
            if index % batch_size == 0:
                await asyncio.sleep(0)  # let the flush task run, as the gateway would
        await writer.flush()
        elapsed = time.perf_counter() - started
        stored = await pool.fetchval("SELECT count(*) FROM messages")
    finally:
        await writer.close()
        await pool.close()
    return {
        "bench": "ingest",
        "phase": "throughput",
        "messages": messages,
        "stored": stored,
        "seconds": round(elapsed, 3),
        "messages_per_s": round(messages / elapsed, 1),
        "batch_size": batch_size,
        **_batch_stats(telemetry),
    }


async def paced(
    dsn: str, rate: float, seconds: float, batch_size: int, flush_seconds: float
) -> dict[str, Any]:
    """Feed `rate` messages/s for `seconds`, measuring event-loop lag with a 10 ms ticker."""
    factory = MessageFactory(seed=11)
    telemetry = Telemetry(keep_recent=100_000)
    pool = await create_pool(dsn, min_size=1, max_size=4)
    await pool.execute("TRUNCATE messages CASCADE")  # and their embeddings
    writer = BatchedWriter(
        pool, batch_size=batch_size, flush_seconds=flush_seconds, telemetry=telemetry
    )
    writer.start()
    lags: list[float] = []
    max_depth = 0
    stop = asyncio.Event()

    async def ticker(interval: float = 0.01) -> None:
        loop = asyncio.get_running_loop()
        while not stop.is_set():
            expected = loop.time() + interval
            await asyncio.sleep(interval)
            lags.append(max(0.0, (loop.time() - expected) * 1000))

    lag_task = asyncio.create_task(ticker())
    sent = 0
    tick = 0.01
    try:
        loop = asyncio.get_running_loop()
        started = loop.time()
        while (now := loop.time()) - started < seconds:
            due = int((now - started) * rate)
            while sent < due:
                writer.submit(factory.make())  # what on_message does: no await
                sent += 1
            max_depth = max(max_depth, writer.depth)
            await asyncio.sleep(tick)
        await writer.flush()
        elapsed = loop.time() - started
    finally:
        stop.set()
        await lag_task
        await writer.close()
        stored = await pool.fetchval("SELECT count(*) FROM messages")
        await pool.close()
    return {
        "bench": "ingest",
        "phase": "paced",
        "target_rate": rate,
        "messages": sent,
        "stored": stored,
        "achieved_rate": round(sent / elapsed, 1),
        "loop_lag_ms_p50": _percentile(lags, 0.5),
        "loop_lag_ms_p99": _percentile(lags, 0.99),
        "loop_lag_ms_max": round(max(lags), 3) if lags else 0.0,
        "max_queue_depth": max_depth,
        **_batch_stats(telemetry),
    }


async def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=50_000)
    parser.add_argument("--rate", type=float, default=1000.0)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--batch-size", type=int, default=500)
    parser.add_argument("--flush-seconds", type=float, default=0.5)
    args = parser.parse_args(argv)
    async with bench_database() as dsn:
        for result in (
            await throughput(dsn, args.messages, args.batch_size, args.flush_seconds),
            await paced(dsn, args.rate, args.seconds, args.batch_size, args.flush_seconds),
        ):
            print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(event_loop.run(main()))
