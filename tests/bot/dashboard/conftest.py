"""A guild for the dashboard's tests, seeded through the real import (the sample export under
docs/), with the privacy cases the pages must honour: a restricted channel (#trips), a member
who opted out (Carol) and a fact remembered then forgotten about Alice."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from bot.cli import main
from bot.dashboard import Sessions, build_app
from memory.core.clock import clock_from_env
from memory.core.models import Member
from memory.core.settings import load_settings
from memory.wiring import Memory, open_memory

ROOT = Path(__file__).resolve().parents[3]
SAMPLE = ROOT / "docs" / "sample-export"
GUILD = 800000000000000001
ALICE, BOB, CAROL = 800000000000000101, 800000000000000102, 800000000000000103
NOW = "2026-05-20T12:00:00+00:00"
FORGOTTEN = "Alice collects vintage postcards"
# Words that must appear on no page: the forgotten fact, #trips (restricted), Carol's messages.
SECRET_WORDS = ("postcards", "epipen", "wasps", "lighthouse", "ridge", "fog", "first aid")
ARTIFACTS = ROOT / ".artifacts" / "dashboard"


def run_cli(*argv: str) -> int:
    return main(list(argv))


@pytest.fixture
async def seeded(cli_env: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RETENTION_DAYS", "400")
    monkeypatch.setenv("MEMORYBOT_NOW", NOW)
    monkeypatch.setenv("TELEMETRY_STDOUT", "false")
    assert await asyncio.to_thread(run_cli, "import", str(SAMPLE), "--no-progress") == 0
    mark = ("settings", "--guild", "Sample Hikers", "--channel", "trips")
    assert await asyncio.to_thread(run_cli, *mark, "--visibility", "restricted") == 0
    optout = ("user", "optout", "--guild", "Sample Hikers", "--user", "carol", "--yes")
    assert await asyncio.to_thread(run_cli, *optout) == 0
    # Closed episodes summarised (extractively), as `memorybot episodes` does: titles have words.
    assert await asyncio.to_thread(run_cli, "episodes", "--guild", "Sample Hikers") == 0
    async with opened() as memory:
        alice = (await memory.members.get(GUILD, [ALICE]))[ALICE]
        admin = Member(GUILD, 1, username="admin")
        await memory.commands.remember(GUILD, admin, alice, FORGOTTEN, can_manage_guild=True)
        await memory.commands.remember(
            GUILD, admin, alice, "Alice grows tomatoes", can_manage_guild=True
        )
        await memory.commands.forget(
            GUILD, admin, alice, "collects vintage postcards", can_manage_guild=True
        )
    return cli_env


@asynccontextmanager
async def opened() -> AsyncIterator[Memory]:
    async with open_memory(load_settings(), clock=clock_from_env(), telemetry_stdout=False) as m:
        yield m


@asynccontextmanager
async def client(
    *, allow_changes: bool = False
) -> AsyncIterator[tuple[TestClient[web.Request, web.Application], Sessions]]:
    """The dashboard in this process, over the test database, with a test client."""
    async with opened() as memory:
        sessions = Sessions()
        app = build_app(memory, sessions=sessions, allow_changes=allow_changes)
        async with TestClient(TestServer(app)) as test_client:
            yield test_client, sessions
