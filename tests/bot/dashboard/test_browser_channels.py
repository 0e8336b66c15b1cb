"""Marking a channel restricted from a guild's settings page, in a real browser: with
--allow-changes it is confirmed, done through the same service as `memorybot settings
--visibility`, audited, and the channel's words leave the member pages at once; read-only,
the page offers nothing and the action is refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.bot.dashboard.browser import browser_page, dashboard, needs_chromium, shot
from tests.bot.dashboard.conftest import ALICE, GUILD, ROOT

pytestmark = needs_chromium

GENERAL = 800000000000000002  # Alice said she moved to Lisbon there; chat taught it
ROW = f"tr[data-channel='{GENERAL}']"


def _audit(cli_env: Path) -> list[dict[str, Any]]:
    log = (cli_env / "logs" / "telemetry.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in log.splitlines() if "dashboard_action" in line]


async def test_marking_a_channel_restricted_takes_its_words_off_the_member_page(
    seeded: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    async with dashboard("--allow-changes") as link, browser_page() as page:
        base = link.split("/login")[0]
        await page.goto(link)
        await page.goto(f"{base}/guild/{GUILD}/member/{ALICE}")
        assert "Lisbon" in await page.locator("main").inner_text()  # learned from #general

        await page.goto(f"{base}/guild/{GUILD}/settings")
        assert await page.locator(ROW).get_attribute("class") == ""
        await page.locator(ROW).get_by_role("button", name="Mark restricted…").click()
        assert "Mark #general restricted" in await page.locator("main").inner_text()
        await shot(page, "confirm-visibility")
        await page.click("text=Yes, do it")
        assert "#general marked restricted" in await page.locator("main").inner_text()
        await page.click("text=Back")
        assert await page.locator(ROW).get_attribute("class") == "restricted"
        assert "restricted" in await page.locator(ROW).inner_text()

        await page.goto(f"{base}/guild/{GUILD}/member/{ALICE}")
        assert "lisbon" not in (await page.locator("main").inner_text()).lower()
    audit = _audit(seeded)
    assert audit[-1]["action"] == "visibility" and audit[-1]["outcome"] == "ok"
    assert audit[-1]["channel_id"] == GENERAL and audit[-1]["visibility"] == "restricted"
    assert audit[-1]["guild_id"] == GUILD


async def test_marking_a_channel_is_refused_read_only(
    seeded: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    async with dashboard() as link, browser_page() as page:
        base = link.split("/login")[0]
        await page.goto(link)
        await page.goto(f"{base}/guild/{GUILD}/settings")
        assert await page.locator(f"{ROW} button").count() == 0
        asked = f"guild_id={GUILD}&channel_id={GENERAL}&visibility=restricted"
        refused = await page.goto(f"{base}/action/visibility?{asked}")
        assert refused is not None and refused.status == 403
        assert "--allow-changes" in await page.content()
        form = {"guild_id": str(GUILD), "channel_id": str(GENERAL), "visibility": "restricted"}
        posted = await page.request.post(
            f"{base}/action/visibility", form={**form, "confirm": "yes"}
        )
        assert posted.status == 403

        await page.goto(f"{base}/guild/{GUILD}/settings")
        assert "public" in await page.locator(ROW).inner_text()
        await page.goto(f"{base}/guild/{GUILD}/member/{ALICE}")
        assert "Lisbon" in await page.locator("main").inner_text()
    assert not _audit(seeded)
