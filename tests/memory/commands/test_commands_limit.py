"""COMMANDS_PER_MINUTE counts the commands that change memory, and says the real wait."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import asyncpg

from memory.core.clock import FixedClock
from memory.core.telemetry import Telemetry
from tests.memory.commands.commands_support import ALICE, BOB, G, build, say


async def test_reads_are_not_counted_and_the_wait_is_the_real_one(
    db_pool: asyncpg.Pool, telemetry: Telemetry, members: None
) -> None:
    clock = FixedClock(datetime(2026, 1, 1, 12, tzinfo=UTC))
    bot = build(db_pool, telemetry, clock=clock, commands_per_minute=2)
    # A newcomer looks around: any number of reads, none refused.
    for _ in range(5):
        assert (await say(bot, ALICE, "who am I?")).outcome != "rate_limited"
        assert (await say(bot, ALICE, "what do you know about bob?")).outcome != "rate_limited"
        assert (await bot.whois(G, ALICE, BOB)).outcome != "rate_limited"
    assert (await say(bot, ALICE, "remember that I like tea")).outcome == "ok"
    clock.advance(timedelta(seconds=20))
    assert (await say(bot, ALICE, "remember that I like jam")).outcome == "ok"
    clock.advance(timedelta(seconds=17))
    refused = await say(bot, ALICE, "forget that I like jam")
    assert refused.outcome == "rate_limited"
    # The first write was 37 s ago: the limit lifts in 23 s, not "60s".
    assert "Please wait 23s" in (refused.reply or ""), refused.reply
    # Reads still go through while writes wait.
    assert (await say(bot, ALICE, "who am I?")).outcome != "rate_limited"
    clock.advance(timedelta(seconds=23))
    assert (await say(bot, ALICE, "forget that I like jam")).outcome != "rate_limited"
