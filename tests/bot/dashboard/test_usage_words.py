"""Issue 42.12: one meaning for one word. The overview's LLM calls, failed attempts and tokens
are the numbers `memorybot usage` totals for the same days; the offline provider's tokens,
which are our estimate, are told apart in both and counted in neither total."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from bot.cli import main
from tests.bot.dashboard.conftest import client


async def test_the_overview_counts_tokens_as_memorybot_usage_does(
    seeded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert await asyncio.to_thread(main, ["usage", "--days", "30"]) == 0
    report = capsys.readouterr().out
    total = next(line for line in report.splitlines() if line.startswith("total "))
    calls, failed, tokens_in, tokens_out = (
        int(number.replace(",", "")) for number in total.split()[1:5]
    )
    estimate = re.search(r"~([\d,]+) in, ~([\d,]+) out", report)
    assert estimate, report  # the seeded import summarised with the offline provider
    estimated = sum(int(group.replace(",", "")) for group in estimate.groups())
    assert estimated > 0
    async with client() as (http, sessions):
        await http.get(f"/login?token={sessions.token}")
        overview = await (await http.get("/")).text()
    said = re.search(r'<p class="muted"[^>]*>([^<]*LLM calls.*?)</p>', overview, re.S)
    assert said, overview
    text = " ".join(said.group(1).split())
    assert (
        f"{calls:,} LLM calls, {failed:,} failed attempts, {tokens_in + tokens_out:,} tokens"
        in (text)
    ), (text, total)
    assert f"~{estimated:,} tokens by our estimate (not billed, not in the total)" in text
