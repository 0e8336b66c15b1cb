"""Issue 42.11: the charts show an imported history. In a real browser, months after the
sample's days: by default the charts run since the first message (so its bars are there), a
range control narrows them, and the axes read as round numbers and month-day dates."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.bot.dashboard.browser import browser_page, dashboard, needs_chromium
from tests.bot.dashboard.conftest import GUILD, ROOT, client

pytestmark = needs_chromium

LATER = "2026-09-01T12:00:00+00:00"  # the sample's days (4-13 May) are months old


async def test_the_charts_run_since_the_first_message_with_a_range_control(
    seeded: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    monkeypatch.setenv("MEMORYBOT_NOW", LATER)
    async with dashboard() as link, browser_page() as page:
        base = link.split("/login")[0]
        await page.goto(link)
        heading = await page.locator("h2").first.inner_text()
        assert heading.startswith("Since 2026-05-04"), heading
        messages = page.locator("figure.chart-box", has_text="Messages per").locator("svg")
        assert await messages.locator("rect").count() > 0, "the imported days are drawn"
        ticks = await messages.locator("text.axis.y").all_text_contents()
        assert len(ticks) >= 3 and ticks[0] == "0", ticks
        dates = await messages.locator("text.axis.x").all_text_contents()
        assert 3 <= len(dates) <= 9 and all(re.fullmatch(r"[A-Z][a-z]{2} \d\d", d) for d in dates)
        assert "Messages (" in await page.locator("table").first.inner_text()

        await page.click("nav.ranges >> text=30 days")
        assert page.url.endswith("?range=30")
        assert (await page.locator("h2").first.inner_text()).startswith("Since 2026-08-03")
        messages = page.locator("figure.chart-box", has_text="Messages per").locator("svg")
        assert await messages.locator("rect").count() == 0  # nothing was said in August

        await page.goto(f"{base}/guild/{GUILD}")
        chart = page.locator("figure.chart-box", has_text="Messages per").locator("svg")
        assert await chart.locator("rect").count() > 0
        await page.click("nav.ranges >> text=7 days")
        chart = page.locator("figure.chart-box", has_text="Messages per").locator("svg")
        assert await chart.locator("rect").count() == 0


async def test_an_unknown_range_is_refused_with_a_line(seeded: Path) -> None:
    async with client() as (http, sessions):
        await http.get(f"/login?token={sessions.token}")
        response = await http.get("/?range=forever")
        assert response.status == 400 and "range must be one of" in await response.text()
