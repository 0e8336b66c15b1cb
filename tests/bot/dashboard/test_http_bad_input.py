"""Issue 42.4 and 42.10: what an admin (or a hand typing URLs) can put in the address bar is
answered with a status and a line, never a 500 with a traceback in the log; and the console's
guild, which the overview lists, has a page and settings like any other."""

from __future__ import annotations

import asyncio
import logging
import sys
from pathlib import Path

import pytest

from bot.cli import main
from tests.bot.dashboard.conftest import ALICE, GUILD, client

HUGE = "99999999999999999999999"


@pytest.mark.parametrize(
    ("path", "status", "line"),
    [
        (f"/guild/{HUGE}", 404, "no such guild"),
        (f"/guild/{HUGE}/settings", 404, "no such guild"),
        ("/guild/9223372036854775808", 404, "no such guild"),
        (f"/guild/{GUILD}/member/{HUGE}", 404, "no such member"),
        (f"/guild/{GUILD}/member/12", 404, "no such member"),
        (f"/guild/{GUILD}?day=garbage", 400, "YYYY-MM-DD"),
        (f"/guild/{GUILD}?day=2026-02-30", 400, "YYYY-MM-DD"),
        (f"/guild/{GUILD}?day=0001-01-01", 400, "out of range"),
        (f"/guild/{GUILD}?day=9999-12-31", 400, "out of range"),
        (f"/guild/abc/member/{ALICE}", 400, "must be a number"),
    ],
)
async def test_bad_addresses_get_a_status_and_a_line(
    seeded: Path, caplog: pytest.LogCaptureFixture, path: str, status: int, line: str
) -> None:
    async with client() as (http, sessions):
        await http.get(f"/login?token={sessions.token}")
        with caplog.at_level(logging.ERROR):
            response = await http.get(path)
        text = await response.text()
    assert response.status == status, text
    assert line in text and "Traceback" not in text
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


async def test_a_real_day_shows_its_digest(seeded: Path) -> None:
    async with client() as (http, sessions):
        await http.get(f"/login?token={sessions.token}")
        response = await http.get(f"/guild/{GUILD}?day=2026-05-04")
        assert response.status == 200
        assert "2026-05-04" in await response.text()


async def test_the_console_guild_has_a_page_and_settings(
    cli_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = cli_env / "script.txt"
    script.write_text("alice: the kettle is on\n/quit\n", encoding="utf-8")
    with script.open(encoding="utf-8") as stdin:
        monkeypatch.setattr(sys, "stdin", stdin)
        assert await asyncio.to_thread(main, ["console"]) == 0
    async with client() as (http, sessions):
        await http.get(f"/login?token={sessions.token}")
        overview = await (await http.get("/")).text()
        assert 'href="/guild/1"' in overview and "guild 1" in overview
        page = await http.get("/guild/1")
        assert page.status == 200 and "alice" in await page.text()
        assert (await http.get("/guild/1/settings")).status == 200


@pytest.mark.parametrize(
    ("action", "params", "status"),
    [
        ("forget", {"guild_id": str(GUILD), "user_id": HUGE, "statement": "x"}, 404),
        ("purge", {"guild_id": HUGE, "user_id": str(ALICE)}, 404),
        ("visibility", {"guild_id": HUGE, "channel_id": "2", "visibility": "public"}, 404),
        ("visibility", {"guild_id": str(GUILD), "channel_id": HUGE, "visibility": "public"}, 404),
        ("undo", {"guild_id": "x", "user_id": str(ALICE)}, 400),
    ],
)
async def test_bad_ids_in_an_action_form_get_a_status_and_a_line(
    seeded: Path, caplog: pytest.LogCaptureFixture, action: str, params: dict[str, str], status: int
) -> None:
    async with client(allow_changes=True) as (http, sessions):
        await http.get(f"/login?token={sessions.token}")
        with caplog.at_level(logging.ERROR):
            response = await http.get(f"/action/{action}", params=params)
        text = await response.text()
    assert response.status == status, text
    assert "no such" in text or "must be a number" in text
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
