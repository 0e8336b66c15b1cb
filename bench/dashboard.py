"""Dashboard pages on a big guild: each page rendered over HTTP, timed as a browser waits.

    python -m bench.dashboard [--messages 1000000] [--members 500] [--days 30] [--repeats 20]

One guild is filled inside PostgreSQL (bench/recall_data.py's generate_series chat), every
message within the dashboard's 30-day window (the worst case for its charts), and
`memorybot dashboard` is served over it in this process. Figures per page: the first render
(`page_render_cold_ms`, closed days' counts not kept yet) and p50/p95 of `repeats` renders
(`page_render_p50_ms`, `page_render_p95_ms`; the issue's target is p95 <= 200 ms on 1M).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg

from bench.database import bench_server
from bench.recall_data import NOW, RecallGuild, fill
from bench.report import Reporter, percentile
from bot.dashboard import Sessions, running
from memory import open_memory
from memory.core import event_loop
from memory.core.clock import FixedClock
from memory.core.settings import Settings

BENCH = "dashboard"
GUILD = 9


def _pages(user_id: int) -> dict[str, str]:
    return {
        "overview": "/",
        "guild": f"/guild/{GUILD}",
        "member": f"/guild/{GUILD}/member/{user_id}",
        "settings": f"/guild/{GUILD}/settings",
        "telemetry": "/telemetry",
    }


async def run(
    pool: asyncpg.Pool,
    report: Reporter,
    *,
    messages: int = 1_000_000,
    members: int = 500,
    days: int = 30,
    repeats: int = 20,
) -> dict[str, float]:
    guild = RecallGuild(GUILD, messages, members, days)
    stored = await fill(pool, guild, summaries_per_day=5)
    params: dict[str, Any] = {"guild_messages": stored, "members": members, "days": days}
    with tempfile.TemporaryDirectory(prefix="bench-dashboard-") as logs:
        settings = Settings(  # type: ignore[call-arg]
            _env_file=None, llm_provider="offline", log_dir=Path(logs), telemetry_stdout=False
        )
        async with open_memory(settings, clock=FixedClock(NOW), pool=pool) as memory:
            sessions = Sessions()
            async with (
                running(
                    memory, host="127.0.0.1", port=0, sessions=sessions, allow_changes=False
                ) as link,
                aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http,
            ):
                await http.get(link, allow_redirects=False)  # the first render is timed
                base = link.split("/login")[0]
                return await _measure(http, base, guild.user_ids[0], repeats, report, params)


async def _measure(
    http: aiohttp.ClientSession,
    base: str,
    user_id: int,
    repeats: int,
    report: Reporter,
    params: dict[str, Any],
) -> dict[str, float]:
    headline: dict[str, float] = {}
    for name, path in _pages(user_id).items():
        timings = []
        for _ in range(repeats + 1):
            began = time.perf_counter()
            async with http.get(base + path) as response:
                await response.read()
                assert response.status == 200, (path, response.status)
            timings.append((time.perf_counter() - began) * 1000)
        cold, warm = timings[0], sorted(timings[1:])
        report(BENCH, "page_render_cold_ms", cold, "ms", page=name, **params)
        report(BENCH, "page_render_p50_ms", percentile(warm, 0.5), "ms", page=name, **params)
        p95 = percentile(warm, 0.95)
        report(BENCH, "page_render_p95_ms", p95, "ms", page=name, **params)
        headline[name] = p95
    return headline


async def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--members", type=int, default=500)
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args(argv)
    report = Reporter()
    async with bench_server() as server, server.pool("dashboard") as pool:
        await run(
            pool,
            report,
            messages=args.messages,
            members=args.members,
            days=args.days,
            repeats=args.repeats,
        )
    return 0


if __name__ == "__main__":
    sys.exit(event_loop.run(main()))
