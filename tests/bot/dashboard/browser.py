"""Driving the dashboard as an admin does: `memorybot dashboard` started as a process, its
printed link, and Debian's chromium driven by Playwright (no browser is downloaded)."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from tests.bot.dashboard.conftest import ARTIFACTS
from tests.support import needs

if TYPE_CHECKING:
    from playwright.async_api import Page

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# Under CI=true a missing browser fails the run with one line; elsewhere the tests skip.
needs_chromium = needs(
    CHROMIUM.exists(), "chromium at /usr/bin/chromium (apt-get install chromium)"
)
LINK = re.compile(r"http://127\.0\.0\.1:\d+/login\?token=\S+")


@asynccontextmanager
async def dashboard(*extra: str) -> AsyncIterator[str]:
    """`memorybot dashboard --port 0` as the admin starts it; yields the printed link."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "dashboard",
        "--port",
        "0",
        *extra,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=os.getcwd(),
    )
    try:
        assert process.stdout is not None
        async with asyncio.timeout(60):
            while not (match := LINK.search((await process.stdout.readline()).decode())):
                assert process.returncode is None, "the dashboard exited"
        yield match.group(0)
    finally:
        process.terminate()
        await process.wait()


@asynccontextmanager
async def browser_page() -> AsyncIterator[Page]:
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = await browser.new_page(viewport={"width": 1100, "height": 900})
            yield page
        finally:
            await browser.close()


async def shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
