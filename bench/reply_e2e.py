"""Reply overhead end to end: a MESSAGE_CREATE in, the reply's POST out, with the offline model.

    python -m bench.reply_e2e [--members 100] [--history 1000] [--rounds 2]

The real bot (`MemoryBot`, every cog, real discord.py) connects to the fake Discord of the
end-to-end tests (tests/e2e/fake_discord.py: a gateway websocket and REST on 127.0.0.1), run in
a process of its own (bench/reply_fake.py: `FakeProcess`), over a fresh database holding
`history` messages of the last two days from `members` members in as many channels (kept in
the fake's channel history too, so the bot's reconcile on connecting finds them; measuring
starts once that backfill is done and the table is sampled, as autovacuum keeps it). Then:

- one at a time: each member asks in their own channel and the next question waits for the
  answer; round 1 is every member's first question (memories built cold, within the reply
  budget), later rounds are warm;
- at once: the same members ask in their own channels in the same instant (warm); then
  `members` other members, who never asked, do the same (cold).

A reply's time runs from just before the fake dispatches the event to when the fake receives
the POST of the answer, timed in the fake's process: from outside, as Discord would. The bot's
own `reply` telemetry (the composer's part) is reported beside it, with the share of replies
that carried a member's memory and recalled messages (a burst degrades memory, see
memory/replies/_composer.py `_budget`). Channel cooldown is 0 and the
rate limits are raised: they are deliberate waits and refusals, not overhead.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import time
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING, Any, cast

from bench.database import BenchServer, bench_server
from bench.harness import bench_settings
from bench.report import Reporter, percentile
from db.messages import refresh_statistics
from memory.core import event_loop
from memory.core.clock import SystemClock
from memory.core.telemetry import Telemetry
from memory.wiring import open_memory

if TYPE_CHECKING:
    from bench.reply_fake import FakeProcess
    from bot.cogs.ingest import IngestCog

_log = logging.getLogger(__name__)

BENCH = "reply_e2e"
SETTINGS: dict[str, Any] = {
    "discord_token": "fake-token",
    "llm_provider": "offline",
    "telemetry_stdout": False,
    "reply_cooldown_seconds": 0,
    "replies_per_minute": 1000,
    "channel_replies_per_minute": 1000,
}


async def run(
    dsn: str,
    report: Reporter,
    *,
    members: int = 100,
    history: int = 1000,
    rounds: int = 2,
) -> dict[str, float]:
    """Start the bot against the fake, measure, print the figures; return the headline ones."""
    # The Discord adapter and the tests' fake Discord: only this bench needs them.
    from bench.reply_fake import FakeProcess
    from memory.ports import APOLOGY, SLOW_DOWN

    params = {"members": members, "channels": members, "history": history, "model": "offline"}
    composer: dict[int, dict[str, Any]] = {}  # channel id -> the `reply` event of its reply
    telemetry = Telemetry(keep_recent=10)
    telemetry.add_sink(
        lambda event: (
            composer.__setitem__(event["channel_id"], event)
            if event.get("op") == "reply" and "latency_ms" in event
            else None
        )
    )
    async with AsyncExitStack() as stack:
        # Twice the members: the second half first asks all at once, cold.
        fake = await stack.enter_async_context(FakeProcess(members=2 * members))
        memory = await stack.enter_async_context(
            # The pool as the bot opens it (DB_POOL_MIN/MAX), not the bench's.
            open_memory(
                bench_settings(database_url=dsn, **SETTINGS),
                clock=SystemClock(),
                telemetry=telemetry,
            )
        )
        for message in await fake.add_chat_history(history):
            memory.writer.submit(message)
        await memory.writer.flush()
        await _start_bot(stack, memory, fake.local.discord.guild.id, 2 * members)
        results = await _ask(_Phase(report, fake, composer), members, rounds, params)
        texts = await fake.answer_texts()
        failed = sum(text in (APOLOGY, SLOW_DOWN) for text in texts)
        report(BENCH, "answers_apologising", failed, "replies", of=len(texts), **params)
    return results


async def _start_bot(stack: AsyncExitStack, memory: Any, guild_id: int, members: int) -> None:
    """The real bot connected to the fake, stopped when `stack` closes, and settled as a live
    bot would be before anyone is timed: directory filled, history caught up, table sampled."""
    from bot.client import MemoryBot

    bot = MemoryBot(memory, guild_ready_timeout=0.05)
    task = asyncio.create_task(bot.start("fake-token"))
    stack.push_async_callback(_stop, bot, task)
    await asyncio.wait_for(bot.wait_until_ready(), 30)
    # load_extension executes the cog's module anew: its class is not importable here.
    ingest = cast("IngestCog", bot.get_cog("Ingest"))
    # The pause between channels of the catch-up is politeness towards Discord, not
    # overhead: 200 channels would take 200 s.
    ingest.backfiller.pause_seconds = 0
    await _directory_ready(memory, guild_id, members)
    # The reconcile of the channels' history on connecting: done before measuring.
    await ingest.backfill_done()
    # A live bot's messages table is sampled by autovacuum within a minute of its first
    # rows (an import samples it itself); this database is seconds old. Unsampled, the
    # planner would read the exchange of each hit through the whole guild.
    await refresh_statistics(memory.pool)


async def _ask(
    phase: _Phase, members: int, rounds: int, params: dict[str, Any]
) -> dict[str, float]:
    """The members one at a time for `rounds` rounds (the first cold), then all at once warm,
    then as many members who never asked all at once (cold)."""
    results: dict[str, float] = {}
    for number in range(1, rounds + 1):
        memories = "cold" if number == 1 else "warm"
        case = {**params, "memories": memories, "round": number}
        results |= await phase.run("", range(members), number, case, at_once=False)
    case = {**params, "memories": "warm"}
    results |= await phase.run("concurrent100", range(members), 0, case, at_once=True)
    case = {**params, "memories": "cold"}
    results |= await phase.run("concurrent100", range(members, 2 * members), 0, case, True)
    return results


class _Phase:
    """One way of asking (one at a time, or all at once), timed end to end and split into
    the composer's own time and everything else (gateway, cogs, typing, POST)."""

    def __init__(
        self, report: Reporter, fake: FakeProcess, composer: dict[int, dict[str, Any]]
    ) -> None:
        self.report = report
        self.fake = fake
        self.composer = composer

    async def run(
        self, what: str, asking: range, number: int, params: dict[str, Any], at_once: bool
    ) -> dict[str, float]:
        self.composer.clear()
        seconds = await self.fake.asking(asking, number, at_once=at_once)
        total = [s * 1000 for s in seconds]
        channels = [self.fake.local.extra_channels[index].id for index in asking]
        events = [self.composer.get(channel, {}) for channel in channels]
        inside = [event.get("latency_ms", 0.0) for event in events]
        outside = [whole - part for whole, part in zip(total, inside, strict=True)]
        prefix = f"reply_e2e_{what}_" if what else "reply_e2e_"
        results: dict[str, float] = {}
        for name, fraction in (("p50", 0.5), ("p99", 0.99), ("max", 1.0)):
            value = percentile(total, fraction)
            self.report(BENCH, f"{prefix}{name}_ms", value, "ms", samples=len(total), **params)
            results[f"{prefix}{name}_ms:{params['memories']}"] = value
        for name, fraction in (("p50", 0.5), ("p99", 0.99)):
            for part, values in (("composer", inside), ("outside_composer", outside)):
                metric = f"{prefix}{part}_{name}_ms"
                self.report(BENCH, metric, percentile(values, fraction), "ms", **params)
        for what_kind, key in (("with_member_memory", "memories"), ("with_recall", "recalled")):
            share = sum(1 for event in events if event.get(key)) / max(1, len(events))
            self.report(BENCH, f"{prefix}{what_kind}", round(share, 2), "share", **params)
        return results


async def _directory_ready(memory: Any, guild_id: int, members: int) -> None:
    """Wait until the member directory holds everyone (names in questions resolve)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        await memory.writer.flush()
        known = await memory.pool.fetchval(
            "SELECT count(*) FROM members WHERE guild_id = $1", guild_id
        )
        if known >= members:
            return
        await asyncio.sleep(0.05)
    raise TimeoutError("the member directory did not fill")


async def _stop(bot: Any, task: asyncio.Task[None]) -> None:
    await bot.close()
    await asyncio.wait_for(task, 30)


async def run_in(server: BenchServer, report: Reporter, **options: Any) -> dict[str, float]:
    """`run` in a fresh database of `server`."""
    async with server.database("reply_e2e") as dsn:
        return await run(dsn, report, **options)


async def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=100)
    parser.add_argument("--history", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    report = Reporter()
    async with bench_server() as server:
        await run_in(server, report, members=args.members, history=args.history, rounds=args.rounds)
    return 0


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    sys.exit(event_loop.run(main()))
