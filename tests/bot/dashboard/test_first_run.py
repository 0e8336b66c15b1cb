"""Issue 36's "done when": a new admin, with nothing configured (no DATABASE_URL: the embedded
PostgreSQL; no clock override), runs `memorybot import` on an export of the last days, then
`memorybot dashboard`, opens the printed link and sees the overview with the charts of the last
30 days: the imported messages drawn on the days they were said."""

from __future__ import annotations

import asyncio
import json
import re
import sys
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.bot.dashboard.browser import browser_page, dashboard, needs_chromium, shot
from tests.bot.dashboard.conftest import ROOT, SAMPLE

pytestmark = needs_chromium

BAR = re.compile(r"^([A-Z][a-z]{2} \d\d) Sample Hikers: (\d+)$")


@pytest.fixture
def new_admin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server_tmp_path: Path) -> Path:
    """A machine where nothing was set up: the CLI makes its own database under DATA_DIR."""
    for name in ("DATABASE_URL", "MEMORYBOT_NOW", "RETENTION_DAYS", "GEMINI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DATA_DIR", str(server_tmp_path / "data"))
    monkeypatch.setenv("LOG_DIR", str(tmp_path / "logs"))
    monkeypatch.setenv("LLM_PROVIDER", "offline")
    monkeypatch.setenv("TELEMETRY_STDOUT", "false")
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def recent_export(into: Path) -> Counter[str]:
    """The sample export moved so its last message was said two days ago; messages per UTC day
    as the chart labels them (May 04)."""
    into.mkdir()
    documents = {p.name: json.loads(p.read_text("utf-8")) for p in SAMPLE.glob("*.json")}
    said = [
        datetime.fromisoformat(m["timestamp"]) for d in documents.values() for m in d["messages"]
    ]
    shift = datetime.now(UTC) - timedelta(days=2) - max(said)
    days: Counter[str] = Counter()
    for name, document in documents.items():
        for message in document["messages"]:
            moved = datetime.fromisoformat(message["timestamp"]) + shift
            message["timestamp"] = moved.isoformat()
            days[moved.astimezone(UTC).strftime("%b %d")] += 1
        (into / name).write_text(json.dumps(document), encoding="utf-8")
    return days


async def test_import_then_dashboard_shows_the_last_30_days(new_admin: Path) -> None:
    days = recent_export(new_admin / "export")
    importer = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "import", str(new_admin / "export"), "--no-progress"
    )
    assert await importer.wait() == 0
    async with dashboard() as link, browser_page() as page:
        base = link.split("/login")[0]
        await page.goto(link)
        assert page.url == base + "/"
        assert await page.locator("svg.chart").count() == 5
        await page.click("nav.ranges >> text=30 days")  # the default: since the first message
        chart = page.locator("figure.chart-box", has_text="Messages per day")
        axis = await chart.locator("text.axis.x").all_text_contents()
        now = datetime.now(UTC)  # the first of 30 days (the day before, past midnight)
        assert {f"{now - timedelta(days=n):%b %d}" for n in (29, 30)} & set(axis)
        bars = [await bar.text_content() for bar in await chart.locator("rect title").all()]
        drawn = Counter({m[1]: int(m[2]) for bar in bars if (m := BAR.match(bar or ""))})
        assert drawn == days  # every imported message, on its day
        await shot(page, "first-run-overview")
