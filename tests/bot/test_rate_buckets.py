"""discord.py's rate-limit buckets: cleared when they double, not scanned per new bucket."""

from __future__ import annotations

import asyncio

import discord.http
import pytest

from bot.rate_buckets import AmortisedBucketClearing


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts discord.py's inactivity checks of a bucket."""
    counted = [0]
    is_inactive = discord.http.Ratelimit.is_inactive

    def counting(self: discord.http.Ratelimit) -> bool:
        counted[0] += 1
        return is_inactive(self)

    monkeypatch.setattr(discord.http.Ratelimit, "is_inactive", counting)
    return counted


def new_buckets(http: discord.http.HTTPClient, first: int, count: int) -> None:
    for channel in range(first, first + count):
        http.get_ratelimit(f"POST /channels/{channel}/messages")


async def test_a_thousand_channels_cost_a_few_scans_not_one_each(checks: list[int]) -> None:
    plain = discord.http.HTTPClient(asyncio.get_running_loop())
    new_buckets(plain, 0, 1000)
    assert checks[0] > 200_000  # discord.py alone: every bucket past 256 scans them all

    checks[0] = 0
    http = discord.http.HTTPClient(asyncio.get_running_loop())
    clearing = AmortisedBucketClearing.install(http)
    assert clearing is not None
    new_buckets(http, 0, 1000)
    assert len(http._buckets) == 1000  # all active: none dropped
    assert clearing.scans == 2 and checks[0] == 256 + 512


async def test_inactive_buckets_still_go(checks: list[int]) -> None:
    http = discord.http.HTTPClient(asyncio.get_running_loop())
    AmortisedBucketClearing.install(http)
    new_buckets(http, 0, 255)
    for bucket in http._buckets.values():  # five minutes without a request
        bucket._last_request -= 301
    new_buckets(http, 1000, 1)
    assert list(http._buckets) == ["POST /channels/1000/messages"]
