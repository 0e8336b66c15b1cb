"""The dashboard in a real browser (Debian's chromium, driven by Playwright): the printed link
logs in, every page renders with its charts, an admin action with and without
--allow-changes, and the live tail shows an event a CLI command wrote. Screenshots of each
page go to .artifacts/dashboard/ (ignored by git)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.bot.dashboard.browser import browser_page, dashboard, needs_chromium, shot
from tests.bot.dashboard.conftest import ALICE, CAROL, GUILD, ROOT, run_cli

pytestmark = needs_chromium


async def test_read_only_dashboard_in_a_browser(
    seeded: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    async with dashboard() as link, browser_page() as page:
        base = link.split("/login")[0]
        refused = await page.goto(base + "/")
        assert refused is not None and refused.status == 401
        assert await page.locator("h1").inner_text() == "Log in"
        wrong = await page.goto(base + "/login?token=wrong")
        assert wrong is not None and wrong.status == 401
        await shot(page, "login")

        await page.goto(link)
        assert page.url == base + "/"
        assert await page.locator("svg.chart").count() == 5
        assert await page.locator("svg.chart rect").count() > 0  # bars were drawn
        await shot(page, "overview")
        await page.click("text=Sample Hikers")
        assert await page.locator("svg.chart").count() == 1
        assert await page.locator("tr.restricted").count() >= 1
        await shot(page, "guild")
        await page.click("text=Alice")
        assert "What a reply would be given now" in await page.content()
        await shot(page, "member")
        await page.goto(f"{base}/guild/{GUILD}/member/{CAROL}")
        assert "Nothing is held about them" in await page.content()
        await page.goto(f"{base}/guild/{GUILD}/settings")
        assert "Read-only" in await page.content()
        await shot(page, "settings")
        await page.set_viewport_size({"width": 390, "height": 844})  # a phone
        await page.goto(base + "/")
        width = await page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390 + 1, "the overview scrolls sideways on a phone"
        await shot(page, "overview-phone")
        await page.set_viewport_size({"width": 1100, "height": 900})

        forget = f"{base}/action/forget?guild_id={GUILD}&user_id={ALICE}&statement=tomatoes"
        response = await page.goto(forget)
        assert response is not None and response.status == 403
        assert "--allow-changes" in await page.content()

        await page.goto(base + "/telemetry")
        await page.wait_for_function("document.getElementById('state').textContent == 'following'")
        export = ("user", "export", "--guild", "Sample Hikers", "--user", "bob", "--out", "b.json")
        assert await asyncio.to_thread(run_cli, *export) == 0
        row = page.locator("#events tbody tr", has_text="privacy_export")
        await row.first.wait_for(timeout=20_000)
        assert "Bob" in await row.first.inner_text()
        await shot(page, "telemetry")


async def test_an_admin_action_with_allow_changes(
    seeded: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    async with dashboard("--allow-changes") as link, browser_page() as page:
        base = link.split("/login")[0]
        await page.goto(link)
        await page.goto(f"{base}/guild/{GUILD}/member/{ALICE}")
        assert "tomatoes" in await page.locator("main").inner_text()
        await page.fill("input[name=statement]", "grows tomatoes")
        await page.click("text=Forget…")
        assert "Forget “grows tomatoes” about Alice" in await page.content()
        await shot(page, "confirm")
        await page.click("text=Yes, do it")
        await page.click("text=Back")
        assert "tomatoes" not in (await page.locator("main").inner_text()).lower()
