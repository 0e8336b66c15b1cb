"""What a dead model endpoint costs a reply: `LLM_PROVIDER=openai` with nothing listening.

The same console replies run twice, once with the offline provider (the baseline) and once
with the real openai SDK pointed at a closed local port (the offline provider as fallback).
The overhead is the difference per reply; the first reply pays for one refused connection,
after which the circuit breaker skips the endpoint. Target: ≤ 1.5 s beyond the reply budget
(issue 27; before the breaker a command cost 10-24 s).

    python -m bench --only dead_endpoint
"""

from __future__ import annotations

import socket
import time
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

from bench.database import BenchServer
from bench.report import Reporter, percentile
from bot.console import ConsoleSession
from db.pool import create_pool
from memory.core.clock import SystemClock
from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from memory.wiring import open_memory

LINES = (
    "Bot, how is alice doing?",
    "Bot what do you know about alice?",
    "Bot, remember that alice plays the violin",
    "Bot, any plans for the weekend?",
)


def _closed_port_url() -> str:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}/v1"


async def _reply_times(dsn: str, log_dir: Path, replies: int, **llm: Any) -> list[float]:
    # Every line is answered: the console applies the reply rate limits as Discord does, and
    # this bench measures replies, not the limiter's refusals.
    settings = Settings(
        _env_file=None,
        telemetry_stdout=False,
        log_dir=log_dir,
        gemini_api_key=None,
        replies_per_minute=10_000,
        channel_replies_per_minute=10_000,
        **llm,
    )
    pool = await create_pool(dsn)
    try:
        async with open_memory(
            settings, pool=pool, telemetry=Telemetry(), clock=SystemClock()
        ) as memory:
            session = ConsoleSession(memory, speaker="bob")
            await session.handle_line("alice: morning all, back from Lisbon")
            times = []
            for index in range(replies):
                started = time.perf_counter()
                await session.handle_line(LINES[index % len(LINES)])
                times.append(time.perf_counter() - started)
            return times
    finally:
        await pool.close()


async def run_in(server: BenchServer, report: Reporter, *, replies: int = 20) -> None:
    with TemporaryDirectory() as logs:
        async with server.database("dead_offline") as dsn:
            baseline = await _reply_times(dsn, Path(logs), replies, llm_provider="offline")
        async with server.database("dead_openai") as dsn:
            dead = await _reply_times(
                dsn, Path(logs), replies, llm_provider="openai", openai_base_url=_closed_port_url()
            )
    overhead = [max(0.0, d - b) * 1000 for d, b in zip(dead, baseline, strict=True)]
    common = {"replies": replies, "endpoint": "closed local port"}
    report("dead_endpoint", "reply_overhead_first_ms", overhead[0], "ms", **common)
    report("dead_endpoint", "reply_overhead_p50_ms", percentile(overhead, 0.5), "ms", **common)
    report("dead_endpoint", "reply_overhead_max_ms", max(overhead), "ms", target=1500, **common)
    report("dead_endpoint", "reply_p50_ms", percentile([d * 1000 for d in dead], 0.5), "ms")
