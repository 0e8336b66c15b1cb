"""Issue 42.13: the live tail shows what happened, in a real browser. Cache lookups (several
per page view) stay out unless asked for, a reply names the member it answered, and the outcome
filter is a choice of the outcomes there are. A confirmation form's token works once."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from bot.cli import main
from bot.dashboard.auth import COOKIE
from tests.bot.dashboard.browser import browser_page, dashboard, needs_chromium
from tests.bot.dashboard.conftest import ALICE, GUILD, ROOT, client


@needs_chromium
async def test_the_tail_shows_what_happened_not_cache_lookups(
    seeded: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    script = seeded / "script.txt"
    script.write_text("Bot what is the next trip?\n/quit\n", encoding="utf-8")
    with script.open(encoding="utf-8") as stdin:
        monkeypatch.setattr(sys, "stdin", stdin)
        argv = ["console", "--guild", "Sample Hikers", "--as", "alice"]
        assert await asyncio.to_thread(main, argv) == 0
    show = ("memory", "show", "--guild", "Sample Hikers", "--user", "alice")
    assert await asyncio.to_thread(main, list(show)) == 0
    log = (seeded / "logs" / "telemetry.jsonl").read_text(encoding="utf-8")
    assert '"op": "cache"' in log or '"op":"cache"' in log  # there are lookups to leave out
    async with dashboard() as link, browser_page() as page:
        base = link.split("/login")[0]
        await page.goto(link)
        await page.goto(base + "/telemetry")
        await page.wait_for_function("document.getElementById('state').textContent == 'following'")
        reply = page.locator("#events tbody tr", has_text="reply")
        await reply.first.wait_for(timeout=20_000)
        cells = await reply.first.locator("td").all_inner_texts()
        assert cells[1] == "reply" and cells[4] == "Alice", cells
        ops = await page.locator("#events tbody tr td:nth-child(2)").all_inner_texts()
        assert "cache" not in ops, ops
        outcome = page.locator("select[name=outcome]")
        assert await outcome.count() == 1
        choices = await outcome.locator("option").all_inner_texts()
        assert {"any", "ok", "error"} <= set(choices), choices
        await page.goto(base + "/telemetry?quiet=1")
        cache = page.locator("#events tbody tr", has_text="cache")
        await cache.first.wait_for(timeout=20_000)


async def test_a_form_token_works_once(seeded: Path) -> None:
    target = {"guild_id": str(GUILD), "user_id": str(ALICE)}
    async with client(allow_changes=True) as (http, sessions):
        await http.get(f"/login?token={sessions.token}")
        page = await (await http.get("/action/undo", params=target)).text()
        token = page.split('name="form_token" value="', 1)[1].split('"', 1)[0]
        form = {**target, "form_token": token, "confirm": "yes"}
        first = await http.post("/action/undo", data=form)
        assert first.status == 200
        again = await http.post("/action/undo", data=form)
        assert again.status == 403 and "sent already" in await again.text()
        cookie = http.session.cookie_jar.filter_cookies(http.make_url("/"))[COOKIE].value
        assert not sessions.form_ok(cookie, token)
    log = (seeded / "logs" / "telemetry.jsonl").read_text(encoding="utf-8")
    audit = [json.loads(line) for line in log.splitlines() if "dashboard_action" in line]
    assert [a["action"] for a in audit] == ["undo"], "the second post changed nothing"
