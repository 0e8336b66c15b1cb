"""Issue 42.8: a day with one message that announces something has a digest (through the CLI),
and the dashboard shows a digest as Discord would, bold words bold, without literal `**`
(in a real browser)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.cli import main
from tests.bot.dashboard.browser import browser_page, dashboard, needs_chromium
from tests.bot.dashboard.conftest import GUILD, ROOT, SAMPLE


async def test_a_one_message_announcement_day_has_a_digest(
    cli_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("RETENTION_DAYS", "400")
    assert await asyncio.to_thread(main, ["import", str(SAMPLE), "--no-progress"]) == 0
    assert await asyncio.to_thread(main, ["episodes", "--guild", "Sample Hikers"]) == 0
    capsys.readouterr()
    argv = ["digest", "--guild", "Sample Hikers", "--day", "2026-05-12"]
    assert await asyncio.to_thread(main, argv) == 0
    out = capsys.readouterr().out
    assert "What happened on Tuesday, May 12" in out
    assert "next trip: the lighthouse loop" in out and "nothing to say" not in out


@needs_chromium
async def test_the_dashboard_shows_a_digest_without_markdown_marks(
    seeded: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    async with dashboard() as link, browser_page() as page:
        base = link.split("/login")[0]
        await page.goto(link)
        await page.goto(f"{base}/guild/{GUILD}?day=2026-05-06#digest")
        digest = page.locator("pre.digest")
        text = await digest.inner_text()
        assert "thermos" in text  # (Carol opted out: her words are not shown)
        assert "**" not in text and "<https://" not in text
        assert (
            "What happened on Wednesday, May 6" in await digest.locator("strong").first.inner_text()
        )
        jump = digest.locator("a[href^='https://discord.com/channels/']")
        assert await jump.count() == 1
